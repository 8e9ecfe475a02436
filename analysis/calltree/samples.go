package calltree

import (
	"cmp"
	"slices"
	"sync"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/internal/pages"
	"github.com/jsprof/jsprof/profile"
)

// Trees of a tree-shaped thread from its samples, without the calls.
//
// DevTools' forEachFrame walk makes one call per entry of a node onto the
// stack, so its cost is the number of calls: 1.4 M for the 48 MB DevTools
// fixture, 43 M for a 50 MB recording of a deep recursion. For a tree-shaped
// thread every number of the trees is a sum over samples instead:
//
//   - a call's duration is the union of the sample intervals whose stack
//     holds it, so a top-down node's total is the sum of the intervals of the
//     samples under it, and its self those of the samples at it (clipped to
//     the window as the calls would be);
//   - the calls a sample opens are the nodes from its own up to (not
//     including) the lowest common ancestor with the previous sample's
//     node, so a node's call count is a subtree sum of +1 at each sample's
//     node and −1 at each such ancestor;
//   - a function's total counts its outermost calls: the totals of the
//     top-down nodes with no ancestor of the same function;
//   - the walk's GC rule (a (garbage collector) sample stacked on the
//     previous sample's stack) makes a GC node under each such parent.
//
// Top-down nodes and functions are numbered in the order the walk would
// create them (by the sample that first opens them, then by depth), so the
// tree is the walk's, node for node. The cost is one pass over the samples,
// one lowest-common-ancestor climb per change of node (bounded by the
// depth change), and passes over the nodes.
//
// Times are the timeline's int64 ns; the walk computes a call's duration
// and self as DevTools does, in float ms, and agrees with these sums within
// a nanosecond while a thread's times stay below 2^50 ns (13 days) and the
// extrapolated end is not half-way between two nanoseconds (WalkEnd): a
// profile on an epoch clock (XS), or such an end, keeps the walk, with
// DevTools' rounding.

// maxSampleTreeTime bounds the times for which the walk's float ms equal
// the samples' ns (see above, and calls.Timeline.WalkEnd).
const maxSampleTreeTime = 1 << 50

// fromSamples returns the tree of tl over [from, to] (clip) or over all its
// time, or nil when the thread is not a tree or its times are too large for
// the sums to equal the walk's.
func fromSamples(tl *calls.Timeline, clip bool, from, to profile.Time) *Tree {
	p, thr := tl.Profile, &tl.Profile.Threads[tl.Thread]
	n := tl.Len()
	nn := len(tl.Node)
	if thr.Shape != profile.ShapeTree || nn != thr.Nodes.Len() || n == 0 {
		return nil
	}
	base := profile.NodeID(thr.Nodes.Start)
	for x, nd := range tl.Node {
		if nd != base+profile.NodeID(x) {
			return nil
		}
	}
	times := tl.Times
	end, exact := tl.WalkEnd()
	if tmax := max(abs(times.At(0)), abs(times.At(n-1)), abs(end)); !exact || tmax >= maxSampleTreeTime {
		return nil
	}

	// The top-down nodes (40 bytes each, the tree's largest array) are
	// allocated first, with room for a node per model node and some GC
	// nodes: allocated last, after the pass's arrays and the items had
	// taken the first of the holes the reader's tables left, they found
	// no hole large enough in about half the runs of the many-nodes shape
	// and took 14 MB of fresh memory (peak RSS 92 or 106 MB from run to
	// run; docs/performance.md §5g). Since the CLI gives the free heap
	// back before the trees (§5i) the order matters less: sized exactly
	// after the items instead, the peak did not change.
	var topDown []Node
	if splitSamples(n, nn) == 0 {
		topDown = make([]Node, 1, nn+nn/8+64)
		// Its pages, fresh from the system (the CLI gave the free heap
		// back after reading, docs/performance.md §5i), are faulted in
		// on the idle core while this one passes over the samples (§5l):
		// as many as there are model nodes, about the nodes made.
		pages.PopulateAhead(pages.Bytes(topDown[:nn]))
	}

	// One pass over the samples: self time and first sample per node, call
	// counts as differences, and the GC samples' parents. A long run of
	// samples is passed over in two halves at once.
	var sums *sampleSums
	// Where samples far outnumber nodes (a long recording), the common
	// ancestors the pass climbs to are found from the subtrees' ends
	// (scanSamples); a table of them costs a pass over the nodes, which
	// the pass over a tree of as many nodes as samples does not repay.
	var after []int32
	if n >= 8*nn {
		after = subtreeEnds(tl.Parent)
	}
	if mid := splitSamples(n, nn); mid > 0 && mid < n {
		var second *sampleSums
		var wg sync.WaitGroup
		wg.Go(func() {
			prev, gcParent := stateAt(tl, mid)
			second = scanSamples(tl, after, clip, from, to, end, mid, n, prev, gcParent)
		})
		sums = scanSamples(tl, after, clip, from, to, end, 0, mid, 0, -1)
		wg.Wait()
		sums.merge(second)
	} else {
		sums = scanSamples(tl, after, clip, from, to, end, 0, n, 0, -1)
	}
	self, first, inc, gcs := sums.self, sums.first, sums.inc, sums.gcs
	gc := tl.GC
	par, depth := tl.Parent, tl.Depth

	// Subtree sums, children before parents (a node's parent has a smaller
	// index): calls, and the first sample that opens each node.
	for x := nn - 1; x > 0; x-- {
		if q := par[x]; q >= 0 {
			inc[q] += inc[x]
			first[q] = min(first[q], first[x])
		}
	}

	// The opened nodes (and GC nodes) in the walk's creation order: a
	// model node's index, or −2−p for the GC node stacked on model node p
	// (p = −1: on none). Four bytes an item: with its sort keys alongside
	// (16 bytes), they were 5.6 MB of the many-nodes shape's trees.
	opened := len(gcs)
	for x := 1; x < nn; x++ {
		if first[x] < int32(n) {
			opened++
		}
	}
	gcItem := func(g int32) int32 { return -2 - g }
	var items []int32
	var sortAt []int32 // the counting sort's counts
	// By first sample, then by depth. The nodes one sample opens are a
	// chain, whose deeper nodes have larger indexes, and each GC node has a
	// first sample of its own (a GC sample, which opens no model node): so
	// a stable counting sort by first sample of the items in index order is
	// that order, without comparing. It takes a count per sample, so a
	// profile of far more samples than nodes is sorted by comparing.
	if sortByCounting(n, opened) {
		sortAt = make([]int32, n+1)
		at := sortAt
		for x := 1; x < nn; x++ {
			if f := first[x]; f < int32(n) {
				at[f+1]++
			}
		}
		for _, g := range gcs {
			at[g.first+1]++
		}
		for i := 1; i <= n; i++ {
			at[i] += at[i-1]
		}
		items = make([]int32, opened)
		for x := 1; x < nn; x++ {
			if f := first[x]; f < int32(n) {
				items[at[f]] = int32(x)
				at[f]++
			}
		}
		for g, a := range gcs {
			items[at[a.first]] = gcItem(g)
			at[a.first]++
		}
	} else {
		type item struct{ first, depth, x int32 }
		keyed := make([]item, 0, opened)
		for x := 1; x < nn; x++ {
			if first[x] < int32(n) {
				keyed = append(keyed, item{first[x], depth[x], int32(x)})
			}
		}
		for g, a := range gcs {
			d := int32(0)
			if g >= 0 {
				d = depth[g] + 1
			}
			keyed = append(keyed, item{a.first, d, gcItem(g)})
		}
		slices.SortFunc(keyed, func(a, b item) int {
			if c := cmp.Compare(a.first, b.first); c != 0 {
				return c
			}
			return cmp.Compare(a.depth, b.depth)
		})
		items = make([]int32, len(keyed))
		for i, it := range keyed {
			items[i] = it.x
		}
	}

	// The pass's arrays that are done with hold the tree's: the first
	// samples become each model node's top-down node, the sort's counts
	// the children counts, and the self times NodeSelf (a model node's
	// self is its samples', a GC node's added below). The per-path costs
	// are derived from those when asked for (samplePaths). Made anew, the
	// four were 9.8 MB of the many-nodes shape's trees, which set its peak.
	td := first // model node → top-down node
	clear(td)
	var kids []int32 // children per top-down node
	if len(sortAt) > len(items) {
		kids = sortAt[:len(items)+1]
		clear(kids)
	} else {
		kids = make([]int32, len(items)+1)
	}
	rootSelf := self[0]
	self[0] = 0 // a sample at the root opens no call
	// Which model nodes are their function's outermost on their path, found
	// on the idle core while this one makes the top-down nodes below; for a
	// tree of many nodes only (modelOutermostNodes).
	large := nn >= modelOutermostNodes && len(p.Strings) <= 4*nn
	outerDone := make(chan []bool, 1)
	if large {
		go func() { outerDone <- modelOutermost(p, base, par) }()
	} else {
		outerDone <- nil // the tree is walked
	}
	// Functions found by name in a tree of many nodes alike, for the same
	// reason (a slot per string of the profile).
	t := newTreeWith(p, tl.Thread, self, pathCosts{}, large)
	t.samplePaths = &samplePaths{gc: gc}
	t.scanKids = true
	// The last sample lasted until the walk's end, which the timeline's
	// End is unless DevTools' float ms rounded it.
	t.fromSums, t.rootSelf = end == tl.End && end >= times.At(n-1), rootSelf
	if topDown == nil {
		// Samples in two halves (far more of them than nodes): no core
		// is idle to fault the nodes in, so they are made exactly, once
		// their number is known. A long recording's GC nodes outnumbered
		// the room guessed, and the nodes were allocated twice on fresh
		// pages after reading (samples-heavy: 165 KB, then 180 KB).
		topDown = make([]Node, 1, len(items)+1)
	}
	topDown[0] = t.TopDown[0]
	t.TopDown = slices.Grow(topDown, len(items))
	t.sampleTD = td
	for _, x := range items {
		if x < 0 {
			g := -2 - x // the model node the GC node is stacked on
			pt := int32(0)
			if g > 0 {
				pt = td[g]
			}
			nd := t.childOf(pt, t.funcID(p.Nodes[base+profile.NodeID(gc)].Frame), kids)
			if t.gcTD == nil {
				t.gcTD = map[int32]int32{}
			}
			t.gcTD[g] = nd
			at := gcs[g]
			t.samplePaths.gcs = append(t.samplePaths.gcs, gcPath{nd, at.self})
			t.NodeSelf[gc] += at.self
			t.addCalls(nd, at.self, int(at.calls))
			continue
		}
		pt := int32(0)
		if q := par[x]; q > 0 {
			pt = td[q]
		}
		nd := t.childOf(pt, t.funcID(p.Nodes[base+profile.NodeID(x)].Frame), kids)
		td[x] = nd
		t.addCalls(nd, self[x], int(inc[x]))
	}
	// Totals: a node's self plus its children's totals (children were
	// made after their parents).
	nodes := t.TopDown
	for k := len(nodes) - 1; k > 0; k-- {
		nodes[k].Total += nodes[k].Self
		nodes[nodes[k].Parent].Total += nodes[k].Total
	}
	nodes[0].Total = 0
	for c := nodes[0].FirstChild; c >= 0; c = nodes[c].NextSibling {
		nodes[0].Total += nodes[c].Total
	}
	t.addFuncs(t.sampleOutermost(<-outerDone, gcs))
	return t
}

// SampleTimes returns the time of the samples at each model node of the
// thread (indexed as NodeSelf) and at its root, each sample lasting until
// the next one or the timeline's End and clipped to the tree's window: the
// sums category.TimesIn makes per category, here a node's self time. ok is
// false when the tree does not hold them (it was made by the walk, or the
// last sample ended where the walk's float end rounded it).
func (t *Tree) SampleTimes() (nodes []profile.Time, root profile.Time, ok bool) {
	if !t.fromSums {
		return nil, 0, false
	}
	return t.NodeSelf, t.rootSelf, true
}

// modelOutermostNodes is the size of thread from which fromSamples finds
// the outermost nodes with modelOutermost, whose tables (a slot per frame
// and per string of the profile) are made for each tree: a trace's
// threads (up to some 16 k nodes, in a profile of many strings) would pay
// for them at every tree, and a small tree is walked in no time. A
// variable for tests.
var modelOutermostNodes = 32 << 10

// modelOutermost returns, per model node of a thread whose nodes are in
// depth-first preorder (par: each one's parent), whether no proper
// ancestor's frame is of the same function (profile.FunctionKey); nil when
// the nodes are not in preorder. The top-down node a model node is opened
// as has the same path of functions, so the same answer: what
// Tree.outermost finds by walking the top-down tree (5 ms of the
// many-nodes shape's trees), found here from the model nodes in order
// (docs/performance.md §5l).
func modelOutermost(p *profile.Profile, base profile.NodeID, par []int32) []bool {
	nn := len(par)
	// Functions are numbered here as met (classes): by frame, then by
	// name, as most names are one function's; a map only for the names of
	// several (a map of every function was 4 MB of the many-nodes shape's
	// trees, at a quarter of their time).
	frameClass := make([]int32, len(p.Frames)) // class+1
	byName := make([]int32, len(p.Strings))    // class+1 of the name's one function; −1: several
	var classFrame []profile.FrameID           // a frame of each class
	var several map[profile.FunctionKey]int32  // the classes of names of several
	classOf := func(x int32) int32 {
		f := p.Nodes[base+profile.NodeID(x)].Frame
		if c := frameClass[f]; c > 0 {
			return c - 1
		}
		k := p.FunctionKey(f)
		c := byName[k.Name] - 1
		switch {
		case c >= 0 && p.FunctionKey(classFrame[c]) == k:
		case c == -1: // the name's first function
			c = int32(len(classFrame))
			classFrame = append(classFrame, f)
			byName[k.Name] = c + 1
		default:
			if c >= 0 { // the name's second function
				if several == nil {
					several = map[profile.FunctionKey]int32{}
				}
				several[p.FunctionKey(classFrame[c])] = c
				byName[k.Name] = -1
			}
			var ok bool
			if c, ok = several[k]; !ok {
				c = int32(len(classFrame))
				classFrame = append(classFrame, f)
				several[k] = c
			}
		}
		frameClass[f] = c + 1
		return c
	}
	outer := make([]bool, nn)
	var count []int32                  // open nodes per class
	stack := make([]int32, 1, 64)      // the path to the node at hand, from the root
	stackClass := make([]int32, 1, 64) // their classes (the root's unused)
	for x := int32(1); x < int32(nn); x++ {
		q := par[x]
		for len(stack) > 1 && stack[len(stack)-1] != q {
			count[stackClass[len(stack)-1]]--
			stack, stackClass = stack[:len(stack)-1], stackClass[:len(stackClass)-1]
		}
		if stack[len(stack)-1] != q {
			return nil // not in preorder
		}
		c := classOf(x)
		if int(c) == len(count) {
			count = append(count, 0)
		}
		outer[x] = count[c] == 0
		count[c]++
		stack, stackClass = append(stack, x), append(stackClass, c)
	}
	return outer
}

// sampleOutermost is Tree.outermost for a tree made from the samples,
// from modelOutermost's answer for the model nodes (nil: walk the tree):
// a top-down node opened from a model node takes that node's answer, a GC
// node made for GC samples alone (gcs) is found by walking up its path.
func (t *Tree) sampleOutermost(model []bool, gcs map[int32]*gcAt) []bool {
	if model == nil {
		return t.outermost()
	}
	td := t.TopDown
	res := make([]bool, len(td))
	for x, nd := range t.sampleTD {
		if nd > 0 {
			res[nd] = model[x]
		}
	}
	for g := range gcs {
		nd := t.gcTD[g]
		res[nd] = true
		for a := td[nd].Parent; a > 0; a = td[a].Parent {
			if td[a].Func == td[nd].Func {
				res[nd] = false
				break
			}
		}
	}
	return res
}

// splitSamples returns where fromSamples splits n samples of nn nodes to
// pass over the halves at once, or 0: from 256 k samples, when they are at
// least twice the nodes (each half has per-node sums of its own, merged
// after). The typescript shape (400 k samples, 160 k nodes, deep stacks):
// 25.2 → 21.8 ms. A variable for tests, which split at every kind of
// sample.
var splitSamples = func(n, nn int) int {
	if n >= 1<<18 && n >= 2*nn {
		return n / 2
	}
	return 0
}

// gcAt is what the GC samples stacked on one parent add up to.
type gcAt struct {
	self  profile.Time
	calls int32
	first int32
}

// sampleSums is what a pass over samples [lo, hi) finds: per model node
// the self time, the first sample at it and the call-count differences,
// and the GC samples by the node they are stacked on.
type sampleSums struct {
	self  []profile.Time
	first []int32 // n (the number of samples) where none
	inc   []int32
	gcs   map[int32]*gcAt
}

// stateAt returns the walk's state before sample i: the previous sample's
// node (the root before the first), and, when that is the GC node, the
// node its GC samples are stacked on (the last other sample's, or the root).
func stateAt(tl *calls.Timeline, i int) (prev, gcParent int32) {
	if i == 0 {
		return 0, -1
	}
	prev, gcParent = tl.Sample(i-1), -1
	if gc := tl.GC; gc >= 0 && prev == gc {
		gcParent = 0
		for j := i - 2; j >= 0; j-- {
			if x := tl.Sample(j); x != gc {
				gcParent = x
				break
			}
		}
	}
	return prev, gcParent
}

// lcaBits sizes scanSamples' cache of common ancestors (12 bytes an entry).
const lcaBits = 12

// smallLCABits sizes the cache where samples do not far outnumber nodes.
const smallLCABits = 8

// subtreeEnds returns, for nodes in depth-first preorder (par: each one's
// parent, the root first), the index after each node's subtree, so that u
// is an ancestor of v (or v itself) when u ≤ v < ends[u]; nil when the
// nodes are not in preorder (a parent not on the path to the node before).
func subtreeEnds(par []int32) []int32 {
	ends := make([]int32, len(par))
	path := make([]int32, 0, 64)
	for x := range int32(len(par)) {
		for len(path) > 0 && path[len(path)-1] != par[x] {
			ends[path[len(path)-1]] = x
			path = path[:len(path)-1]
		}
		if x > 0 && len(path) == 0 {
			return nil
		}
		path = append(path, x)
	}
	for _, y := range path {
		ends[y] = int32(len(par))
	}
	return ends
}

// scanSamples passes over samples [lo, hi) from the walk's state prev,
// gcParent (see stateAt). after is subtreeEnds of the timeline's nodes
// (nil: they are not in preorder).
func scanSamples(tl *calls.Timeline, after []int32, clip bool, from, to, end profile.Time, lo, hi int, prev, gcParent int32) *sampleSums {
	n, nn := tl.Len(), len(tl.Node)
	times := tl.Times
	samples := tl.Cursor(lo)
	self := make([]profile.Time, nn)
	first := make([]int32, nn)
	for i := range first {
		first[i] = int32(n)
	}
	inc := make([]int32, nn)
	var gcs map[int32]*gcAt // by the node the GC samples are stacked on
	gc := tl.GC
	par, depth := tl.Parent, tl.Depth
	// The cache pays where samples far outnumber nodes (a long recording):
	// few pairs of stacks, each met again and again. Otherwise it has 256
	// entries (3 KB): enough for a few pairs that alternate, such as
	// samples that go back and forth between a deep node and a shallow one,
	// whose walks to the common node were otherwise the depth at each
	// sample (a 20 k-deep chain: 589 ms for 20 k samples).
	lcas := make([]struct{ a, x, l int32 }, 1<<smallLCABits)
	lcaMask := uint32(1<<smallLCABits - 1)
	if hi-lo >= 8*nn {
		lcas, lcaMask = make([]struct{ a, x, l int32 }, 1<<lcaBits), 1<<lcaBits-1
	}
	for i := range lcas {
		lcas[i].a = -1
	}
	var next profile.Time // time i, read as the end of sample i−1
	ts := times.Cursor()
	if lo < hi {
		next = ts.At(lo)
	}
	for i := lo; i < hi; i++ {
		x := samples.At(i)
		t0, t1 := next, end
		if i+1 < n {
			t1 = ts.At(i + 1)
		}
		next = t1
		d := t1 - t0
		if clip {
			d = max(0, min(t1, to)-max(t0, from))
		}
		if x == gc && gc >= 0 {
			if prev != gc {
				gcParent = prev
			}
			g := gcs[gcParent]
			if g == nil {
				if gcs == nil {
					gcs = map[int32]*gcAt{}
				}
				g = &gcAt{first: int32(i)}
				gcs[gcParent] = g
			}
			if prev != gc {
				g.calls++
			}
			g.self += d
			prev = gc
			continue
		}
		a := prev
		if a == gc && gc >= 0 {
			a = gcParent
		}
		if x != a {
			inc[x]++
			// The deepest node the two stacks share: the same pairs of
			// stacks follow each other again and again, and on deep
			// stacks the walk to it is the pass's main cost.
			if ap, xp := par[a], par[x]; xp == a || xp == ap && xp >= 0 {
				// A call from a, or from its parent (a sample one level
				// deeper, or beside): no climb, nor the cache's line
				// (docs/performance.md §5q).
				a = xp
			} else if ap == x {
				a = x // a return to the caller
			} else if c := &lcas[(uint32(a)*0x9e3779b1^uint32(x))>>(32-lcaBits)&lcaMask]; c.a == a && c.x == x {
				a = c.l
			} else if after != nil {
				// Up from the shallower of the two until an ancestor of
				// the other: as many steps as it is below their common
				// ancestor, where climbing both took the sum of theirs (a
				// return from deep in a recursion to near its top: the
				// whole recursion; docs/performance.md §5q).
				c.a, c.x = a, x
				u, v := x, a
				if depth[a] < depth[x] {
					u, v = a, x
				}
				for u > v || v >= after[u] {
					u = par[u]
				}
				a, c.l = u, u
			} else {
				c.a, c.x = a, x
				b := x
				for depth[a] > depth[b] {
					a = par[a]
				}
				for depth[b] > depth[a] {
					b = par[b]
				}
				for a != b {
					a, b = par[a], par[b]
				}
				c.l = a
			}
			inc[a]--
		}
		self[x] += d
		if first[x] == int32(n) {
			first[x] = int32(i)
		}
		prev = x
	}
	return &sampleSums{self: self, first: first, inc: inc, gcs: gcs}
}

// merge adds the sums of the samples after s's.
func (s *sampleSums) merge(later *sampleSums) {
	for x := range s.self {
		s.self[x] += later.self[x]
		s.inc[x] += later.inc[x]
		s.first[x] = min(s.first[x], later.first[x])
	}
	for g, at := range later.gcs {
		if mine := s.gcs[g]; mine != nil {
			mine.self += at.self
			mine.calls += at.calls
			continue
		}
		if s.gcs == nil {
			s.gcs = map[int32]*gcAt{}
		}
		s.gcs[g] = at
	}
}

// sortByCounting says whether fromSamples sorts its n samples' items by
// counting (a variable for tests, which try both ways).
var sortByCounting = func(samples, items int) bool { return samples <= 8*items+1024 }

// addFuncs adds each top-down node's self time and calls to its function,
// and its total when it is the outermost node of its function on its path.
func (t *Tree) addFuncs(outer []bool) {
	td := t.TopDown
	for n := 1; n < len(td); n++ {
		f := &t.Funcs[td[n].Func]
		f.Self += td[n].Self
		f.Calls += td[n].Calls
		if outer[n] {
			f.Total += td[n].Total
		}
	}
}

// sampleIntervals is CallIntervals for a tree made from the samples: the
// innermost node of each run of samples is the top-down node of the run's
// model node (of its GC node for a GC sample), so the intervals come from
// the samples, one per run, not from the calls.
func (t *Tree) sampleIntervals(tl *calls.Timeline, from, to profile.Time, yield func(Interval) bool) {
	times := tl.Times
	end, _ := tl.WalkEnd()
	gc := tl.GC
	cur, curStart := int32(0), from // the run being gathered
	emit := func(at profile.Time, node int32) bool {
		at = min(max(at, from), to)
		if node == cur {
			return true
		}
		if at > curStart {
			if !yield(Interval{curStart, at, cur}) {
				return false
			}
			curStart = at
		}
		cur = node
		return true
	}
	prev, gcParent := int32(0), int32(-1)
	ts := times.Cursor()
	for i, x := range tl.SamplesIn(0, tl.Len()) {
		var node int32
		if x == gc && gc >= 0 {
			if prev != gc {
				gcParent = prev
			}
			node = t.gcTD[gcParent]
		} else {
			node = t.sampleTD[x]
		}
		prev = x
		if !emit(ts.At(i), node) {
			return
		}
	}
	if emit(end, 0) && to > curStart {
		yield(Interval{curStart, to, cur})
	}
}

// fewKids is the number of children up to which a node's children are
// found by scanning them rather than through Tree.childIdx.
const fewKids = 16

// childOf is child for a tree with scanKids: the children of a node with
// few of them are scanned (most nodes have one or two: a hash per node was a
// third of the time of a tree), those of a node with many are in childIdx.
// kids counts each node's children.
func (t *Tree) childOf(parent int32, f FuncID, kids []int32) int32 {
	if kids[parent] > fewKids {
		return t.child(parent, f)
	}
	for c := t.TopDown[parent].FirstChild; c >= 0; c = t.TopDown[c].NextSibling {
		if t.TopDown[c].Func == f {
			return c
		}
	}
	n := int32(len(t.TopDown))
	t.TopDown = append(t.TopDown, Node{Func: f, Parent: parent, FirstChild: -1, NextSibling: t.TopDown[parent].FirstChild})
	t.TopDown[parent].FirstChild = n
	if kids[parent]++; kids[parent] > fewKids {
		for c := t.TopDown[parent].FirstChild; c >= 0; c = t.TopDown[c].NextSibling {
			t.childIdx[[2]int32{parent, int32(t.TopDown[c].Func)}] = c
		}
	}
	return n
}

// addCalls adds a model node's self time and calls to top-down node nd.
func (t *Tree) addCalls(nd int32, self profile.Time, calls int) {
	t.TopDown[nd].Self += self
	t.TopDown[nd].Calls += calls
	t.Calls += calls
}

// samplePaths is what a tree made from the samples keeps to derive its
// per-path costs (pathCosts) when they are first asked for: the model
// nodes' pairs are their top-down nodes (sampleTD) and self times
// (NodeSelf), and the GC nodes' are listed.
type samplePaths struct {
	gc   int32     // the model GC node, or −1
	gcs  []gcPath  // the GC pairs, by first sample
	once sync.Once // derives pc
	pc   pathCosts
}

// gcPath is the top-down node of the GC samples stacked on one parent, and
// their self time.
type gcPath struct {
	nd   int32
	self profile.Time
}

// paths returns t's per-path costs: every pair of a top-down node and a
// model node that the walk opens (with its self time, 0 included), as the
// walk keeps them. Safe to call concurrently.
func (t *Tree) paths() *pathCosts {
	sp := t.samplePaths
	if sp == nil {
		return &t.pathSelf
	}
	sp.once.Do(func() {
		pc := newPathCosts(len(t.NodeSelf))
		var gcSelf profile.Time
		for _, g := range sp.gcs {
			gcSelf += g.self
		}
		for x, nd := range t.sampleTD {
			if nd > 0 { // opened (top-down node 0 is the root)
				self := t.NodeSelf[x]
				if int32(x) == sp.gc {
					self -= gcSelf
				}
				pc.add(nd, int32(x), self)
			}
		}
		for _, g := range sp.gcs {
			pc.add(g.nd, sp.gc, g.self)
		}
		sp.pc = pc
	})
	return &sp.pc
}

func abs(t profile.Time) profile.Time {
	if t < 0 {
		return -t
	}
	return t
}
