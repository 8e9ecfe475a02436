package chrometrace_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

var update = flag.Bool("update", false, "rewrite golden files")

func parse(data []byte) (*profile.Profile, error) {
	return chrometrace.Parse(bytes.NewReader(data), chrometrace.Options{})
}

// TestGolden compares the profile read from each testdata/inputs file with
// its dump in testdata/golden (go test -update rewrites them).
func TestGolden(t *testing.T) {
	proftest.GoldenDumps(t, "testdata", parse)
}

// The reader streams: reading one byte at a time, or through format.Parse,
// gives the same dumps.
func TestGoldenStreamed(t *testing.T) {
	proftest.GoldenDumps(t, "testdata", func(data []byte) (*profile.Profile, error) {
		return chrometrace.Parse(iotest.OneByteReader(bytes.NewReader(data)), chrometrace.Options{})
	})
}

func TestGoldenDetected(t *testing.T) {
	proftest.GoldenDumps(t, "testdata", func(data []byte) (*profile.Profile, error) {
		return format.Parse(data, format.Options{})
	})
}

// TestErrorCases checks the error (or the diagnostics) of each bad input in
// testdata/errors: the message must give the byte offset and the JSON path
// of the problem, also when the input arrives one byte at a time.
func TestErrorCases(t *testing.T) {
	proftest.ErrorCases(t, "testdata/errors", parse, proftest.ErrorOptions{
		JSON: true,
		Check: func(c proftest.ErrorCase, p *profile.Profile, err error) []string {
			p1, err1 := chrometrace.Parse(iotest.OneByteReader(bytes.NewReader(c.Input)), chrometrace.Options{})
			switch {
			case (err == nil) != (err1 == nil):
				return []string{"one byte at a time: got error " + errText(err1) + ", whole: " + errText(err)}
			case err != nil && err.Error() != err1.Error():
				return []string{"one byte at a time: got error " + err1.Error() + ", whole: " + err.Error()}
			case err == nil && p.String() != p1.String():
				return []string{"one byte at a time: got a different profile"}
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

// Profile.String leaves out the trace bounds; they are checked here. The
// bounds start at TracingStartedInBrowser when there is one, and span every
// B, E, X and I event of every thread with a non-zero ts, except those
// named "…::UMA".
func TestGoldenBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		input string
		want  profile.Span
	}{
		{"web-array.json", profile.Span{Start: 900_000, End: 1_602_250}},
		{"cpuprofile-object.json", profile.Span{Start: 2_000_000, End: 2_040_000}},
		{"partial.json", profile.Span{Start: 10_000, End: 13_000}},
		{"profile-choice.json", profile.Span{}},
	}
	for _, tt := range tests {
		data, err := os.ReadFile(filepath.Join("testdata", "inputs", tt.input))
		if err != nil {
			t.Fatal(err)
		}
		p, err := parse(data)
		if err != nil {
			t.Fatalf("%s: %v", tt.input, err)
		}
		if p.Bounds != tt.want {
			t.Errorf("%s: got bounds %+v, want %+v", tt.input, p.Bounds, tt.want)
		}
	}
}
