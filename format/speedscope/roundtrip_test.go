package speedscope_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// times is a function's self and total time, in ns.
type times struct{ Self, Total profile.Time }

// label names a function as a speedscope frame does: name, file, 1-based
// line and column (0: unknown).
func label(name, file string, line, col int32) string {
	return fmt.Sprintf("%q %q %d:%d", name, file, line, col)
}

// treeTimes returns the self and total time of each function of a tree, by
// label.
func treeTimes(tree *calltree.Tree) map[string]times {
	p := tree.Profile
	m := make(map[string]times, len(tree.Funcs))
	for _, f := range tree.Funcs {
		fr := &p.Frames[f.Frame]
		name := p.Str(fr.Name)
		if name == "" {
			name = "(anonymous)"
		}
		k := label(name, p.Str(fr.URL), max(fr.Line+1, 0), max(fr.Column+1, 0))
		v := m[k]
		v.Self += f.Self
		v.Total += f.Total
		m[k] = v
	}
	return m
}

// stackTimes aggregates stacks with frames per label, as treeTimes and
// fileTimes do (total once per stack).
func stackTimes(p *profile.Profile, ts profile.ThreadStacks) map[string]times {
	m := map[string]times{}
	seen := map[string]bool{}
	for st := range ts.Stacks {
		clear(seen)
		for i, f := range st.Frames {
			fr := &p.Frames[f]
			name := p.Str(fr.Name)
			if name == "" {
				name = "(anonymous)"
			}
			k := label(name, p.Str(fr.URL), max(fr.Line+1, 0), max(fr.Column+1, 0))
			v := m[k]
			if i == len(st.Frames)-1 {
				v.Self += st.Weight
			}
			if !seen[k] {
				seen[k] = true
				v.Total += st.Weight
			}
			m[k] = v
		}
	}
	return m
}

// written is the part of a speedscope file the tests read.
type written struct {
	Shared struct {
		Frames []struct {
			Name, File string
			Line, Col  int32
		}
	}
	Profiles []struct {
		Type, Name           string
		StartValue, EndValue int64
		Samples              [][]int32
		Weights              []int64
		Events               []struct {
			Type  string
			Frame int32
			At    int64
		}
	}
}

// fileTimes returns what a written file gives each function of each
// profile, as speedscope aggregates it (self to the innermost frame, total
// once per stack to each frame on it), by label, with the time with frames
// on the stack (a sampled profile's weights; an evented one's time with
// frames open).
func fileTimes(t *testing.T, data []byte) ([]map[string]times, []profile.Time) {
	t.Helper()
	var f written
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("the file written is not a speedscope file: %v", err)
	}
	labels := make([]string, len(f.Shared.Frames))
	for i, fr := range f.Shared.Frames {
		labels[i] = label(fr.Name, fr.File, fr.Line, fr.Col)
	}
	var funcs []map[string]times
	var sums []profile.Time
	for _, pr := range f.Profiles {
		m := map[string]times{}
		var sum profile.Time
		seen := map[string]bool{}
		add := func(stack []int32, w profile.Time) {
			if len(stack) == 0 || w == 0 {
				return
			}
			sum += w
			clear(seen)
			for i, fr := range stack {
				k := labels[fr]
				v := m[k]
				if i == len(stack)-1 {
					v.Self += w
				}
				if !seen[k] {
					seen[k] = true
					v.Total += w
				}
				m[k] = v
			}
		}
		switch pr.Type {
		case "sampled":
			if len(pr.Samples) != len(pr.Weights) {
				t.Fatalf("%s: %d samples, %d weights", pr.Name, len(pr.Samples), len(pr.Weights))
			}
			for i, st := range pr.Samples {
				add(st, profile.Time(pr.Weights[i]))
			}
		case "evented":
			var open []int32
			last := pr.StartValue
			for _, ev := range pr.Events {
				add(open, profile.Time(ev.At-last))
				last = ev.At
				if ev.Type == "O" {
					open = append(open, ev.Frame)
				} else {
					open = open[:len(open)-1]
				}
			}
		default:
			t.Fatalf("%s: type %q", pr.Name, pr.Type)
		}
		funcs = append(funcs, m)
		sums = append(sums, sum)
	}
	return funcs, sums
}

// compareTimes reports the functions whose times differ by more than tol
// ns, and returns the largest difference.
func compareTimes(t *testing.T, what string, want, got map[string]times, tol profile.Time) profile.Time {
	t.Helper()
	abs := func(d profile.Time) profile.Time { return max(d, -d) }
	var worst profile.Time
	bad := 0
	for k, w := range want {
		g, ok := got[k]
		d := max(abs(g.Self-w.Self), abs(g.Total-w.Total))
		worst = max(worst, d)
		if !ok && (w.Self != 0 || w.Total != 0) || d > tol {
			if bad++; bad <= 10 {
				t.Errorf("%s: %s: got self/total %d/%d (present %t), want %d/%d", what, k, g.Self, g.Total, ok, w.Self, w.Total)
			}
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok && (g.Self != 0 || g.Total != 0) {
			if bad++; bad <= 10 {
				t.Errorf("%s: %s: self/total %d/%d, not a function of the tree", what, k, g.Self, g.Total)
			}
		}
	}
	return worst
}

// selfOnly returns the self times of m, with total times of 0.
func selfOnly(m map[string]times) map[string]times {
	out := make(map[string]times, len(m))
	for k, v := range m {
		out[k] = times{Self: v.Self}
	}
	return out
}

// withoutScriptIDs returns a copy of p whose frames have no script id, so
// that profile.FunctionKey tells its functions apart by name, URL, line and
// column: the granularity a speedscope file can express. speedscope frames
// have no script id, so two functions that differ only by script id read
// back as one, and frames of one script under two URLs as two; roundTrip
// analyses this copy.
func withoutScriptIDs(p *profile.Profile) *profile.Profile {
	q := *p
	q.Frames = slices.Clone(p.Frames)
	for i := range q.Frames {
		q.Frames[i].ScriptID = 0
	}
	return &q
}

// threadStacks returns the stacks of every thread of s under vo, as the CLI
// passes them.
func threadStacks(t testing.TB, s *session.Session, vo view.Options) []profile.ThreadStacks {
	t.Helper()
	var out []profile.ThreadStacks
	for _, th := range s.Threads() {
		ts, err := th.Stacks(context.Background(), vo)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ts)
	}
	return out
}

func tree(t testing.TB, th *session.Thread, vo view.Options) *calltree.Tree {
	t.Helper()
	tree, err := th.Tree(context.Background(), vo)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

type writer func(io.Writer, *profile.Profile, []profile.ThreadStacks, speedscope.Options) error

var forms = []struct {
	name  string
	write writer
}{
	{"smaller", speedscope.Write},
	{"sampled", speedscope.WriteSampled},
	{"evented", speedscope.WriteEvented},
}

func mustMatcher(s string) view.Matcher {
	m, err := view.ParseMatcher(s)
	if err != nil {
		panic(err)
	}
	return m
}

// views are the view options the round trips cover.
var views = []struct {
	name string
	opts view.Options
}{
	{"all", view.Options{}},
	{"js", view.Options{View: view.JS}},
	{"platform", view.Options{View: view.Platform}},
	{"range-collapsed", view.Options{From: 50e6, To: 300e6, CollapseRecursion: true}},
	{"drop-gc-merge-program", view.Options{Drop: []view.Matcher{mustMatcher("(garbage collector)")}, Merge: []view.Matcher{mustMatcher("(program)")}}},
}

// roundTrip writes the threads of p (script ids removed: see
// withoutScriptIDs) under vo with write, from the session's stacks, and
// requires of the file:
//
//   - its own stacks and weights (as speedscope aggregates them) give every
//     function exactly the self and total time of the stacks and of the
//     session's tree (jsprof top and tree), and add up to the tree's time on
//     functions;
//   - read back (Parse) and analysed by a session with no view (the stacks
//     are the view's already), it gives the same threads and the same self
//     times again, and in the "all" view the same total times: DevTools'
//     repairs, which jsprof applies to what it reads, change nothing there.
//     (Under another view, a GC sample the input had stacked on a stack the
//     view hides reads back stacked on the stack written before it, which
//     then has the GC's time in its total.)
//
// An XS call graph's tree is exact only to the float rounding of DevTools'
// calls, which the stacks are cut at (session's TestStacksMatchTrees), and
// so is the tree of its file read back, on the same epoch clock: its times
// are compared within 50 µs. It returns the file and the number of
// functions compared.
func roundTrip(t *testing.T, p *profile.Profile, vo view.Options, write writer) ([]byte, int) {
	t.Helper()
	p = withoutScriptIDs(p)
	s := session.New("in", p, session.Options{})
	var buf bytes.Buffer
	stacks := threadStacks(t, s, vo)
	if err := write(&buf, s.Profile, stacks, speedscope.Options{}); err != nil {
		t.Fatal(err)
	}
	var tol profile.Time
	if p.Format == "xs" {
		tol = 50_000
	}
	got, sums := fileTimes(t, buf.Bytes())
	if len(got) != len(p.Threads) {
		t.Fatalf("%d profiles written, want %d", len(got), len(p.Threads))
	}
	q, err := speedscope.ParseBytes(buf.Bytes())
	if err != nil {
		t.Fatalf("reading back: %v", err)
	}
	if len(q.Threads) != len(p.Threads) {
		t.Fatalf("read back %d threads, want %d", len(q.Threads), len(p.Threads))
	}
	back := session.New("back", q, session.Options{})
	nfuncs := 0
	for i, th := range s.Threads() {
		tr := tree(t, th, vo)
		want := treeTimes(tr)
		nfuncs += len(tr.Funcs)
		what := fmt.Sprintf("thread %d", i)
		compareTimes(t, what+": written (stacks)", stackTimes(s.Profile, stacks[i]), got[i], 0)
		compareTimes(t, what+": written (tree)", want, got[i], tol)
		onFuncs := tr.TopDown[0].Total - tr.TopDown[0].Self
		if d := sums[i] - onFuncs; d > tol || d < -tol {
			t.Errorf("%s: the stacks written weigh %d ns, the tree's time on functions is %d ns", what, sums[i], onFuncs)
		}

		pt, qt := &p.Threads[i], &q.Threads[i]
		if qt.Name != pt.Name || qt.PID != pt.PID || qt.TID != pt.TID {
			t.Errorf("thread %d: read back %q pid %d tid %d, want %q pid %d tid %d", i, qt.Name, qt.PID, qt.TID, pt.Name, pt.PID, pt.TID)
		}
		bt := tree(t, back.Threads()[i], view.Options{})
		gotBack := treeTimes(bt)
		if !vo.IsZero() {
			gotBack = selfOnly(gotBack)
			got[i] = selfOnly(got[i])
		}
		compareTimes(t, what+": read back", got[i], gotBack, tol)
		if d := bt.TopDown[0].Total - sums[i]; d > tol || d < -tol {
			t.Errorf("%s: read back, the tree's time is %d ns, want the %d ns written", what, bt.TopDown[0].Total, sums[i])
		}
	}
	return buf.Bytes(), nfuncs
}

// TestRoundTripNode writes the Node fixtures in each form under each view,
// and requires the times of what is written, and of what reads back, to
// equal the session tree's exactly (roundTrip). The files Write chooses stay
// within 2× of the input's size (recursion.cpuprofile: 3×, see below), and
// every file written passes the schema of the pinned speedscope package and
// the importer's checks (tools/speedscope/validate.mjs).
func TestRoundTripNode(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/node/*.cpuprofile")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in ../../testdata/node: %v", err)
	}
	dir := t.TempDir()
	var written []string
	for _, path := range paths {
		name := filepath.Base(path)
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range views {
			for _, fm := range forms {
				t.Run(name+"/"+v.name+"/"+fm.name, func(t *testing.T) {
					p, err := format.ReadFile(path, nil, format.Options{})
					if err != nil {
						t.Fatal(err)
					}
					out, nfuncs := roundTrip(t, p, v.opts, fm.write)
					t.Logf("%s: %d functions agree", name, nfuncs)
					if fm.name == "smaller" && v.name == "all" {
						// recursion.cpuprofile's stacks hold 148,687 frames (an
						// ackermann recursion up to 165 deep in most samples): at
						// two bytes each in a sampled profile, and far more in an
						// evented one, no speedscope file is within 2× of it.
						limit := 2.0
						if name == "recursion.cpuprofile" {
							limit = 3
						}
						ratio := float64(len(out)) / float64(st.Size())
						t.Logf("%s: %d bytes written for %d read (%.2f×)", name, len(out), st.Size(), ratio)
						if ratio > limit {
							t.Errorf("%s: %d bytes written for %d read: %.2f×, want at most %g×", name, len(out), st.Size(), ratio, limit)
						}
					}
					if v.name == "all" || v.name == "js" {
						f := filepath.Join(dir, fmt.Sprintf("%s.%s.%s.speedscope.json", name, v.name, fm.name))
						if err := os.WriteFile(f, out, 0o644); err != nil {
							t.Fatal(err)
						}
						written = append(written, f)
					}
				})
			}
		}
	}
	validate(t, written)
}

// corpusFiles are the shared corpus inputs the round trip covers, with the
// number of threads each has.
var corpusFiles = []struct {
	path    string
	threads int
	large   bool    // skipped with -short
	limit   float64 // bound on the size written ÷ the size read (decompressed)
}{
	{"devtools/two-workers.json.gz", 3, false, 2},
	{"devtools/basic.cpuprofile.gz", 1, false, 2},
	{"devtools/node-fibonacci-website.cpuprofile.gz", 1, false, 2},
	{"devtools/large-profile.cpuprofile.gz", 1, true, 2},
	// Stacks 52 frames deep on average, 820,133 frames in all for a 1 MB
	// input: a sampled profile takes about 3 bytes a frame, an evented one
	// far more (26 events a sample).
	{"speedscope/Chrome/65/sucrase.cpuprofile", 1, false, 2.6},
	{"speedscope/Chrome/69/simple.json", 1, false, 2},
	{"xs/xs_workload.cpuprofile", 1, false, 2},
}

// TestRoundTripCorpus is TestRoundTripNode on files of the shared corpus
// (skipped when it is absent): a trace with three threads, whose stacks
// hold trace events, and an XS call graph among them, in the "all" and
// "platform" views. Sizes are compared with the decompressed input.
func TestRoundTripCorpus(t *testing.T) {
	dir := t.TempDir()
	var written []string
	var mu sync.Mutex
	for _, cf := range corpusFiles {
		for _, v := range views[:3] {
			t.Run(cf.path+"/"+v.name, func(t *testing.T) {
				if cf.large && testing.Short() {
					t.Skip("large input; skipped with -short")
				}
				path := proftest.Corpus(t, cf.path)
				data, err := input.ReadFile(path, nil, input.Options{})
				if err != nil {
					t.Fatal(err)
				}
				p, err := format.Parse(data, format.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Threads) != cf.threads {
					t.Fatalf("%d threads, want %d", len(p.Threads), cf.threads)
				}
				out, nfuncs := roundTrip(t, p, v.opts, speedscope.Write)
				ratio := float64(len(out)) / float64(len(data))
				t.Logf("%s: %d bytes written for %d read (%.2f×), %d threads, %d functions agree", cf.path, len(out), len(data), ratio, len(p.Threads), nfuncs)
				if v.name == "all" && ratio > cf.limit {
					t.Errorf("%d bytes written for %d read: %.2f×, want at most %g×", len(out), len(data), ratio, cf.limit)
				}
				f := filepath.Join(dir, strings.ReplaceAll(cf.path, "/", "_")+"."+v.name+".speedscope.json")
				if err := os.WriteFile(f, out, 0o644); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				written = append(written, f)
				mu.Unlock()
			})
		}
	}
	validate(t, written)
}

var (
	installOnce sync.Once
	installErr  error
)

// validate checks files with tools/speedscope/validate.mjs: the speedscope
// schema and the importer's own checks. It fails the test when node or the
// pinned packages cannot be had.
func validate(t *testing.T, files []string) {
	t.Helper()
	if len(files) == 0 {
		return
	}
	tools := filepath.Join(proftest.RepoRoot(), "tools", "speedscope")
	installOnce.Do(func() {
		out, err := exec.Command("bash", filepath.Join(tools, "install.sh")).CombinedOutput()
		if err != nil {
			installErr = fmt.Errorf("tools/speedscope/install.sh: %v\n%s", err, out)
		}
	})
	if installErr != nil {
		t.Fatal(installErr)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed to validate speedscope files against the schema: %v", err)
	}
	cmd := exec.Command(node, append([]string{filepath.Join(tools, "validate.mjs")}, files...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("validate.mjs: %v\n%s%s", err, stderr.String(), stdout.String())
	}
	n := 0
	for line := range strings.Lines(stdout.String()) {
		if strings.HasPrefix(line, "ok ") {
			n++
		}
	}
	if n != len(files) {
		t.Fatalf("validate.mjs passed %d of %d files:\n%s", n, len(files), stdout.String())
	}
	t.Logf("validate.mjs: %d files valid", n)
}

// cpuprofile returns a .cpuprofile with (program), (garbage collector) and
// main → f, main → g, 10 µs apart, sampling the given nodes: 2 is
// (program), 3 the GC, 5 f and 6 g.
func cpuprofile(samples string) string {
	frame := func(name, url string, line int) string {
		return fmt.Sprintf(`"callFrame":{"functionName":%q,"scriptId":"1","url":%q,"lineNumber":%d,"columnNumber":0}`, name, url, line)
	}
	n := strings.Count(samples, ",") + 1
	return `{"nodes":[{"id":1,` + frame("(root)", "", -1) + `,"children":[2,3,4]},{"id":2,` + frame("(program)", "", -1) + `},
{"id":3,` + frame("(garbage collector)", "", -1) + `},{"id":4,` + frame("main", "a.js", 0) + `,"children":[5,6]},
{"id":5,` + frame("f", "a.js", 1) + `},{"id":6,` + frame("g", "a.js", 2) + `}],
"startTime":0,"endTime":1000,"samples":[` + samples + `],"timeDeltas":[` + strings.Repeat("10,", n-1) + `10]}`
}

// TestRoundTripRepairs covers the stacks that DevTools' repairs would treat
// differently once written, if Write did not write a (program) stack as
// two samples (see collect). A run of (program) samples between two samples
// of main is not repaired, but the run is one stack, which as one sample
// would be. A GC sample before a (program) sample keeps it from being
// repaired; in the file, the GC sample is on main's stack and no longer
// would.
func TestRoundTripRepairs(t *testing.T) {
	for _, tc := range []struct{ name, samples string }{
		{"program-run", "5,2,2,6,5,2,2,2,5"},
		{"gc-then-program", "5,3,2,6"},
	} {
		for _, fm := range forms {
			t.Run(tc.name+"/"+fm.name, func(t *testing.T) {
				p, err := format.Parse([]byte(cpuprofile(tc.samples)), format.Options{})
				if err != nil {
					t.Fatal(err)
				}
				roundTrip(t, p, view.Options{}, fm.write)
			})
		}
	}
}

// stacksOf returns a ThreadStacks that yields the given stacks.
func stacksOf(th profile.ThreadID, stacks ...profile.Stack) profile.ThreadStacks {
	return profile.ThreadStacks{Thread: th, Stacks: func(yield func(*profile.Stack) bool) {
		for i := range stacks {
			if !yield(&stacks[i]) {
				return
			}
		}
	}}
}

// TestWriteStacks writes hand-made stacks: stacks with no frames are left
// out, identical contiguous ones merged (not across a gap), a (program)
// stack written as two samples; stacks out of time order, of negative
// weight or naming no frame of the profile, and thread ids outside the
// profile are errors.
func TestWriteStacks(t *testing.T) {
	p, err := format.Parse([]byte(cpuprofile("5,2,6")), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	frame := map[string]profile.FrameID{}
	for i, f := range p.Frames {
		frame[p.Str(f.Name)] = profile.FrameID(i)
	}
	mainF, f, prog := frame["main"], frame["f"], frame["(program)"]
	ts := stacksOf(0,
		profile.Stack{Frames: []profile.FrameID{mainF, f}, Time: 100, Weight: 10, Category: profile.CatJavaScript},
		profile.Stack{Frames: []profile.FrameID{mainF, f}, Time: 110, Weight: 5, Category: profile.CatGC},
		profile.Stack{Time: 115, Weight: 20},
		profile.Stack{Frames: []profile.FrameID{mainF, f}, Time: 135, Weight: 1},
		profile.Stack{Frames: []profile.FrameID{prog}, Time: 136, Weight: 7},
		profile.Stack{Frames: []profile.FrameID{prog}, Time: 143, Weight: 1},
		// 7 ns left out (a transform removed them).
		profile.Stack{Frames: []profile.FrameID{mainF}, Time: 151, Weight: 9},
		profile.Stack{Time: 160, Weight: 40},
	)
	var buf bytes.Buffer
	if err := speedscope.WriteSampled(&buf, p, []profile.ThreadStacks{ts}, speedscope.Options{Name: "x"}); err != nil {
		t.Fatal(err)
	}
	var w written
	if err := json.Unmarshal(buf.Bytes(), &w); err != nil {
		t.Fatal(err)
	}
	var got []string
	pr := w.Profiles[0]
	for i, st := range pr.Samples {
		var names []string
		for _, fr := range st {
			names = append(names, w.Shared.Frames[fr].Name)
		}
		got = append(got, fmt.Sprintf("%s %d", strings.Join(names, ";"), pr.Weights[i]))
	}
	want := []string{"main;f 15", "main;f 1", "(program) 3", "(program) 4", "(program) 1", "main 9"}
	if !slices.Equal(got, want) || pr.StartValue != 100 || pr.EndValue != 160 {
		t.Errorf("samples %q from %d to %d, want %q from 100 to 160", got, pr.StartValue, pr.EndValue, want)
	}

	for name, bad := range map[string]profile.Stack{
		"out of order":    {Frames: []profile.FrameID{mainF}, Time: 99, Weight: 1},
		"negative weight": {Frames: []profile.FrameID{mainF}, Time: 200, Weight: -1},
		"unknown frame":   {Frames: []profile.FrameID{profile.FrameID(len(p.Frames))}, Time: 200, Weight: 1},
	} {
		ts := stacksOf(0, profile.Stack{Frames: []profile.FrameID{mainF}, Time: 100, Weight: 1}, bad)
		if err := speedscope.Write(io.Discard, p, []profile.ThreadStacks{ts}, speedscope.Options{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	for _, bad := range [][]profile.ThreadStacks{nil, {{Thread: 1}}, {{Thread: -1}}} {
		if err := speedscope.Write(io.Discard, p, bad, speedscope.Options{}); err == nil {
			t.Errorf("threads %v: no error", bad)
		}
	}
}
