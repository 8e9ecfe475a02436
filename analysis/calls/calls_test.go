package calls_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// synth builds a .cpuprofile in the style of the DevTools unit tests: every
// frame has script id "Peperoni", no URL and line/column −1.
func synth(t *testing.T, start, end int64, nodes string, samples, deltas []int64) *profile.Profile {
	t.Helper()
	js := func(v []int64) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = fmt.Sprint(x)
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	doc := fmt.Sprintf(`{"startTime":%d,"endTime":%d,"nodes":[%s],"samples":%s,"timeDeltas":%s}`,
		start, end, nodes, js(samples), js(deltas))
	p, err := v8.ParseBytes([]byte(doc), v8.Limits{})
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, doc)
	}
	return p
}

func node(id int, hit int, name string, children ...int) string {
	s := fmt.Sprintf(`{"id":%d,"callFrame":{"functionName":%q,"scriptId":"Peperoni","url":"","lineNumber":-1,"columnNumber":-1}`, id, name)
	if hit >= 0 {
		s += fmt.Sprintf(`,"hitCount":%d`, hit)
	}
	if len(children) > 0 {
		s += `,"children":[`
		for i, c := range children {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprint(c)
		}
		s += "]"
	}
	return s + "}"
}

// render prints calls as DevTools' getFrameTreeAsString does: sorted by start,
// indented by depth, times in ms rounded to 0.01.
func render(p *profile.Profile, cs []calls.Call) string {
	cs = slices.Clone(cs)
	slices.SortStableFunc(cs, func(a, b calls.Call) int { return int(a.Start - b.Start) })
	r := func(t profile.Time) float64 { return math.Round(t.Millis()*100) / 100 }
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%sname: %s ts: %v dur: %v selfTime: %v\n", strings.Repeat("  ", int(c.Depth)),
			p.Str(p.NodeFrame(c.Node).Name), c.Start.Millis(), r(c.Dur), r(c.Self))
	}
	return b.String()
}

func timeline(t *testing.T, p *profile.Profile) *calls.Timeline {
	t.Helper()
	tl, err := calls.NewTimeline(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func basicNodes(hits bool) string {
	h := func(n int) int {
		if hits {
			return n
		}
		return -1
	}
	return strings.Join([]string{
		node(1, h(0), "(root)", 2, 3), node(2, h(3), "a", 4, 5), node(3, h(3), "b", 6),
		node(4, h(2), "c"), node(5, h(1), "d"), node(6, h(2), "e", 7), node(7, h(2), "f"),
	}, ",")
}

// DevTools CPUProfileDataModel.test.ts: "parses JS call frames from a CPU
// profile" and "parses a CPU profile without hitcounts".
func TestForEachFrameBasic(t *testing.T) {
	want := `name: a ts: 1.1 dur: 0.6 selfTime: 0.3
  name: c ts: 1.3 dur: 0.1 selfTime: 0.1
  name: d ts: 1.4 dur: 0.1 selfTime: 0.1
  name: c ts: 1.5 dur: 0.1 selfTime: 0.1
name: b ts: 1.7 dur: 0.7 selfTime: 0.3
  name: e ts: 1.8 dur: 0.4 selfTime: 0.2
    name: f ts: 2 dur: 0.2 selfTime: 0.2
`
	deltas := slices.Repeat([]int64{100}, 13)
	samples := []int64{2, 2, 4, 5, 4, 2, 3, 6, 6, 7, 7, 3, 3}
	for _, hits := range []bool{true, false} {
		t.Run(fmt.Sprintf("hitCounts=%t", hits), func(t *testing.T) {
			p := synth(t, 1000, 3000, basicNodes(hits), samples, deltas)
			tl := timeline(t, p)
			if got := render(p, tl.Calls()); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
			if got := tl.Count(); got != 7 {
				t.Errorf("Count() = %d, want 7", got)
			}
		})
	}
}

// DevTools: "fixes missing samples by replacing them with neighboring stacks".
func TestFixMissingSamples(t *testing.T) {
	nodes := strings.Join([]string{
		node(1, 0, "(root)", 2, 3, 4, 5), node(2, 1000, "(garbage collector)"), node(3, 1000, "(program)"),
		node(4, 1000, "bar", 6), node(5, 1000, "baz"), node(6, 1000, "foo"),
	}, ",")
	samples := []int64{3, 4, 3, 4, 3, 6, 2, 2, 3, 6, 6, 3, 6, 5, 3, 6}
	p := synth(t, 1000, 1000+16*1000, nodes, samples, slices.Repeat([]int64{1000}, 16))
	tl := timeline(t, p)
	want := `name: (program) ts: 2 dur: 1 selfTime: 1
name: bar ts: 3 dur: 7 selfTime: 4
  name: foo ts: 7 dur: 3 selfTime: 1
    name: (garbage collector) ts: 8 dur: 2 selfTime: 2
name: (program) ts: 10 dur: 1 selfTime: 1
name: bar ts: 11 dur: 4 selfTime: 0
  name: foo ts: 11 dur: 4 selfTime: 4
name: baz ts: 15 dur: 1 selfTime: 1
name: (program) ts: 16 dur: 1 selfTime: 1
name: bar ts: 17 dur: 1 selfTime: 0
  name: foo ts: 17 dur: 1 selfTime: 1
`
	if got := render(p, tl.Calls()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if tl.Repaired != 3 {
		t.Errorf("Repaired = %d, want 3", tl.Repaired)
	}
}

// DevTools: "parses a CPU with GC nodes correctly": a GC sample sits on top of
// the previous sample's stack.
func TestGCStacking(t *testing.T) {
	nodes := strings.Join([]string{
		node(1, 0, "(root)", 2, 3), node(2, 1000, "(garbage collector)"), node(3, 1000, "foo", 4), node(4, 1000, "bar"),
	}, ",")
	p := synth(t, 1000, 4000, nodes, []int64{4, 4, 3, 4, 2}, []int64{500, 250, 1000, 250, 1000})
	want := `name: foo ts: 1.5 dur: 3.13 selfTime: 0.25
  name: bar ts: 1.5 dur: 1.25 selfTime: 1.25
  name: bar ts: 3 dur: 1.63 selfTime: 1
    name: (garbage collector) ts: 4 dur: 0.63 selfTime: 0.63
`
	if got := render(p, timeline(t, p).Calls()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The extrapolated end: the last sample lasts one average interval, computed
// after the samples are sorted (here a negative delta moves a sample).
func TestExtrapolatedEndAfterSort(t *testing.T) {
	nodes := strings.Join([]string{node(1, 0, "(root)", 2, 3), node(2, 1, "a"), node(3, 1, "b")}, ",")
	// times: 100, 400, 300 → sorted 100(a), 300(b), 400(a); average interval 150.
	p := synth(t, 0, 1000, nodes, []int64{2, 2, 3}, []int64{100, 300, -100})
	tl := timeline(t, p)
	if got, want := tl.End, profile.Time(550_000); got != want {
		t.Errorf("end = %d, want %d", got, want)
	}
	got := render(p, tl.Calls())
	want := "name: a ts: 0.1 dur: 0.2 selfTime: 0.2\nname: b ts: 0.3 dur: 0.1 selfTime: 0.1\nname: a ts: 0.4 dur: 0.15 selfTime: 0.15\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// DevTools scans the root's children in reverse input order and keeps the
// last match until it has all three meta nodes, so with two (program)
// children and no GC node the first one listed is the program node.
func TestMetaNodesReversedChildren(t *testing.T) {
	nodes := strings.Join([]string{
		node(1, 0, "(root)", 2, 3, 4), node(2, 0, "(program)"), node(3, 0, "main"), node(4, 0, "(program)"),
	}, ",")
	p := synth(t, 0, 1000, nodes, []int64{3, 3, 3}, []int64{1, 1, 1})
	tl := timeline(t, p)
	if tl.Program < 0 || p.Nodes[tl.Node[tl.Program]].InputID != 2 {
		t.Errorf("program node = %d, want the node with id 2", tl.Program)
	}
}

// A call graph (XS) expands into one tree node per path, as DevTools does,
// and the walk terminates.
func TestCallGraphExpansion(t *testing.T) {
	nodes := strings.Join([]string{
		node(0, 0, "(host)", 5), node(2, 1, "a", 4), node(3, 1, "b", 4), node(4, 1, "shared"), node(5, 0, "main", 2, 3),
	}, ",")
	p := synth(t, 0, 1000, nodes, []int64{2, 4, 3, 4}, []int64{10, 10, 10, 10})
	if p.Threads[0].Shape != profile.ShapeCallGraph {
		t.Fatalf("shape = %v, want callgraph", p.Threads[0].Shape)
	}
	tl := timeline(t, p)
	if got := len(tl.Node); got != 6 { // host, main, b, shared, a, shared
		t.Errorf("expanded nodes = %d, want 6", got)
	}
	// DevTools maps the id of "shared" to the copy built last: the one under
	// "a" (children are visited last-first), so every "shared" sample is "a".
	got := render(p, tl.Calls())
	want := `name: main ts: 0.01 dur: 0.04 selfTime: 0
  name: a ts: 0.01 dur: 0.02 selfTime: 0.01
    name: shared ts: 0.02 dur: 0.01 selfTime: 0.01
  name: b ts: 0.03 dur: 0.01 selfTime: 0.01
  name: a ts: 0.04 dur: 0.01 selfTime: 0
    name: shared ts: 0.04 dur: 0.01 selfTime: 0.01
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

type callRow struct {
	id            int64
	ts, dur, self int64 // µs, dur and self rounded as the DevTools test does
}

func rows(p *profile.Profile, cs []calls.Call) []callRow {
	out := make([]callRow, len(cs))
	for i, c := range cs {
		out[i] = callRow{p.Nodes[c.Node].InputID, int64(math.Round(c.Start.Micros())),
			int64(math.Round(c.Dur.Micros())), int64(math.Round(c.Self.Micros()))}
	}
	return out
}

// DevTools SamplesHandler.test.ts, "can build profile calls from a CPU
// profile coming from tracing": the chunked mock profile, here as the
// equivalent .cpuprofile (node ids start at 0, the root is id 9).
func TestSamplesHandlerMock(t *testing.T) {
	nodes := `{"id":9,"callFrame":{"functionName":"","scriptId":0,"url":"","lineNumber":0,"columnNumber":0},"children":[0,4]},` +
		`{"id":0,"callFrame":{"functionName":"","scriptId":0,"url":"","lineNumber":0,"columnNumber":0},"children":[1,3]},` +
		`{"id":1,"callFrame":{"functionName":"","scriptId":0,"url":"","lineNumber":0,"columnNumber":0},"children":[2]},` +
		`{"id":2,"callFrame":{"functionName":"","scriptId":0,"url":"","lineNumber":0,"columnNumber":0},"children":[]},` +
		`{"id":3,"callFrame":{"functionName":"","scriptId":0,"url":"","lineNumber":0,"columnNumber":0},"children":[]},` +
		`{"id":4,"callFrame":{"functionName":"","scriptId":0,"url":"","lineNumber":0,"columnNumber":0},"children":[]}`
	deltas := []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 19, 20, 21, 22, 23}
	var sum int64
	for _, d := range deltas {
		sum += d
	}
	samples := []int64{0, 1, 2, 2, 2, 2, 1, 0, 3, 3, 3, 3, 3, 3, 0, 0, 0, 4, 4, 4, 4, 4, 4}
	p := synth(t, 0, sum, nodes, samples, deltas)
	got := rows(p, timeline(t, p).Calls())
	want := []callRow{{0, 0, 154, 58}, {1, 1, 27, 9}, {2, 3, 18, 18}, {3, 36, 69, 69}, {4, 154, 117, 117}}
	if !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// DevTools SamplesHandler.test.ts, "can build profile calls from a CPU
// profile coming from a real world cpuprofile" (basic.cpuprofile).
func TestBasicCPUProfileCorpus(t *testing.T) {
	path := proftest.Corpus(t, "devtools/basic.cpuprofile.gz")
	p, err := format.ReadFile(path, nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := timeline(t, p).Calls()
	got := rows(p, append(slices.Clone(cs[0:4]), cs[10:15]...))
	want := []callRow{
		{2, 73029010084, 2369962, 0}, {3, 73029010084, 2369962, 0}, {4, 73029010084, 2369962, 0}, {5, 73029010084, 2369962, 0},
		{10, 73029011751, 375, 375}, {10, 73029012251, 1083, 1083}, {10, 73029013459, 833, 833}, {10, 73029014417, 917, 792},
		{11, 73029014667, 125, 125},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// DevTools ProfileTreeModel test "calculates depth correctly": root −1, A 0,
// B/C 1, D 0, E 1, F 2.
func TestDepths(t *testing.T) {
	nodes := strings.Join([]string{
		node(1, 0, "(root)", 2, 5), node(2, 0, "A", 3, 4), node(3, 0, "B"), node(4, 0, "C"),
		node(5, 0, "D", 6), node(6, 0, "E", 7), node(7, 0, "F"),
	}, ",")
	p := synth(t, 0, 10, nodes, nil, nil)
	want := map[string]int32{"(root)": -1, "A": 0, "B": 1, "C": 1, "D": 0, "E": 1, "F": 2}
	tl := timeline(t, p)
	for i, d := range p.Depths() {
		name := p.Str(p.NodeFrame(profile.NodeID(i)).Name)
		if d != want[name] || tl.Depth[i] != want[name] {
			t.Errorf("%s: depth %d (timeline %d), want %d", name, d, tl.Depth[i], want[name])
		}
	}
}

// TestEachCall: EachCall gives the calls Calls returns, in order, without
// holding them: on the testdata profiles, on a profile whose calls last
// longer than the 4.3 s EachCall keeps in 32 bits, and on a GC stacked on
// a call; and it stops at the first error fn returns.
func TestEachCall(t *testing.T) {
	var tls []*calls.Timeline
	for _, name := range []string{"mix", "recursion", "deep-stack", "async"} {
		p, err := format.ReadFile("../../testdata/node/"+name+".cpuprofile", nil, format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tls = append(tls, timeline(t, p))
	}
	// (root) → a → b, 10 s a sample, then a GC sample on b: durations
	// and self times of 10–40 s.
	long := synth(t, 0, 60_000_000, strings.Join([]string{
		node(1, -1, "(root)", 2, 4), node(2, -1, "a", 3), node(3, -1, "b"), node(4, -1, "(garbage collector)"),
	}, ","), []int64{2, 3, 3, 4, 2, 3}, []int64{0, 10_000_000, 10_000_000, 10_000_000, 10_000_000, 10_000_000})
	tls = append(tls, timeline(t, long))
	for k, tl := range tls {
		want := tl.Calls()
		var got []calls.Call
		if err := tl.EachCall(func(c *calls.Call) error { got = append(got, *c); return nil }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("profile %d: EachCall gave %d calls, Calls %d, or others", k, len(got), len(want))
		}
		if k == len(tls)-1 && !slices.ContainsFunc(got, func(c calls.Call) bool { return c.Dur >= math.MaxUint32 && c.Self >= math.MaxUint32 }) {
			t.Errorf("the long profile has no call of 4.3 s or more, self too: %s", render(long, got))
		}
	}
	stop := fmt.Errorf("stop")
	n := 0
	err := tls[1].EachCall(func(*calls.Call) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3 {
		t.Errorf("EachCall returned %v after %d calls, want the error after 3", err, n)
	}
}

// event is one report of a walk, for comparing walks.
type event struct {
	open bool
	c    calls.Call
}

type recorder struct{ evs []event }

func (r *recorder) Open(c *calls.Call)  { r.evs = append(r.evs, event{true, *c}) }
func (r *recorder) Close(c *calls.Call) { r.evs = append(r.evs, event{false, *c}) }

// TestWalkResumed: a walk resumed from a copy of its state at any sample
// reports what the whole walk reports from there: the viewer walks a long
// recording's flame chart a stretch at a time from such copies.
func TestWalkResumed(t *testing.T) {
	for _, name := range []string{"mix", "recursion", "async"} {
		p, err := format.ReadFile("../../testdata/node/"+name+".cpuprofile", nil, format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tl := timeline(t, p)
		var whole recorder
		tl.Walk(&whole)
		n := tl.Len()
		for _, stride := range []int{1, 7, 100, n} {
			if n/stride > 500 { // each resumed walk runs to the end
				continue
			}
			var st calls.WalkState
			var at recorder
			for lo := 0; lo < n; lo += stride {
				// From here on, a copy of the state must give the rest.
				resumed := st.Clone()
				var rest recorder
				tl.WalkTo(&rest, &resumed, n)
				tl.FinishWalk(&rest, &resumed)
				if got, want := rest.evs, whole.evs[len(at.evs):]; !slices.Equal(got, want) {
					t.Fatalf("%s, resumed at sample %d (stride %d): %d events, want %d, or others", name, lo, stride, len(got), len(want))
				}
				if st.Next() != lo {
					t.Fatalf("%s: the state stands at %d, want %d", name, st.Next(), lo)
				}
				tl.WalkTo(&at, &st, min(lo+stride, n))
			}
			tl.FinishWalk(&at, &st)
			if !slices.Equal(at.evs, whole.evs) {
				t.Errorf("%s: walked in stretches of %d: %d events, the whole walk %d, or others", name, stride, len(at.evs), len(whole.evs))
			}
		}
	}
}
