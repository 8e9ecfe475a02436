package calltree

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// TestSamplesMatchWalk checks that the trees summed from the samples are the
// trees of DevTools' walk, node for node and function for function, in the
// same order: on every .cpuprofile and trace thread of testdata and the
// shared corpus, on generated shapes, over the whole time and over windows.
// Times are equal to the nanosecond (the walk's float ms could round a call
// by a nanosecond; on none of these inputs does it).
func TestSamplesMatchWalk(t *testing.T) {
	var paths []string
	root := proftest.RepoRoot()
	filepath.WalkDir(filepath.Join(root, "testdata"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".cpuprofile") || strings.HasSuffix(p, ".json")) {
			paths = append(paths, p)
		}
		return nil
	})
	if corpus := filepath.Join(root, "..", "shared", "corpus"); dirExists(corpus) {
		filepath.WalkDir(corpus, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.Contains(p, ".cpuprofile") || strings.HasSuffix(p, ".json.gz") || strings.HasSuffix(p, ".json")) {
				paths = append(paths, p)
			}
			return nil
		})
	} else {
		t.Log("../shared/corpus is absent: testdata and generated profiles only")
	}
	type input struct {
		name string
		p    *profile.Profile
	}
	var inputs []input
	for _, path := range paths {
		p, err := format.ReadFile(path, nil, format.Options{})
		if err != nil {
			continue // not a profile (a README's JSON, a hostile case)
		}
		inputs = append(inputs, input{strings.TrimPrefix(path, root), p})
	}
	for _, sh := range proftest.Shapes {
		var buf bytes.Buffer
		if err := proftest.WriteShapedCPUProfile(&buf, sh, 0.02, 3); err != nil {
			t.Fatal(err)
		}
		p, err := format.Parse(buf.Bytes(), format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{"shape " + sh.Name, p})
	}
	// Samples at the root, which open no call (the fuzzer's; no real
	// profile has them), beside GC samples stacked on two parents.
	const rootSamples = `{"nodes":[
		{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":""},"children":[2,3,4]},
		{"id":2,"callFrame":{"functionName":"a","scriptId":"1","url":"u"},"children":[5]},
		{"id":3,"callFrame":{"functionName":"(garbage collector)","scriptId":"0","url":""}},
		{"id":4,"callFrame":{"functionName":"b","scriptId":"1","url":"u"}},
		{"id":5,"callFrame":{"functionName":"c","scriptId":"1","url":"u"}}],
	 "startTime":0,"endTime":1000,"samples":[1,2,5,3,3,1,4,3,1,1,5],"timeDeltas":[10,20,30,40,50,60,70,80,90,100,110]}`
	p, err := format.Parse([]byte(rootSamples), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, input{"root samples", p})
	// The outermost nodes found from the model nodes for every tree, not
	// only large ones.
	defer func(n int) { modelOutermostNodes = n }(modelOutermostNodes)
	modelOutermostNodes = 0
	threads, fast, gcSplits, preorder := 0, 0, 0, 0
	for _, in := range inputs {
		for th := range in.p.Threads {
			tl, err := calls.NewTimeline(in.p, profile.ThreadID(th))
			if err != nil || tl.Len() == 0 {
				continue
			}
			threads++
			name := fmt.Sprintf("%s thread %d", in.name, th)
			if fromSamples(tl, false, 0, 0) == nil {
				continue // a call graph (XS), or an epoch clock
			}
			fast++
			walk := buildWalk(tl)
			fs := fromSamples(tl, false, 0, 0)
			compareTrees(t, name, fs, walk)
			// The outermost nodes from the model nodes, as from the tree.
			// (Threads read from Firefox's tables are not in preorder:
			// their trees are walked, and compared above all the same.)
			if model := modelOutermost(in.p, profile.NodeID(in.p.Threads[th].Nodes.Start), tl.Parent); model != nil {
				preorder++
				if got, want := fs.sampleOutermost(model, gcsOf(tl)), fs.outermost(); !slices.Equal(got, want) {
					t.Errorf("%s: outermost from the model nodes differs from the tree's", name)
				}
			} else if strings.HasSuffix(in.name, ".cpuprofile") {
				t.Errorf("%s: a .cpuprofile's nodes not in preorder", name)
			}
			// The nodes' order both ways: by counting and by comparing.
			orig := sortByCounting
			for _, counting := range []bool{false, true} {
				sortByCounting = func(int, int) bool { return counting }
				compareTrees(t, fmt.Sprintf("%s (sorted by counting: %t)", name, counting), fromSamples(tl, false, 0, 0), walk)
			}
			sortByCounting = orig
			// Passes over two halves at once, split after samples of every
			// kind (GC, after a GC run, the first and the last).
			pts := splitPoints(tl)
			if len(pts) > 3 {
				gcSplits++
			}
			for _, mid := range pts {
				splitSamples = func(int, int) int { return mid }
				compareTrees(t, fmt.Sprintf("%s (split at sample %d)", name, mid), fromSamples(tl, false, 0, 0), walk)
				w := [2]profile.Time{tl.Times.At(0) + span3(tl), tl.End - span3(tl)}
				compareTrees(t, fmt.Sprintf("%s window (split at sample %d)", name, mid), fromSamples(tl, true, w[0], w[1]), buildWindowWalk(tl, w[0], w[1]))
			}
			splitSamples = defaultSplit
			end := tl.End
			span := end - tl.Times.At(0)
			for _, w := range [][2]profile.Time{{tl.Times.At(0) - 1000, end + 1000}, {tl.Times.At(0) + span/3, tl.Times.At(0) + span/2}, {end + 10, end + 20}} {
				wname := fmt.Sprintf("%s window %v", name, w)
				got, want := fromSamples(tl, true, w[0], w[1]), buildWindowWalk(tl, w[0], w[1])
				compareTrees(t, wname, got, want)
				compareIntervals(t, wname, intervals(got, tl, w[0], w[1]), intervals(want, tl, w[0], w[1]))
			}
		}
	}
	t.Logf("%d threads; %d tree-shaped, compared whole and in 3 windows, and split in halves (%d split after GC samples); %d in preorder", threads, fast, gcSplits, preorder)
	if preorder < fast/2 {
		t.Errorf("%d of %d tree-shaped threads in preorder", preorder, fast)
	}
	if gcSplits == 0 {
		t.Error("no thread split after a GC sample")
	}
	if fast == 0 {
		t.Fatal("no thread compared")
	}
}

var defaultSplit = splitSamples

// BenchmarkBuild times the trees of one thread (Build, from the samples
// where it can): a generated profile, and the node-heavy shapes of
// bench/shapes.sh at full size (genprofile's seed).
func BenchmarkBuild(b *testing.B) {
	run := func(b *testing.B, data []byte) {
		_, tl := timelineOf(b, data)
		proftest.BenchCount(b, "calls/op", func() int { return Build(tl).Calls })
	}
	b.Run("generated", func(b *testing.B) { run(b, proftest.LargeCPUProfile(1, 150_000, 150_000)) })
	for _, name := range []string{"typescript", "many-nodes", "samples-heavy"} {
		b.Run(name, func(b *testing.B) { run(b, proftest.ShapeBytes(b, name)) })
	}
}

// timelineOf reads a profile and returns it with its first thread's
// timeline.
func timelineOf(t testing.TB, data []byte) (*profile.Profile, *calls.Timeline) {
	t.Helper()
	p, err := format.Parse(data, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := calls.NewTimeline(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p, tl
}

// gcsOf returns the GC samples of tl by the node they are stacked on.
func gcsOf(tl *calls.Timeline) map[int32]*gcAt {
	prev, gcParent := stateAt(tl, 0)
	end, _ := tl.WalkEnd()
	return scanSamples(tl, subtreeEnds(tl.Parent), false, 0, 0, end, 0, tl.Len(), prev, gcParent).gcs
}

// modelOutermost answers from the model nodes when they are in preorder,
// and nil otherwise (the tree is then walked).
func TestModelOutermost(t *testing.T) {
	const doc = `{"nodes":[
		{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":""},"children":[2,4]},
		{"id":2,"callFrame":{"functionName":"a","scriptId":"1","url":"u"},"children":[3]},
		{"id":3,"callFrame":{"functionName":"a","scriptId":"1","url":"u"},"children":[5]},
		{"id":4,"callFrame":{"functionName":"b","scriptId":"1","url":"u"}},
		{"id":5,"callFrame":{"functionName":"b","scriptId":"1","url":"u"}}],
	 "startTime":0,"endTime":100,"samples":[3,4,5],"timeDeltas":[10,10,10]}`
	p, tl := timelineOf(t, []byte(doc))
	got := modelOutermost(p, 0, tl.Parent)
	// Preorder: (root), a, a (nested), b (under the inner a), b (at the
	// top). The root is no function's (Tree.outermost leaves it false).
	if want := []bool{false, true, false, true, true}; !slices.Equal(got, want) {
		t.Errorf("outermost %v, want %v", got, want)
	}
	for x := range p.Nodes[1:] {
		if name := p.Strings[p.Frames[p.Nodes[x+1].Frame].Name]; name != []string{"a", "a", "b", "b"}[x] {
			t.Fatalf("node %d is %q: not the preorder this test assumes", x+1, name)
		}
	}
	// Functions of one name (lines 1 and 2), and a frame of the first
	// again under the second, and of the second under both.
	const sameName = `{"nodes":[
		{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":""},"children":[2]},
		{"id":2,"callFrame":{"functionName":"a","scriptId":"1","url":"u","lineNumber":1},"children":[3]},
		{"id":3,"callFrame":{"functionName":"a","scriptId":"1","url":"u","lineNumber":2},"children":[4]},
		{"id":4,"callFrame":{"functionName":"a","scriptId":"1","url":"u","lineNumber":1,"codeType":"JS"},"children":[5]},
		{"id":5,"callFrame":{"functionName":"a","scriptId":"1","url":"u","lineNumber":2,"codeType":"JS"}}],
	 "startTime":0,"endTime":100,"samples":[5],"timeDeltas":[10]}`
	p, tl = timelineOf(t, []byte(sameName))
	if len(p.Frames) != 5 {
		t.Fatalf("%d frames, want 5 (the codeTypes make two more)", len(p.Frames))
	}
	if got, want := modelOutermost(p, 0, tl.Parent), []bool{false, true, true, false, false}; !slices.Equal(got, want) {
		t.Errorf("outermost %v, want %v (functions of one name)", got, want)
	}
	// A parent that is not on the path (node 4's parent after node 3's
	// subtree was left): not preorder.
	if got := modelOutermost(p, 0, []int32{-1, 0, 1, 0, 2}); got != nil {
		t.Errorf("outermost %v for nodes out of preorder, want nil", got)
	}
}

// span3 is a third of the thread's time.
func span3(tl *calls.Timeline) profile.Time { return (tl.End - tl.Times.At(0)) / 3 }

// splitPoints returns samples to split tl's samples at: the second and the
// last, the middle, and after the first GC sample, after the second of two
// GC samples in a row, and after the first sample following a GC run.
func splitPoints(tl *calls.Timeline) []int {
	n := tl.Len()
	pts := []int{1, n / 2, n - 1}
	gc := tl.GC
	var afterGC, inRun, afterRun bool
	for i := 1; i < n && gc >= 0; i++ {
		switch {
		case tl.Sample(i-1) == gc && !afterGC:
			pts, afterGC = append(pts, i), true
		case i >= 2 && tl.Sample(i-1) == gc && tl.Sample(i-2) == gc && !inRun:
			pts, inRun = append(pts, i), true
		case i >= 2 && tl.Sample(i-1) != gc && tl.Sample(i-2) == gc && !afterRun:
			pts, afterRun = append(pts, i), true
		}
	}
	var out []int
	for _, p := range pts {
		if p > 0 && p < n {
			out = append(out, p)
		}
	}
	return out
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func compareTrees(t *testing.T, name string, got, want *Tree) {
	t.Helper()
	near := func(a, b profile.Time, _ int) bool { return a == b }
	if got.Calls != want.Calls || len(got.TopDown) != len(want.TopDown) || len(got.Funcs) != len(want.Funcs) {
		t.Errorf("%s: %d calls, %d nodes, %d functions; walk: %d, %d, %d", name,
			got.Calls, len(got.TopDown), len(got.Funcs), want.Calls, len(want.TopDown), len(want.Funcs))
		return
	}
	bad := 0
	for i := range want.TopDown {
		g, w := got.TopDown[i], want.TopDown[i]
		if g.Func != w.Func || g.Parent != w.Parent || g.FirstChild != w.FirstChild || g.NextSibling != w.NextSibling || g.Calls != w.Calls ||
			!near(g.Self, w.Self, w.Calls) || !near(g.Total, w.Total, w.Calls) {
			if bad++; bad <= 3 {
				t.Errorf("%s: node %d = %+v, walk %+v", name, i, g, w)
			}
		}
	}
	for i := range want.Funcs {
		g, w := got.Funcs[i], want.Funcs[i]
		if g.Key != w.Key || g.Frame != w.Frame || g.Calls != w.Calls || !near(g.Self, w.Self, w.Calls) || !near(g.Total, w.Total, w.Calls) {
			if bad++; bad <= 6 {
				t.Errorf("%s: function %d = %+v, walk %+v", name, i, g, w)
			}
		}
	}
	for i := range want.NodeSelf {
		if !near(got.NodeSelf[i], want.NodeSelf[i], 1000) {
			if bad++; bad <= 9 {
				t.Errorf("%s: model node %d self %d, walk %d", name, i, got.NodeSelf[i], want.NodeSelf[i])
			}
		}
	}
	if got.paths().len() != want.paths().len() {
		t.Errorf("%s: %d (path, node) pairs, walk %d", name, got.paths().len(), want.paths().len())
	}
	for k, w := range want.paths().all() {
		if g, ok := got.paths().get(k[0], k[1]); !ok || !near(g, w, 1000) {
			if bad++; bad <= 12 {
				t.Errorf("%s: pair %v self %d (%v), walk %d", name, k, g, ok, w)
			}
		}
	}
}

// intervals returns the tree's CallIntervals with adjacent ones of the same
// node merged (the walk yields one per call boundary, the samples one per
// run).
func intervals(t *Tree, tl *calls.Timeline, from, to profile.Time) []Interval {
	var out []Interval
	t.CallIntervals(tl, from, to, func(iv Interval) bool {
		if k := len(out) - 1; k >= 0 && out[k].Node == iv.Node && out[k].End == iv.Start {
			out[k].End = iv.End
		} else {
			out = append(out, iv)
		}
		return true
	})
	return out
}

func compareIntervals(t *testing.T, name string, got, want []Interval) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d intervals, walk %d", name, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: interval %d = %+v, walk %+v", name, i, got[i], want[i])
			return
		}
	}
}

// TestSamplesZigzagLinear checks that the tree of a deep chain whose samples
// go back and forth between its deepest node and its first is summed in
// time linear in the profile: the walk to the two stacks' common node was
// the chain's depth at each sample, cached only where samples far
// outnumber nodes (20 k nodes: 589 ms).
func TestSamplesZigzagLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("a chain of 20 k nodes")
	}
	const n = 20_000
	var b strings.Builder
	b.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]}`)
	for i := 2; i <= n+1; i++ {
		fmt.Fprintf(&b, `,{"id":%d,"callFrame":{"functionName":"f%d","scriptId":"1","url":"a.js","lineNumber":%d,"columnNumber":0}`, i, i, i)
		if i <= n {
			fmt.Fprintf(&b, `,"children":[%d]`, i+1)
		}
		b.WriteString(`}`)
	}
	b.WriteString(`],"startTime":0,"endTime":1000000,"samples":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i%2 == 0 {
			fmt.Fprint(&b, n+1)
		} else {
			b.WriteString("2")
		}
	}
	b.WriteString(`],"timeDeltas":[` + strings.TrimSuffix(strings.Repeat("10,", n), ",") + `]}`)
	data := []byte(b.String())
	_, tl := timelineOf(t, data)
	var tree *Tree
	fuzzcheck.Speed(t, data, func() { tree = fromSamples(tl, false, 0, 0) })
	if tree == nil {
		t.Fatal("no tree from the samples")
	}
	// The chain is one path: a top-down node a frame, and the deepest
	// opened once a sample of two.
	if len(tree.TopDown) != n+1 || tree.TopDown[n].Calls != n/2 {
		t.Errorf("got %d top-down nodes, the deepest called %d times; want %d and %d", len(tree.TopDown), tree.TopDown[n].Calls, n+1, n/2)
	}
}

// TestSubtreeEnds checks the subtree ends of random trees numbered in
// depth-first preorder against walking up from every node, and that a
// tree numbered breadth first (parents first, not preorder) has none.
func TestSubtreeEnds(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 300 {
		n := 1 + r.IntN(60)
		// A random tree, then its nodes numbered in preorder.
		kids := make([][]int, n)
		for x := 1; x < n; x++ {
			q := r.IntN(x)
			kids[q] = append(kids[q], x)
		}
		par := make([]int32, 0, n)
		var visit func(x int, p int32)
		visit = func(x int, p int32) {
			me := int32(len(par))
			par = append(par, p)
			for _, k := range kids[x] {
				visit(k, me)
			}
		}
		visit(0, -1)
		ends := subtreeEnds(par)
		if ends == nil {
			t.Fatalf("preorder %v: no ends", par)
		}
		for v := range int32(n) {
			for u := range int32(n) {
				anc := false
				for w := v; w >= 0; w = par[w] {
					anc = anc || w == u
				}
				if got := u <= v && v < ends[u]; got != anc {
					t.Fatalf("preorder %v, ends %v: %d ancestor of %d: %v, want %v", par, ends, u, v, got, anc)
				}
			}
		}
	}
	// 0 → 1, 2; 1 → 3: breadth first, 3 comes after 2 though its parent is 1.
	if ends := subtreeEnds([]int32{-1, 0, 0, 1}); ends != nil {
		t.Errorf("breadth-first order: ends %v, want nil", ends)
	}
}
