// Package calltree aggregates estimated calls into a top-down call tree, a
// bottom-up (inverted) tree and a per-function table, with self and total
// time as the DevTools Performance panel computes them over ProfileCalls:
// a top-down node is a path of functions from the root; a function's total
// counts only its outermost call on any stack, so recursion is not counted
// twice.
//
// Functions are merged by name, URL, line and column (profile.FunctionKey).
// Trees are flat slices linked by int32 indexes and are walked without
// recursion, because JS stacks can be thousands of frames deep.
package calltree

import (
	"cmp"
	"slices"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/profile"
)

// FuncID indexes Tree.Funcs.
type FuncID int32

// Function is one row of the per-function table.
type Function struct {
	Key   profile.FunctionKey
	Frame profile.FrameID // the first frame seen for this function
	Self  profile.Time    // ns
	Total profile.Time    // ns, outermost calls only
	Calls int             // estimated calls
}

// Node is a node of a top-down or bottom-up tree. Node 0 is the root, whose
// Func is −1.
type Node struct {
	Func                            FuncID
	Parent, FirstChild, NextSibling int32 // −1 for none
	Self, Total                     profile.Time
	Calls                           int
}

// Tree is the aggregation of one thread.
type Tree struct {
	Profile *profile.Profile
	Thread  profile.ThreadID
	Funcs   []Function
	// TopDown is the top-down call tree: Nodes[0] is the root and its Total
	// is the time covered by the calls (the sampled time).
	TopDown []Node
	// NodeSelf is the self time of each model node of the thread, indexed by
	// NodeID − Thread.Nodes.Start.
	NodeSelf []profile.Time
	// Calls is the number of calls seen.
	Calls int

	// pathSelf is the self time of each (top-down node, model node − Nodes.Start)
	// pair: what per-line costs split over a model node's source lines.
	// Read through paths: a tree made from the samples derives it.
	pathSelf    pathCosts
	samplePaths *samplePaths
	// fromSums tells that NodeSelf holds each model node's samples' time,
	// each sample lasting until the next one or the timeline's End,
	// clipped to the tree's window, with rootSelf the root's, which
	// NodeSelf leaves out (SampleTimes).
	fromSums bool
	rootSelf profile.Time
	// A tree made by a transform takes its per-line costs from the tree it
	// mapped (lineSrc), through lineMap (lineSrc node → node; −1: not shown).
	lineSrc *Tree
	lineMap []int32

	thread *profile.Thread
	funcOf map[profile.FunctionKey]FuncID
	// byName, when not nil, finds most functions instead of funcOf: per
	// string, the FuncID+1 of the one function of that name, or −1 when the
	// name is several functions', which funcOf then holds (findFunc, addFunc).
	byName   []FuncID
	frameFn  []FuncID // FrameID → FuncID+1 cache
	childIdx map[[2]int32]int32
	// tdOf caches, per model node, the top-down node it last mapped to and
	// under which parent: a tree-shaped thread's node always has the same
	// path, so the map is consulted once per node, not once per call.
	tdOf     []int32
	tdParent []int32
	stack    []int32 // open top-down nodes
	onStack  []int32 // per function: open calls
	// With clip, calls are clipped to [from, to]; childClip holds, per open
	// call, the clipped durations of its children so far.
	clip      bool
	from, to  profile.Time
	childClip []profile.Time

	// A tree made from the samples keeps, for CallIntervals, the top-down
	// node of each model node and of each GC node (by the model node it is
	// stacked on).
	sampleTD []int32
	gcTD     map[int32]int32
	// scanKids tells that childIdx holds only the children of nodes with
	// many: the others are found by scanning (see childOf).
	scanKids bool
}

// Build aggregates the calls of the timeline (DevTools' forEachFrame walk).
func Build(tl *calls.Timeline) *Tree {
	if t := fromSamples(tl, false, 0, 0); t != nil {
		return t
	}
	return buildWalk(tl)
}

// buildWalk is Build by DevTools' walk, call by call.
func buildWalk(tl *calls.Timeline) *Tree {
	return build(tl, func(t *Tree) { tl.Walk(t) })
}

// BuildWindow is Build with every call clipped to the window [from, to], as
// DevTools' trees clip events to their window (a call's self is its clipped
// duration minus its children's); calls outside it add nothing.
func BuildWindow(tl *calls.Timeline, from, to profile.Time) *Tree {
	if t := fromSamples(tl, true, from, to); t != nil {
		return t
	}
	return buildWindowWalk(tl, from, to)
}

// buildWindowWalk is BuildWindow by DevTools' walk, call by call.
func buildWindowWalk(tl *calls.Timeline, from, to profile.Time) *Tree {
	return build(tl, func(t *Tree) {
		t.clip, t.from, t.to = true, from, to
		t.childClip = []profile.Time{0}
		tl.Walk(t)
	})
}

// newTree returns an empty tree for thread th of p.
func newTree(p *profile.Profile, th profile.ThreadID) *Tree {
	nn := p.Threads[th].Nodes.Len()
	return newTreeWith(p, th, make([]profile.Time, nn), newPathCosts(nn), false)
}

// newTreeWith is newTree with NodeSelf and the path costs given, and its
// functions found by name (Tree.byName) when byName.
func newTreeWith(p *profile.Profile, th profile.ThreadID, nodeSelf []profile.Time, paths pathCosts, byName bool) *Tree {
	thr := &p.Threads[th]
	// At most a function per frame or node: sized so, the functions are
	// not grown by a quarter at a time (40 k functions allocated 10 MB).
	funcs := min(len(p.Frames), thr.Nodes.Len())
	var names []FuncID
	sized := funcs // funcOf's room: every function, or those of names of several
	if byName {
		names, sized = make([]FuncID, len(p.Strings)), 0
	}
	return &Tree{
		Profile:  p,
		Thread:   th,
		TopDown:  []Node{{Func: -1, Parent: -1, FirstChild: -1, NextSibling: -1}},
		Funcs:    make([]Function, 0, funcs),
		NodeSelf: nodeSelf,
		pathSelf: paths,
		thread:   thr,
		funcOf:   make(map[profile.FunctionKey]FuncID, sized),
		byName:   names,
		onStack:  make([]int32, 0, funcs),
		frameFn:  make([]FuncID, len(p.Frames)),
		childIdx: map[[2]int32]int32{},
	}
}

// child returns the top-down child of parent for function f, adding it if
// needed.
func (t *Tree) child(parent int32, f FuncID) int32 {
	key := [2]int32{parent, int32(f)}
	n, ok := t.childIdx[key]
	if !ok {
		n = int32(len(t.TopDown))
		t.TopDown = append(t.TopDown, Node{Func: f, Parent: parent, FirstChild: -1, NextSibling: t.TopDown[parent].FirstChild})
		t.TopDown[parent].FirstChild = n
		t.childIdx[key] = n
	}
	return n
}

func build(tl *calls.Timeline, walk func(*Tree)) *Tree {
	t := newTree(tl.Profile, tl.Thread)
	nn := len(t.NodeSelf)
	t.tdOf, t.tdParent, t.stack = make([]int32, nn), make([]int32, nn), []int32{0}
	for i := range t.tdParent {
		t.tdParent[i] = -1
	}
	walk(t)
	for _, c := range t.topLevel() {
		t.TopDown[0].Total += t.TopDown[c].Total
	}
	t.stack, t.tdOf, t.tdParent = nil, nil, nil
	return t
}

func (t *Tree) topLevel() []int32 {
	var out []int32
	for c := t.TopDown[0].FirstChild; c >= 0; c = t.TopDown[c].NextSibling {
		out = append(out, c)
	}
	return out
}

func (t *Tree) funcID(f profile.FrameID) FuncID {
	if id := t.frameFn[f]; id > 0 {
		return id - 1
	}
	key := t.Profile.FunctionKey(f)
	id, ok := t.findFunc(key)
	if !ok {
		id = FuncID(len(t.Funcs))
		t.Funcs = append(t.Funcs, Function{Key: key, Frame: f})
		t.onStack = append(t.onStack, 0)
		t.addFunc(key, id)
	}
	t.frameFn[f] = id + 1
	return id
}

// findFunc returns the function of key, if the tree has it. It does not
// change t.
func (t *Tree) findFunc(key profile.FunctionKey) (FuncID, bool) {
	if t.byName != nil {
		if c := t.byName[key.Name] - 1; c >= 0 {
			return c, t.Funcs[c].Key == key
		} else if c == -1 {
			return 0, false
		}
	}
	id, ok := t.funcOf[key]
	return id, ok
}

// addFunc records that function id (not found by findFunc) is key's.
// With byName, a name's first function is found through it alone, and
// its functions go to funcOf from its second on: most names are one
// function's, and a slot per string is a load where the map hashed and
// probed (the many-nodes shape's 40 k functions: docs/performance.md §5s).
func (t *Tree) addFunc(key profile.FunctionKey, id FuncID) {
	if t.byName != nil {
		switch c := t.byName[key.Name] - 1; {
		case c == -1:
			t.byName[key.Name] = id + 1
			return
		case c >= 0: // the name's second function: the first goes to the map
			t.funcOf[t.Funcs[c].Key] = c
			t.byName[key.Name] = -1
		}
	}
	t.funcOf[key] = id
}

// Open implements calls.Visitor.
func (t *Tree) Open(c *calls.Call) {
	parent := t.stack[len(t.stack)-1]
	local := c.Node - profile.NodeID(t.thread.Nodes.Start)
	if t.clip {
		t.childClip = append(t.childClip, 0)
	}
	if t.tdParent[local] == parent {
		n := t.tdOf[local]
		t.stack = append(t.stack, n)
		t.onStack[t.TopDown[n].Func]++
		return
	}
	f := t.funcID(t.Profile.Nodes[c.Node].Frame)
	n := t.child(parent, f)
	t.tdOf[local], t.tdParent[local] = n, parent
	t.stack = append(t.stack, n)
	t.onStack[f]++
}

// Close implements calls.Visitor.
func (t *Tree) Close(c *calls.Call) {
	n := t.stack[len(t.stack)-1]
	t.stack = t.stack[:len(t.stack)-1]
	nd := &t.TopDown[n]
	self, dur := c.Self, c.Dur
	if t.clip {
		k := len(t.childClip) - 1
		dur = max(0, min(c.Start+c.Dur, t.to)-max(c.Start, t.from))
		self = dur - t.childClip[k]
		t.childClip = t.childClip[:k]
		t.childClip[k-1] += dur
	}
	nd.Self += self
	nd.Total += dur
	nd.Calls++
	fn := &t.Funcs[nd.Func]
	fn.Self += self
	fn.Calls++
	t.onStack[nd.Func]--
	if t.onStack[nd.Func] == 0 {
		fn.Total += dur
	}
	local := int32(c.Node - profile.NodeID(t.thread.Nodes.Start))
	t.NodeSelf[local] += self
	t.pathSelf.add(n, local, self)
	t.Calls++
}

// By selects the sort key of Top.
type By int

// The sort keys.
const (
	BySelf By = iota
	ByTotal
)

// Top returns the functions sorted by self or total time, hottest first (ties
// by name for a stable order); n ≤ 0 means all.
func (t *Tree) Top(by By, n int) []FuncID { return Top(t.Profile, t.Funcs, by, n) }

// Top returns the indexes of funcs (a tree's function table, or a copy with
// other totals) sorted by self or total time, hottest first (ties by name,
// then URL, for a stable order); n ≤ 0 means all.
func Top(p *profile.Profile, funcs []Function, by By, n int) []FuncID {
	ids := make([]FuncID, len(funcs))
	for i := range ids {
		ids[i] = FuncID(i)
	}
	slices.SortStableFunc(ids, func(a, b FuncID) int {
		fa, fb := &funcs[a], &funcs[b]
		ka, kb := fa.Self, fb.Self
		if by == ByTotal {
			ka, kb = fa.Total, fb.Total
		}
		if c := cmp.Compare(kb, ka); c != 0 {
			return c
		}
		if c := cmp.Compare(p.Str(fa.Key.Name), p.Str(fb.Key.Name)); c != 0 {
			return c
		}
		return cmp.Compare(p.Str(p.Frames[fa.Frame].URL), p.Str(p.Frames[fb.Frame].URL))
	})
	if n > 0 && n < len(ids) {
		ids = ids[:n]
	}
	return ids
}

// Children returns the children of node n of tree nodes, largest first by
// total (ByTotal, for top-down trees) or self time (BySelf, for bottom-up
// trees), ties in creation order.
func Children(nodes []Node, n int32, by By) []int32 {
	var out []int32
	for c := nodes[n].FirstChild; c >= 0; c = nodes[c].NextSibling {
		out = append(out, c)
	}
	key := func(x int32) profile.Time {
		if by == BySelf {
			return nodes[x].Self
		}
		return nodes[x].Total
	}
	slices.SortStableFunc(out, func(a, b int32) int {
		if c := cmp.Compare(key(b), key(a)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return out
}

// BottomUp returns the inverted tree: its top level holds every function with
// self time (Self and Total as in Funcs), and the children of a node are the
// callers through which it was reached, with the time that flowed along that
// path: Self is the bottom function's self time, Total its total time
// counting only its outermost call. maxDepth > 0 limits the depth.
func (t *Tree) BottomUp(maxDepth int) []Node {
	out := []Node{{Func: -1, Parent: -1, FirstChild: -1, NextSibling: -1}}
	idx := map[[2]int32]int32{}
	child := func(parent int32, f FuncID) int32 {
		key := [2]int32{parent, int32(f)}
		if n, ok := idx[key]; ok {
			return n
		}
		n := int32(len(out))
		out = append(out, Node{Func: f, Parent: parent, FirstChild: -1, NextSibling: out[parent].FirstChild})
		out[parent].FirstChild = n
		idx[key] = n
		return n
	}
	// For each top-down node, flow its self time (and its total, if it is the
	// outermost call of its function on the path) up the inverted path.
	td := t.TopDown
	outermost := t.outermost()
	for n := int32(1); n < int32(len(td)); n++ {
		self := td[n].Self
		total := profile.Time(0)
		if outermost[n] {
			total = td[n].Total
		}
		if self == 0 && total == 0 {
			continue
		}
		b := int32(0)
		depth := 0
		for a := n; a > 0 && (maxDepth <= 0 || depth < maxDepth); a = td[a].Parent {
			b = child(b, td[a].Func)
			out[b].Self += self
			out[b].Total += total
			if a == n {
				out[b].Calls += td[n].Calls
			}
			depth++
		}
	}
	for c := out[0].FirstChild; c >= 0; c = out[c].NextSibling {
		out[0].Total += out[c].Self
	}
	return out
}

// outermost reports, for each top-down node, whether no ancestor has the same
// function.
func (t *Tree) outermost() []bool {
	td := t.TopDown
	res := make([]bool, len(td))
	count := make([]int32, len(t.Funcs))
	// Iterative preorder walk with enter/exit.
	type item struct {
		n    int32
		exit bool
	}
	stack := []item{{0, false}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f := td[it.n].Func
		if it.exit {
			count[f]--
			continue
		}
		if f >= 0 {
			res[it.n] = count[f] == 0
			count[f]++
			stack = append(stack, item{it.n, true})
		}
		for c := td[it.n].FirstChild; c >= 0; c = td[c].NextSibling {
			stack = append(stack, item{c, false})
		}
	}
	return res
}

// LineSelf is the self time of one source line of a function.
type LineSelf struct {
	Func  FuncID
	Line  int32 // 1-based
	Ticks int64
	Self  profile.Time
}

// Lines returns per-line self time: each call path's self time in a model
// node is split over the node's source lines in proportion to their ticks
// (V8's positionTicks, or, for a trace, the count of the node's samples at
// each line of the ProfileChunks' per-sample lines). Under a transform, a
// line counts where its function is shown as itself: not where the view or
// a merge hid it, nor outside a focus or in a dropped subtree. Sorted by
// self time, hottest first. Lines does not change t, so it is safe to call
// concurrently.
func (t *Tree) Lines() []LineSelf {
	p := t.Profile
	src, mapping := t, []int32(nil)
	if t.lineSrc != nil {
		src, mapping = t.lineSrc, t.lineMap
	}
	ticks := lineTicks(p, t.Thread)
	sum := make([]int64, ticks.nodes())
	for x := range sum {
		for _, lt := range ticks.of(int32(x)) {
			sum[x] += lt.Ticks
		}
	}
	type key struct {
		f    FuncID
		line int32
	}
	acc := map[key]*LineSelf{}
	var keys []key
	for pk, self := range src.paths().all() {
		td, x := pk[0], pk[1]
		if int(x) >= len(sum) || sum[x] <= 0 || self == 0 {
			continue
		}
		f := src.TopDown[td].Func
		if mapping != nil {
			out := mapping[td]
			if out <= 0 || t.Funcs[t.TopDown[out].Func].Key != src.Funcs[f].Key {
				continue
			}
			f = t.TopDown[out].Func
		}
		for _, lt := range ticks.of(x) {
			k := key{f, lt.Line}
			ls, ok := acc[k]
			if !ok {
				ls = &LineSelf{Func: f, Line: lt.Line}
				acc[k] = ls
				keys = append(keys, k)
			}
			ls.Self += profile.Time(float64(self) * float64(lt.Ticks) / float64(sum[x]))
		}
	}
	// Ticks are the model nodes' ticks of the lines that have time, once
	// per (function, node): the first function of a node is kept by node
	// (most nodes have one), the others in a map.
	firstF := make([]FuncID, len(sum)) // +1; 0: none yet
	seen := map[[2]int32]bool{}
	for pk := range src.paths().all() {
		x := pk[1]
		f := src.TopDown[pk[0]].Func
		if mapping != nil {
			if out := mapping[pk[0]]; out > 0 {
				f = t.TopDown[out].Func
			}
		}
		switch {
		case int(x) >= len(firstF):
			continue // no ticks
		case firstF[x] == 0:
			firstF[x] = f + 1
		case firstF[x] == f+1 || seen[[2]int32{int32(f), x}]:
			continue
		default:
			seen[[2]int32{int32(f), x}] = true
		}
		for _, lt := range ticks.of(x) {
			if ls, ok := acc[key{f, lt.Line}]; ok {
				ls.Ticks += lt.Ticks
			}
		}
	}
	out := make([]LineSelf, 0, len(keys))
	for _, k := range keys {
		if ls := acc[k]; ls.Self > 0 {
			out = append(out, *ls)
		}
	}
	slices.SortStableFunc(out, func(a, b LineSelf) int {
		if c := cmp.Compare(b.Self, a.Self); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Ticks, a.Ticks); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Func, b.Func); c != 0 {
			return c
		}
		return cmp.Compare(a.Line, b.Line)
	})
	return out
}

// nodeTicks is each model node's ticks by line: node x's are
// ticks[at[x]:at[x+1]].
type nodeTicks struct {
	at    []int32
	ticks []profile.LineTick
}

func (n nodeTicks) nodes() int { return max(len(n.at)-1, 0) }

func (n nodeTicks) of(x int32) []profile.LineTick {
	if int(x) >= n.nodes() {
		return nil
	}
	return n.ticks[n.at[x]:n.at[x+1]]
}

// lineTicks returns, per model node of thread th (NodeID − Nodes.Start), its
// ticks per 1-based source line: the positionTicks of the input, or, when
// the thread has none and its samples carry lines (trace ProfileChunks),
// the count of the node's samples at each line. (A map of the nodes'
// slices was a third of `top --lines` on the many-nodes shape.)
func lineTicks(p *profile.Profile, th profile.ThreadID) nodeTicks {
	thr := &p.Threads[th]
	start, end := profile.NodeID(thr.Nodes.Start), profile.NodeID(thr.Nodes.End)
	nn := thr.Nodes.Len()
	var out nodeTicks
	var count []int32
	for _, lt := range p.LineTicks {
		if lt.Node >= start && lt.Node < end && lt.Ticks > 0 {
			if count == nil {
				count = make([]int32, nn+1)
			}
			count[lt.Node-start+1]++
		}
	}
	if count != nil {
		for x := 1; x <= nn; x++ {
			count[x] += count[x-1]
		}
		out.at = slices.Clone(count)
		out.ticks = make([]profile.LineTick, count[nn])
		for _, lt := range p.LineTicks {
			if lt.Node >= start && lt.Node < end && lt.Ticks > 0 {
				out.ticks[count[lt.Node-start]] = lt
				count[lt.Node-start]++
			}
		}
		return out
	}
	ss := p.ThreadSamples(th)
	if ss.Line == nil {
		return out
	}
	counts := map[[2]int32]int64{}
	for i, n := range ss.Node.All() {
		if l := ss.Line[i]; l > 0 {
			counts[[2]int32{int32(n - start), l}]++
		}
	}
	for k, c := range counts {
		out.ticks = append(out.ticks, profile.LineTick{Node: start + profile.NodeID(k[0]), Line: k[1], Ticks: c})
	}
	slices.SortFunc(out.ticks, func(a, b profile.LineTick) int {
		if c := cmp.Compare(a.Node, b.Node); c != 0 {
			return c
		}
		return cmp.Compare(a.Line, b.Line)
	})
	out.at = make([]int32, nn+1)
	for _, lt := range out.ticks {
		out.at[lt.Node-start+1]++
	}
	for x := 1; x <= nn; x++ {
		out.at[x] += out.at[x-1]
	}
	return out
}
