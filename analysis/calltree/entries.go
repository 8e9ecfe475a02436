package calltree

import (
	"github.com/jsprof/jsprof/profile"
)

// Entry is one entry of a thread's DevTools trees (TraceTree): a JS call
// (a ProfileCall) or a trace event, as a frame with a start and a duration.
// Trace events are frames of kind profile.KindEvent.
type Entry struct {
	Frame      profile.FrameID
	Node       profile.NodeID // the call's model node; NoNode for a trace event
	Start, Dur profile.Time
}

// FromEntries aggregates a thread's entries into the trees of DevTools'
// Call Tree and Bottom-Up tabs (TraceTree's TopDownRootNode and
// BottomUpRootNode, docs/devtools-engine.md §7), within the window
// [from, to).
//
// entries must be in DevTools' order (by start, then longest first) and
// already filtered: DevTools' forEachEvent skips a rejected or zero-length
// entry without touching its stack, so leaving it out changes nothing.
//
//  1. Walk the entries with a stack: pop every open entry that ends at or
//     before the next entry's start; the next entry is a child of the one
//     left on top (forEachEvent's nesting, overlaps included).
//  2. An entry's duration is clipped to the window; it is added to its
//     path node's total and self, and subtracted from its parent's self
//     (self = clipped duration − Σ clipped durations of direct children).
//  3. A function's total counts only its outermost entry on the stack
//     (recursion is not counted twice); its self sums every entry's self.
//
// Times are int64 ns. DevTools computes in float ms; with call durations
// snapped to 1e-3 µs (what the calls of analysis/calls hold) the two agree
// within 1e-6 ms.
func FromEntries(p *profile.Profile, th profile.ThreadID, entries []Entry, from, to profile.Time) *Tree {
	b := NewEntryBuilder(p, th, from, to)
	for i := range entries {
		b.Add(&entries[i])
	}
	return b.Finish()
}

// EntryBuilder is FromEntries one entry at a time, for entries that are
// made as they are walked and not held.
type EntryBuilder struct {
	t        *Tree
	from, to profile.Time
	stack    []openEntry
	start    profile.NodeID
	kids     []int32 // per top-down node: its children, up to fewKids + 1 (childOf)
}

type openEntry struct {
	node  int32
	model profile.NodeID // the call's model node, or NoNode
	end   profile.Time
}

// NewEntryBuilder returns a builder of the trees of thread th within the
// window [from, to).
func NewEntryBuilder(p *profile.Profile, th profile.ThreadID, from, to profile.Time) *EntryBuilder {
	t := newTree(p, th)
	t.scanKids = true // children found as childOf finds them
	return &EntryBuilder{t: t, from: from, to: to, stack: make([]openEntry, 0, 64), start: profile.NodeID(t.thread.Nodes.Start)}
}

// Add adds the next entry, in FromEntries' order.
func (b *EntryBuilder) Add(e *Entry) {
	t, from, to, start := b.t, b.from, b.to, b.start
	end := e.Start + e.Dur
	if e.Dur == 0 || end < from || e.Start > to {
		return
	}
	stack := b.stack
	for len(stack) > 0 && stack[len(stack)-1].end <= e.Start {
		n := stack[len(stack)-1].node
		stack = stack[:len(stack)-1]
		t.onStack[t.TopDown[n].Func]--
	}
	parent := openEntry{node: 0, model: profile.NoNode}
	if len(stack) > 0 {
		parent = stack[len(stack)-1]
	}
	d := min(end, to) - max(e.Start, from)
	f := t.funcID(e.Frame)
	for len(b.kids) < len(t.TopDown) {
		b.kids = append(b.kids, 0)
	}
	n := t.childOf(parent.node, f, b.kids)
	nd := &t.TopDown[n]
	nd.Total += d
	nd.Self += d
	nd.Calls++
	if parent.node != 0 {
		t.TopDown[parent.node].Self -= d
	}
	// Per model node and per (path, model node) too, for per-line costs.
	if e.Node != profile.NoNode {
		t.NodeSelf[e.Node-start] += d
		t.pathSelf.add(n, int32(e.Node-start), d)
	}
	if parent.model != profile.NoNode {
		t.NodeSelf[parent.model-start] -= d
		t.pathSelf.add(parent.node, int32(parent.model-start), -d)
	}
	if t.onStack[f] == 0 {
		t.Funcs[f].Total += d
	}
	t.onStack[f]++
	t.Funcs[f].Calls++
	t.Calls++
	b.stack = append(stack, openEntry{n, e.Node, end})
}

// Finish returns the trees of the entries added.
func (b *EntryBuilder) Finish() *Tree {
	t := b.t
	// Self times are final only now: sum them per function.
	for n := 1; n < len(t.TopDown); n++ {
		nd := &t.TopDown[n]
		t.Funcs[nd.Func].Self += nd.Self
	}
	for _, c := range t.topLevel() {
		t.TopDown[0].Total += t.TopDown[c].Total
	}
	return t
}

// TreeBuilder builds a tree from another tree's functions by adding self
// time to paths (see analysis/view.Tree).
type TreeBuilder struct {
	t   *Tree
	src *Tree
}

// NewTreeBuilder returns a builder of a tree over src's thread and
// functions (the same FuncIDs until Finish).
func NewTreeBuilder(src *Tree) *TreeBuilder {
	t := newTree(src.Profile, src.Thread)
	t.NodeSelf = src.NodeSelf
	t.Funcs = make([]Function, len(src.Funcs))
	for i, f := range src.Funcs {
		t.Funcs[i] = Function{Key: f.Key, Frame: f.Frame}
	}
	return &TreeBuilder{t: t, src: src}
}

// Child returns the child of node parent for function f, adding it if needed.
func (b *TreeBuilder) Child(parent int32, f FuncID) int32 { return b.t.child(parent, f) }

// Func returns the function of node n (−1 for the root).
func (b *TreeBuilder) Func(n int32) FuncID { return b.t.TopDown[n].Func }

// Add adds self time to node n, and calls to its count when countCalls.
func (b *TreeBuilder) Add(n int32, self profile.Time, calls int, countCalls bool) {
	nd := &b.t.TopDown[n]
	nd.Self += self
	if countCalls {
		nd.Calls += calls
		b.t.Calls += calls
	}
}

// Finish computes totals (sums over subtrees; a function's total counts its
// outermost nodes only) and returns the tree, with only the functions that
// have a node.
func (b *TreeBuilder) Finish() *Tree {
	t := b.t
	td := t.TopDown
	// A child's index is always above its parent's.
	for n := len(td) - 1; n >= 0; n-- {
		td[n].Total += td[n].Self
		if n > 0 {
			td[td[n].Parent].Total += td[n].Total
		}
	}
	used := make([]FuncID, len(t.Funcs))
	for n := 1; n < len(td); n++ {
		used[td[n].Func] = 1
	}
	var funcs []Function
	for i := range used {
		if used[i] != 0 {
			used[i] = FuncID(len(funcs))
			funcs = append(funcs, t.Funcs[i])
		} else {
			used[i] = -1
		}
	}
	t.Funcs = funcs
	t.frameFn = make([]FuncID, len(t.Profile.Frames))
	t.byName = nil
	t.funcOf = make(map[profile.FunctionKey]FuncID, len(funcs))
	for i, f := range funcs {
		t.funcOf[f.Key] = FuncID(i)
	}
	for n := 1; n < len(td); n++ {
		td[n].Func = used[td[n].Func]
	}
	t.addFuncs(t.outermost())

	return t
}

// SetLineSource makes t take its per-line costs (Lines) from src, the tree
// it was mapped from, through mapping (src node → t node; −1 where src's
// time is not shown).
func (t *Tree) SetLineSource(src *Tree, mapping []int32) {
	if src.lineSrc != nil { // mapped twice: compose
		m := make([]int32, len(src.lineMap))
		for i, x := range src.lineMap {
			m[i] = -1
			if x >= 0 {
				m[i] = mapping[x]
			}
		}
		src, mapping = src.lineSrc, m
	}
	t.lineSrc, t.lineMap = src, mapping
}
