package profile

import (
	"fmt"
	"iter"
	"slices"
)

// Stack is one span of a thread's time spent in one call path, as the
// analyses hand it to writers: the frames (root first) of the path, when
// it started and how long it lasted, and the category of that time. A
// stack with no frames (Path 0 when the frames come from the paths) is
// time in which nothing was on the stack (or nothing the view shows).
type Stack struct {
	// Frames are the path's frames, root first, valid only until the next
	// stack; nil when the producer gives ThreadStacks.Paths and was asked
	// for paths alone (session.Thread.PathStacks), Path then telling them.
	Frames      []FrameID
	Time        Time // start; a thread's stacks come in time order
	Weight      Time // ns
	Category    CategoryID
	Subcategory uint8
	// Path, when above 0, identifies the call path among the thread's
	// stacks: stacks of one thread with the same Path have the same
	// Frames, so a writer that aggregates can look a path up once. 0 when
	// not known (the zero value). With ThreadStacks.Paths, Path is an
	// index in it (0 only for a stack without frames).
	Path int32
}

// ThreadStacks is one thread's stacks, in time order, under the view and
// transforms the analysis applied: their weights add up to the thread's
// time, and aggregating them gives its trees (a function's self time is
// the weight of the stacks it ends; its total, the weight of the stacks it
// is on, once per stack).
type ThreadStacks struct {
	Thread ThreadID
	// Stacks yields the stacks; the *Stack is only valid during the call.
	Stacks iter.Seq[*Stack]
	// Paths, when not nil, tells the call paths of the stacks (Stack.Path)
	// as a tree, so that a writer can make what it keeps for a new path
	// from what it made for the path's parent: a cost per path, not per
	// frame, which on deep stacks is the difference between linear and
	// quadratic (a chain 20 k deep met one frame at a time).
	Paths *PathTree
}

// PathTree is the tree of a thread's call paths: path p (Stack.Path) has
// the frames of path Parent[p] followed by Frame[p]. Path 0 is the empty
// path (Parent[0] is −1), and a path's parent comes before it
// (Parent[p] < p), so a pass from the last path to the first visits
// children before their parents.
type PathTree struct {
	Parent []int32
	Frame  []FrameID
}

// Len returns the number of paths, the empty one included.
func (t *PathTree) Len() int { return len(t.Parent) }

// AppendFrames appends the frames of path p to dst, root first: as many
// steps as the path is deep, for tests and for writers that want a path's
// frames once. A path outside the tree, or a tree that fails Check, stops
// the walk rather than looping or panicking.
func (t *PathTree) AppendFrames(dst []FrameID, p int32) []FrameID {
	n := len(dst)
	for ; p > 0 && int(p) < len(t.Parent) && int(p) < len(t.Frame) && len(dst)-n < len(t.Parent); p = t.Parent[p] {
		dst = append(dst, t.Frame[p])
	}
	slices.Reverse(dst[n:])
	return dst
}

// StackFrames returns st's frames: st.Frames, or when they are nil and ts
// has Paths, those of st.Path appended to buf[:0]. For writers that need a
// path's frames only the first time they meet it.
func (ts *ThreadStacks) StackFrames(st *Stack, buf []FrameID) []FrameID {
	if st.Frames != nil || ts.Paths == nil || st.Path <= 0 {
		return st.Frames
	}
	return ts.Paths.AppendFrames(buf[:0], st.Path)
}

// Check returns an error unless t is a tree whose frames are in p: a
// writer calls it before trusting the indexes.
func (t *PathTree) Check(p *Profile) error {
	if len(t.Frame) != len(t.Parent) {
		return fmt.Errorf("path tree: %d parents for %d frames", len(t.Parent), len(t.Frame))
	}
	if len(t.Parent) == 0 || t.Parent[0] != -1 {
		return fmt.Errorf("path tree: no empty path 0")
	}
	for i := 1; i < len(t.Parent); i++ {
		if par := t.Parent[i]; par < 0 || int(par) >= i {
			return fmt.Errorf("path tree: path %d has parent %d", i, par)
		}
		if f := t.Frame[i]; f < 0 || int(f) >= len(p.Frames) {
			return fmt.Errorf("path tree: frame %d of path %d is not in the profile (%d frames)", f, i, len(p.Frames))
		}
	}
	return nil
}
