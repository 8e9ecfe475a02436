package calls

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// TestStackOf compares the integrator's stacks, written from the last one
// (stackOf), with stacks written whole and their native frames taken out
// after (as DevTools' makeProfileCallsForStack and extractStackTrace do),
// with and without ShowAllEvents, for every thread of the repository's
// profiles and traces and of two corpus traces with native frames: the
// samples in order, in random order (stacks that share little), and with
// GC frames on top.
func TestStackOf(t *testing.T) {
	paths := repoProfiles(t)
	natives := 0
	rng := rand.New(rand.NewPCG(3, 4))
	for _, path := range paths {
		if strings.HasSuffix(path, ".gz") && !strings.Contains(path, "web-dev-with-commit") && !strings.Contains(path, "invalid-animation") {
			continue
		}
		p, err := format.ReadFile(path, nil, format.Options{})
		if err != nil {
			continue // the repository's broken inputs
		}
		for th := range p.Threads {
			tl, err := NewTimeline(p, profile.ThreadID(th))
			if err != nil || len(tl.Node) == 0 {
				continue
			}
			for _, all := range []bool{false, true} {
				it := newIntegrator(tl, IntegrateOptions{ShowAllEvents: all}, false)
				for x := range it.native {
					if it.native[x] {
						natives++
					}
				}
				want := func(x, gc int32) []int32 {
					var st []int32
					for y := x; y >= 0 && tl.Parent[y] >= 0; y = tl.Parent[y] {
						st = append(st, y)
					}
					slices.Reverse(st)
					if gc >= 0 {
						st = append(st, gc)
					}
					return slices.DeleteFunc(st, func(y int32) bool { return !all && it.native[y] })
				}
				check := func(x, gc int32) {
					var got []int32
					for _, f := range it.stackOf(x, gc) {
						got = append(got, f.x)
					}
					if w := want(x, gc); !slices.Equal(got, w) {
						t.Fatalf("%s thread %d (all %t): stack of %d (gc %d) %v, want %v", path, th, all, x, gc, got, w)
					}
				}
				n := int32(len(tl.Node))
				for i := range tl.Len() {
					check(tl.Sample(i), -1)
				}
				for range 2000 {
					gc := int32(-1)
					if rng.IntN(4) == 0 {
						gc = rng.Int32N(n)
					}
					check(rng.Int32N(n), gc)
				}
			}
		}
	}
	if natives == 0 {
		t.Log("no native frames in the inputs (the shared corpus is absent?)")
	}
}

// repoProfiles lists the repository's profiles and traces: its
// .cpuprofile files and the trace reader's test inputs.
func repoProfiles(t *testing.T) []string {
	paths := proftest.Files(t, ".cpuprofile")
	return append(paths, proftest.Files(t, ".json", filepath.Join("format", "chrometrace", "testdata"))...)
}
