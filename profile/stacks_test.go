package profile

import (
	"slices"
	"strings"
	"testing"
)

func TestPathTree(t *testing.T) {
	p := &Profile{Frames: make([]Frame, 3)}
	good := &PathTree{Parent: []int32{-1, 0, 1, 1}, Frame: []FrameID{-1, 2, 0, 1}}
	if err := good.Check(p); err != nil {
		t.Fatal(err)
	}
	if got := good.AppendFrames([]FrameID{7}, 3); !slices.Equal(got, []FrameID{7, 2, 1}) {
		t.Errorf("AppendFrames(3) = %v, want [7 2 1]", got)
	}
	if got := good.AppendFrames(nil, 0); len(got) != 0 {
		t.Errorf("the empty path has frames %v", got)
	}
	// A bad tree or path stops the walk.
	loop := &PathTree{Parent: []int32{-1, 2, 1}, Frame: []FrameID{-1, 0, 1}}
	if got := loop.AppendFrames(nil, 1); len(got) > 3 {
		t.Errorf("a cycle gave %d frames", len(got))
	}
	if got := good.AppendFrames(nil, 9); len(got) != 0 {
		t.Errorf("a path outside the tree gave frames %v", got)
	}
	ts := ThreadStacks{Paths: good}
	if got := ts.StackFrames(&Stack{Path: 2}, nil); !slices.Equal(got, []FrameID{2, 0}) {
		t.Errorf("StackFrames from path 2 = %v, want [2 0]", got)
	}
	if got := ts.StackFrames(&Stack{Path: 2, Frames: []FrameID{1}}, nil); !slices.Equal(got, []FrameID{1}) {
		t.Errorf("StackFrames with frames = %v, want them", got)
	}
	for _, c := range []struct {
		tree PathTree
		want string
	}{
		{PathTree{Parent: []int32{-1, 0}, Frame: []FrameID{-1}}, "2 parents for 1 frames"},
		{PathTree{}, "no empty path"},
		{PathTree{Parent: []int32{0}, Frame: []FrameID{-1}}, "no empty path"},
		{PathTree{Parent: []int32{-1, 2, 0}, Frame: []FrameID{-1, 0, 0}}, "path 1 has parent 2"},
		{PathTree{Parent: []int32{-1, 1}, Frame: []FrameID{-1, 0}}, "path 1 has parent 1"},
		{PathTree{Parent: []int32{-1, 0}, Frame: []FrameID{-1, 3}}, "frame 3 of path 1 is not in the profile"},
		{PathTree{Parent: []int32{-1, 0}, Frame: []FrameID{-1, -1}}, "frame -1 of path 1"},
	} {
		err := c.tree.Check(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%v) = %v, want an error with %q", c.tree, err, c.want)
		}
	}
}
