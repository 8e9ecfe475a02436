package folded_test

import (
	"bytes"
	"flag"
	"testing"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/folded"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

var update = flag.Bool("update", false, "rewrite golden files")

func parse(data []byte) (*profile.Profile, error) { return folded.ParseProfile(bytes.NewReader(data)) }

// TestGolden compares the profile read from each testdata/inputs file with
// its dump in testdata/golden (go test -update rewrites them).
func TestGolden(t *testing.T) {
	proftest.GoldenDumps(t, "testdata", parse)
}

// TestErrorCases checks the error (or the diagnostics) of each bad input in
// testdata/errors. Folded stacks are text: errors name the line, not an
// offset and a JSON path.
func TestErrorCases(t *testing.T) {
	proftest.ErrorCases(t, "testdata/errors", parse, proftest.ErrorOptions{})
}

// format.Parse detects folded stacks from their content and reads them the
// same way.
func TestGoldenDetected(t *testing.T) {
	proftest.GoldenDumps(t, "testdata", func(data []byte) (*profile.Profile, error) {
		return format.Parse(data, format.Options{})
	})
}
