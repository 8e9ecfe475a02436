package firefox_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

func FuzzParse(f *testing.F) {
	for _, rel := range []string{"firefox/gecko-1.json", "firefox/gecko-2.json", "firefox/processed-1.json",
		"firefox/processed-2.json", "firefox/processed-3.json"} {
		path := filepath.Join(proftest.RepoRoot(), "..", "shared", "corpus", rel)
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"meta":{"version":5,"interval":1,"startTime":0},"threads":[{"stringTable":["(root)","f (u:1:2)"],` +
		`"frameTable":{"schema":{"location":0},"data":[[0],[1]]},"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0],[0,1]]},` +
		`"samples":{"schema":{"stack":0,"time":1},"data":[[1,0],[null,1],[0,0.5]]}}]}`))
	f.Add([]byte(`{"meta":{"preprocessedProfileVersion":75,"version":36,"interval":1},"threads":[{"name":"T","pid":"1","tid":"2",` +
		`"samples":{"weightType":"tracing-ms","stack":[0,null],"time":[0,1.5],"weight":[1.5,1],"length":2}}],` +
		`"shared":{"stringArray":["f","u"],"funcTable":{"flags":[56],"name":[0],"source":[0],"lineNumber":[3],"columnNumber":[4],"length":1},` +
		`"frameTable":{"func":[0],"length":1},"stackTable":{"frame":[0],"prefixOffset":[0],"length":1},"sources":{"filename":[1],"length":1}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := fuzzcheck.Parse(t, data, func(data []byte) (*profile.Profile, error) { return firefox.Parse(bytes.NewReader(data)) })
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted invalid profile: %v", err)
		}
		s := session.New("fuzz", p, session.Options{})
		if err := firefox.Write(io.Discard, s.Profile, threadStacks(t, s, view.Options{}), opts); err != nil {
			t.Fatalf("Write of an accepted profile: %v", err)
		}
	})
}
