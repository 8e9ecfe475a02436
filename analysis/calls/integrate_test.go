package calls_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// traceWith builds a trace in the style of DevTools' SamplesIntegrator.test.ts:
// one profile on pid 0 / tid 0 starting at 0, given as a Profile and a
// ProfileChunk event, plus the given trace events on the same thread.
func traceWith(t *testing.T, nodes string, samples []int64, delta int64, traceIDs string, events ...string) *profile.Profile {
	t.Helper()
	ints := func(v []int64) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = fmt.Sprint(x)
		}
		return "[" + strings.Join(s, ",") + "]"
	}
	deltas := make([]int64, len(samples))
	for i := range deltas {
		deltas[i] = delta
	}
	cpu := fmt.Sprintf(`{"nodes":[%s],"samples":%s`, nodes, ints(samples))
	if traceIDs != "" {
		cpu += `,"trace_ids":` + traceIDs
	}
	cpu += "}"
	evs := []string{
		`{"name":"Profile","ph":"P","id":"0x1","pid":0,"tid":0,"ts":0,"cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"startTime":0}}}`,
		fmt.Sprintf(`{"name":"ProfileChunk","ph":"P","id":"0x1","pid":0,"tid":9,"ts":0,"cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"cpuProfile":%s,"timeDeltas":%s}}}`,
			cpu, ints(deltas)),
	}
	evs = append(evs, events...)
	p, err := format.Parse([]byte("["+strings.Join(evs, ",\n")+"]"), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func cf(id int, name string, children ...int) string {
	s := fmt.Sprintf(`{"id":%d,"callFrame":{"functionName":%q,"scriptId":"Peperoni","url":"","lineNumber":-1,"columnNumber":-1}`, id, name)
	if children != nil {
		k := make([]string, len(children))
		for i, c := range children {
			k[i] = fmt.Sprint(c)
		}
		s += `,"children":[` + strings.Join(k, ",") + "]"
	}
	return s + "}"
}

func complete(name string, ts, dur int) string {
	return fmt.Sprintf(`{"name":%q,"ph":"X","ts":%d,"dur":%d,"pid":0,"tid":0,"cat":"devtools.timeline","args":{}}`, name, ts, dur)
}

// integrated renders calls as "name ts/dur" in µs.
func integrated(t *testing.T, p *profile.Profile) string {
	t.Helper()
	tl, err := calls.NewTimeline(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range tl.Integrate(calls.IntegrateOptions{}) {
		out = append(out, fmt.Sprintf("%s %v/%v", p.Str(p.NodeFrame(c.Node).Name), c.Start.Micros(), c.Dur.Micros()))
	}
	return strings.Join(out, "; ")
}

// P1: (root) → a → b, with b also listed under the root (as in the DevTools
// test); samples a, a, b, b every 100 µs.
var p1 = strings.Join([]string{cf(1, "(root)", 2, 3), cf(2, "a", 3), cf(3, "b")}, ",")

// P2: a and b both children of the root.
var p2 = strings.Join([]string{cf(1, "(root)", 2, 3), cf(2, "a"), cf(3, "b")}, ",")

// The DevTools SamplesIntegrator.test.ts cases (docs/devtools-engine.md §11).
func TestIntegrateDevToolsCases(t *testing.T) {
	tests := []struct {
		name string
		p    func(t *testing.T) *profile.Profile
		want string
	}{
		{"top-level V8 invocation", func(t *testing.T) *profile.Profile {
			return traceWith(t, p1, []int64{2, 2, 3, 3}, 100, "", complete("FunctionCall", 0, 500))
		}, "a 100/400; b 300/200"},
		{"no trace events", func(t *testing.T) *profile.Profile {
			return traceWith(t, p1, []int64{2, 2, 3, 3}, 100, "")
		}, "a 100/300; b 300/100"},
		{"mixed with/without top-level events", func(t *testing.T) *profile.Profile {
			return traceWith(t, p2, []int64{2, 2, 3, 3}, 100, "", complete("FunctionCall", 250, 250))
		}, "a 100/150; b 300/200"},
		{"v8.run as parent", func(t *testing.T) *profile.Profile {
			return traceWith(t, p2, []int64{2, 2, 3, 3}, 100, "",
				complete("EvaluateScript", 0, 500), complete("v8.run", 10, 490), complete("V8.ParseFunction", 12, 1))
		}, "a 100/200; b 300/200"},
		{"stack from a common trace id", func(t *testing.T) *profile.Profile {
			nodes := strings.Join([]string{cf(1, "(root)", 2), cf(2, "foo", 3, 4), cf(3, "bar"), cf(4, "baz", 5), cf(5, "sheep")}, ",")
			return traceWith(t, nodes, []int64{3, 3, 3, 5}, 100, `{"123":5}`,
				complete("EvaluateScript", 0, 500), complete("v8.run", 10, 490),
				`{"name":"TimeStamp","ph":"I","ts":350,"pid":0,"tid":0,"cat":"devtools.timeline","s":"t","args":{"data":{"message":"A timestamp","sampleTraceId":123}}}`)
		}, "foo 100/400; bar 100/250; baz 350/150; sheep 350/150"},
		{"restart at a new top-level event", func(t *testing.T) *profile.Profile {
			return traceWith(t, p1, []int64{2, 2, 3, 3}, 20, "",
				complete("RunTask", 0, 100), complete("EvaluateScript", 0, 100), complete("RunMicrotasks", 50, 100))
		}, "a 20/30; a 60/90; b 60/90"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := integrated(t, tc.p(t)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// recursive-blocking-js: the engine's own list has 5131 calls, none on the
// (root), (program), (idle) or (garbage collector) nodes (docs/devtools-engine.md §11).
func TestIntegrateRecursiveBlockingJS(t *testing.T) {
	path := proftest.Corpus(t, "devtools/recursive-blocking-js.json.gz")
	p, err := format.ReadFile(path, nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Threads) != 1 || p.Threads[0].PID != 76472 || p.Threads[0].TID != 259 || p.Threads[0].Name != "CrRendererMain" {
		t.Fatalf("threads %+v", p.Threads)
	}
	tl, err := calls.NewTimeline(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	cs := tl.Integrate(calls.IntegrateOptions{})
	if len(cs) != 5131 {
		t.Errorf("%d calls, want 5131", len(cs))
	}
	for _, c := range cs {
		if k := p.NodeFrame(c.Node).Kind; k.Meta() {
			t.Fatalf("a call on a %v node", k)
		}
	}
	// DevTools SamplesHandler.test.ts "generates a CPU profile from a trace
	// file": its endTime is the first chunk's (EndAsDevTools); the real end,
	// at the last sample, is End.
	th := p.Threads[0]
	if th.Nodes.Len() != 153 || th.Samples.Len() != 39471 || th.Start != 287510826176000 || th.EndAsDevTools() != 287510847633000 {
		t.Errorf("nodes %d samples %d start %d DevTools end %d", th.Nodes.Len(), th.Samples.Len(), th.Start, th.EndAsDevTools())
	}
	if last := p.Samples.Time.At(int(th.Samples.End) - 1); th.End != last {
		t.Errorf("end %d, want the last sample's time %d (start + every chunk's deltas)", th.End, last)
	}
	if tl.GC < 0 || tl.Program < 0 || p.Nodes[tl.Node[tl.GC]].InputID != 36 || p.Nodes[tl.Node[tl.Program]].InputID != 2 {
		t.Errorf("gc node %d, program node %d; want the nodes with ids 36 and 2", tl.GC, tl.Program)
	}
	// profileStartTime 287510835.138 ms and the extrapolated end 287515908.9025441 ms.
	if got := tl.Times.At(0); got != 287510835138000 {
		t.Errorf("first sample at %d ns", got)
	}
	if got := tl.End.Millis(); got < 287515908.9025 || got > 287515908.9026 {
		t.Errorf("extrapolated end %.7f ms, want 287515908.9025441", got)
	}
	zeroLine, zeroCol := 0, 0
	for i := th.Nodes.Start; i < th.Nodes.End; i++ {
		f := p.NodeFrame(profile.NodeID(i))
		if f.Line == 0 {
			zeroLine++
		}
		if f.Column == 0 {
			zeroCol++
		}
	}
	if zeroLine != 15 || zeroCol != 12 {
		t.Errorf("%d nodes with line 0 and %d with column 0; want 15 and 12", zeroLine, zeroCol)
	}
}

// DevTools SamplesHandler.test.ts: multiple-navigations-with-iframes has three
// profiles, one per renderer process, each on tid 1.
func TestMultipleProfiles(t *testing.T) {
	path := proftest.Corpus(t, "devtools/multiple-navigations-with-iframes.json.gz")
	p, err := format.ReadFile(path, nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pids := map[int64]bool{}
	for _, th := range p.Threads {
		if th.TID != 1 {
			t.Errorf("thread pid %d tid %d, want tid 1", th.PID, th.TID)
		}
		pids[th.PID] = true
	}
	for _, pid := range []int64{2236123, 2154214, 2236084} {
		if !pids[pid] {
			t.Errorf("no profile for pid %d", pid)
		}
	}
	if len(p.Threads) != 3 {
		t.Errorf("%d threads, want 3", len(p.Threads))
	}
}

// TestIntegrateSmallAllocates checks that a thread of a few calls does not
// allocate a whole block of the call store (64 k calls, 2 MB): a trace of
// 4 k small threads allocated 8.4 GB in its trees.
func TestIntegrateSmallAllocates(t *testing.T) {
	p := traceWith(t, p2, []int64{2, 2, 3, 3}, 100, "")
	tl, err := calls.NewTimeline(p, 0)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cs := tl.Integrate(calls.IntegrateOptions{})
	runtime.ReadMemStats(&after)
	if len(cs) != 2 {
		t.Fatalf("%d calls, want 2", len(cs))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
		t.Errorf("integrating 4 samples into 2 calls allocated %d bytes", alloc)
	}
}
