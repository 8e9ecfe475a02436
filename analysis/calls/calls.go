package calls

import (
	"math"

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
	n := tl.Len()
	if n == 0 {
		return
	}
	stack := make([]Call, 0, 64) // open calls
	// DevTools' stackStartTimes and stackChildrenDuration, in float ms.
	startMs := make([]float64, 0, 64)
	childMs := make([]float64, 0, 64)
	open := func(depth int32, x int32, i int, ms float64) {
		stack = append(stack, Call{Node: tl.Node[x], Start: fromMicros(ms * 1000), Depth: depth, SampleIndex: int32(i), InTree: true})
		startMs = append(startMs, ms)
		childMs = append(childMs, 0)
		v.Open(&stack[len(stack)-1])
	}
	closeTop := func(ms float64) {
		k := len(stack) - 1
		if k < 0 { // DevTools ignores a close with nothing open
			return
		}
		dur := ms - startMs[k]
		if k > 0 {
			childMs[k-1] += dur
		}
		c := &stack[k]
		c.Dur = fromMicros(dur * 1000)
		c.Self = fromMicros((dur - childMs[k]) * 1000)
		v.Close(c)
		stack, startMs, childMs = stack[:k], startMs[:k], childMs[:k]
	}
	var collect []int32
	prev := int32(0) // the root
	gcParent := int32(-1)
	node := int32(-1)
	samples := tl.Cursor(0)
	for i := range n {
		id := samples.At(i)
		if id == prev {
			continue
		}
		t := tl.msAt(i)
		node = id
		prevNode := prev
		if tl.GC >= 0 && node == tl.GC {
			gcParent = prevNode
			open(tl.Depth[gcParent]+1, tl.GC, i, t)
			prev = id
			continue
		}
		if tl.GC >= 0 && prevNode == tl.GC && gcParent >= 0 {
			closeTop(t)
			prevNode = gcParent
			gcParent = -1
		}
		collect = collect[:0]
		for node >= 0 && tl.Depth[node] > tl.Depth[prevNode] {
			collect = append(collect, node)
			node = tl.Parent[node]
		}
		for prevNode >= 0 && prevNode != node {
			closeTop(t)
			if node >= 0 && tl.Depth[node] == tl.Depth[prevNode] {
				collect = append(collect, node)
				node = tl.Parent[node]
			}
			prevNode = tl.Parent[prevNode]
		}
		for k := len(collect) - 1; k >= 0; k-- {
			node = collect[k]
			open(tl.Depth[node], node, i, t)
		}
		prev = id
	}
	end := tl.msAt(n)
	if end == 0 || math.IsNaN(end) { // DevTools: timestamps[n] || profileEndTime
		end = devtoolsMillis(tl.Profile.Threads[tl.Thread].EndAsDevTools())
	}
	if node >= 0 && gcParent >= 0 && prev == tl.GC {
		closeTop(end)
		prev = gcParent
	}
	for x := prev; x >= 0 && tl.Parent[x] >= 0; x = tl.Parent[x] {
		closeTop(end)
	}
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
