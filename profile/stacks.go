package profile

import "iter"

// Stack is one span of a thread's time spent in one call path, as the
// analyses hand it to writers: the frames (root first) of the path, when
// it started and how long it lasted, and the category of that time. A
// stack with no frames is time in which nothing was on the stack (or
// nothing the view shows).
type Stack struct {
	Frames      []FrameID // root first; valid only until the next stack
	Time        Time      // start; a thread's stacks come in time order
	Weight      Time      // ns
	Category    CategoryID
	Subcategory uint8
	// Path, when above 0, identifies the call path among the thread's
	// stacks: stacks of one thread with the same Path have the same
	// Frames, so a writer that aggregates can look a path up once. 0 when
	// not known (the zero value).
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
}
