package v8_test

import (
	"flag"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

var update = flag.Bool("update", false, "rewrite golden files")

// dumpCases are small inputs of every shape the reader accepts; each one's
// profile.String dump is a golden file.
var dumpCases = []struct {
	name, input string
}{
	{"children-form", `{"nodes":[
		{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[7,3,2]},
		{"id":3,"callFrame":{"functionName":"main","scriptId":42,"url":"file:///a.js","lineNumber":0,"columnNumber":0},"hitCount":2,"children":[5],
		 "positionTicks":[{"line":3,"ticks":1},{"line":1,"ticks":1}]},
		{"id":5,"callFrame":{"functionName":"hot","scriptId":"42","url":"file:///a.js","lineNumber":10,"columnNumber":4},"hitCount":3,"deoptReason":"Optimized too many times"},
		{"id":2,"callFrame":{"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":1},
		{"id":7,"callFrame":{"functionName":"(garbage collector)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":1,"deoptReason":"no reason"}],
	 "startTime":1000,"endTime":2000,"samples":[3,5,5,2,7,3,5],"timeDeltas":[10,100,100,100,100,100,100]}`},
	{"parent-form", `{"nodes":[
		{"id":1,"callFrame":{"functionName":"(root)","scriptId":0,"codeType":"other"}},
		{"id":2,"parent":1,"callFrame":{"functionName":"(idle)","scriptId":0,"codeType":"other"}},
		{"id":3,"parent":1,"callFrame":{"functionName":"run","scriptId":7,"url":"https://x/app.js","lineNumber":4,"columnNumber":9,"codeType":"JS"}},
		{"id":4,"parent":3,"callFrame":{"functionName":"draw","scriptId":7,"url":"https://x/app.js","lineNumber":40,"codeType":"JS"}}],
	 "startTime":500,"endTime":900,"samples":[3,4,4,2],"timeDeltas":[5,10,10,10]}`},
	{"negative-deltas", `{"nodes":[
		{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},
		{"id":2,"callFrame":{"functionName":"a","scriptId":"1","url":"u","lineNumber":1,"columnNumber":1}},
		{"id":3,"callFrame":{"functionName":"b","scriptId":"1","url":"u","lineNumber":2,"columnNumber":1}}],
	 "startTime":0,"endTime":1000,"samples":[2,3,2,3],"timeDeltas":[100,300,-150,-100]}`},
	{"legacy-head", `{"head":{"functionName":"(root)","url":"","lineNumber":0,"id":1,"scriptId":0,"hitCount":0,"children":[
		{"functionName":"outer","url":"file:///l.js","lineNumber":3,"columnNumber":5,"id":2,"scriptId":9,"hitCount":1,"bailoutReason":"","children":[
			{"functionName":"inner","url":"file:///l.js","lineNumber":8,"id":3,"scriptId":9,"hitCount":2,"children":[]}]}]},
	 "startTime":10.5,"endTime":10.501,"samples":[2,3,3],"timestamps":[10500100,10500400,10500700,10501000]}`},
	{"legacy-no-timestamps", `{"head":{"functionName":"(root)","url":"","lineNumber":0,"id":1,"scriptId":0,"hitCount":0,"children":[
		{"functionName":"f","url":"x.js","lineNumber":1,"id":2,"scriptId":1,"hitCount":3,"children":[]}]},
	 "startTime":1,"endTime":1.003,"samples":[2,2,2]}`},
	{"call-graph", `{"nodes":[
		{"id":0,"callFrame":{"functionName":"(host)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[9]},
		{"id":1,"callFrame":{"functionName":"(gc)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":1,"children":[]},
		{"id":5,"callFrame":{"functionName":"shared","scriptId":"0","url":"/w.js","lineNumber":2,"columnNumber":-1},"hitCount":2,"children":[1]},
		{"id":6,"callFrame":{"functionName":"a","scriptId":"0","url":"/w.js","lineNumber":5,"columnNumber":-1},"hitCount":0,"children":[5]},
		{"id":7,"callFrame":{"functionName":"b","scriptId":"0","url":"/w.js","lineNumber":8,"columnNumber":-1},"hitCount":1,"children":[5,1]},
		{"id":9,"callFrame":{"functionName":"(anonymous-9)","scriptId":"0","url":"/w.js","lineNumber":0,"columnNumber":-1},"hitCount":0,"children":[6,7]}],
	 "startTime":1795297897967764,"endTime":1795297897972764,"samples":[5,7,5,1],"timeDeltas":[1250,1250,1250,1250]}`},
	// Nodes not in preorder, with positionTicks: a second member of a node
	// (the last counts, as in JSON.parse), and an unreachable node's.
	{"ticks-out-of-order", `{"nodes":[
		{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":""},"children":[3,2]},
		{"id":2,"callFrame":{"functionName":"b","scriptId":"1","url":"u"},"positionTicks":[{"line":7,"ticks":1}],"positionTicks":[{"line":8,"ticks":2},{"line":9,"ticks":1}]},
		{"id":9,"callFrame":{"functionName":"orphan","scriptId":"1","url":"u"},"positionTicks":[{"line":1,"ticks":4}]},
		{"id":3,"callFrame":{"functionName":"a","scriptId":"1","url":"u"},"positionTicks":[{"line":5,"ticks":1}]}],
	 "startTime":0,"endTime":100,"samples":[2,3,2,2],"timeDeltas":[1,1,1,1]}`},
	{"unreachable", `{"nodes":[
		{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":""},"children":[2]},
		{"id":2,"callFrame":{"functionName":"a","scriptId":"1","url":"u"}},
		{"id":3,"callFrame":{"functionName":"orphan","scriptId":"1","url":"u"}}],
	 "startTime":0,"endTime":100,"samples":[2,3,2],"timeDeltas":[1,1,1]}`},
}

func TestParseDumps(t *testing.T) {
	for _, tc := range dumpCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := format.Parse([]byte(tc.input), format.Options{})
			if err != nil {
				t.Fatal(err)
			}
			proftest.Golden(t, filepath.Join("testdata", "golden", tc.name+".txt"), []byte(p.String()))
		})
	}
}

// A profile's positionTicks entries are its nodes', renumbered: each
// node's together and as written (the profile keeps them in input order,
// not by node), a repeated member's last, none of an unreachable node.
func TestPositionTicks(t *testing.T) {
	for _, tc := range dumpCases {
		if tc.name != "ticks-out-of-order" {
			continue
		}
		p, err := format.Parse([]byte(tc.input), format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][][2]int64{} // function → (line, ticks)
		for _, lt := range p.LineTicks {
			name := p.Strings[p.Frames[p.Nodes[lt.Node].Frame].Name]
			got[name] = append(got[name], [2]int64{int64(lt.Line), lt.Ticks})
		}
		want := map[string][][2]int64{"a": {{5, 1}}, "b": {{8, 2}, {9, 1}}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("line ticks by function %v, want %v", got, want)
		}
	}
}

// Facts the dumps encode, asserted directly so that a wrong golden cannot
// hide them.
func TestParseFacts(t *testing.T) {
	parse := func(name string) *profile.Profile {
		t.Helper()
		for _, tc := range dumpCases {
			if tc.name == name {
				p, err := v8.ParseBytes([]byte(tc.input), v8.Limits{})
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
		}
		t.Fatalf("no case %s", name)
		return nil
	}
	t.Run("children-form", func(t *testing.T) {
		p := parse("children-form")
		// Preorder in children order: root, (gc) 7, main 3, hot 5, (program) 2.
		var ids []int64
		for _, n := range p.Nodes {
			ids = append(ids, n.InputID)
		}
		if got, want := ids, []int64{1, 7, 3, 5, 2}; !slices64Equal(got, want) {
			t.Errorf("node order %v, want %v", got, want)
		}
		if f := p.NodeFrame(3); p.Str(f.ScriptID) != "42" || f.Line != 10 || f.Column != 4 {
			t.Errorf("hot frame = %+v", *f)
		}
		if p.Str(p.Nodes[3].DeoptReason) != "Optimized too many times" || p.Nodes[1].DeoptReason != 0 {
			t.Errorf("deopt reasons: %q, %q", p.Str(p.Nodes[3].DeoptReason), p.Str(p.Nodes[1].DeoptReason))
		}
		// Script id 42 as a number and as a string are one frame key.
		if p.NodeFrame(2).ScriptID != p.NodeFrame(3).ScriptID {
			t.Error("numeric and string script ids differ")
		}
		if len(p.LineTicks) != 2 || p.LineTicks[0].Node != 2 {
			t.Errorf("line ticks = %+v", p.LineTicks)
		}
		if got := p.Samples.Time.At(0); got != 1_010_000 {
			t.Errorf("first sample at %d ns, want 1010000 (startTime + timeDeltas[0])", got)
		}
		if k := p.NodeFrame(1).Kind; k != profile.KindGC {
			t.Errorf("(garbage collector) kind = %v", k)
		}
	})
	t.Run("parent-form", func(t *testing.T) {
		p := parse("parent-form")
		if p.Threads[0].HitCounts {
			t.Error("HitCounts true without hitCount fields")
		}
		if got := p.Nodes[3].HitCount; got != 2 { // draw: computed from samples
			t.Errorf("draw hitCount = %d, want 2", got)
		}
		if f := p.NodeFrame(3); f.Column != -1 || p.Str(f.CodeType) != "JS" {
			t.Errorf("draw frame = %+v", *f)
		}
		if f := p.NodeFrame(0); f.Line != -1 || f.URL != 0 {
			t.Errorf("root frame missing positions should be -1: %+v", *f)
		}
	})
	t.Run("negative-deltas", func(t *testing.T) {
		p := parse("negative-deltas")
		if got := p.Diagnostics.Count("negative-delta"); got != 2 {
			t.Errorf("negative-delta count = %d, want 2", got)
		}
		// times 100, 400, 250, 150 → sorted 100, 150, 250, 400.
		want := []profile.Time{100_000, 150_000, 250_000, 400_000}
		for i, w := range want {
			if p.Samples.Time.At(i) != w {
				t.Errorf("time[%d] = %d, want %d", i, p.Samples.Time.At(i), w)
			}
		}
	})
	t.Run("legacy-head", func(t *testing.T) {
		p := parse("legacy-head")
		th := p.Threads[0]
		if p.Format != "cpuprofile-legacy" || th.Start != 10_500_000_000 || th.End != 10_501_000_000 {
			t.Errorf("format %s start %d end %d", p.Format, th.Start, th.End)
		}
		if th.LastSampleEnd != 10_501_000_000 {
			t.Errorf("LastSampleEnd = %d, want the extra timestamp", th.LastSampleEnd)
		}
		if f := p.NodeFrame(1); f.Line != 2 || f.Column != 4 {
			t.Errorf("legacy positions are 1-based: got %d:%d, want 2:4", f.Line, f.Column)
		}
	})
	t.Run("call-graph", func(t *testing.T) {
		p := parse("call-graph")
		if p.Threads[0].Shape != profile.ShapeCallGraph || p.Format != "xs" {
			t.Errorf("shape %v format %s", p.Threads[0].Shape, p.Format)
		}
		// Every edge of the input is kept: 9→6, 9→7, 6→5, 5→1, 7→5, 7→1, 0→9.
		if len(p.Edges) != 7 {
			t.Errorf("%d edges, want 7", len(p.Edges))
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		p := parse("unreachable")
		if p.Diagnostics.Count("unreachable-node") != 1 || p.Diagnostics.Count("sample-unreachable-node") != 1 || p.Samples.Len() != 2 {
			t.Errorf("diagnostics %v, %d samples", p.Diagnostics, p.Samples.Len())
		}
	})
}

func slices64Equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The XS corpus profile: a call graph whose fib, helper and Array.from have
// two callers each (docs/formats.md §3.4).
func TestXSCorpus(t *testing.T) {
	path := proftest.Corpus(t, "xs/xs_workload.cpuprofile")
	p, err := format.ReadFile(path, nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != "xs" || p.Threads[0].Shape != profile.ShapeCallGraph {
		t.Fatalf("format %s shape %v", p.Format, p.Threads[0].Shape)
	}
	if len(p.Nodes) != 22 || p.Samples.Len() != 1828 {
		t.Errorf("%d nodes, %d samples; want 22, 1828", len(p.Nodes), p.Samples.Len())
	}
	callers := map[string]int{}
	for _, e := range p.Edges {
		callers[p.Str(p.NodeFrame(e.To).Name)]++
	}
	for _, name := range []string{"fib", "helper", "Array.from"} {
		if callers[name] != 2 {
			t.Errorf("%s has %d callers, want 2", name, callers[name])
		}
	}
	if callers["isOdd"] != 1 {
		t.Errorf("isOdd has %d callers, want 1 (XS removed the back edge)", callers["isOdd"])
	}
}

// The legacy corpus profile (Node 10, head + timestamps): the DevTools engine
// throws on it, so its reconstruction is checked here by hand.
func TestLegacyCorpus(t *testing.T) {
	path := proftest.Corpus(t, "speedscope/node/10.11.0/example.cpuprofile")
	p, err := format.ReadFile(path, nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	th := p.Threads[0]
	if p.Format != "cpuprofile-legacy" || p.Samples.Len() != 29 || th.LastSampleEnd == 0 {
		t.Fatalf("format %s, %d samples, last end %d", p.Format, p.Samples.Len(), th.LastSampleEnd)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestHitCountMismatch checks that hitCounts that do not add up to the
// samples are reported, whatever width the samples are read in (ParseBytes
// reads them as int32 when they fit, Parse as int64 from a stream).
func TestHitCountMismatch(t *testing.T) {
	in := `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"hitCount":0,"children":[2]},` +
		`{"id":2,"callFrame":{"functionName":"f"},"hitCount":5}],"startTime":0,"endTime":30,"samples":[2,2,2],"timeDeltas":[1,1,1]}`
	for name, parse := range map[string]func() (*profile.Profile, error){
		"bytes":  func() (*profile.Profile, error) { return v8.ParseBytes([]byte(in), v8.Limits{}) },
		"stream": func() (*profile.Profile, error) { return v8.Parse(strings.NewReader(in)) },
	} {
		p, err := parse()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var found bool
		for _, d := range p.Diagnostics {
			if d.Code == "hitcount-mismatch" {
				found = true
				if !strings.Contains(d.Message, "add up to 5 but there are 3 samples") {
					t.Errorf("%s: message %q", name, d.Message)
				}
			}
		}
		if !found {
			t.Errorf("%s: no hitcount-mismatch diagnostic in %+v", name, p.Diagnostics)
		}
	}
}
