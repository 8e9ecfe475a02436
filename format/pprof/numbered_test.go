package pprof_test

import (
	"bytes"
	"testing"

	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// TestWriteNumberedPaths writes one thread's stacks given by frames (each
// merged with the Sample of the same locations by a key of them), by paths
// (told by numbers of their frames), and mixed both ways: the output must
// be the same. The paths include pairs of distinct paths with the same
// frames, which must share a Sample either way.
func TestWriteNumberedPaths(t *testing.T) {
	p, err := v8.ParseBytes(proftest.LargeCPUProfile(7, 300, 3000), v8.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	th := &p.Threads[0]
	// Paths: a path per node (its frames from the root), then a second
	// path for every tenth node, under the same parent path, of the same
	// frames.
	tree := &profile.PathTree{Parent: []int32{-1}, Frame: []profile.FrameID{-1}}
	pathOf := map[profile.NodeID]int32{}
	for n := profile.NodeID(th.Nodes.Start); n < profile.NodeID(th.Nodes.End); n++ {
		parent := int32(0)
		if q := p.Nodes[n].Parent; q != profile.NoNode {
			parent = pathOf[q]
		}
		pathOf[n] = int32(len(tree.Parent))
		tree.Parent = append(tree.Parent, parent)
		tree.Frame = append(tree.Frame, p.Nodes[n].Frame)
	}
	twin := map[int32]int32{}
	for n, path := range pathOf {
		if n%10 == 0 {
			twin[path] = int32(len(tree.Parent))
			tree.Parent = append(tree.Parent, tree.Parent[path])
			tree.Frame = append(tree.Frame, tree.Frame[path])
		}
	}
	if err := tree.Check(p); err != nil {
		t.Fatal(err)
	}
	ss := p.ThreadSamples(0)
	// Stack i is given by its path (mode 0), by its frames alone (1), or
	// by both (2, as merge gives them); keyed writes every stack as frames
	// and its path, without the tree of paths.
	const pathOnly, framesOnly, both = 0, 1, 2
	write := func(mode func(i int) int, keyed bool) []byte {
		stacks := func(yield func(*profile.Stack) bool) {
			var st profile.Stack
			for i := range ss.Node.All() {
				path := pathOf[ss.Node.At(i)]
				if tw, ok := twin[path]; ok && i%2 == 1 {
					path = tw
				}
				st = profile.Stack{Time: ss.Time.At(i), Weight: 1000, Path: path}
				if m := mode(i); m != pathOnly || keyed {
					st.Frames = tree.AppendFrames(nil, path)
					if m == framesOnly && !keyed {
						st.Path = 0
					}
				}
				if !yield(&st) {
					return
				}
			}
		}
		var buf bytes.Buffer
		ts := []profile.ThreadStacks{{Thread: 0, Stacks: stacks, Paths: tree}}
		if keyed {
			ts[0].Paths = nil
		}
		if err := pprof.Write(&buf, p, ts, pprof.Options{}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	keyed := write(func(int) int { return both }, true)
	for name, mode := range map[string]func(int) int{
		"paths":              func(int) int { return pathOnly },
		"paths, then frames": func(i int) int { return min(i%3, framesOnly) },
		"frames, then paths": func(i int) int { return (i + 1) % 3 % 2 },
		"frames and paths":   func(int) int { return both },
		"all three":          func(i int) int { return (i + 1) % 3 },
	} {
		if got := write(mode, false); !bytes.Equal(got, keyed) {
			t.Errorf("%s: %d bytes, not the %d written from frames", name, len(got), len(keyed))
		}
	}
}
