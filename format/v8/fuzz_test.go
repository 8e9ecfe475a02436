package v8_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/profile"
)

// fuzzSeeds are small hand-written profiles of each shape the reader accepts.
var fuzzSeeds = []string{
	// Current form, children-linked, with the meta nodes, positionTicks, a
	// deopt reason, a GC sample between two JS samples and a negative delta.
	`{"nodes":[
{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2,3,4,5]},
{"id":2,"callFrame":{"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":1},
{"id":3,"callFrame":{"functionName":"(idle)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":1},
{"id":4,"callFrame":{"functionName":"(garbage collector)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":1},
{"id":5,"callFrame":{"functionName":"main","scriptId":"12","url":"file:///a.js","lineNumber":0,"columnNumber":0},"hitCount":2,"children":[6,7],"positionTicks":[{"line":2,"ticks":2}]},
{"id":6,"callFrame":{"functionName":"hot","scriptId":"12","url":"file:///a.js","lineNumber":4,"columnNumber":13},"hitCount":4,"deoptReason":"Optimized too many times","positionTicks":[{"line":5,"ticks":3},{"line":6,"ticks":1}]},
{"id":7,"callFrame":{"functionName":"main","scriptId":"12","url":"file:///a.js","lineNumber":0,"columnNumber":0},"hitCount":1,"deoptReason":"no reason"}],
"startTime":1000,"endTime":2500,"samples":[5,6,6,4,6,2,7,5,3,6],"timeDeltas":[10,100,100,100,-50,100,100,100,100,100.5]}`,
	// Parent-linked nodes (as trace ProfileChunks carry them), script id as
	// a number, null line and column (XS writes NaN as null).
	`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":0}},
{"id":2,"parent":1,"callFrame":{"functionName":"a","url":"x.js","scriptId":3,"lineNumber":1,"columnNumber":2}},
{"id":3,"parent":2,"callFrame":{"functionName":"b","url":"x.js","scriptId":3,"lineNumber":null,"columnNumber":null}},
{"id":4,"parent":1,"callFrame":{"functionName":"(program)"}},
{"id":5,"parent":3,"callFrame":{"functionName":"a","url":"x.js","scriptId":3,"lineNumber":1,"columnNumber":2}}],
"startTime":5,"endTime":50,"samples":[3,5,2,4,3,5],"timeDeltas":[1,2,3,4,5,6]}`,
	// Legacy form: a nested head tree, times in seconds, timestamps in µs
	// with the extra end timestamp.
	`{"head":{"functionName":"(root)","url":"","lineNumber":0,"callUID":1,"bailoutReason":"","id":1,"scriptId":0,"hitCount":0,"children":[
{"functionName":"main","url":"file:///b.js","lineNumber":1,"columnNumber":1,"callUID":2,"bailoutReason":"no reason","id":2,"scriptId":7,"hitCount":2,"positionTicks":[{"line":3,"ticks":2}],"children":[
 {"functionName":"inner","url":"file:///b.js","lineNumber":5,"columnNumber":3,"id":3,"scriptId":7,"hitCount":1,"children":[]}]},
{"functionName":"(program)","id":4,"hitCount":1,"children":[]}]},
"startTime":100.5,"endTime":100.6,"samples":[2,3,2,4],"timestamps":[100500000,100510000,100530000,100560000,100580000]}`,
	// Legacy form without ids or timestamps: samples are spread evenly.
	`{"head":{"functionName":"(root)","children":[{"functionName":"f","url":"c.js","lineNumber":3,"children":[{"functionName":"g"}]},{"functionName":"(garbage collector)"}]},
"startTime":1,"endTime":1.001,"samples":[1,2,1,3,0]}`,
	// XS-like call graph: one node per function, (gc) and helper reached
	// from several callers, ids sparse, epoch-µs clock.
	`{"nodes":[
{"id":0,"callFrame":{"functionName":"(host)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[656]},
{"id":1,"callFrame":{"functionName":"(gc)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":2,"children":[]},
{"id":165,"callFrame":{"functionName":"Array.from","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[1,648]},
{"id":326,"callFrame":{"functionName":"Math.sqrt","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":2,"children":[]},
{"id":641,"callFrame":{"functionName":"fib","scriptId":"0","url":"/srv/w.js","lineNumber":3,"columnNumber":-1},"hitCount":3,"children":[]},
{"id":644,"callFrame":{"functionName":"helper","scriptId":"0","url":"/srv/w.js","lineNumber":7,"columnNumber":-1},"hitCount":1,"children":[326,1]},
{"id":645,"callFrame":{"functionName":"callerA","scriptId":"0","url":"/srv/w.js","lineNumber":9,"columnNumber":-1},"hitCount":0,"children":[641,644]},
{"id":646,"callFrame":{"functionName":"callerB","scriptId":"0","url":"/srv/w.js","lineNumber":12,"columnNumber":-1},"hitCount":0,"children":[644,165]},
{"id":648,"callFrame":{"functionName":"(anonymous-648)","scriptId":"0","url":"/srv/w.js","lineNumber":20,"columnNumber":-1},"hitCount":1,"children":[]},
{"id":656,"callFrame":{"functionName":"(anonymous-656)","scriptId":"0","url":"/srv/w.js","lineNumber":30,"columnNumber":-1},"hitCount":0,"children":[641,645,646]}],
"startTime":1795297897967764,"endTime":1795297897990000,"samples":[641,641,644,326,1,326,641,648,1,644],"timeDeltas":[1251,986,1250,1250,1250,1288,1212,1250,1250,1250]}`,
	// A diamond ladder: the call graph expands to a tree of many paths.
	`{"nodes":[{"id":1,"children":[2,3]},{"id":2,"children":[4]},{"id":3,"children":[4]},{"id":4,"children":[5,6]},{"id":5,"children":[7]},{"id":6,"children":[7]},{"id":7}],
"samples":[7,5,7,2],"timeDeltas":[1,1,1,1]}`,
	// String ids, no hit counts, sparse ids (map index), recursion.
	`{"nodes":[{"id":"10","callFrame":{"functionName":"(root)"},"children":[1000000]},{"id":"1000000","callFrame":{"functionName":"r","url":"r.js"},"children":[99999999999]},{"id":99999999999,"callFrame":{"functionName":"r","url":"r.js"}}],
"startTime":0,"endTime":0,"samples":[99999999999,1000000,99999999999],"timeDeltas":[0,0,0]}`,
	// Unreachable nodes (a parent cycle away from the root), a sample on one.
	`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":3},{"id":3,"parent":2},{"id":4,"parent":1}],"samples":[4,2,4],"timeDeltas":[5,5,5]}`,
	// One sample: its end is endTime, which may come before it.
	`{"nodes":[{"id":1,"children":[2]},{"id":2}],"startTime":100,"endTime":50,"samples":[2],"timeDeltas":[10]}`,
	// Near-misses of errors.
	`{"nodes":[{"id":1}],"samples":[1,1],"timeDeltas":[1e2,-5],"title":"\u00e9\ud83d\ude00","id":"x","typeId":[{}]}`,
	`{"nodes":[{"id":1,"children":[1]}]}`,
	`{"nodes":[{"id":1},{"id":1}]}`,
	`{"nodes":[{"id":1}],"samples":[1,2],"timeDeltas":[1]}`,
	`{"nodes":[{"id":1}],"samples":[1],"timeDeltas":[01]}`,
	`  `,
	`[]`,
}

// fuzzSeedMax bounds the size of the files added as seeds under -fuzz: the
// fuzzer minimizes every new input it finds, and on a large one that takes
// minutes of 0 execs/s. Without -fuzz every file is a seed.
const fuzzSeedMax = 64 << 10

// fuzzing reports whether the test binary runs with -test.fuzz.
func fuzzing() bool {
	fl := flag.Lookup("test.fuzz")
	return fl != nil && fl.Value.String() != ""
}

// setMinimizeTime sets -fuzzminimizetime to d under -fuzz unless it was given:
// the fuzzer minimizes every new interesting input, for 60s by default, and
// on this target's inputs that stalls both workers for a minute at a time
// (0 execs/s in the log), which would also eat all of a 30s CI run.
func setMinimizeTime(d time.Duration) {
	if !fuzzing() {
		return
	}
	given := false
	flag.Visit(func(fl *flag.Flag) { given = given || fl.Name == "test.fuzzminimizetime" })
	if !given {
		flag.Set("test.fuzzminimizetime", d.String())
	}
}

// addSeed adds data as a seed, unless it is too large to fuzz.
func addSeed(f *testing.F, name string, data []byte) {
	if fuzzing() && len(data) > fuzzSeedMax {
		f.Logf("%s: %d bytes, too large a seed for -fuzz; left out", name, len(data))
		return
	}
	f.Add(data)
}

// FuzzParse checks that the reader never panics or hangs, that its errors are
// *profile.ParseError values that locate the problem inside the input, that
// what it accepts passes Validate, and that the DevTools reconstruction
// (calls.Timeline, calltree.Build) of what it accepts keeps its invariants.
//
// Seeds: the hand-written fuzzSeeds, the project's Node fixtures and, when
// ../shared/corpus is next to the checkout, its .cpuprofile files (see
// fuzzSeedMax for the ones left out under -fuzz).
func FuzzParse(f *testing.F) {
	setMinimizeTime(5 * time.Second)
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	paths, err := filepath.Glob("../../testdata/node/*.cpuprofile")
	if err != nil || len(paths) == 0 {
		f.Fatalf("no seeds in ../../testdata/node: %v", err)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		addSeed(f, path, data)
	}
	addCorpusSeeds(f)
	f.Fuzz(checkParse)
}

// addCorpusSeeds adds the .cpuprofile files (plain or .gz) of
// ../shared/corpus, if it exists.
func addCorpusSeeds(f *testing.F) {
	dir := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		f.Logf("no shared corpus: %v", err)
		return
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if !strings.HasSuffix(name, ".cpuprofile") && !strings.HasSuffix(name, ".cpuprofile.gz") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.HasSuffix(name, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		addSeed(f, path, data)
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
}

// Known bugs that the fuzz checks step around, reported with their fixes.
// Each guard is as narrow as the bug, so that other failures still show.
const (
	// bugNULIsEOF: jsonscan takes a NUL byte for the end of the input, so
	// the error wraps ErrTruncated at an offset before the end.
	bugNULIsEOF = "a NUL byte in the input is reported as the end of the input"
	// bugEmptyNoPath: an empty or all-white-space input gives a ParseError
	// with no path.
	bugEmptyNoPath = "an empty input's error has no JSON path"
)

// maxAnalysed bounds the input size for which the accepted profile is also
// analysed, and maxExpanded the size of the tree a call graph expands to.
const (
	maxAnalysed = 1 << 20
	maxExpanded = 1 << 16
)

func checkParse(t *testing.T, data []byte) {
	orig := bytes.Clone(data)
	p, err := fuzzcheck.Parse(t, data, func(data []byte) (*profile.Profile, error) { return v8.ParseBytes(data, v8.Limits{}) })
	if !bytes.Equal(data, orig) {
		t.Fatal("ParseBytes modified its input")
	}
	if err != nil {
		checkParseError(t, data, err)
		return
	}
	if p == nil {
		t.Fatal("ParseBytes returned neither a profile nor an error")
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("accepted a profile that fails Validate: %v", err)
	}
	if len(p.Threads) != 1 {
		t.Fatalf("got %d threads, want 1", len(p.Threads))
	}
	th := p.Threads[0]
	for i := th.Samples.Start; i < th.Samples.End; i++ {
		if n := p.Samples.Node.At(int(i)); n < profile.NodeID(th.Nodes.Start) || n >= profile.NodeID(th.Nodes.End) {
			t.Fatalf("sample %d: node %d outside [%d,%d)", i, n, th.Nodes.Start, th.Nodes.End)
		}
	}
	if len(data) > maxAnalysed {
		return
	}
	checkAnalysis(t, p, 0)
}

// checkParseError checks that err locates the problem inside data.
func checkParseError(t *testing.T, data []byte, err error) {
	t.Helper()
	var pe *profile.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("got error %q (%T), want a *profile.ParseError", err, err)
	}
	if pe.Err == nil {
		t.Fatalf("ParseError without Err: %+v", pe)
	}
	if pe.Offset < 0 || pe.Offset > int64(len(data)) {
		t.Fatalf("error offset %d outside [0, %d]: %v", pe.Offset, len(data), err)
	}
	empty := len(bytes.TrimSpace(data)) == 0
	if pe.Path == "" && !(empty && errors.Is(err, profile.ErrEmpty)) { // bugEmptyNoPath
		t.Fatalf("error without a JSON path: %v", err)
	}
	prefix := fmt.Sprintf("offset %d: ", pe.Offset)
	if pe.Path != "" {
		prefix += pe.Path + ": "
	}
	if msg := err.Error(); !strings.HasPrefix(msg, prefix) {
		t.Fatalf("error %q does not start with %q", msg, prefix)
	}
	if errors.Is(err, profile.ErrTruncated) && pe.Offset != int64(len(data)) && !bytes.Contains(data, []byte{0}) { // bugNULIsEOF
		t.Fatalf("truncation reported at offset %d of %d: %v", pe.Offset, len(data), err)
	}
}

// expandedSize returns the number of nodes of the tree that thread th's call
// graph expands to (one per path from the root), saturating at limit.
func expandedSize(p *profile.Profile, th *profile.Thread, limit int) int {
	if th.Shape != profile.ShapeCallGraph {
		return th.Nodes.Len()
	}
	base := profile.NodeID(th.Nodes.Start)
	n := th.Nodes.Len()
	kids := make([][]int32, n)
	indeg := make([]int, n)
	for _, e := range p.Edges {
		if e.From >= base && int(e.From-base) < n {
			kids[e.From-base] = append(kids[e.From-base], int32(e.To-base))
			indeg[e.To-base]++
		}
	}
	paths := make([]int, n)
	paths[0] = 1
	queue := []int32{0}
	total := 0
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		total = min(total+paths[x], limit)
		for _, c := range kids[x] {
			paths[c] = min(paths[c]+paths[x], limit)
			if indeg[c]--; indeg[c] == 0 {
				queue = append(queue, c)
			}
		}
	}
	return total
}

// checkAnalysis runs the DevTools reconstruction of thread tid and checks
// the invariants of its calls and of the call tree built from them.
func checkAnalysis(t *testing.T, p *profile.Profile, tid profile.ThreadID) {
	t.Helper()
	th := &p.Threads[tid]
	ss := p.ThreadSamples(tid)
	// Times far from the clock's zero overflow the analyses' int64
	// arithmetic (the reader accepts up to ±2^53 µs); ±2^61 ns covers epoch
	// clocks until 2043.
	const maxTime = 1 << 61
	inRange := func(t profile.Time) bool { return t >= -maxTime && t <= maxTime }
	if !inRange(th.Start) || !inRange(th.End) || !inRange(th.LastSampleEnd) {
		return
	}
	for i := range ss.Time.Len() {
		if !inRange(ss.Time.At(i)) {
			return
		}
	}
	if expandedSize(p, th, maxExpanded+1) > maxExpanded {
		return
	}
	tl, err := calls.NewTimeline(p, tid)
	if err != nil {
		t.Fatalf("NewTimeline: %v", err)
	}
	n := tl.Len()
	if n != ss.Node.Len() || tl.Times.Len() != n {
		t.Fatalf("timeline: %d samples and %d times for %d samples", n, tl.Times.Len(), ss.Node.Len())
	}
	for i, x := range tl.SamplesIn(0, tl.Len()) {
		if x < 0 || int(x) >= len(tl.Node) {
			t.Fatalf("timeline sample %d: expanded node %d outside [0,%d)", i, x, len(tl.Node))
		}
	}

	c := &callChecker{t: t, p: p, tl: tl, th: th, funcOf: make([]int32, len(p.Frames))}
	funcs := map[profile.FunctionKey]int32{}
	for f := range p.Frames {
		key := p.FunctionKey(profile.FrameID(f))
		id, ok := funcs[key]
		if !ok {
			id = int32(len(funcs))
			funcs[key] = id
		}
		c.funcOf[f] = id
	}
	c.onStack = make([]int, len(funcs))
	c.funcTotal = make([]profile.Time, len(funcs))
	// Calls carry DevTools' float-ms rounding: allow a few ulps of the
	// largest time (in ns, maxAbs·2^−52 is one ulp of its ms value).
	maxAbs := max(th.End, -th.End)
	for _, x := range append(tl.Times.Slice(0, n).Wide(), tl.End) {
		maxAbs = max(maxAbs, x, -x)
	}
	c.ulp = maxAbs>>50 + 1
	// Durations are non-negative when the end of the last sample (the
	// extrapolated or legacy end, else endTime, as DevTools takes it)
	// does not come before the last sample.
	if n > 0 {
		end := tl.End
		if end == 0 {
			end = th.End
		}
		c.ordered = end >= tl.Times.At(n-1)
	}
	tl.Walk(c)
	if len(c.stack) != 0 {
		t.Fatalf("Walk left %d calls open", len(c.stack))
	}
	all := tl.Calls()
	if len(all) != c.opens {
		t.Fatalf("Calls returned %d calls, Walk opened %d", len(all), c.opens)
	}
	for i, call := range all {
		if call.SampleIndex < 0 || int(call.SampleIndex) >= n {
			t.Fatalf("call %d: sample index %d outside [0,%d)", i, call.SampleIndex, n)
		}
		if i > 0 && call.SampleIndex < all[i-1].SampleIndex {
			t.Fatalf("call %d opens at sample %d, after call %d at sample %d", i, call.SampleIndex, i-1, all[i-1].SampleIndex)
		}
	}

	tree := calltree.Build(tl)
	// A tree-shaped thread's tree is summed from its samples in exact ns;
	// the walk rounds each call from float ms. They agree to the ns on
	// every real profile (calltree.TestSamplesMatchWalk); allow a ns per
	// call for times the fuzzer makes large enough for float noise.
	near := func(a, b profile.Time) bool { return max(a-b, b-a) <= profile.Time(c.opens) }
	if tree.Calls != c.opens {
		t.Fatalf("tree: got %d calls, want %d", tree.Calls, c.opens)
	}
	var nodeSelf, funcSelf, tdSelf profile.Time
	for _, s := range tree.NodeSelf {
		nodeSelf += s
	}
	funcCalls := 0
	for _, fn := range tree.Funcs {
		funcSelf += fn.Self
		funcCalls += fn.Calls
		if want := c.funcTotal[funcs[fn.Key]]; !near(fn.Total, want) {
			t.Fatalf("function %q: got total %d, want %d (outermost calls only)", p.Str(fn.Key.Name), fn.Total, want)
		}
	}
	if !near(nodeSelf, c.self) || !near(funcSelf, c.self) {
		t.Fatalf("self time: nodes %d, functions %d, calls %d", nodeSelf, funcSelf, c.self)
	}
	if funcCalls != c.opens {
		t.Fatalf("functions count %d calls, want %d", funcCalls, c.opens)
	}
	td := tree.TopDown
	if !near(td[0].Total, c.topDur) {
		t.Fatalf("top-down root total %d, want %d (the outermost calls' durations)", td[0].Total, c.topDur)
	}
	links := 0
	for i := range td {
		tdSelf += td[i].Self
		for ch := td[i].FirstChild; ch >= 0; ch = td[ch].NextSibling {
			if int(ch) <= i || td[ch].Parent != int32(i) {
				t.Fatalf("top-down node %d: child %d has parent %d", i, ch, td[ch].Parent)
			}
			links++
		}
	}
	if links != len(td)-1 || !near(tdSelf, c.self) {
		t.Fatalf("top-down tree: %d links for %d nodes, self %d, want %d", links, len(td), tdSelf, c.self)
	}
	bu := tree.BottomUp(0)
	if !near(bu[0].Total, c.self) {
		t.Fatalf("bottom-up root total %d, want the self time %d", bu[0].Total, c.self)
	}
	for _, by := range []calltree.By{calltree.BySelf, calltree.ByTotal} {
		top := tree.Top(by, 0)
		if len(top) != len(tree.Funcs) {
			t.Fatalf("Top: %d functions, want %d", len(top), len(tree.Funcs))
		}
	}
	tree.Lines()
}

// callChecker checks the calls of a walk as they open and close.
type callChecker struct {
	t         *testing.T
	p         *profile.Profile
	tl        *calls.Timeline
	th        *profile.Thread
	ulp       profile.Time // one ulp-ish of the timeline's float-ms times, in ns
	ordered   bool         // the walk's end is not before the last sample
	stack     []openCall
	opens     int
	self      profile.Time   // sum of Self
	topDur    profile.Time   // sum of Dur of depth-0 calls
	funcOf    []int32        // FrameID → function (frames merged by FunctionKey)
	onStack   []int          // per function: open calls
	funcTotal []profile.Time // per function: Dur of its outermost calls
}

type openCall struct {
	c        calls.Call
	fn       int32
	children int
	childDur profile.Time
	childEnd profile.Time // latest end of a child
}

// tol is the rounding allowed on a value computed from k+1 float differences.
func (c *callChecker) tol(k int) profile.Time {
	return profile.Time(2+k) + profile.Time(k+3)*c.ulp
}

func (c *callChecker) Open(x *calls.Call) {
	t := c.t
	if int(x.Depth) != len(c.stack) {
		t.Fatalf("call of node %d at sample %d opens at depth %d with %d calls open", x.Node, x.SampleIndex, x.Depth, len(c.stack))
	}
	if x.Node < profile.NodeID(c.th.Nodes.Start) || x.Node >= profile.NodeID(c.th.Nodes.End) {
		t.Fatalf("call of node %d outside the thread's nodes", x.Node)
	}
	if k := len(c.stack); k > 0 {
		if par := &c.stack[k-1]; x.Start < par.c.Start-c.tol(0) {
			t.Fatalf("call of node %d starts at %d, before its caller (node %d) at %d", x.Node, x.Start, par.c.Node, par.c.Start)
		}
	}
	fn := c.funcOf[c.p.Nodes[x.Node].Frame]
	c.onStack[fn]++
	c.stack = append(c.stack, openCall{c: *x, fn: fn, childEnd: math.MinInt64})
	c.opens++
}

func (c *callChecker) Close(x *calls.Call) {
	t := c.t
	k := len(c.stack) - 1
	if k < 0 {
		t.Fatalf("close of node %d with no call open", x.Node)
	}
	oc := c.stack[k]
	c.stack = c.stack[:k]
	if x.Node != oc.c.Node || x.Start != oc.c.Start || x.Depth != oc.c.Depth || x.SampleIndex != oc.c.SampleIndex {
		t.Fatalf("close of %+v does not match the open call %+v", *x, oc.c)
	}
	end := x.Start + x.Dur
	// Self is what the children did not take.
	if d := x.Self - (x.Dur - oc.childDur); d > c.tol(oc.children) || d < -c.tol(oc.children) {
		t.Fatalf("call of node %d: self %d, but duration %d minus children's %d is %d", x.Node, x.Self, x.Dur, oc.childDur, x.Dur-oc.childDur)
	}
	if c.ordered {
		if x.Dur < -c.tol(0) {
			t.Fatalf("call of node %d: negative duration %d", x.Node, x.Dur)
		}
		if x.Self < -c.tol(oc.children) || x.Self > x.Dur+c.tol(oc.children) {
			t.Fatalf("call of node %d: self %d outside [0, duration %d]", x.Node, x.Self, x.Dur)
		}
		if oc.children > 0 && oc.childEnd > end+c.tol(0) {
			t.Fatalf("call of node %d ends at %d, before its callee that ends at %d", x.Node, end, oc.childEnd)
		}
	}
	if k > 0 {
		par := &c.stack[k-1]
		par.children++
		par.childDur += x.Dur
		par.childEnd = max(par.childEnd, end)
	} else {
		c.topDur += x.Dur
	}
	c.self += x.Self
	if c.onStack[oc.fn]--; c.onStack[oc.fn] == 0 {
		c.funcTotal[oc.fn] += x.Dur
	}
}
