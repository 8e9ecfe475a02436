// Package calls estimates the JS calls ("ProfileCalls") of a sampled profile
// exactly as the Chrome DevTools trace engine does for a bare .cpuprofile
// (docs/devtools-engine.md §3 and §5): DevTools' own view of the call tree, its
// sorted and extrapolated sample times, its fixMissingSamples repair, its
// meta nodes, and its forEachFrame walk with GC samples stacked on the
// previous sample's stack.
//
// Times are int64 nanoseconds; DevTools computes in float64 milliseconds, and
// the two agree within 1e-3 µs (the only rounding is the extrapolated end
// of the last sample, to the nearest nanosecond).
package calls

import (
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/jsprof/jsprof/profile"
)

// MaxExpandedNodes bounds the tree DevTools would build from a call graph,
// in which every path through the graph becomes its own node.
const MaxExpandedNodes = 20_000_000

// Timeline is DevTools' CPUProfileDataModel of one thread: its call tree, and
// its samples after sorting, normalisation and repair.
//
// Tree nodes are "expanded" nodes: for a tree-shaped thread they are the
// thread's nodes (index i is node Thread.Nodes.Start+i); for a call graph every
// path from the root is a node of its own, as DevTools builds it.
type Timeline struct {
	Profile *profile.Profile
	Thread  profile.ThreadID

	// Node is the model node of each expanded node; Parent its parent (−1 for
	// the root, index 0); Depth its depth (root −1).
	Node   []profile.NodeID
	Parent []int32
	Depth  []int32

	// GC, Program and Idle are the meta nodes DevTools finds among the root's
	// children, or −1.
	GC, Program, Idle int32

	// raw holds the expanded node of each sample before fixMissingSamples
	// (the profile's own array, read only, less rawBase, when the thread's
	// nodes are the expanded ones), and fixes, ascending, the samples it repaired:
	// each takes the node of the sample before it, which is never itself
	// repaired. Sample, SamplesIn and Cursor give the samples as repaired:
	// a copy of 35 M samples to change a few would cost 140 MB and, in
	// page faults, a quarter of a second.
	raw   []int32
	raw16 []uint16 // instead of raw, when the profile's column is narrow or the copy fits
	// rawBase is subtracted from raw's values: the thread's first node
	// when they are the profile's own (read in place), else 0.
	rawBase int32
	fixes   []int32
	// Times the sample times (the profile's own array: read only), and End
	// the end of the last sample (extrapolated by one average interval, as
	// DevTools does; 0 without samples). TimeAt(i) is Times[i], or End for
	// i = len(Times).
	Times profile.Times
	End   profile.Time
	// msEnd is End as DevTools holds it (float64 ms); msAt gives the others.
	// Calls carry DevTools' float rounding, which exceeds 1e-3 µs on
	// epoch-µs clocks such as XS's.
	msEnd float64
	// Repaired counts samples changed by fixMissingSamples.
	Repaired int
	// byNode maps each node of the thread (NodeID − Thread.Nodes.Start) to
	// the expanded node DevTools maps its id to.
	byNode []int32
}

// narrowCopyNodes is the number of expanded nodes up to which a call
// graph's samples, copied by NewTimeline, are kept in 2 bytes (a variable
// for tests).
var narrowCopyNodes = 1 << 16

// NewTimeline builds DevTools' model of thread t.
func NewTimeline(p *profile.Profile, t profile.ThreadID) (*Timeline, error) {
	th := &p.Threads[t]
	tl := &Timeline{Profile: p, Thread: t, GC: -1, Program: -1, Idle: -1}
	byNode, err := tl.buildTree(th)
	if err != nil {
		return nil, err
	}
	tl.byNode = byNode
	tl.findMetaNodes(th)

	ss := p.ThreadSamples(t)
	n := ss.Node.Len()
	if th.Shape == profile.ShapeTree {
		// Expanded nodes are the thread's own, in order (buildTree): the
		// samples are the profile's, read in place less the thread's
		// first node (a trace's threads after the first were copied, 2
		// or 4 bytes a sample held to the end: web-dev's 290 k).
		n16, n32 := ss.Node.Columns()
		if n32 != nil {
			tl.raw = unsafe.Slice((*int32)(unsafe.SliceData(n32)), n)
		} else {
			tl.raw16 = n16
		}
		tl.rawBase = th.Nodes.Start
	} else if start := profile.NodeID(th.Nodes.Start); len(tl.Node) <= narrowCopyNodes {
		// A call graph's expanded nodes, copied: in 2 bytes a sample
		// while they allow.
		tl.raw16 = make([]uint16, n)
		for i, nd := range ss.Node.All() {
			tl.raw16[i] = uint16(byNode[nd-start])
		}
	} else {
		tl.raw = make([]int32, n)
		for i, nd := range ss.Node.All() {
			tl.raw[i] = byNode[nd-start]
		}
	}
	// Not copied: 35 M samples are 280 MB of times.
	tl.Times = ss.Time.Slice(0, n)
	switch {
	case n == 0:
	case th.LastSampleEnd != 0:
		tl.End = th.LastSampleEnd
	case n == 1:
		// DevTools' average interval is NaN here; it falls back to endTime.
		tl.End = th.EndAsDevTools()
	default:
		last, first := tl.Times.At(n-1), tl.Times.At(0)
		tl.End = last + roundDiv(last-first, profile.Time(n-1))
	}
	if n > 0 {
		tl.msEnd = devtoolsMillis(tl.End)
		if n >= 2 && th.LastSampleEnd == 0 {
			last, first := devtoolsMillis(tl.Times.At(n-1)), devtoolsMillis(tl.Times.At(0))
			tl.msEnd = last + (last-first)/float64(n-1)
		}
	}
	tl.fixMissingSamples()
	return tl, nil
}

// TimeAt returns Times[i], or End for i = len(Times).
func (tl *Timeline) TimeAt(i int) profile.Time {
	if i == tl.Times.Len() {
		return tl.End
	}
	return tl.Times.At(i)
}

// WalkEnd returns the time at which Walk closes the calls still open after
// the last sample (DevTools' timestamps[n] || profileEndTime, in float ms),
// to the nearest nanosecond, and whether every duration the walk computes
// from it rounds to the exact difference in ns from that time. A call's
// duration is round(end·1e6 − ms_k·1e6), and ms_k·1e6 differs from the
// sample's integer time by at most half an ulp of the ms value: so the end
// must not be within two ulps (in ns) of half-way between two nanoseconds,
// where the walk rounds call by call as float noise decides.
func (tl *Timeline) WalkEnd() (profile.Time, bool) {
	ms := tl.msAt(tl.Times.Len())
	if ms == 0 || math.IsNaN(ms) {
		ms = devtoolsMillis(tl.Profile.Threads[tl.Thread].EndAsDevTools())
	}
	ns := ms * 1e6
	r := math.Round(ns)
	ulp := (math.Nextafter(math.Abs(ms), math.Inf(1)) - math.Abs(ms)) * 1e6
	return profile.Time(r), math.Abs(ns-r) < 0.5-2*ulp
}

// sameID reports whether expanded nodes x and y have the same input id (the
// same model node): DevTools compares nodes by id.
func (tl *Timeline) sameID(x, y int32) bool { return x >= 0 && y >= 0 && tl.Node[x] == tl.Node[y] }

// msAt returns Times[i] as DevTools holds it, in float64 ms.
func (tl *Timeline) msAt(i int) float64 {
	if i == tl.Times.Len() {
		return tl.msEnd
	}
	return devtoolsMillis(tl.Times.At(i))
}

// devtoolsMillis converts t as DevTools does: µs (a JS number) divided by 1000.
func devtoolsMillis(t profile.Time) float64 {
	if t%1000 == 0 {
		return float64(t/1000) / 1000
	}
	return float64(t) / 1e6
}

// fromMicros converts a float µs value back to ns.
func fromMicros(us float64) profile.Time { return profile.TimeFromMicros(us) }
func roundDiv(a, b profile.Time) profile.Time {
	q, r := a/b, a%b
	if 2*r >= b {
		q++
	} else if 2*r <= -b {
		q--
	}
	return q
}

// buildTree builds the expanded tree and returns, for each node of the thread,
// the expanded node that DevTools maps its id to (the last copy built).
func (tl *Timeline) buildTree(th *profile.Thread) ([]int32, error) {
	p := tl.Profile
	base := profile.NodeID(th.Nodes.Start)
	nn := th.Nodes.Len()
	byNode := make([]int32, nn)
	if th.Shape == profile.ShapeTree {
		tl.Node = make([]profile.NodeID, nn)
		tl.Parent = make([]int32, nn)
		tl.Depth = make([]int32, nn)
		for i := range nn {
			nd := base + profile.NodeID(i)
			tl.Node[i] = nd
			byNode[i] = int32(i)
			if par := p.Nodes[nd].Parent; par == profile.NoNode {
				tl.Parent[i], tl.Depth[i] = -1, -1
			} else {
				tl.Parent[i] = int32(par - base)
				tl.Depth[i] = tl.Depth[par-base] + 1
			}
		}
		return byNode, nil
	}
	// A call graph: DevTools' translateProfileTree walks children with a LIFO
	// stack, building a new node for every visit; a node's id maps to the
	// copy built last.
	kids := make([][]profile.NodeID, nn)
	for _, e := range p.Edges {
		if e.From >= base && int(e.From-base) < nn {
			kids[e.From-base] = append(kids[e.From-base], e.To)
		}
	}
	tl.Node = []profile.NodeID{base}
	tl.Parent = []int32{-1}
	tl.Depth = []int32{-1}
	type item struct {
		node   profile.NodeID
		parent int32
	}
	var stack []item
	for _, c := range kids[0] {
		stack = append(stack, item{c, 0})
	}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if len(tl.Node) >= MaxExpandedNodes {
			return nil, fmt.Errorf("call graph expands to more than %d tree nodes", MaxExpandedNodes)
		}
		x := int32(len(tl.Node))
		tl.Node = append(tl.Node, it.node)
		tl.Parent = append(tl.Parent, it.parent)
		tl.Depth = append(tl.Depth, tl.Depth[it.parent]+1)
		byNode[it.node-base] = x
		for _, c := range kids[it.node-base] {
			stack = append(stack, item{c, x})
		}
	}
	return byNode, nil
}

// findMetaNodes scans the root's children in DevTools' order: the parsed
// tree holds a tree's children in reverse input order, and a call graph's in
// the order its LIFO walk built them.
func (tl *Timeline) findMetaNodes(th *profile.Thread) {
	p := tl.Profile
	n := len(tl.Node)
	for k := 1; k < n; k++ {
		i := n - k
		if th.Shape == profile.ShapeCallGraph {
			i = k
		}
		if tl.Parent[i] != 0 {
			continue
		}
		if tl.GC >= 0 && tl.Program >= 0 && tl.Idle >= 0 {
			break
		}
		switch p.Str(p.NodeFrame(tl.Node[i]).Name) {
		case "(garbage collector)":
			tl.GC = int32(i)
		case "(program)":
			tl.Program = int32(i)
		case "(idle)":
			tl.Idle = int32(i)
		}
	}
}

// bottom returns the depth-0 ancestor of x (the root for the root).
func (tl *Timeline) bottom(x int32) int32 {
	for tl.Parent[x] >= 0 && tl.Parent[tl.Parent[x]] >= 0 {
		x = tl.Parent[x]
	}
	return x
}

// fixMissingSamples finds the single (program) samples between two samples
// with the same bottom frame, which DevTools replaces by the sample before
// (tl.fixes). The samples it compares are the original ones: a repaired
// sample is never next to another.
func (tl *Timeline) fixMissingSamples() {
	if tl.raw16 != nil {
		tl.fixes = findMissing(tl, tl.raw16)
	} else {
		tl.fixes = findMissing(tl, tl.raw)
	}
	tl.Repaired = len(tl.fixes)
}

func findMissing[T int32 | uint16](tl *Timeline, s []T) []int32 {
	if tl.Program < 0 || len(s) < 3 {
		return nil
	}
	base := tl.rawBase
	program := T(tl.Program + base)
	// Room for as many fixes as there are (program) samples, counted
	// first: appended, a long recording's fixes were allocated twice
	// over, after reading, on fresh pages (samples-heavy: 500 KB for 28 k
	// fixes).
	n := count(s[1:len(s)-1], program)
	if n == 0 {
		return nil
	}
	fixes := make([]int32, 0, n)
	system := func(x int32) bool { return x == tl.Program || x == tl.GC || x == tl.Idle }
	for i := 1; i < len(s)-1; i++ {
		if s[i] != program {
			continue
		}
		if prev, next := int32(s[i-1])-base, int32(s[i+1])-base; !system(prev) && !system(next) && tl.bottom(prev) == tl.bottom(next) {
			fixes = append(fixes, int32(i))
		}
	}
	if len(fixes) == 0 {
		return nil
	}
	return fixes
}

// count returns how many of s are v: for 2-byte samples, four at a time.
func count[T int32 | uint16](s []T, v T) int {
	n := 0
	if s16, ok := any(s).([]uint16); ok {
		n, s16 = count16(s16, uint16(v)), s16[len(s16)&^3:]
		s = any(s16).([]T)
	}
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// count16 returns how many of s[:len(s)&^3] are v, four to a word: a
// lane is v when its XOR with v is zero, which adding 0x7fff to its low
// 15 bits and OR-ing its high bit tells without a carry into the next.
func count16(s []uint16, v uint16) int {
	const low, high = 0x7fff_7fff_7fff_7fff, 0x8000_8000_8000_8000
	vv := uint64(v) * 0x0001_0001_0001_0001
	n := 0
	// The words of s, read at any alignment in the machine's byte order:
	// each lane holds one of the values (their order does not matter to
	// a count).
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 2*len(s))
	for i := 0; i+8 <= len(b); i += 8 {
		x := binary.NativeEndian.Uint64(b[i:]) ^ vv
		n += bits.OnesCount64(^((x&low + low) | x) & high)
	}
	return n
}

// Len returns the number of samples.
func (tl *Timeline) Len() int { return max(len(tl.raw), len(tl.raw16)) }

// rawAt returns sample i's expanded node before repair.
func (tl *Timeline) rawAt(i int) int32 {
	if tl.raw16 != nil {
		return int32(tl.raw16[i]) - tl.rawBase
	}
	return tl.raw[i] - tl.rawBase
}

// Sample returns sample i's expanded node, as repaired.
func (tl *Timeline) Sample(i int) int32 {
	if _, fixed := slices.BinarySearch(tl.fixes, int32(i)); fixed {
		return tl.rawAt(i - 1)
	}
	return tl.rawAt(i)
}

// SampleCursor reads samples in increasing order, as repaired, without a
// search for each: a pass over millions of samples pays one comparison.
type SampleCursor struct {
	raw   []int32
	raw16 []uint16 // instead of raw, in 2 bytes
	base  int32    // Timeline.rawBase
	fixes []int32  // those at or after the cursor
}

// Cursor returns a cursor for passes over samples from lo on.
func (tl *Timeline) Cursor(lo int) SampleCursor {
	k, _ := slices.BinarySearch(tl.fixes, int32(lo))
	return SampleCursor{raw: tl.raw, raw16: tl.raw16, base: tl.rawBase, fixes: tl.fixes[k:]}
}

// At returns sample i's expanded node, as repaired; i must not be below the
// cursor's start nor below an i given before.
func (c *SampleCursor) At(i int) int32 {
	for len(c.fixes) > 0 && int(c.fixes[0]) < i {
		c.fixes = c.fixes[1:]
	}
	if len(c.fixes) > 0 && int(c.fixes[0]) == i {
		i--
	}
	if c.raw16 != nil {
		return int32(c.raw16[i]) - c.base
	}
	return c.raw[i] - c.base
}

// SamplesIn iterates over samples [lo, hi), as repaired.
func (tl *Timeline) SamplesIn(lo, hi int) iter.Seq2[int, int32] {
	return func(yield func(int, int32) bool) {
		c := tl.Cursor(lo)
		for i := lo; i < hi; i++ {
			if !yield(i, c.At(i)) {
				return
			}
		}
	}
}
