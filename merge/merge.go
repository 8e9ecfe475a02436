// Package merge sums many profiles into one: the same program run many
// times, or the workers of one run (Node writes one .cpuprofile per
// thread).
//
// The sum is time-weighted: each input is read through a session (package
// session) and its threads' time, as weighted stacks (session.Thread.Stacks,
// the time `jsprof top` and `tree` show, under the view and transforms
// asked for), is added into one call tree, so that inputs sampled at
// different intervals add up by time, not by sample count. Functions are
// matched by name, URL, line, column and kind (script ids differ between
// runs).
//
// Memory is bounded by the merged tree, not by the inputs: inputs are read
// by Options.Workers goroutines (default: one per CPU), each holding one
// input at a time, and each input's tree is added into the merged tree and
// dropped before the worker reads the next. With Options.PerInput every
// input keeps a tree of its own (a thread of the result), so memory grows
// with the number of inputs.
//
// The result is a profile whose threads hold the merged trees as nodes and
// one sample per node with self time, laid out on a synthetic timeline
// (sample i lasts until sample i+1, the last until the thread's End), so
// that every writer, the .cpuprofile one included, writes it exactly; and
// its stacks (Result.Stacks) for the writers of analysed views.
package merge

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jsprof/jsprof/analysis/category"
	"github.com/jsprof/jsprof/analysis/totals"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// Options controls Merge. The zero value merges every thread of every
// input under DevTools' tree (view all), one worker per CPU, into one
// thread.
type Options struct {
	// Session holds the options each input is loaded with (read limits).
	Session session.Options
	// Thread selects the threads of each input ("" every thread; see
	// session.Session.Select).
	Thread string
	// View holds the view, range and transforms applied to every input.
	View view.Options
	// Workers is the number of inputs read at once; 0 means GOMAXPROCS.
	Workers int
	// PerInput gives each input a thread of its own in the result instead
	// of summing them all into one.
	PerInput bool
	// Strip lists URL prefixes removed from every frame's URL (the first
	// that matches), so that the same code installed in different places
	// on different hosts merges.
	Strip []string
	// Progress, if not nil, is called after each input is added, with the
	// number added so far and the number of inputs. It is called from the
	// workers, one call at a time.
	Progress func(done, total int)
}

// ErrMismatch reports inputs that do not belong together: their times
// mean different things, so their sum means nothing.
var ErrMismatch = errors.New("inputs do not belong together")

// Result is a merged profile.
type Result struct {
	// Profile holds the merged threads (one, or one per input).
	Profile *profile.Profile
	// Inputs is the number of inputs merged, Threads the number of their
	// threads.
	Inputs, Threads int
	// Semantics is the total-time semantics the inputs share.
	Semantics totals.Semantics
	trees     []*tree
}

// Stacks returns each thread's stacks (root first, time order on the
// synthetic timeline): aggregated, they give the merged trees.
func (r *Result) Stacks() []profile.ThreadStacks {
	out := make([]profile.ThreadStacks, len(r.trees))
	for i, t := range r.trees {
		out[i] = profile.ThreadStacks{Thread: profile.ThreadID(i), Stacks: t.stacks, Paths: t.paths()}
	}
	return out
}

// Total returns the time of thread i of the result, ns.
func (r *Result) Total(i int) profile.Time { return r.trees[i].total }

// frameKey identifies a merged frame.
type frameKey struct {
	name, url  string
	line, col  int32
	kind       profile.FrameKind
	category   profile.CategoryID
	script     string // kept only for frames without a URL
	eventFrame bool
}

// node is a merged call-tree node.
type node struct {
	parent int32
	frame  profile.FrameID
	self   profile.Time
	cat    profile.CategoryID
	sub    uint8
}

// tree is a merged call tree: node 0 is the root.
type tree struct {
	nodes []node
	child map[[2]int32]int32
	total profile.Time
}

func newTree() *tree {
	return &tree{nodes: []node{{parent: -1, frame: -1}}, child: map[[2]int32]int32{}}
}

func (t *tree) childOf(parent int32, f profile.FrameID) int32 {
	k := [2]int32{parent, int32(f)}
	c, ok := t.child[k]
	if !ok {
		c = int32(len(t.nodes))
		t.nodes = append(t.nodes, node{parent: parent, frame: f})
		t.child[k] = c
	}
	return c
}

// stacks yields a stack per node with self time, in node order. A stack's
// frames are made from the last one's, popped to their common ancestor: a
// stack costs its change from the last, not its depth.
func (t *tree) stacks(yield func(*profile.Stack) bool) {
	var st profile.Stack
	var frames []profile.FrameID
	var path, tmp []int32 // the nodes of frames
	depth := make([]int32, len(t.nodes))
	var now profile.Time
	for i := 1; i < len(t.nodes); i++ {
		n := &t.nodes[i]
		depth[i] = depth[n.parent] + 1 // parents come first
		if n.self <= 0 {
			continue
		}
		tmp = tmp[:0]
		x := int32(i)
		for x > 0 && (int(depth[x]) > len(path) || path[depth[x]-1] != x) {
			tmp = append(tmp, x)
			x = t.nodes[x].parent
		}
		path, frames = path[:depth[x]], frames[:depth[x]]
		for k := len(tmp) - 1; k >= 0; k-- {
			path = append(path, tmp[k])
			frames = append(frames, t.nodes[tmp[k]].frame)
		}
		st = profile.Stack{Frames: frames, Time: now, Weight: n.self, Category: n.cat, Subcategory: n.sub, Path: int32(i)}
		now += n.self
		if !yield(&st) {
			return
		}
	}
}

// paths returns the tree's nodes as the stacks' path tree.
func (t *tree) paths() *profile.PathTree {
	pt := &profile.PathTree{Parent: make([]int32, len(t.nodes)), Frame: make([]profile.FrameID, len(t.nodes))}
	for i, n := range t.nodes {
		pt.Parent[i], pt.Frame[i] = n.parent, n.frame
	}
	return pt
}

// merger is the shared state of a Merge.
type merger struct {
	mu     sync.Mutex
	b      *profile.Builder
	frames map[frameKey]profile.FrameID
	trees  []*tree
	// The first input's semantics, for the mismatch check.
	sem     totals.Semantics
	semFrom string
	semSet  bool
	threads int
	// turn is the index of the next input to add; failed stops the
	// waiting workers.
	cond   *sync.Cond
	turn   int
	failed error
	strip  []string
}

// fail records the first error and wakes the waiting workers.
func (m *merger) fail(err error) {
	m.mu.Lock()
	if m.failed == nil {
		m.failed = err
	}
	m.cond.Broadcast()
	m.mu.Unlock()
}

// local is one input's tree, with its own frames.
type local struct {
	p     *profile.Profile
	nodes []node // frame: the input's FrameID
	child map[[2]int32]int32
}

// Merge reads the named inputs and sums them (see the package
// documentation). An input that cannot be read, or whose threads do not
// belong with the others' (an XS call graph among V8 call trees: their
// totals follow other rules), fails the merge with an error naming it.
//
//  1. Workers take inputs in order; each loads one, checks it, and builds
//     the tree of its selected threads' stacks with the input's frames.
//  2. Under a lock, the tree's frames are mapped to the result's and its
//     nodes added into the merged tree (or the input's own).
//  3. The merged trees become the result's nodes and samples.
func Merge(ctx context.Context, names []string, opts Options) (*Result, error) {
	if len(names) == 0 {
		return nil, errors.New("merge: no input")
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(names))
	m := &merger{b: profile.NewBuilder("merged"), frames: map[frameKey]profile.FrameID{}, strip: opts.Strip}
	m.cond = sync.NewCond(&m.mu)
	if opts.PerInput {
		m.trees = make([]*tree, len(names))
		for i := range m.trees {
			m.trees[i] = newTree()
		}
	} else {
		m.trees = []*tree{newTree()}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next, done atomic.Int64
	var wg sync.WaitGroup
	var progressMu sync.Mutex
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(names) {
					return
				}
				if err := ctx.Err(); err != nil {
					m.fail(err)
					return
				}
				if err := m.add(ctx, i, names[i], opts); err != nil {
					cancel(err)
					m.fail(err)
					return
				}
				if opts.Progress != nil {
					progressMu.Lock()
					opts.Progress(int(done.Add(1)), len(names))
					progressMu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return m.result(names, opts), nil
}

// add reads input i and adds it.
func (m *merger) add(ctx context.Context, i int, name string, opts Options) error {
	s, err := session.Load(ctx, name, opts.Session)
	if err != nil {
		return err
	}
	ths, err := s.Select(opts.Thread)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	l := &local{p: s.Profile, nodes: []node{{parent: -1}}, child: map[[2]int32]int32{}}
	for _, th := range ths {
		sem, _ := totals.Default(s.Profile, th.ID)
		if err := m.check(name, th, sem); err != nil {
			return err
		}
		// The thread's tree: each node's self time is the weight of the
		// stacks (session.Thread.Stacks) ending at it, without walking the
		// stacks one by one.
		tree, err := th.Tree(ctx, opts.View)
		if err != nil {
			return err
		}
		td := tree.TopDown
		// At most a local node a top-down node: made room for at once,
		// the nodes and their index are not grown and copied again.
		l.nodes = slices.Grow(l.nodes, len(td))
		if len(l.child) == 0 {
			l.child = make(map[[2]int32]int32, len(td))
		}
		cats, subs, fromEvent := make([]profile.CategoryID, len(td)), make([]uint8, len(td)), make([]bool, len(td))
		loc := make([]int32, len(td)) // top-down node → local node
		for j := 1; j < len(td); j++ {
			par := td[j].Parent
			f := tree.Funcs[td[j].Func].Frame
			cats[j], subs[j], fromEvent[j] = nodeCategory(s.Profile, f, cats[par], subs[par], fromEvent[par])
			key := [2]int32{loc[par], int32(f)}
			c, ok := l.child[key]
			if !ok {
				c = int32(len(l.nodes))
				l.nodes = append(l.nodes, node{parent: loc[par], frame: f})
				l.child[key] = c
			}
			loc[j] = c
			if td[j].Self > 0 {
				if l.nodes[c].self == 0 {
					l.nodes[c].cat, l.nodes[c].sub = cats[j], subs[j]
				}
				l.nodes[c].self += td[j].Self
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Inputs are added in order, so that the result does not depend on
	// which worker finished first: a worker waits for its turn holding one
	// input's tree (never the input itself).
	m.mu.Lock()
	defer m.mu.Unlock()
	for m.turn != i && m.failed == nil {
		m.cond.Wait()
	}
	if m.failed != nil {
		return m.failed
	}
	defer func() { m.turn++; m.cond.Broadcast() }()
	t := m.trees[0]
	if opts.PerInput {
		t = m.trees[i]
	}
	m.threads += len(ths)
	gframe := make([]profile.FrameID, len(l.p.Frames))
	for j := range gframe {
		gframe[j] = -1
	}
	gnode := make([]int32, len(l.nodes))
	for j := 1; j < len(l.nodes); j++ {
		n := &l.nodes[j]
		if gframe[n.frame] < 0 {
			gframe[n.frame] = m.frame(l.p, n.frame)
		}
		g := t.childOf(gnode[n.parent], gframe[n.frame])
		gnode[j] = g
		gn := &t.nodes[g]
		if gn.self == 0 && n.self > 0 {
			gn.cat, gn.sub = n.cat, n.sub
		}
		gn.self += n.self
		t.total += n.self
	}
	return nil
}

// check fails when a thread's total-time semantics differs from the first
// input's: an XS call graph (xsbug totals) and V8 call trees (DevTools
// totals) do not add up.
func (m *merger) check(name string, th *session.Thread, sem totals.Semantics) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	info := th.Info()
	what := fmt.Sprintf("%s (thread %d:%d, %s: %s totals)", name, info.PID, info.TID, shapeName(info.Shape), sem)
	if !m.semSet {
		m.sem, m.semFrom, m.semSet = sem, what, true
		return nil
	}
	if sem != m.sem {
		return fmt.Errorf("%w: %s and %s; merge each kind separately", ErrMismatch, m.semFrom, what)
	}
	return nil
}

// nodeCategory returns the category of a tree node (as session.Thread.Stacks
// gives it to the stacks ending there): that of the innermost trace event
// with a category rule on its path, else of its frame.
func nodeCategory(p *profile.Profile, f profile.FrameID, parCat profile.CategoryID, parSub uint8, parFromEvent bool) (profile.CategoryID, uint8, bool) {
	fr := &p.Frames[f]
	if fr.Kind == profile.KindEvent {
		if c, sub, ok := category.Event(p, p.Str(fr.Name)); ok {
			return c, sub, true
		}
	}
	switch {
	case parFromEvent:
		return parCat, parSub, true
	case fr.Kind == profile.KindEvent:
		return profile.CatOther, 0, false
	}
	c, sub := category.Frame(p, fr)
	return c, sub, false
}

func shapeName(s profile.Shape) string {
	if s == profile.ShapeCallGraph {
		return "an XS call graph"
	}
	return "a call tree"
}

// frame returns the result's frame for frame f of p. m.mu is held.
func (m *merger) frame(p *profile.Profile, f profile.FrameID) profile.FrameID {
	fr := &p.Frames[f]
	u := p.Str(fr.URL)
	for _, pre := range m.strip {
		if pre != "" && strings.HasPrefix(u, pre) {
			u = u[len(pre):]
			break
		}
	}
	k := frameKey{name: p.Str(fr.Name), url: u, line: fr.Line, col: fr.Column, kind: fr.Kind, category: fr.Category}
	if fr.URL == 0 && fr.Kind == profile.KindJS {
		k.script = p.Str(fr.ScriptID)
	}
	if id, ok := m.frames[k]; ok {
		return id
	}
	b := m.b
	nf := profile.Frame{Name: b.Intern(k.name), URL: b.Intern(k.url), Line: k.line, Column: k.col,
		CodeType: b.Intern(p.Str(fr.CodeType)), Kind: k.kind, Category: k.category}
	switch {
	case k.script != "":
		nf.ScriptID = b.Intern(k.script)
	case k.url != "":
		// One script id per URL, so that DevTools tells the merged
		// scripts apart as jsprof does.
		nf.ScriptID = b.Intern(strconv.Itoa(int(nf.URL)))
	default:
		nf.ScriptID = b.Intern("0")
	}
	id := profile.FrameID(len(b.P.Frames))
	b.P.Frames = append(b.P.Frames, nf)
	m.frames[k] = id
	return id
}

// result builds the merged profile: per tree, a (root) node, the tree's
// nodes, and one sample per node with self time.
func (m *merger) result(names []string, opts Options) *Result {
	b := m.b
	p := b.P
	root := b.Frame(profile.Frame{Name: b.Intern("(root)"), ScriptID: b.Intern("0"), Line: -1, Column: -1, Kind: profile.KindRoot})
	res := &Result{Profile: p, Inputs: len(names), Threads: m.threads, Semantics: m.sem, trees: m.trees}
	for ti, t := range m.trees {
		th := profile.Thread{PID: 1, TID: int64(ti + 1), Name: fmt.Sprintf("merged (%d inputs)", len(names)), Shape: profile.ShapeTree}
		if opts.PerInput {
			th.Name = names[ti]
		}
		base := int32(len(p.Nodes))
		th.Nodes.Start = base
		p.Nodes = append(p.Nodes, profile.Node{Parent: profile.NoNode, Frame: root, InputID: 1})
		for i := 1; i < len(t.nodes); i++ {
			n := &t.nodes[i]
			p.Nodes = append(p.Nodes, profile.Node{Parent: profile.NodeID(base + n.parent), Frame: n.frame, InputID: int64(i + 1)})
		}
		th.Nodes.End = int32(len(p.Nodes))
		th.Samples.Start = int32(p.Samples.Node.Len())
		var now profile.Time
		for i := 1; i < len(t.nodes); i++ {
			if n := &t.nodes[i]; n.self > 0 {
				p.Samples.Node.Append(profile.NodeID(base + int32(i)))
				p.Samples.Time.Append(now)
				now += n.self
			}
		}
		th.Samples.End = int32(p.Samples.Node.Len())
		th.Start, th.End = 0, now
		p.Threads = append(p.Threads, th)
	}
	return res
}
