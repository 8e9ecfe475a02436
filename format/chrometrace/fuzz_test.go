package chrometrace_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// FuzzParse: the trace reader never panics or hangs; what it rejects it
// rejects with a located *profile.ParseError; what it accepts passes
// Validate, and DevTools' reconstruction of every thread runs on it with
// nested, non-negative calls and entries.
func FuzzParse(f *testing.F) {
	f.Add([]byte(miniTrace))
	f.Add([]byte(`{"traceEvents":[` + strings.TrimSpace(miniTrace) + `]}`))
	var small bytes.Buffer
	if _, _, err := proftest.WriteLargeTrace(&small, 5, 30_000); err != nil {
		f.Fatal(err)
	}
	f.Add(small.Bytes())
	// Small corpus traces, when the shared corpus is next to this checkout.
	dir := filepath.Join(proftest.RepoRoot(), "..", "shared", "corpus", "speedscope", "trace-event")
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
			if data, err := os.ReadFile(path); err == nil && len(data) < 64<<10 {
				f.Add(data)
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := fuzzcheck.Parse(t, data, func(data []byte) (*profile.Profile, error) {
			return chrometrace.Parse(bytes.NewReader(data), chrometrace.Options{MaxEventBytes: 1 << 20})
		})
		if err != nil {
			var pe *profile.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *profile.ParseError: %T %v", err, err)
			}
			if pe.Offset < -1 || pe.Offset > int64(len(data)) {
				t.Fatalf("offset %d outside the input (%d bytes): %v", pe.Offset, len(data), err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted an invalid profile: %v", err)
		}
		for ti := range p.Threads {
			tl, err := calls.NewTimeline(p, profile.ThreadID(ti))
			if err != nil {
				continue // e.g. a call graph too large to expand; reported, not a crash
			}
			cs, entries := tl.IntegrateEntries(calls.IntegrateOptions{})
			for i, c := range cs {
				if c.Dur < 0 || c.Depth < 0 || (i > 0 && c.Depth > cs[i-1].Depth+1) {
					t.Fatalf("thread %d call %d: %+v after %+v", ti, i, c, cs[max(i-1, 0)])
				}
			}
			for i, e := range entries {
				if e.Level < 0 || (i > 0 && e.Level > entries[i-1].Level+1) || (e.Call < 0) == (e.Event < 0) {
					t.Fatalf("thread %d entry %d: %+v", ti, i, e)
				}
			}
		}
	})
}
