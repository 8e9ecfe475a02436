package profile

import (
	"fmt"
	"strings"
)

// Diagnostic is a counted oddity of the input: something repaired, ignored or
// dropped while reading or analysing it.
type Diagnostic struct {
	Code    string // stable identifier, e.g. "negative-delta"
	Count   int64
	Message string // what happened, for people; may include the count
}

func (d Diagnostic) String() string { return d.Message }

// Diagnostics is a list of diagnostics in the order they were first reported.
type Diagnostics []Diagnostic

// Add records n occurrences of code. The message of the first report is kept;
// n ≤ 0 is ignored.
func (ds *Diagnostics) Add(code string, n int64, format string, args ...any) {
	if n <= 0 {
		return
	}
	for i := range *ds {
		if (*ds)[i].Code == code {
			(*ds)[i].Count += n
			return
		}
	}
	*ds = append(*ds, Diagnostic{Code: code, Count: n, Message: fmt.Sprintf(format, args...)})
}

// Count returns the count recorded for code.
func (ds Diagnostics) Count(code string) int64 {
	for _, d := range ds {
		if d.Code == code {
			return d.Count
		}
	}
	return 0
}

func (ds Diagnostics) String() string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s ×%d: %s\n", d.Code, d.Count, d.Message)
	}
	return b.String()
}
