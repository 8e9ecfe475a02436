package firefox_test

import (
	"flag"
	"testing"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGolden compares the profile read from each testdata/inputs file with
// its dump in testdata/golden (go test -update rewrites them).
func TestGolden(t *testing.T) {
	proftest.GoldenDumps(t, "testdata", firefox.ParseBytes)
}

// format.Parse detects every input as a Firefox profile and reads it the
// same way.
func TestGoldenDetected(t *testing.T) {
	proftest.GoldenDumps(t, "testdata", func(data []byte) (*profile.Profile, error) {
		return format.Parse(data, format.Options{})
	})
}

// TestErrorCases checks the error (or the diagnostics) of each bad input in
// testdata/errors: the message must give the byte offset and the JSON path
// of the problem. format.Parse gives the same error for the inputs it
// detects as Firefox profiles.
func TestErrorCases(t *testing.T) {
	proftest.ErrorCases(t, "testdata/errors", firefox.ParseBytes, proftest.ErrorOptions{
		JSON: true,
		Check: func(c proftest.ErrorCase, _ *profile.Profile, err error) []string {
			if err == nil || !firefox.Sniff(c.Input) {
				return nil
			}
			if _, ferr := format.Parse(c.Input, format.Options{}); ferr == nil || ferr.Error() != err.Error() {
				return []string{"format.Parse: got a different error: " + errText(ferr)}
			}
			return nil
		},
	})
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
