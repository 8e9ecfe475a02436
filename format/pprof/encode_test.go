package pprof_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// TestEncodeAsLibrary checks that Write, which encodes the profile itself,
// writes the bytes pprof's Profile.Write writes for the same profile: on
// the .cpuprofile fixtures, a trace of several threads (numeric labels), a
// deep generated profile, each as stacks of frames and of paths, with and
// without per-line tables (samples split over lines), under two views.
func TestEncodeAsLibrary(t *testing.T) {
	t.Parallel()
	files := nodeFixtures(t)
	for _, name := range []string{"devtools/two-workers.json.gz", traceWithEvents} {
		if f, ok := corpusFile(name); ok {
			files = append(files, f)
		}
	}
	data, err := proftest.DeepCPUProfile("comb", 300)
	if err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(t.TempDir(), "comb.cpuprofile")
	if err := os.WriteFile(deep, data, 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, deep)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			p := readNode(t, file)
			for _, vo := range []view.Options{{}, {View: view.JS}} {
				a := analyse(t, p, vo)
				byPaths := make([]profile.ThreadStacks, len(a.stacks))
				for i, th := range a.s.Threads() {
					ts, err := th.PathStacks(t.Context(), vo)
					if err != nil {
						t.Fatal(err)
					}
					byPaths[i] = ts
				}
				// And a thread without stacks written first: the
				// samples' labels are those of their own thread.
				none := append([]profile.ThreadStacks{{Thread: a.stacks[0].Thread}}, byPaths...)
				for k, stacks := range [][]profile.ThreadStacks{a.stacks, byPaths, none} {
					for _, opts := range []pprof.Options{{}, {Lines: lineTables(a)}} {
						var got, want bytes.Buffer
						if err := pprof.Write(&got, a.p, stacks, opts); err != nil {
							t.Fatal(err)
						}
						if err := pprof.WriteWithLibrary(&want, a.p, stacks, opts); err != nil {
							t.Fatal(err)
						}
						if !bytes.Equal(got.Bytes(), want.Bytes()) {
							t.Errorf("view %v, stacks %d, lines %v: %d bytes, the library %d", vo.View, k, opts.Lines != nil, got.Len(), want.Len())
						}
					}
				}
			}
		})
	}
}
