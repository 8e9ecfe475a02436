package chrometrace_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// An event larger than Options.MaxEventBytes is an error located at the
// event: its offset and its JSON path ($[i] in the array form,
// traceEvents[i] in the object form). The inputs are megabytes, so they
// are built here rather than kept in testdata.
func TestMaxEventBytes(t *testing.T) {
	t.Parallel()
	big := func(size int) string {
		return `{"name":"big","ph":"X","pid":1,"tid":1,"ts":1,"args":{"s":"` + strings.Repeat("x", size) + `"}}`
	}
	const first = `{"name":"a","ph":"I","ts":1},`
	tests := []struct {
		c   proftest.ErrorCase
		max int
	}{
		{proftest.ErrorCase{Name: "array", Comment: "The second event of an array is larger than the limit.",
			Input: []byte(`[` + first + big(5<<20) + `]`), Error: `offset 30: \$\[1\]: event larger than 4194304 bytes`}, 4 << 20},
		{proftest.ErrorCase{Name: "object", Comment: "The second event of traceEvents is larger than the limit.",
			Input: []byte(`{"traceEvents":[` + first + big(5<<20) + `]}`), Error: `offset 45: traceEvents\[1\]: event larger than 4194304 bytes`}, 4 << 20},
		{proftest.ErrorCase{Name: "below the first window", Comment: "A limit below the reader's first 4 MiB window still holds.",
			Input: []byte(`[` + first + big(2<<20) + `]`), Error: `offset 30: \$\[1\]: event larger than 1048576 bytes`}, 1 << 20},
		{proftest.ErrorCase{Name: "member name", Comment: "A member name of the trace object larger than the limit.",
			Input: []byte(`{"` + strings.Repeat("x", 2<<20) + `":1,"traceEvents":[]}`), Error: `offset 1: \$: member name larger than 1048576 bytes`}, 1 << 20},
		{proftest.ErrorCase{Name: "within the limit", Comment: "An event of 5 MiB is read with a limit of 8 MiB.",
			Input: []byte(`[` + first + big(5<<20) + `]`), Diagnostics: `events-other-threads ×2: .*`}, 8 << 20},
	}
	for _, tt := range tests {
		proftest.RunErrorCases(t, []proftest.ErrorCase{tt.c}, func(data []byte) (*profile.Profile, error) {
			return chrometrace.Parse(bytes.NewReader(data), chrometrace.Options{MaxEventBytes: tt.max})
		}, proftest.ErrorOptions{JSON: true})
	}
}
