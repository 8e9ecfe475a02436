package calltree

import (
	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/profile"
)

// Interval is a span of a thread's time during which one top-down node was
// the innermost open one (0, the root: nothing open).
type Interval struct {
	Start, End profile.Time
	Node       int32
}

// lookup returns the existing child of parent for frame f, or −1. It does
// not change t, so it is safe for concurrent use once t is built.
func (t *Tree) lookup(parent int32, f profile.FrameID) int32 {
	fn, ok := t.findFunc(t.Profile.FunctionKey(f))
	if !ok {
		return -1
	}
	if n, ok := t.childIdx[[2]int32{parent, int32(fn)}]; ok {
		return n
	}
	if t.scanKids {
		for c := t.TopDown[parent].FirstChild; c >= 0; c = t.TopDown[c].NextSibling {
			if t.TopDown[c].Func == fn {
				return c
			}
		}
	}
	return -1
}

// intervalWalk turns a walk's opens and closes into intervals, clipped to
// [from, to], with zero-length ones left out.
type intervalWalk struct {
	t        *Tree
	from, to profile.Time
	last     profile.Time
	stack    []int32
	yield    func(Interval) bool
	stopped  bool
}

func (w *intervalWalk) emit(at profile.Time) {
	at = min(max(at, w.from), w.to)
	if at > w.last && !w.stopped {
		top := int32(0)
		if n := len(w.stack); n > 0 {
			top = w.stack[n-1]
		}
		w.stopped = !w.yield(Interval{w.last, at, top})
	}
	w.last = max(w.last, at)
}

func (w *intervalWalk) open(at profile.Time, n int32) {
	w.emit(at)
	w.stack = append(w.stack, n)
}

func (w *intervalWalk) close(at profile.Time) {
	w.emit(at)
	w.stack = w.stack[:len(w.stack)-1]
}

// EntryIntervals replays the walk FromEntries made over entries (the same
// entries and window) and yields, in time order, the intervals of the
// window with the node innermost in each: a time-ordered form of the tree,
// whose intervals add up to each node's self time (for entries that nest).
func (t *Tree) EntryIntervals(entries []Entry, from, to profile.Time, yield func(Interval) bool) {
	w := &intervalWalk{t: t, from: from, to: to, last: from, yield: yield}
	type open struct {
		node int32
		end  profile.Time
	}
	var stack []open
	for i := range entries {
		if w.stopped {
			return
		}
		e := &entries[i]
		end := e.Start + e.Dur
		if e.Dur == 0 || end < from || e.Start > to {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].end <= e.Start {
			w.close(stack[len(stack)-1].end)
			stack = stack[:len(stack)-1]
		}
		parent := int32(0)
		if len(stack) > 0 {
			parent = stack[len(stack)-1].node
		}
		n := t.lookup(parent, e.Frame)
		if n < 0 {
			panic("calltree: EntryIntervals: entries differ from the tree's")
		}
		stack = append(stack, open{n, end})
		w.open(e.Start, n)
	}
	for k := len(stack) - 1; k >= 0; k-- {
		w.close(stack[k].end)
	}
	w.emit(to)
}

// CallIntervals is EntryIntervals for a tree made by Build or BuildWindow
// of tl (window [from, to]).
func (t *Tree) CallIntervals(tl *calls.Timeline, from, to profile.Time, yield func(Interval) bool) {
	if t.sampleTD != nil {
		t.sampleIntervals(tl, from, to, yield)
		return
	}
	w := &callIntervals{intervalWalk{t: t, from: from, to: to, last: from, yield: yield}, tl.Profile}
	tl.Walk(w)
	w.emit(to)
}

type callIntervals struct {
	intervalWalk
	p *profile.Profile
}

func (w *callIntervals) Open(c *calls.Call) {
	parent := int32(0)
	if n := len(w.stack); n > 0 {
		parent = w.stack[n-1]
	}
	n := w.t.lookup(parent, w.p.Nodes[c.Node].Frame)
	if n < 0 {
		panic("calltree: CallIntervals: calls differ from the tree's")
	}
	w.open(c.Start, n)
}

func (w *callIntervals) Close(c *calls.Call) { w.close(c.Start + c.Dur) }
