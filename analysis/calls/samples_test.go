package calls

import (
	"slices"
	"testing"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// repairedCopy is fixMissingSamples as DevTools writes it: over a copy of
// the samples, each (program) sample between two samples of the same bottom
// frame replaced in place by the sample before it.
func repairedCopy(tl *Timeline) []int32 {
	s := make([]int32, tl.Len())
	for i := range s {
		s[i] = tl.rawAt(i)
	}
	if tl.Program < 0 || len(s) < 3 {
		return s
	}
	system := func(x int32) bool { return x == tl.Program || x == tl.GC || x == tl.Idle }
	prev, cur := s[0], s[1]
	for i := 1; i < len(s)-1; i++ {
		next := s[i+1]
		if cur == tl.Program && !system(prev) && !system(next) && tl.bottom(prev) == tl.bottom(next) {
			s[i] = prev
		}
		prev, cur = cur, next
	}
	return s
}

// TestRepairedSamples checks that the repaired samples read through Sample,
// SamplesIn and cursors (from several starts, reading a sample twice) are
// DevTools' repaired copy, on every thread of testdata's and the corpus's
// .cpuprofiles that has a repair.
func TestRepairedSamples(t *testing.T) {
	paths := proftest.Files(t, ".cpuprofile")
	repaired, narrow := 0, 0
	for _, path := range paths {
		read, err := format.ReadFile(path, nil, format.Options{})
		if err != nil {
			continue
		}
		// The samples' nodes as read, and in the other width (2 or 4 bytes).
		other := *read
		if other.Samples.Node.Narrow() {
			other.Samples.Node = profile.WideNodes(read.Samples.Node.Wide())
		} else {
			other.Samples.Node = profile.NodesOf(read.Samples.Node.Wide()...)
		}
		for _, p := range []*profile.Profile{read, &other} {
			for th := range p.Threads {
				tl, err := NewTimeline(p, profile.ThreadID(th))
				if err != nil || tl.Repaired == 0 {
					continue
				}
				repaired++
				if tl.raw16 != nil {
					narrow++
				}
				want := repairedCopy(tl)
				n := tl.Len()
				for i := range n {
					if got := tl.Sample(i); got != want[i] {
						t.Fatalf("%s thread %d: Sample(%d) = %d, want %d", path, th, i, got, want[i])
					}
				}
				for i, x := range tl.SamplesIn(0, n) {
					if x != want[i] {
						t.Fatalf("%s thread %d: SamplesIn: sample %d = %d, want %d", path, th, i, x, want[i])
					}
				}
				for _, lo := range []int{0, int(tl.fixes[0]), int(tl.fixes[0]) + 1, n / 2, n - 1} {
					c := tl.Cursor(lo)
					for i := lo; i < n; i++ {
						if a, b := c.At(i), c.At(i); a != want[i] || b != want[i] {
							t.Fatalf("%s thread %d: cursor from %d: sample %d = %d then %d, want %d", path, th, lo, i, a, b, want[i])
						}
					}
				}
			}
		}
	}
	t.Logf("%d .cpuprofiles, %d threads with repairs (%d in 2-byte samples)", len(paths), repaired, narrow)
	if repaired == 0 || narrow == 0 || narrow == repaired {
		t.Fatal("no thread with a repair in one of the widths: the test checks nothing there")
	}
}

// TestTimelineSamples checks every thread's samples as the timeline reads
// them, before repair, against the profile's: a tree-shaped thread's read
// in place less its first node (a trace's threads after the first too), a
// call graph's copied through the expanded nodes (in 2 bytes and in 4,
// with the same repairs); and the repaired ones against DevTools' repaired
// copy.
func TestTimelineSamples(t *testing.T) {
	offset, graphs := 0, 0
	for _, path := range repoProfiles(t) {
		p, err := format.ReadFile(path, nil, format.Options{})
		if err != nil {
			continue
		}
		for th := range p.Threads {
			tl, err := NewTimeline(p, profile.ThreadID(th))
			if err != nil {
				continue
			}
			info := &p.Threads[th]
			ss := p.ThreadSamples(profile.ThreadID(th))
			start := profile.NodeID(info.Nodes.Start)
			if tl.Len() != ss.Len() {
				t.Fatalf("%s thread %d: %d samples, want %d", path, th, tl.Len(), ss.Len())
			}
			for i := range tl.Len() {
				want := int32(ss.Node.At(i) - start) // a tree's expanded node
				if info.Shape == profile.ShapeCallGraph {
					want = tl.byNode[ss.Node.At(i)-start]
				}
				if got := tl.rawAt(i); got != want {
					t.Fatalf("%s thread %d: sample %d is expanded node %d, want %d", path, th, i, got, want)
				}
			}
			want := repairedCopy(tl)
			c := tl.Cursor(0)
			for i := range tl.Len() {
				if a, b := tl.Sample(i), c.At(i); a != want[i] || b != want[i] {
					t.Fatalf("%s thread %d: repaired sample %d is %d (cursor %d), want %d", path, th, i, a, b, want[i])
				}
			}
			if info.Shape == profile.ShapeTree {
				if start > 0 {
					offset++
				}
				continue
			}
			graphs++
			narrowCopyNodes = 0
			wide, err := NewTimeline(p, profile.ThreadID(th))
			narrowCopyNodes = 1 << 16
			if err != nil {
				t.Fatal(err)
			}
			if tl.raw16 == nil || wide.raw == nil {
				t.Fatalf("%s thread %d: the copies are not in 2 and 4 bytes", path, th)
			}
			if tl.Repaired != wide.Repaired || !slices.Equal(tl.fixes, wide.fixes) {
				t.Fatalf("%s thread %d: repaired %d and %d", path, th, tl.Repaired, wide.Repaired)
			}
			for i := range tl.Len() {
				if a, b := tl.Sample(i), wide.Sample(i); a != b {
					t.Fatalf("%s thread %d: sample %d is %d in 2 bytes, %d in 4", path, th, i, a, b)
				}
			}
		}
	}
	if offset == 0 {
		t.Fatal("no thread read in place after another thread's nodes")
	}
	t.Logf("%d threads read in place after another's nodes, %d call graphs", offset, graphs)
}
