package v8_test

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// dumpWithoutDiagnostics is the golden dump minus the diagnostics and the
// format line (a legacy input is written in the current form; sorted
// samples have no negative deltas left to report).
func dumpWithoutDiagnostics(p *profile.Profile) string {
	return regexp.MustCompile(`(?m)^(diag|format) .*\n`).ReplaceAllString(p.String(), "")
}

func roundTrip(t *testing.T, p *profile.Profile) *profile.Profile {
	t.Helper()
	var buf bytes.Buffer
	if err := v8.Write(&buf, p, v8.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	q, err := v8.ParseBytes(buf.Bytes(), v8.Limits{})
	if err != nil {
		t.Fatalf("reading back: %v\n%.500s", err, buf.String())
	}
	return q
}

// in → out → in gives the same model, for every shape the reader accepts.
func TestWriteRoundTrip(t *testing.T) {
	for _, tc := range dumpCases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := format.Parse([]byte(tc.input), format.Options{})
			if err != nil {
				t.Fatal(err)
			}
			q := roundTrip(t, p)
			got, want := dumpWithoutDiagnostics(q), dumpWithoutDiagnostics(p)
			// A legacy input's explicit end of the last sample has no place in
			// the current form (DevTools extrapolates it instead).
			lastEnd := regexp.MustCompile(` lastend=\d+`)
			got, want = lastEnd.ReplaceAllString(got, ""), lastEnd.ReplaceAllString(want, "")
			if got != want {
				t.Errorf("round trip differs:\n%s", proftest.Diff("first read", "read back", []byte(want), []byte(got)))
			}
		})
	}
}

func TestWriteRoundTripNodeProfiles(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/node/*.cpuprofile")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			p, err := format.ReadFile(f, nil, format.Options{})
			if err != nil {
				t.Fatal(err)
			}
			q := roundTrip(t, p)
			if got, want := dumpWithoutDiagnostics(q), dumpWithoutDiagnostics(p); got != want {
				t.Errorf("round trip differs:\n%.2000s", proftest.Diff("first read", "read back", []byte(want), []byte(got)))
			}
		})
	}
}
