package session

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/format/folded"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/format/svg"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// TestWritersFromPaths requires every writer of stacks to write the same
// bytes from PathStacks (frames told by the paths) as from Stacks (frames
// given), on testdata's profiles, a trace and a deep chain, under two
// views.
func TestWritersFromPaths(t *testing.T) {
	ctx := context.Background()
	writers := map[string]func(io.Writer, *profile.Profile, profile.ThreadStacks) error{
		"pprof": func(w io.Writer, p *profile.Profile, ts profile.ThreadStacks) error {
			return pprof.Write(w, p, []profile.ThreadStacks{ts}, pprof.Options{})
		},
		"speedscope": func(w io.Writer, p *profile.Profile, ts profile.ThreadStacks) error {
			return speedscope.Write(w, p, []profile.ThreadStacks{ts}, speedscope.Options{})
		},
		"firefox": func(w io.Writer, p *profile.Profile, ts profile.ThreadStacks) error {
			return firefox.Write(w, p, []profile.ThreadStacks{ts}, firefox.Options{})
		},
		"svg": func(w io.Writer, p *profile.Profile, ts profile.ThreadStacks) error {
			return svg.Write(w, p, ts, svg.Options{})
		},
		"folded": func(w io.Writer, p *profile.Profile, ts profile.ThreadStacks) error {
			fw := folded.NewWriter(p)
			fw.AddThread("", ts)
			_, err := fw.WriteTo(w)
			return err
		},
	}
	files, _ := filepath.Glob(filepath.Join(proftest.RepoRoot(), "testdata", "node", "*.cpuprofile"))
	files = append(files, filepath.Join(proftest.RepoRoot(), "format", "chrometrace", "testdata", "inputs", "web-array.json"))
	deep, err := proftest.DeepCPUProfile("comb", 300)
	if err != nil {
		t.Fatal(err)
	}
	deepFile := filepath.Join(t.TempDir(), "comb.cpuprofile")
	if err := os.WriteFile(deepFile, deep, 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, deepFile)
	checked := 0
	for _, file := range files {
		s, err := Load(ctx, file, Options{})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, th := range s.Threads() {
			for _, opts := range []view.Options{{}, {View: view.JS}} {
				for name, write := range writers {
					where := fmt.Sprintf("%s thread %d:%d view %v, %s", filepath.Base(file), th.Info().PID, th.Info().TID, opts.View, name)
					var want, got bytes.Buffer
					ts, err := th.Stacks(ctx, opts)
					if err != nil {
						t.Fatal(err)
					}
					errWant := write(&want, s.Profile, ts)
					pts, err := th.PathStacks(ctx, opts)
					if err != nil {
						t.Fatal(err)
					}
					errGot := write(&got, s.Profile, pts)
					if fmt.Sprint(errWant) != fmt.Sprint(errGot) {
						t.Errorf("%s: error %v from the paths, %v from the frames", where, errGot, errWant)
					}
					if !bytes.Equal(got.Bytes(), want.Bytes()) {
						t.Errorf("%s: %d bytes from the paths differ from the %d from the frames", where, got.Len(), want.Len())
					}
					if errWant == nil && want.Len() > 0 {
						checked++
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("%d outputs compared: too few to tell", checked)
	}
}
