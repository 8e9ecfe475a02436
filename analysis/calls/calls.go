package calls

import (
	"math"
	"slices"

	"github.com/jsprof/jsprof/internal/chunked"
	"github.com/jsprof/jsprof/profile"
)

// Call is one estimated call: a frame instance that stayed on the stack from
// Start for Dur, of which Self was not spent in callees.
type Call struct {
	Start       profile.Time
	Dur, Self   profile.Time   // durations in ns
	Node        profile.NodeID // the model node (its frame and input id)
	Depth       int32          // 0 for the outermost calls
	SampleIndex int32          // the sample that opened the call; −1 for a trace-id stack
	// InTree is false for a trace call that DevTools' treify leaves out of
	// the thread's tree (it overlaps its parent's end); its Self is then 0.
	InTree bool
}

// Visitor receives the calls of a walk: Open when a call starts (its Dur and
// Self are not known yet), Close when it ends. Calls nest: every Close matches
// the latest unclosed Open.
type Visitor interface {
	Open(c *Call)
	Close(c *Call)
}

// Walk runs DevTools' forEachFrame over the timeline and reports each call to
// v. The *Call passed to v is only valid during the callback.
func (tl *Timeline) Walk(v Visitor) {
	if tl.Len() == 0 {
		return
	}
	var st WalkState
	tl.WalkTo(v, &st, tl.Len())
	tl.FinishWalk(v, &st)
}

// WalkState is where a walk of the timeline stands between two samples:
// the calls open, with DevTools' float-ms start times and children's
// durations, and the nodes the last samples left. The zero value is the
// state before the first sample. A walk resumed from a copy (Clone) of a
// state reports what the walk that made it reported after it, so a long
// timeline can be walked a stretch at a time (the viewer's flame chart of
// a long recording).
type WalkState struct {
	next     int    // the sample read next
	stack    []Call // open calls
	startMs  []float64
	childMs  []float64
	prev     int32 // the last sample's node (the root before the first)
	gcParent int32 // with prev the GC node: the node its samples are stacked on, + 1
	node     int32 // + 1
}

// Next returns the index of the sample the walk reads next.
func (st *WalkState) Next() int { return st.next }

// Open returns the calls open, outermost first, their Dur and Self not
// known yet. The slice is the state's.
func (st *WalkState) Open() []Call { return st.stack }

// Clone returns a copy of st that does not share its storage.
func (st *WalkState) Clone() WalkState {
	c := *st
	c.stack, c.startMs, c.childMs = slices.Clone(st.stack), slices.Clone(st.startMs), slices.Clone(st.childMs)
	return c
}

// walker is a walk in progress: st advanced, calls reported to v.
type walker struct {
	tl *Timeline
	v  Visitor
	st *WalkState
}

func (w *walker) open(depth int32, x int32, i int, ms float64) {
	st := w.st
	st.stack = append(st.stack, Call{Node: w.tl.Node[x], Start: fromMicros(ms * 1000), Depth: depth, SampleIndex: int32(i), InTree: true})
	st.startMs = append(st.startMs, ms)
	st.childMs = append(st.childMs, 0)
	w.v.Open(&st.stack[len(st.stack)-1])
}

func (w *walker) closeTop(ms float64) {
	st := w.st
	k := len(st.stack) - 1
	if k < 0 { // DevTools ignores a close with nothing open
		return
	}
	dur := ms - st.startMs[k]
	if k > 0 {
		st.childMs[k-1] += dur
	}
	c := &st.stack[k]
	c.Dur = fromMicros(dur * 1000)
	c.Self = fromMicros((dur - st.childMs[k]) * 1000)
	w.v.Close(c)
	st.stack, st.startMs, st.childMs = st.stack[:k], st.startMs[:k], st.childMs[:k]
}

// WalkTo continues the walk st stands at (Walk's, from its zero value) up
// to sample hi, exclusive, reporting the calls to v.
func (tl *Timeline) WalkTo(v Visitor, st *WalkState, hi int) {
	w := &walker{tl: tl, v: v, st: st}
	var collect []int32
	prev, gcParent, node := st.prev, st.gcParent-1, st.node-1
	samples := tl.Cursor(st.next)
	for i := st.next; i < hi; i++ {
		id := samples.At(i)
		if id == prev {
			continue
		}
		t := tl.msAt(i)
		node = id
		prevNode := prev
		if tl.GC >= 0 && node == tl.GC {
			gcParent = prevNode
			w.open(tl.Depth[gcParent]+1, tl.GC, i, t)
			prev = id
			continue
		}
		if tl.GC >= 0 && prevNode == tl.GC && gcParent >= 0 {
			w.closeTop(t)
			prevNode = gcParent
			gcParent = -1
		}
		collect = collect[:0]
		for node >= 0 && tl.Depth[node] > tl.Depth[prevNode] {
			collect = append(collect, node)
			node = tl.Parent[node]
		}
		for prevNode >= 0 && prevNode != node {
			w.closeTop(t)
			if node >= 0 && tl.Depth[node] == tl.Depth[prevNode] {
				collect = append(collect, node)
				node = tl.Parent[node]
			}
			prevNode = tl.Parent[prevNode]
		}
		for k := len(collect) - 1; k >= 0; k-- {
			node = collect[k]
			w.open(tl.Depth[node], node, i, t)
		}
		prev = id
	}
	st.next = max(st.next, hi)
	st.prev, st.gcParent, st.node = prev, gcParent+1, node+1
}

// FinishWalk closes the calls still open at the end of the timeline, as
// the end of Walk does; st must stand after the last sample.
func (tl *Timeline) FinishWalk(v Visitor, st *WalkState) {
	w := &walker{tl: tl, v: v, st: st}
	prev, gcParent, node := st.prev, st.gcParent-1, st.node-1
	end := tl.msAt(tl.Len())
	if end == 0 || math.IsNaN(end) { // DevTools: timestamps[n] || profileEndTime
		end = devtoolsMillis(tl.Profile.Threads[tl.Thread].EndAsDevTools())
	}
	if node >= 0 && gcParent >= 0 && prev == tl.GC {
		w.closeTop(end)
		prev = gcParent
	}
	for x := prev; x >= 0 && tl.Parent[x] >= 0; x = tl.Parent[x] {
		w.closeTop(end)
	}
	st.prev, st.gcParent = prev, gcParent+1
}

// collector materialises calls in DevTools' order (the order they open).
type collector struct {
	calls []Call
	open  []int
}

func (c *collector) Open(x *Call) {
	c.open = append(c.open, len(c.calls))
	c.calls = append(c.calls, *x)
}

func (c *collector) Close(x *Call) {
	i := c.open[len(c.open)-1]
	c.open = c.open[:len(c.open)-1]
	c.calls[i] = *x
}

// Calls returns every call of the timeline in DevTools' order.
func (tl *Timeline) Calls() []Call {
	// Counting first costs a walk but sizes the result exactly: growing a
	// slice of a million calls by 1.25× steps would allocate five times it.
	c := &collector{calls: make([]Call, 0, tl.Count())}
	tl.Walk(c)
	return c.calls
}

// EachCall gives fn every call of the timeline in DevTools' order, as
// Calls returns them, without holding them: a first walk keeps each call's
// duration and self time (8 bytes, where a Call is 40), and the second
// gives each call as it opens, with those. A recursion 10⁴ deep held 21 M
// calls (847 MB) to print them. It stops at fn's first error, and returns
// it.
func (tl *Timeline) EachCall(fn func(*Call) error) error {
	ends := &durations{long: map[int][2]profile.Time{}}
	tl.Walk(ends)
	g := &giver{ends: ends, fn: fn}
	tl.Walk(g)
	return g.err
}

// durations is the Visitor of EachCall's first walk: each call's Dur and
// Self, by the order the calls open, in ns as uint32; a call with either
// of 2³²−1 ns (4.3 s) or more has them in long.
type durations struct {
	ds   chunked.Slice[[2]uint32]
	long map[int][2]profile.Time
	open []int
}

const longDur = math.MaxUint32

func (d *durations) Open(*Call) {
	d.open = append(d.open, d.ds.Len())
	d.ds.Append([2]uint32{})
}

func (d *durations) Close(c *Call) {
	i := d.open[len(d.open)-1]
	d.open = d.open[:len(d.open)-1]
	if c.Dur >= 0 && c.Dur < longDur && c.Self >= 0 && c.Self < longDur {
		*d.ds.Ptr(i) = [2]uint32{uint32(c.Dur), uint32(c.Self)}
		return
	}
	*d.ds.Ptr(i) = [2]uint32{longDur, longDur}
	d.long[i] = [2]profile.Time{c.Dur, c.Self}
}

func (d *durations) at(i int) (dur, self profile.Time) {
	v := d.ds.At(i)
	if v[0] == longDur {
		l := d.long[i]
		return l[0], l[1]
	}
	return profile.Time(v[0]), profile.Time(v[1])
}

// giver is the Visitor of EachCall's second walk.
type giver struct {
	ends *durations
	next int
	fn   func(*Call) error
	err  error
}

func (g *giver) Open(c *Call) {
	if g.err != nil {
		return
	}
	x := *c
	x.Dur, x.Self = g.ends.at(g.next)
	g.next++
	g.err = g.fn(&x)
}

func (g *giver) Close(*Call) {}

// Count returns the number of calls without keeping them.
func (tl *Timeline) Count() int {
	var c counter
	tl.Walk(&c)
	return int(c)
}

type counter int

func (c *counter) Open(*Call)  { *c++ }
func (c *counter) Close(*Call) {}

// Replay reports materialised calls (in DevTools' order, nested by Depth) to
// v as Open and Close events, as Walk would.
func Replay(cs []Call, v Visitor) {
	var stack []int
	for i := range cs {
		for len(stack) > 0 && cs[stack[len(stack)-1]].Depth >= cs[i].Depth {
			v.Close(&cs[stack[len(stack)-1]])
			stack = stack[:len(stack)-1]
		}
		v.Open(&cs[i])
		stack = append(stack, i)
	}
	for k := len(stack) - 1; k >= 0; k-- {
		v.Close(&cs[stack[k]])
	}
}

// IsTrace reports whether the timeline's profile came from a trace, whose
// calls DevTools reconstructs with its SamplesIntegrator (Integrate) rather
// than forEachFrame (Walk).
func (tl *Timeline) IsTrace() bool { return tl.Profile.Format == "chrome-trace" }
