package speedscope_test

import (
	"flag"
	"testing"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden compares the profile read from each testdata/inputs file with
// its dump in testdata/golden (go test -update rewrites them).
func TestGolden(t *testing.T) {
	proftest.GoldenDumps(t, "testdata", speedscope.ParseBytes)
}

// format.Parse detects speedscope files (those with $schema before shared
// and profiles) and reads them the same way; the others it hands to the
// .cpuprofile reader, which rejects them.
func TestGoldenDetected(t *testing.T) {
	proftest.GoldenDumps(t, "testdata", func(data []byte) (*profile.Profile, error) {
		if !speedscope.Sniff(data) {
			return speedscope.ParseBytes(data)
		}
		return format.Parse(data, format.Options{})
	})
}

// TestErrorCases checks the error (or the diagnostics) of each bad input in
// testdata/errors: the message must give the byte offset and the JSON path
// of the problem. format.Parse gives the same error for inputs it detects
// as speedscope.
func TestErrorCases(t *testing.T) {
	proftest.ErrorCases(t, "testdata/errors", speedscope.ParseBytes, proftest.ErrorOptions{
		JSON: true,
		Check: func(c proftest.ErrorCase, _ *profile.Profile, err error) []string {
			if err == nil || !speedscope.Sniff(c.Input) {
				return nil
			}
			if _, ferr := format.Parse(c.Input, format.Options{}); ferr == nil || ferr.Error() != err.Error() {
				return []string{"format.Parse: got error " + errString(ferr) + ", want the reader's"}
			}
			return nil
		},
	})
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
