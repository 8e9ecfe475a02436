package totals_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/totals"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/profile"
)

const us = profile.Time(1000) // one microsecond in ns

// st is a function's self and total time.
type st struct{ Self, Total profile.Time }

func parse(t *testing.T, doc string) *profile.Profile {
	t.Helper()
	p, err := v8.ParseBytes([]byte(doc), v8.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// node is one .cpuprofile node; name "(root)" or "(host)" makes a root.
func node(id int, name string, children ...int) string {
	var kids []string
	for _, c := range children {
		kids = append(kids, fmt.Sprint(c))
	}
	url, line := "w.js", 0 // functions differ by name only
	if strings.HasPrefix(name, "(") {
		url, line = "", -1
	}
	return fmt.Sprintf(`{"id":%d,"callFrame":{"functionName":%q,"scriptId":"0","url":%q,"lineNumber":%d,"columnNumber":-1},"children":[%s]}`,
		id, name, url, line, strings.Join(kids, ","))
}

// doc returns a .cpuprofile with start time 0 (µs).
func doc(end int, samples, deltas []int, nodes ...string) string {
	return fmt.Sprintf(`{"nodes":[%s],"startTime":0,"endTime":%d,"samples":%s,"timeDeltas":%s}`,
		strings.Join(nodes, ","), end, ints(samples), ints(deltas))
}

func ints(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// byName returns the rows of thread 0 under s, by function name.
func byName(t *testing.T, p *profile.Profile, s totals.Semantics) map[string]st {
	t.Helper()
	rows, err := totals.Functions(p, 0, s)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]st{}
	for _, r := range rows {
		name := p.Str(r.Key.Name)
		if _, dup := out[name]; dup {
			t.Fatalf("%s: two rows for %s", s, name)
		}
		out[name] = st{r.Self, r.Total}
	}
	return out
}

// devtools returns the DevTools rows of thread 0 from package calltree.
func devtools(t *testing.T, p *profile.Profile) map[string]st {
	t.Helper()
	tl, err := calls.NewTimeline(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr := calltree.Build(tl)
	out := map[string]st{}
	for _, f := range tr.Funcs {
		out[p.Str(f.Key.Name)] = st{f.Self, f.Total}
	}
	return out
}

func check(t *testing.T, what string, got, want map[string]st) {
	t.Helper()
	for name, w := range want {
		if g := got[name]; g != w {
			t.Errorf("%s: %s: got self %v total %v, want self %v total %v",
				what, name, g.Self.Sub(0), g.Total.Sub(0), w.Self.Sub(0), w.Total.Sub(0))
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: got %d functions, want %d", what, len(got), len(want))
	}
}

func TestParseSemantics(t *testing.T) {
	t.Parallel()
	for _, s := range []totals.Semantics{totals.DevTools, totals.VSCode, totals.XSBug} {
		got, err := totals.ParseSemantics(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSemantics(%q) = %v, %v; want %v", s.String(), got, err, s)
		}
	}
	_, err := totals.ParseSemantics("chrome")
	if err == nil || !strings.Contains(err.Error(), "want devtools, vscode or xsbug") {
		t.Errorf("ParseSemantics(chrome): got error %v, want one listing the choices", err)
	}
}

// plainTree: (root) → main → {a → c, b}. Samples 100 µs apart at 100…500 µs:
// c, c, a, b, main; endTime 600, so every sample lasts 100 µs, the last one
// too (and DevTools' extrapolation of the last sample by one average
// interval gives the same 100 µs).
//
//	self:  c 200, a 100, b 100, main 100
//	total: c 200, a 300 (100+200), b 100, main 500, (root) 500
//
// A tree with no recursion: all three semantics agree.
var plainTree = doc(600, []int{5, 5, 3, 4, 2}, []int{100, 100, 100, 100, 100},
	node(1, "(root)", 2), node(2, "main", 3, 4), node(3, "a", 5), node(4, "b"), node(5, "c"))

func TestPlainTree(t *testing.T) {
	t.Parallel()
	p := parse(t, plainTree)
	want := map[string]st{
		"c":    {200 * us, 200 * us},
		"a":    {100 * us, 300 * us},
		"b":    {100 * us, 100 * us},
		"main": {100 * us, 500 * us},
	}
	check(t, "devtools (calltree)", devtools(t, p), want)
	want["(root)"] = st{0, 500 * us}
	check(t, "vscode", byName(t, p, totals.VSCode), want)
	check(t, "xsbug", byName(t, p, totals.XSBug), want)

	if s, _ := totals.Default(p, 0); s != totals.DevTools {
		t.Errorf("Default: got %v, want devtools", s)
	}
	if _, err := totals.Functions(p, 0, totals.DevTools); !errors.Is(err, totals.ErrDevTools) {
		t.Errorf("Functions(DevTools): got %v, want ErrDevTools", err)
	}
}

// recursion: (root) → main → fib₁ → fib₂ → fib₃. Samples at 100…400 µs:
// fib₃, fib₃, main, fib₁; endTime 500, each sample 100 µs.
//
//	self: fib 300 (fib₃ 200 + fib₁ 100), main 100
//	DevTools: fib total 300 (outermost call only), main 400
//	VS Code: node totals fib₃ 200, fib₂ 200, fib₁ 300, main 400; fib's total
//	  is the sum over its nodes: 200+200+300 = 700, above the 400 µs sampled.
//	xsbug: a node's total is its inclusive time; only the outermost fib
//	  node counts: fib 300, main 400, (root) 400.
var recursion = doc(500, []int{5, 5, 2, 3}, []int{100, 100, 100, 100},
	node(1, "(root)", 2), node(2, "main", 3), node(3, "fib", 4), node(4, "fib", 5), node(5, "fib"))

func TestRecursion(t *testing.T) {
	t.Parallel()
	p := parse(t, recursion)
	check(t, "devtools (calltree)", devtools(t, p), map[string]st{
		"main": {100 * us, 400 * us},
		"fib":  {300 * us, 300 * us},
	})
	check(t, "vscode", byName(t, p, totals.VSCode), map[string]st{
		"(root)": {0, 400 * us},
		"main":   {100 * us, 400 * us},
		"fib":    {300 * us, 700 * us},
	})
	check(t, "xsbug", byName(t, p, totals.XSBug), map[string]st{
		"(root)": {0, 400 * us},
		"main":   {100 * us, 400 * us},
		"fib":    {300 * us, 300 * us},
	})
}

// dag: an XS call graph, (host) → {a, b}, a → c, b → c: c has two callers.
// Samples at 100…400 µs: c, c, a, b; endTime 500, each sample 100 µs.
//
//	self: c 200, a 100, b 100
//	VS Code expands the graph into the tree host → a → c, host → b → c:
//	  c 200; a 100+200 = 300; b 300; host 300+300 = 600, above the 400 µs
//	  sampled (c is counted twice).
//	xsbug splits c's 200 equally between its callers: c 200; a 100+100 =
//	  200; b 200; host 100+100 (a) + 100+100 (b) = 400.
var dag = doc(500, []int{4, 4, 2, 3}, []int{100, 100, 100, 100},
	node(0, "(host)", 2, 3), node(2, "a", 4), node(3, "b", 4), node(4, "c"))

func TestDAG(t *testing.T) {
	t.Parallel()
	p := parse(t, dag)
	if s, reason := totals.Default(p, 0); s != totals.XSBug || reason == "" {
		t.Errorf("Default: got %v %q, want xsbug with a reason", s, reason)
	}
	check(t, "vscode", byName(t, p, totals.VSCode), map[string]st{
		"(host)": {0, 600 * us},
		"a":      {100 * us, 300 * us},
		"b":      {100 * us, 300 * us},
		"c":      {200 * us, 200 * us},
	})
	check(t, "xsbug", byName(t, p, totals.XSBug), map[string]st{
		"(host)": {0, 400 * us},
		"a":      {100 * us, 200 * us},
		"b":      {100 * us, 200 * us},
		"c":      {200 * us, 200 * us},
	})
	if dag, removed := totals.RemoveCycles(p, 0); removed != 0 || len(dag) != 4 {
		t.Errorf("RemoveCycles: got %d edges, %d removed; want 4, 0", len(dag), removed)
	}
}

// shares: (host) → {a, b} → c → d. Samples at 10 and 13 µs: d, c; endTime
// 14, so d lasts 3 µs and c 1 µs.
//
//	propagate(c, 1): c += 1; 2 callers, share 0.5 µs < 1: dropped.
//	propagate(d, 3): d += 3; 1 caller: c += 3 (c = 4); 2 callers, share
//	  1.5: a += 1.5, host += 1.5; b += 1.5, host += 1.5 (host = 3).
//
// The host gets 3 µs of the 4 µs sampled: c's own 1 µs is lost.
var shares = doc(14, []int{5, 4}, []int{10, 3},
	node(0, "(host)", 2, 3), node(2, "a", 4), node(3, "b", 4), node(4, "c", 5), node(5, "d"))

func TestSharesUnder1us(t *testing.T) {
	t.Parallel()
	p := parse(t, shares)
	check(t, "xsbug", byName(t, p, totals.XSBug), map[string]st{
		"(host)": {0, 3 * us},
		"a":      {0, 1500},
		"b":      {0, 1500},
		"c":      {1 * us, 4 * us},
		"d":      {3 * us, 3 * us},
	})
}

// gnode is a node of a call graph built by graphProfile.
type gnode struct {
	name   string
	id     int64 // input id
	parent int   // index of the first parent; −1 for the root
}

// graphProfile builds a one-thread call-graph profile directly, as the
// reader cannot (it rejects cycles): nodes in the given order, edges as
// caller→callee pairs of indexes, samples as node indexes at the given µs
// times, startTime 0.
func graphProfile(t testing.TB, nodes []gnode, edges [][2]int, samples []int, times []int64, end int64) *profile.Profile {
	t.Helper()
	ts := make([]profile.Time, len(times))
	for i, x := range times {
		ts[i] = profile.Time(x) * us
	}
	return build(t, profile.ShapeCallGraph, nodes, edges, samples, ts, profile.Time(end)*us)
}

// build builds a one-thread profile of the given shape; times are in ns.
func build(t testing.TB, shape profile.Shape, nodes []gnode, edges [][2]int, samples []int, times []profile.Time, end profile.Time) *profile.Profile {
	t.Helper()
	b := profile.NewBuilder("xs")
	p := b.P
	for i, n := range nodes {
		f := profile.Frame{Name: b.Intern(n.name), URL: b.Intern("w.js"), ScriptID: b.Intern("0"), Line: int32(i), Column: -1}
		if n.parent < 0 {
			f.URL, f.Line = 0, -1
		}
		p.Nodes = append(p.Nodes, profile.Node{Parent: profile.NodeID(n.parent), Frame: b.Frame(f), InputID: n.id})
	}
	for _, e := range edges {
		p.Edges = append(p.Edges, profile.Edge{From: profile.NodeID(e[0]), To: profile.NodeID(e[1])})
	}
	for i, s := range samples {
		p.Samples.Node.Append(profile.NodeID(s))
		p.Samples.Time.Append(times[i])
		p.Nodes[s].HitCount++
	}
	p.Threads = append(p.Threads, profile.Thread{
		Nodes:     profile.Range{Start: 0, End: int32(len(nodes))},
		Samples:   profile.Range{Start: 0, End: int32(len(samples))},
		Start:     0,
		End:       end,
		HitCounts: true,
		Shape:     shape,
	})
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// cyclic: a call graph with cycles, as xsbug-log exports it (it does not
// remove them): (host) → a, a → a, a → b, b → a. Ids: host 0, a 2, b 3.
// Samples at 100 and 200 µs: a, b; endTime 300: a and b last 100 µs each.
//
// xsbug skips the self-reference a → a; the callers are a: [host, b] and
// b: [a]. Records in id order:
//
//	propagate(a, 100): a = 100; share 50: host = 50; b = 50, b's caller a
//	  is on the path: cut.
//	propagate(b, 100): b = 150; share 100: a = 200; share 50: host = 100;
//	  b is on the path: cut.
//
// Totals: host 100, a 200, b 150, none above the 200 µs sampled. The cut
// edge is removed only from the lists xsbug displays; its propagation walks
// cached caller lists, so b still reaches a in the second propagation (with
// the edge gone from a's callers, the totals would be host 50, a 100, b 150).
//
// XS's cycle removal, callees by ascending id: host → a (enter a); a → a (a
// on path: removed); a → b (enter b); b → a (a on path: removed). Kept: host
// → a, a → b; 2 removed.
func cyclic(t testing.TB) *profile.Profile {
	return graphProfile(t,
		[]gnode{{"(host)", 0, -1}, {"a", 2, 0}, {"b", 3, 1}},
		[][2]int{{0, 1}, {1, 1}, {1, 2}, {2, 1}},
		[]int{1, 2}, []int64{100, 200}, 300)
}

func TestCycle(t *testing.T) {
	t.Parallel()
	p := cyclic(t)
	check(t, "xsbug", byName(t, p, totals.XSBug), map[string]st{
		"(host)": {0, 100 * us},
		"a":      {100 * us, 200 * us},
		"b":      {100 * us, 150 * us},
	})
	if _, err := totals.Functions(p, 0, totals.VSCode); !errors.Is(err, totals.ErrCycle) {
		t.Errorf("vscode on a cycle: got %v, want ErrCycle", err)
	}

	dag, removed := totals.RemoveCycles(p, 0)
	want := []profile.Edge{{From: 0, To: 1}, {From: 1, To: 2}}
	if removed != 2 || fmt.Sprint(dag) != fmt.Sprint(want) {
		t.Errorf("RemoveCycles: got %v, %d removed; want %v, 2", dag, removed, want)
	}
	// Without cycles, VS Code's sum is defined: the DAG is the tree host →
	// a → b, so b 100, a 200, host 200.
	p.Edges = dag
	check(t, "vscode after RemoveCycles", byName(t, p, totals.VSCode), map[string]st{
		"(host)": {0, 200 * us},
		"a":      {100 * us, 200 * us},
		"b":      {100 * us, 100 * us},
	})
}

// The edge XS removes depends on the ids, not on the input order: (host)
// lists b (id 3) before a (id 2), and a ↔ b. XS enters a first (lower id),
// then b from a, and b → a is the back edge; in input order it would have
// been a → b.
func TestRemoveCyclesIDOrder(t *testing.T) {
	t.Parallel()
	p := graphProfile(t,
		[]gnode{{"(host)", 0, -1}, {"b", 3, 0}, {"a", 2, 0}},
		[][2]int{{0, 1}, {0, 2}, {2, 1}, {1, 2}},
		[]int{1}, []int64{100}, 200)
	dag, removed := totals.RemoveCycles(p, 0)
	want := []profile.Edge{{From: 0, To: 1}, {From: 0, To: 2}, {From: 2, To: 1}} // b → a removed
	if removed != 1 || fmt.Sprint(dag) != fmt.Sprint(want) {
		t.Errorf("RemoveCycles: got %v, %d removed; want %v, 1", dag, removed, want)
	}
}

// ladder returns a call graph of the given number of layers of two nodes,
// (host) calling both nodes of the first layer and each node calling both
// of the next: 2^layers paths lead to a node of the last layer, which gets
// the only sample, lasting d µs.
func ladder(t testing.TB, layers int, d int64) *profile.Profile {
	nodes := []gnode{{"(host)", 0, -1}}
	var edges [][2]int
	for l := range layers {
		for k := range 2 {
			i := len(nodes)
			par := 0
			if l > 0 {
				par = i - 2 - k
				edges = append(edges, [2]int{i - 2 - k, i}, [2]int{i - 1 - k, i})
			} else {
				edges = append(edges, [2]int{0, i})
			}
			nodes = append(nodes, gnode{fmt.Sprintf("f%d_%d", l, k), int64(i + 1), par})
		}
	}
	return graphProfile(t, nodes, edges, []int{len(nodes) - 1}, []int64{0}, d)
}

func TestLimits(t *testing.T) {
	t.Parallel()
	// 2^64 paths of 1 µs each: VS Code's total of (host) exceeds int64 ns.
	if _, err := totals.Functions(ladder(t, 64, 1), 0, totals.VSCode); !errors.Is(err, totals.ErrTooLarge) {
		t.Errorf("vscode: got %v, want ErrTooLarge", err)
	}
	// A small ladder, 5 layers, 64 µs in f4_1. xsbug halves the share at
	// each caller split: each layer-3 node gets 32 µs, each layer-2 node
	// 16+16 = 32 µs, and so on up to layer 0; the host, sole caller of
	// layer 0, gets 32+32 = 64 µs. VS Code counts the 64 µs once per path:
	// 2 paths from a layer-2 node (128 µs), 16 from the host (1024 µs).
	p := ladder(t, 5, 64)
	xs, vs := byName(t, p, totals.XSBug), byName(t, p, totals.VSCode)
	for name, want := range map[string]profile.Time{"(host)": 64 * us, "f0_0": 32 * us, "f2_1": 32 * us, "f4_1": 64 * us, "f4_0": 0} {
		if xs[name].Total != want {
			t.Errorf("xsbug %s: got %v, want %v", name, xs[name].Total.Sub(0), want.Sub(0))
		}
	}
	if vs["(host)"].Total != 1024*us || vs["f2_1"].Total != 128*us {
		t.Errorf("vscode: got host %v, f2_1 %v; want 1.024ms, 128µs", vs["(host)"].Total.Sub(0), vs["f2_1"].Total.Sub(0))
	}
	if testing.Short() {
		return
	}
	// 1000 s split in halves until under 1 µs: about 2^31 steps.
	if _, err := totals.Functions(ladder(t, 40, 1e9), 0, totals.XSBug); !errors.Is(err, totals.ErrTooLarge) {
		t.Errorf("xsbug: got %v, want ErrTooLarge", err)
	}
}

// On a tree, xsbug's propagation takes a one-pass shortcut (every record has
// one caller); it must give what the general propagation gives on the same
// tree presented as a call graph. Sample durations are 0 to 2 µs, so many
// records fall under the 1 µs cut and pass nothing up.
func TestXSBugTreeShortcut(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	nodes := []gnode{{"(host)", 0, -1}}
	var edges [][2]int
	for i := 1; i < 300; i++ {
		par := i - 1 - r.IntN(min(i, 5))
		nodes = append(nodes, gnode{fmt.Sprintf("f%d", i), int64(i), par})
		edges = append(edges, [2]int{par, i})
	}
	var samples []int
	var times []profile.Time
	now := profile.Time(0)
	for range 400 {
		now += profile.Time(r.IntN(2000))
		samples = append(samples, r.IntN(len(nodes)))
		times = append(times, now)
	}
	end := now + 1500
	tree := byName(t, build(t, profile.ShapeTree, nodes, nil, samples, times, end), totals.XSBug)
	graph := byName(t, build(t, profile.ShapeCallGraph, nodes, edges, samples, times, end), totals.XSBug)
	for name, g := range graph {
		if d := tree[name].Total - g.Total; d < -1 || d > 1 || tree[name].Self != g.Self {
			t.Errorf("%s: tree %+v, graph %+v; want equal within 1 ns", name, tree[name], g)
		}
	}
	if host := tree["(host)"].Total; host == end-times[0] {
		t.Errorf("(host): got %v, the whole sampled time; want less (durations under 1 µs are cut)", host.Sub(0))
	}
}
