package folded_test

import (
	"bytes"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format/folded"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/profile"
)

// FuzzParseProfile: never a panic; what is accepted is a valid profile that
// DevTools' reconstruction runs on.
func FuzzParseProfile(f *testing.F) {
	f.Add([]byte("main a.js:1:1;f a.js:3 100\nmain a.js:1:1 50\n"))
	f.Add([]byte("a;b;c 1\n\n a;b 0\n"))
	f.Add([]byte("x 99999999999999999999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := fuzzcheck.Parse(t, data, func(data []byte) (*profile.Profile, error) { return folded.ParseProfile(bytes.NewReader(data)) })
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted an invalid profile: %v", err)
		}
		tl, err := calls.NewTimeline(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tl.Calls() {
			if c.Dur < 0 || c.Self < 0 {
				t.Fatalf("negative call %+v", c)
			}
		}
	})
}
