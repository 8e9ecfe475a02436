package session

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/category"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/profile"
)

// Thread is one thread of a session, with its lazily computed analyses.
// Its methods are safe for concurrent use; returned values are shared and
// must not be modified.
type Thread struct {
	s  *Session
	ID profile.ThreadID

	timeline lazy[*calls.Timeline]
	calls    lazy[integrated]
	flame    lazy[[]calls.Entry] // when calls were integrated without them
	entries  lazy[[]calltree.Entry]

	mu    sync.Mutex
	trees map[string]*lazy[*treeResult]
	// treeOrder lists the keys of trees in the order they were first asked
	// for (for eviction).
	treeOrder []string
	funcs     map[string]*lazy[[]calltree.Function]
}

type integrated struct {
	calls   []calls.Call
	entries []calls.Entry // a trace thread's, with Options.FlameEntries
}

// Session returns the thread's session.
func (t *Thread) Session() *Session { return t.s }

// Info returns the thread's entry in the profile.
func (t *Thread) Info() *profile.Thread { return &t.s.Profile.Threads[t.ID] }

// IsTrace reports whether the thread comes from a trace (its trees then
// hold trace events beside the JS calls).
func (t *Thread) IsTrace() bool { return t.s.Profile.Format == "chrome-trace" }

// Timeline returns DevTools' model of the thread's samples
// (CPUProfileDataModel).
func (t *Thread) Timeline(ctx context.Context) (*calls.Timeline, error) {
	return t.timeline.get(ctx, func() (*calls.Timeline, error) {
		tl, err := calls.NewTimeline(t.s.Profile, t.ID)
		if err != nil {
			th := t.Info()
			return nil, fmt.Errorf("%s: thread %d:%d: %w", t.s.Name, th.PID, th.TID, err)
		}
		return tl, nil
	})
}

func (t *Thread) integrated(ctx context.Context) (integrated, error) {
	return t.calls.get(ctx, func() (integrated, error) {
		tl, err := t.Timeline(ctx)
		if err != nil {
			return integrated{}, err
		}
		if !tl.IsTrace() {
			return integrated{calls: tl.Calls()}, nil
		}
		if !t.s.opts.FlameEntries {
			return integrated{calls: tl.Integrate(t.s.opts.Integrate)}, nil
		}
		cs, es := tl.IntegrateEntries(t.s.opts.Integrate)
		return integrated{calls: cs, entries: es}, nil
	})
}

// Calls returns the thread's estimated JS calls (DevTools' ProfileCalls) in
// DevTools' order.
func (t *Thread) Calls(ctx context.Context) ([]calls.Call, error) {
	in, err := t.integrated(ctx)
	return in.calls, err
}

// FlameEntries returns the flame-chart entries DevTools draws for a trace
// thread (nil for a bare .cpuprofile, whose flame chart is its calls).
func (t *Thread) FlameEntries(ctx context.Context) ([]calls.Entry, error) {
	in, err := t.integrated(ctx)
	if err != nil || t.s.opts.FlameEntries {
		return in.entries, err
	}
	tl, err := t.Timeline(ctx)
	if err != nil || !tl.IsTrace() {
		return nil, err
	}
	// The calls were integrated without them (Options.FlameEntries unset):
	// the same pass again, keeping only the entries.
	return t.flame.get(ctx, func() ([]calls.Entry, error) {
		_, es := tl.IntegrateEntries(t.s.opts.Integrate)
		return es, nil
	})
}

// Window returns the time span the thread's trees cover by default, as
// DevTools opens the file: a trace's bounds; a .cpuprofile's startTime to
// endTime; else the span of the samples (to the extrapolated end of the
// last one).
func (t *Thread) Window(ctx context.Context) (from, to profile.Time, err error) {
	tl, err := t.Timeline(ctx)
	if err != nil {
		return 0, 0, err
	}
	if b := t.s.Profile.Bounds; t.IsTrace() && b.End > b.Start {
		return b.Start, b.End, nil
	}
	if th := t.Info(); !t.IsTrace() && th.End > th.Start {
		// DevTools opens a .cpuprofile as a trace whose bounds are the
		// profile's startTime and endTime: the extrapolated end of the last
		// sample is clipped there.
		return th.Start, th.End, nil
	}
	if tl.Times.Len() > 0 {
		return tl.Times.At(0), tl.End, nil
	}
	return 0, 0, nil
}

// Origin returns the time that ranges (view.Options.From/To) count from:
// the thread's first sample, else the start of its window.
func (t *Thread) Origin(ctx context.Context) (profile.Time, error) {
	tl, err := t.Timeline(ctx)
	if err != nil {
		return 0, err
	}
	if tl.Times.Len() > 0 {
		return tl.Times.At(0), nil
	}
	from, _, err := t.Window(ctx)
	return from, err
}

// TreeEntries returns the entries of the thread's DevTools trees, in
// DevTools' order: its calls and, for a trace, its trace events as the Call
// Tree and Bottom-Up tabs take them by default (docs/devtools-engine.md §7:
// RunTask left out, and in a non-generic trace only events with a visible
// style; zero-length entries left out, as forEachEvent skips them).
func (t *Thread) TreeEntries(ctx context.Context) ([]calltree.Entry, error) {
	return t.entries.get(ctx, func() ([]calltree.Entry, error) {
		cs, err := t.Calls(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]calltree.Entry, 0, len(cs)+t.Info().Events.Len())
		err = t.eachTreeEntry(ctx, func(e *calltree.Entry) { out = append(out, *e) })
		return out, err
	})
}

// eachTreeEntry calls yield with each entry TreeEntries returns, in order,
// without holding them (yield must not keep the pointer it gets).
func (t *Thread) eachTreeEntry(ctx context.Context, yield func(*calltree.Entry)) error {
	cs, err := t.Calls(ctx)
	if err != nil {
		return err
	}
	p := t.s.Profile
	r := t.Info().Events
	evs := p.Events[r.Start:r.End]
	keep := t.eventFilter()
	var en calltree.Entry // overwritten: one allocation, not one per entry
	call := func(c *calls.Call) {
		if c.Dur > 0 {
			en = calltree.Entry{Frame: p.Nodes[c.Node].Frame, Node: c.Node, Start: c.Start, Dur: c.Dur}
			yield(&en)
		}
	}
	event := func(e *profile.Event) {
		if e.Dur > 0 && keep(e) {
			en = calltree.Entry{Frame: t.s.eventFrame[e.Name], Node: profile.NoNode, Start: e.Start, Dur: e.Dur}
			yield(&en)
		}
	}
	// mergeEventsInOrder: by start, then the later end first; on a tie
	// the call first.
	i, j := 0, 0
	for i < len(evs) && j < len(cs) {
		e, c := &evs[i], &cs[j]
		if e.Start < c.Start || e.Start == c.Start && e.End() > c.Start+c.Dur {
			event(e)
			i++
		} else {
			call(c)
			j++
		}
		if (i+j)&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	for ; i < len(evs); i++ {
		event(&evs[i])
	}
	for ; j < len(cs); j++ {
		call(&cs[j])
	}
	return nil
}

// eventFilter returns DevTools' default filters of the trees:
// ExclusiveNameFilter(['RunTask']) and, unless the trace is generic or all
// events are shown, VisibleEventsFilter(visibleTypes).
func (t *Thread) eventFilter() func(*profile.Event) bool {
	p := t.s.Profile
	all := p.Generic || t.s.opts.Integrate.ShowAllEvents
	memo := map[[2]profile.StringID]bool{}
	return func(e *profile.Event) bool {
		k := [2]profile.StringID{e.Name, e.Cat}
		v, ok := memo[k]
		if !ok {
			name, cat := p.Str(e.Name), p.Str(e.Cat)
			switch {
			case name == "RunTask":
			case all:
				v = true
			case strings.Contains(cat, "blink.console"), strings.Contains(cat, "blink.user_timing"):
				v = true // ConsoleTime, UserTiming: visible types
			default:
				v = calls.VisibleStyle(name)
			}
			memo[k] = v
		}
		return v
	}
}

// treeResult is a tree with what it was built from.
type treeResult struct {
	tree *calltree.Tree
	// base is the tree of the range that the view and transforms mapped
	// (mapping: base node → tree node, −1 where the time is not shown);
	// nil for a tree with no view or transform, which is its own base.
	base    *treeResult
	mapping []int32
	// Of a base tree: its window and whether it was built from the entries
	// (else by the calls' walk).
	from, to    profile.Time
	fromEntries bool
	// cats holds the category and subcategory of each node (computed on
	// first use by Stacks).
	catOnce sync.Once
	cats    []profile.CategoryID
	subs    []uint8
}

// Tree returns the thread's top-down tree, per-function table and bottom-up
// data under opts: DevTools' Call Tree of the window, or of the range
// opts.From–To (ns from Origin), then the view and transforms
// (analysis/view.Tree).
func (t *Thread) Tree(ctx context.Context, opts view.Options) (*calltree.Tree, error) {
	r, err := t.treeResult(ctx, opts)
	if err != nil {
		return nil, err
	}
	return r.tree, nil
}

// Trees returns the trees of threads ths under opts (see Tree), built on as
// many goroutines as GOMAXPROCS allows: a trace's threads are independent,
// so each core takes a thread. The first error (in thread order) is
// returned.
func (s *Session) Trees(ctx context.Context, ths []*Thread, opts view.Options) ([]*calltree.Tree, error) {
	return s.TreesThen(ctx, ths, opts, nil)
}

// TreesThen is Trees that also calls then (unless nil) with each thread,
// on the same goroutines, once every tree has been started: a thread's
// then may run while the tree of a larger thread is still being built,
// on a core that would otherwise wait for it.
func (s *Session) TreesThen(ctx context.Context, ths []*Thread, opts view.Options, then func(*Thread) error) ([]*calltree.Tree, error) {
	out := make([]*calltree.Tree, len(ths))
	errs := make([]error, 2*len(ths))
	var g func(i int)
	if then != nil {
		g = func(i int) { errs[len(ths)+i] = then(ths[i]) }
	}
	EachLargestFirstThen(ths, func(i int) { out[i], errs[i] = ths[i].Tree(ctx, opts) }, g)
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// LargestFirst returns the indexes of ths, the threads of most samples and
// events first: the order in which to analyse them on several cores, so
// that a large thread does not start last and finish alone.
func LargestFirst(ths []*Thread) []int {
	order := make([]int, len(ths))
	for i := range order {
		order[i] = i
	}
	size := func(i int) int {
		th := ths[i].Info()
		return th.Samples.Len() + th.Events.Len()
	}
	slices.SortStableFunc(order, func(a, b int) int { return size(b) - size(a) })
	return order
}

// EachLargestFirst calls f with each index of ths, on as many goroutines
// as there are cores, in LargestFirst's order, and returns when every call
// has.
func EachLargestFirst(ths []*Thread, f func(i int)) { EachLargestFirstThen(ths, f, nil) }

// EachLargestFirstThen is EachLargestFirst that then calls g (unless nil)
// with each index, in the same order and on the same goroutines: a
// goroutine takes a thread's g only once every thread's f has been taken,
// so g may run before f of another thread has returned, or of its own on
// another goroutine (what g needs of f must be waited for, as the
// session's lazy values are).
func EachLargestFirstThen(ths []*Thread, f, g func(i int)) {
	order := LargestFirst(ths)
	n := int64(len(order))
	tasks := n
	if g != nil {
		tasks = 2 * n
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(order)) {
		wg.Go(func() {
			for k := next.Add(1) - 1; k < tasks; k = next.Add(1) - 1 {
				if k < n {
					f(order[k])
				} else {
					g(order[k-n])
				}
			}
		})
	}
	wg.Wait()
}

// maxTrees is how many trees a thread keeps cached.
const maxTrees = 32

// wholeKey is the cache key of the whole thread's tree.
var wholeKey = treeKey(view.Options{})

// treeKey is the cache key of a tree's options (matchers by their text).
func treeKey(opts view.Options) string {
	return fmt.Sprintf("%v|%d|%d|%v|%v|%v|%v", opts.View, opts.From, opts.To, opts.Drop, opts.Focus, opts.Merge, opts.CollapseRecursion)
}

func (t *Thread) treeResult(ctx context.Context, opts view.Options) (*treeResult, error) {
	key := treeKey(opts)
	t.mu.Lock()
	if t.trees == nil {
		t.trees = map[string]*lazy[*treeResult]{}
	}
	l, ok := t.trees[key]
	if !ok {
		l = &lazy[*treeResult]{}
		t.trees[key] = l
		t.treeOrder = append(t.treeOrder, key)
		// A long-lived session (the viewer's server) asks for many ranges
		// and transforms: keep the most recent maxTrees, and the whole
		// thread's tree, which every other one starts from.
		for len(t.treeOrder) > maxTrees {
			old := t.treeOrder[0]
			t.treeOrder = t.treeOrder[1:]
			if old == wholeKey {
				t.treeOrder = append(t.treeOrder, old)
				continue
			}
			delete(t.trees, old)
		}
	}
	t.mu.Unlock()
	return l.get(ctx, func() (*treeResult, error) {
		if opts.View == view.All && len(opts.Drop)+len(opts.Focus)+len(opts.Merge) == 0 && !opts.CollapseRecursion {
			return t.baseTree(ctx, opts.From, opts.To)
		}
		base, err := t.treeResult(ctx, view.Options{From: opts.From, To: opts.To})
		if err != nil {
			return nil, err
		}
		tree, m := view.Tree(base.tree, opts)
		return &treeResult{tree: tree, base: base, mapping: m}, nil
	})
}

// baseTree builds DevTools' trees over the range [From, To) (ns from
// Origin; 0 and 0: the whole window), with no view or transform.
func (t *Thread) baseTree(ctx context.Context, rFrom, rTo profile.Time) (*treeResult, error) {
	tl, err := t.Timeline(ctx)
	if err != nil {
		return nil, err
	}
	from, to, err := t.Window(ctx)
	if err != nil {
		return nil, err
	}
	if rFrom != 0 || rTo != 0 {
		origin, err := t.Origin(ctx)
		if err != nil {
			return nil, err
		}
		from = max(from, origin+rFrom)
		if rTo > 0 {
			to = min(to, origin+rTo)
		}
	}
	if !t.IsTrace() {
		// The calls alone: the forEachFrame walk gives their nesting
		// without materialising them. (DevTools' forEachEvent nests them by
		// time instead. For a tree the two agree; for the calls DevTools
		// makes of an XS call graph, which overlap, it gives nonsense such
		// as self above total, so jsprof keeps the walk's nesting there.)
		r := &treeResult{from: from, to: to}
		if tl.Times.Len() == 0 || from <= tl.Times.At(0) && to >= tl.End {
			r.tree = calltree.Build(tl)
		} else {
			r.tree = calltree.BuildWindow(tl, from, to)
		}
		return r, nil
	}
	// The entries as they are merged, unless they are held already: a
	// command that builds one tree does not hold them (on the 2 GB trace,
	// 106 MB at its peak); what needs them again (a window, stacks) merges
	// them again, once.
	var tree *calltree.Tree
	if es, ok := t.entries.peek(); ok {
		tree = calltree.FromEntries(t.s.Profile, t.ID, es, from, to)
	} else {
		b := calltree.NewEntryBuilder(t.s.Profile, t.ID, from, to)
		if err := t.eachTreeEntry(ctx, b.Add); err != nil {
			return nil, err
		}
		tree = b.Finish()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &treeResult{tree: tree, from: from, to: to, fromEntries: true}, nil
}

// stackCacheFrames bounds the frames Stacks keeps per thread for the paths
// it has met (4 bytes each: 32 MB).
var stackCacheFrames = 8 << 20

// Stacks returns the thread's time under opts as weighted stacks in time
// order (profile.ThreadStacks), for writers: the intervals of the window
// (or range) with the call path innermost in each, after the view and
// transforms. Aggregated, they give the tree Tree returns for opts (each
// node's self time is the weight of the stacks ending at it). A stack's
// category is that of the innermost trace event with a category rule on
// its path before any transform, else of its innermost frame
// (analysis/category); time with nothing on the stack is Idle.
func (t *Thread) Stacks(ctx context.Context, opts view.Options) (profile.ThreadStacks, error) {
	return t.stacks(ctx, opts, true)
}

// PathStacks is Stacks without the stacks' frames: each Stack's Frames is
// nil and its Path, an index in the ThreadStacks' Paths, tells them. A
// stack then costs the same whatever its depth, where making its frames
// costs its change from the last stack (and a cache of the paths met);
// for writers that read the paths (profile.PathTree).
func (t *Thread) PathStacks(ctx context.Context, opts view.Options) (profile.ThreadStacks, error) {
	return t.stacks(ctx, opts, false)
}

func (t *Thread) stacks(ctx context.Context, opts view.Options, withFrames bool) (profile.ThreadStacks, error) {
	r, err := t.treeResult(ctx, opts)
	if err != nil {
		return profile.ThreadStacks{}, err
	}
	b := r
	if r.base != nil {
		b = r.base
	}
	var es []calltree.Entry
	var tl *calls.Timeline
	if b.fromEntries {
		if es, err = t.TreeEntries(ctx); err != nil {
			return profile.ThreadStacks{}, err
		}
	} else if tl, err = t.Timeline(ctx); err != nil {
		return profile.ThreadStacks{}, err
	}
	b.categorise(t.s)
	tree := r.tree
	// A stack's Path is its node in the output tree, whose parents come
	// first.
	paths := &profile.PathTree{Parent: make([]int32, len(tree.TopDown)), Frame: make([]profile.FrameID, len(tree.TopDown))}
	paths.Parent[0], paths.Frame[0] = -1, -1
	for n := 1; n < len(tree.TopDown); n++ {
		paths.Parent[n] = tree.TopDown[n].Parent
		paths.Frame[n] = tree.Funcs[tree.TopDown[n].Func].Frame
	}
	seq := func(yield func(*profile.Stack) bool) {
		var st profile.Stack
		// The frames of the last stack and their nodes: the next stack's are
		// made from them by popping to the common ancestor and pushing the
		// rest, so a stack costs its change from the last, not its depth
		// (a 50 MB recording of a deep recursion: 5.5 M stacks, 43 M calls,
		// 500 M frames).
		var frames []profile.FrameID
		var path, tmp []int32
		var depth []int32 // nodes on the path, root excluded
		frameOf := paths.Frame
		if withFrames {
			depth = make([]int32, len(tree.TopDown))
			for n := 1; n < len(tree.TopDown); n++ {
				depth[n] = depth[tree.TopDown[n].Parent] + 1 // parents come first
			}
		}
		cur := int32(-2) // the output node of st
		// The frames of the paths met, while they fit stackCacheFrames: a
		// long recording meets the same few thousand paths millions of
		// times, and popping and pushing to each one's common ancestor
		// with the last was most of a writer's time (the 246 MB recording:
		// 5.5 M stacks of a deep recursion).
		known := map[int32][]profile.FrameID{}
		cached := 0
		flush := func() bool {
			if cur == -2 || st.Weight == 0 {
				return true
			}
			st.Path = cur
			if !withFrames {
				return yield(&st)
			}
			if fr, ok := known[cur]; ok {
				st.Frames = fr
				return yield(&st)
			}
			tmp = tmp[:0]
			x := cur
			for x > 0 && (int(depth[x]) > len(path) || path[depth[x]-1] != x) {
				tmp = append(tmp, x)
				x = tree.TopDown[x].Parent
			}
			path, frames = path[:depth[max(x, 0)]], frames[:depth[max(x, 0)]]
			for k := len(tmp) - 1; k >= 0; k-- {
				path = append(path, tmp[k])
				frames = append(frames, frameOf[tmp[k]])
			}
			st.Frames = frames
			if cached+len(frames) <= stackCacheFrames {
				known[cur] = slices.Clip(slices.Clone(frames))
				cached += len(frames) + 8 // a map entry's share
			}
			return yield(&st)
		}
		each := func(iv calltree.Interval) bool {
			out := iv.Node
			if r.mapping != nil {
				out = r.mapping[iv.Node]
			}
			if out < 0 {
				return true
			}
			c, sub := b.cats[iv.Node], b.subs[iv.Node]
			if out == cur && c == st.Category && sub == st.Subcategory && st.Time+st.Weight == iv.Start {
				st.Weight += iv.End - iv.Start
				return true
			}
			if !flush() {
				return false
			}
			cur = out
			st = profile.Stack{Time: iv.Start, Weight: iv.End - iv.Start, Category: c, Subcategory: sub}
			return true
		}
		if b.fromEntries {
			b.tree.EntryIntervals(es, b.from, b.to, each)
		} else {
			b.tree.CallIntervals(tl, b.from, b.to, each)
		}
		flush()
	}
	return profile.ThreadStacks{Thread: t.ID, Stacks: seq, Paths: paths}, nil
}

// categorise computes the category of each node of a base tree: that of
// the innermost trace event with a rule on its path, else of its frame;
// Idle for the root.
func (r *treeResult) categorise(s *Session) {
	r.catOnce.Do(func() {
		p := s.Profile
		td := r.tree.TopDown
		r.cats, r.subs = make([]profile.CategoryID, len(td)), make([]uint8, len(td))
		fromEvent := make([]bool, len(td))
		r.cats[0] = profile.CatIdle
		// A parent's index is below its child's.
		for n := 1; n < len(td); n++ {
			par := td[n].Parent
			f := &p.Frames[r.tree.Funcs[td[n].Func].Frame]
			if f.Kind == profile.KindEvent {
				if c, sub, ok := category.Event(p, p.Str(f.Name)); ok {
					r.cats[n], r.subs[n], fromEvent[n] = c, sub, true
					continue
				}
			}
			switch {
			case fromEvent[par]:
				r.cats[n], r.subs[n], fromEvent[n] = r.cats[par], r.subs[par], true
			case f.Kind == profile.KindEvent:
				r.cats[n], r.subs[n] = profile.CatOther, 0 // an event without a rule
			default:
				r.cats[n], r.subs[n] = category.Frame(p, f)
			}
		}
	})
}

// Categories fills the session profile's per-sample categories
// (Profile.Samples.Category and Subcategory) for the threads with trace
// events, once, and returns an error if a thread's timeline cannot be
// built. Read a thread's categories (category.ForSamples) only after
// Categories has returned. A cancelled call is not remembered: the next
// one computes them.
func (s *Session) Categories(ctx context.Context) error {
	_, err := s.cats.get(ctx, func() (struct{}, error) {
		tls := make([]*calls.Timeline, len(s.threads))
		for i, t := range s.threads {
			tl, err := t.Timeline(ctx)
			if err != nil {
				return struct{}{}, err
			}
			tls[i] = tl
		}
		category.Assign(s.Profile, tls)
		return struct{}{}, nil
	})
	return err
}

// CategoryTimes returns the time of the thread's samples per jsprof
// category (indexed by profile.CategoryID), each sample lasting until the
// next (the last one, one average interval), clipped to the thread's
// Window: they add up to the time of its .cpuprofile tree.
func (t *Thread) CategoryTimes(ctx context.Context) ([]profile.Time, error) {
	if err := t.s.Categories(ctx); err != nil {
		return nil, err
	}
	tl, err := t.Timeline(ctx)
	if err != nil {
		return nil, err
	}
	from, to, err := t.Window(ctx)
	if err != nil {
		return nil, err
	}
	// The thread's tree, when it was made from the samples, holds their
	// sums per node already.
	if r := t.builtTree(wholeKey); r != nil && r.from == from && r.to == to {
		if nodes, root, ok := r.tree.SampleTimes(); ok {
			if out, ok := category.TimesOfNodes(t.s.Profile, tl, nodes, root); ok {
				return out, nil
			}
		}
	}
	return category.TimesIn(t.s.Profile, tl, from, to), nil
}

// builtTree returns the tree of key if it has been built, or nil.
func (t *Thread) builtTree(key string) *treeResult {
	t.mu.Lock()
	l := t.trees[key]
	t.mu.Unlock()
	if l == nil {
		return nil
	}
	r, ok := l.peek()
	if !ok {
		return nil
	}
	return r
}

// SampleIntervals returns the mean and median interval between the
// thread's samples as the file gives them (0 with fewer than two samples;
// the median over the positive intervals).
func (t *Thread) SampleIntervals() (mean, median profile.Time) {
	times := t.s.Profile.ThreadSamples(t.ID).Time
	n := times.Len()
	if n < 2 {
		return 0, 0
	}
	mean = (times.At(n-1) - times.At(0)) / profile.Time(n-1)
	return mean, profile.MedianInterval(times)
}

// CachedTrees returns how many trees the thread holds in its cache.
func (t *Thread) CachedTrees() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.trees)
}
