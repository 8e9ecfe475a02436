package pprof_test

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	pprofile "github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// fn identifies a function as pprof sees it: name, file, 1-based start line.
type fn struct {
	name, file string
	line       int64
}

func (f fn) String() string { return fmt.Sprintf("%s %s:%d", f.name, f.file, f.line) }

// times are a function's self and total time in ns.
type times struct{ self, total int64 }

// funcOf returns the pprof function of a jsprof frame (TestMapping checks
// FuncName's and FileName's forms).
func funcOf(p *profile.Profile, f profile.FrameID) fn {
	fr := &p.Frames[f]
	line := int64(0)
	if fr.Line >= 0 {
		line = int64(fr.Line) + 1
	}
	return fn{pprof.FuncName(p, fr), pprof.FileName(p.Str(fr.URL)), line}
}

// jsprofTimes returns the self and total time of each function of a tree,
// merged into pprof's functions. jsprof also keys functions by column; where
// several columns share one pprof function, multi counts them, and total is
// the largest of theirs (pprof's cum lies between it and their sum).
func jsprofTimes(tree *calltree.Tree) (m map[fn]times, sumTotal map[fn]int64, multi map[fn]int) {
	m, sumTotal, multi = map[fn]times{}, map[fn]int64{}, map[fn]int{}
	for _, f := range tree.Funcs {
		k := funcOf(tree.Profile, f.Frame)
		x := m[k]
		x.self += int64(f.Self)
		x.total = max(x.total, int64(f.Total))
		m[k] = x
		sumTotal[k] += int64(f.Total)
		multi[k]++
	}
	return m, sumTotal, multi
}

// pprofTimes returns the flat and cum time (value index 1) of each function
// over the samples that keep selects (nil: all).
func pprofTimes(pp *pprofile.Profile, keep func(*pprofile.Sample) bool) map[fn]times {
	m := map[fn]times{}
	for _, s := range pp.Sample {
		if keep != nil && !keep(s) {
			continue
		}
		v := s.Value[1]
		seen := map[fn]bool{}
		for i, loc := range s.Location {
			for j, ln := range loc.Line {
				k := fn{ln.Function.Name, ln.Function.Filename, ln.Function.StartLine}
				x := m[k]
				if i == 0 && j == 0 {
					x.self += v
				}
				if !seen[k] {
					seen[k] = true
					x.total += v
				}
				m[k] = x
			}
		}
	}
	return m
}

// readNode reads a fixture: one of testdata/node, or a corpus file.
func readNode(t *testing.T, file string) *profile.Profile {
	t.Helper()
	p, err := format.ReadFile(file, nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// analysed is a profile as `jsprof top/tree` see it: its session, and for
// every thread the stacks Write takes and the tree the numbers must match.
type analysed struct {
	s      *session.Session
	p      *profile.Profile // s.Profile: with the trace events' frames
	stacks []profile.ThreadStacks
	trees  []*calltree.Tree
}

// analyse opens a session on p and computes every thread's stacks and tree
// under vo.
func analyse(t testing.TB, p *profile.Profile, vo view.Options) *analysed {
	t.Helper()
	a := &analysed{s: session.New("test", p, session.Options{})}
	a.p = a.s.Profile
	for _, th := range a.s.Threads() {
		ts, err := th.Stacks(t.Context(), vo)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := th.Tree(t.Context(), vo)
		if err != nil {
			t.Fatal(err)
		}
		a.stacks = append(a.stacks, ts)
		a.trees = append(a.trees, tree)
	}
	return a
}

// shown is the time of a tree that the stacks show: its root's total less
// the time out of the view (the root's self), which no stack with frames
// holds.
func shown(tree *calltree.Tree) int64 { return int64(tree.TopDown[0].Total - tree.TopDown[0].Self) }

// write writes the stacks of a as pprof.
func write(t testing.TB, a *analysed) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Write(&buf, a.p, a.stacks, pprof.Options{}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sessionTree returns the session's tree of thread 0 of p (the tree of
// `jsprof tree`).
func sessionTree(t *testing.T, p *profile.Profile) *calltree.Tree {
	t.Helper()
	return analyse(t, p, view.Options{}).trees[0]
}

// compareTimes checks that pprof's flat and cum are jsprof's self and total
// exactly and returns how many functions agree. Where several jsprof
// functions (columns, scripts) are one pprof function, flat is the sum of
// their self times and cum lies between the largest of their totals and
// the sum.
func compareTimes(t *testing.T, got map[fn]times, want map[fn]times, sumTotal map[fn]int64, multi map[fn]int) (agree int) {
	t.Helper()
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%v: missing from pprof", k)
			continue
		}
		if g.self != w.self {
			t.Errorf("%v: flat %d ns, want self %d", k, g.self, w.self)
			continue
		}
		if multi[k] == 1 {
			if g.total != w.total {
				t.Errorf("%v: cum %d ns, want total %d", k, g.total, w.total)
				continue
			}
		} else if g.total < w.total || g.total > sumTotal[k] {
			t.Errorf("%v (%d columns): cum %d ns, want between %d and %d", k, multi[k], g.total, w.total, sumTotal[k])
			continue
		}
		agree++
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%v: in pprof only", k)
		}
	}
	return agree
}

func nodeFixtures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../testdata/node/*.cpuprofile")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	return files
}

// The written file reads back with google/pprof, and its flat and cum times
// per function are jsprof's self and total times; its header says what
// the package documentation promises.
func TestWriteMatchesCallTree(t *testing.T) {
	t.Parallel()
	for _, file := range nodeFixtures(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			p := readNode(t, file)
			a := analyse(t, p, view.Options{})
			tree := a.trees[0]
			data := write(t, a)
			pp, err := pprofile.ParseData(data)
			if err != nil {
				t.Fatal(err)
			}
			want, sumTotal, multi := jsprofTimes(tree)
			agree := compareTimes(t, pprofTimes(pp, nil), want, sumTotal, multi)

			times := p.ThreadSamples(0).Time
			n := times.Len()
			from, to, err := a.s.Threads()[0].Window(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			var count, ns int64
			for _, s := range pp.Sample {
				count += s.Value[0]
				ns += s.Value[1]
				if got := s.Label["thread"]; len(got) != 1 || got[0] != "main" {
					t.Fatalf("thread label %q, want [main]", got)
				}
				if len(s.NumLabel) != 0 {
					t.Fatalf("numeric labels %v on a one-thread profile", s.NumLabel)
				}
			}
			if ns != int64(tree.TopDown[0].Total) {
				t.Errorf("sum of ns %d, want the tree's time %d", ns, tree.TopDown[0].Total)
			}
			// The samples of distinct times in the window.
			distinct := 0
			for i := range times.Len() {
				if x := times.At(i); x >= from && x < to && (i == 0 || x != times.At(i-1)) {
					distinct++
				}
			}
			if count != int64(distinct) {
				t.Errorf("sum of counts %d, want %d samples (of distinct times) in the window", count, distinct)
			}
			if got, want := pp.DurationNanos, int64(to-from); got != want {
				t.Errorf("DurationNanos %d, want the window's %d", got, want)
			}
			var deltas []int64
			for i := 1; i < n; i++ {
				if d := int64(times.At(i) - times.At(i-1)); d > 0 {
					deltas = append(deltas, d)
				}
			}
			slices.Sort(deltas)
			if got, want := pp.Period, deltas[len(deltas)/2]; got != want {
				t.Errorf("Period %d, want the median interval %d", got, want)
			}
			if pp.TimeNanos != 0 || pp.PeriodType.Type != "cpu" || pp.PeriodType.Unit != "nanoseconds" {
				t.Errorf("TimeNanos %d, PeriodType %v", pp.TimeNanos, pp.PeriodType)
			}
			if got := fmt.Sprintf("%s/%s %s/%s", pp.SampleType[0].Type, pp.SampleType[0].Unit, pp.SampleType[1].Type, pp.SampleType[1].Unit); got != "samples/count cpu/nanoseconds" || pp.DefaultSampleType != "cpu" {
				t.Errorf("sample types %s", got)
			}
			if len(pp.Comments) == 0 || pp.Comments[0] != "source format: cpuprofile" {
				t.Errorf("comments %q", pp.Comments)
			}
			// One location per frame used, one function per (name, URL, line).
			if len(pp.Function) != len(want) {
				t.Errorf("%d functions, want %d", len(pp.Function), len(want))
			}
			in, _ := os.Stat(file)
			t.Logf("%s: %d B → pprof %d B (%.1f%%); %d samples → %d pprof samples, %d locations, %d functions; %d/%d functions agree (flat and cum); period %d ns",
				filepath.Base(file), in.Size(), len(data), 100*float64(len(data))/float64(in.Size()), n, len(pp.Sample),
				len(pp.Location), len(pp.Function), agree, len(want), pp.Period)
		})
	}
}

// topRow matches a row of `go tool pprof -top -unit=ns`.
var topRow = regexp.MustCompile(`^\s*(\d+)(?:ns)?\s+\S+%\s+\S+%\s+(\d+)(?:ns)?\s+\S+%\s+(.*)$`)

// `go tool pprof -top` lists the same functions with the same flat time
// as the session's tree (`jsprof top`): the .cpuprofile fixtures, and a
// trace whose main thread has trace events (Layout, ParseHTML, …) beside
// its JS functions. With the default granularity (functions) pprof merges
// functions by name, so jsprof's self times are summed by name here.
func TestGoToolPprofTop(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	files := nodeFixtures(t)
	if trace, ok := corpusFile(traceWithEvents); ok {
		files = append(files, trace)
	} else {
		t.Logf("%s is absent: the trace case is left out", trace)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			a := analyse(t, readNode(t, file), view.Options{})
			p, tree := a.p, a.trees[0]
			if len(a.trees) > 1 {
				t.Fatalf("%d threads, want one", len(a.trees))
			}
			out := filepath.Join(t.TempDir(), "profile.pb.gz")
			if err := os.WriteFile(out, write(t, a), 0o644); err != nil {
				t.Fatal(err)
			}
			// -nodefraction=0 keeps the small functions too.
			cmd := exec.Command(goBin, "tool", "pprof", "-top", "-nodecount=1000", "-nodefraction=0", "-unit=ns", out)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, err := cmd.Output()
			if err != nil {
				t.Fatalf("go tool pprof: %v\n%s", err, stderr.String())
			}
			self := map[string]int64{}
			events := 0
			for _, f := range tree.Funcs {
				self[funcOf(p, f.Frame).name] += int64(f.Self)
				if f.Key.Event && f.Self > 0 {
					events++
				}
			}
			type row struct {
				name string
				flat int64
			}
			var rows []row
			header := false
			for line := range strings.Lines(string(stdout)) {
				line = strings.TrimRight(line, "\n")
				if strings.Contains(line, "flat%") {
					header = true
					continue
				}
				m := topRow.FindStringSubmatch(line)
				if !header || m == nil {
					continue
				}
				flat, _ := strconv.ParseInt(m[1], 10, 64)
				rows = append(rows, row{m[3], flat})
			}
			if len(rows) != len(self) {
				t.Errorf("pprof lists %d functions, jsprof has %d names\n%s", len(rows), len(self), stdout)
			}
			agree := 0
			for _, r := range rows {
				want, ok := self[r.name]
				switch {
				case !ok:
					t.Errorf("pprof lists %q, unknown to jsprof", r.name)
				case r.flat != want:
					t.Errorf("%s: pprof flat %d ns, jsprof self %d", r.name, r.flat, want)
				default:
					agree++
				}
			}
			// The top 10: the same names in the same order of flat time.
			wantTop := make([]int64, 0, len(self))
			for _, s := range self {
				wantTop = append(wantTop, s)
			}
			slices.SortFunc(wantTop, func(a, b int64) int { return cmp.Compare(b, a) })
			for i := 0; i < 10 && i < len(rows) && i < len(wantTop); i++ {
				if rows[i].flat != wantTop[i] || self[rows[i].name] != wantTop[i] {
					t.Errorf("top %d: pprof %s %d ns, jsprof's %d'th self time is %d ns", i+1, rows[i].name, rows[i].flat, i+1, wantTop[i])
				}
			}
			t.Logf("%s: go tool pprof -top lists %d functions (names, %d of them trace events with self time); %d have jsprof's self time; top 10 checked",
				filepath.Base(file), len(rows), events, agree)
		})
	}
}

// jsprof's Parse of a written file gives back the same self and total time
// per function, and writing that again gives the same pprof times.
func TestParseRoundTrip(t *testing.T) {
	t.Parallel()
	for _, file := range nodeFixtures(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			p := readNode(t, file)
			a := analyse(t, p, view.Options{})
			tree := a.trees[0]
			data := write(t, a)
			q, err := pprof.Parse(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if len(q.Threads) != 1 || q.Threads[0].Name != "main" {
				t.Fatalf("threads %+v, want one named main", q.Threads)
			}
			pp, err := pprofile.ParseData(data)
			if err != nil {
				t.Fatal(err)
			}
			if got := q.Diagnostics.Count("synthetic-times"); got != int64(len(pp.Sample)) {
				t.Errorf("synthetic-times %d, want %d (one per pprof sample)", got, len(pp.Sample))
			}
			back := sessionTree(t, q)
			if len(back.Funcs) != len(tree.Funcs) {
				t.Errorf("%d functions read back, want %d", len(back.Funcs), len(tree.Funcs))
			}
			// A function reads back with the name and file pprof shows
			// (FuncName, FileName).
			key := func(p *profile.Profile, f calltree.Function) string {
				k := f.Key
				return fmt.Sprintf("%q %q %d:%d", p.Str(k.Name), p.Str(p.Frames[f.Frame].URL), k.Line, k.Column)
			}
			written := func(p *profile.Profile, f calltree.Function) string {
				k, fr := f.Key, &p.Frames[f.Frame]
				return fmt.Sprintf("%q %q %d:%d", pprof.FuncName(p, fr), pprof.FileName(p.Str(fr.URL)), k.Line, k.Column)
			}
			byKey := map[string]calltree.Function{}
			for _, f := range tree.Funcs {
				byKey[written(p, f)] = f
			}
			agree := 0
			for _, g := range back.Funcs {
				w, ok := byKey[key(q, g)]
				if !ok {
					t.Errorf("%s: read back but not in the input", key(q, g))
					continue
				}
				if g.Self != w.Self || g.Total != w.Total {
					t.Errorf("%s: self/total %d/%d read back, want %d/%d", key(q, g), g.Self, g.Total, w.Self, w.Total)
					continue
				}
				agree++
			}
			// Written again, the file has the same flat and cum times.
			again, err := pprofile.ParseData(write(t, analyse(t, q, view.Options{})))
			if err != nil {
				t.Fatal(err)
			}
			first, second := pprofTimes(pp, nil), pprofTimes(again, nil)
			if len(first) != len(second) {
				t.Errorf("rewritten: %d functions, want %d", len(second), len(first))
			}
			for k, w := range first {
				if g := second[k]; g != w {
					t.Errorf("rewritten: %v flat/cum %d/%d, want %d/%d", k, g.self, g.total, w.self, w.total)
				}
			}
			t.Logf("%s: read back %d nodes (input %d), %d samples (input %d); %d/%d functions have the same self and total",
				filepath.Base(file), len(q.Nodes), len(p.Nodes), q.Samples.Len(), p.Samples.Len(), agree, len(tree.Funcs))
		})
	}
}

// traceWithEvents is a corpus trace whose one sampled thread has trace
// events of several categories (EvaluateScript, ParseHTML, Layout, Paint,
// V8.CompileCode, …) above and below its JS functions.
const traceWithEvents = "devtools/simple-js-program.json.gz"

// corpusFile returns the path of a file of the shared corpus and whether it
// is there.
func corpusFile(rel string) (string, bool) {
	p := filepath.Join(proftest.RepoRoot(), "..", "shared", "corpus", rel)
	_, err := os.Stat(p)
	return p, err == nil
}

// A Chrome trace with three sampled threads: one "thread" label per thread,
// pid/tid labels telling the two same-named workers apart, per-thread times
// and per-function flat and cum equal to the session's trees (trace events
// included), and Parse gives the three threads back.
func TestTraceThreads(t *testing.T) {
	t.Parallel()
	file := proftest.Corpus(t, "devtools/two-workers.json.gz")
	p, err := format.ReadFile(file, nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Threads) != 3 {
		t.Fatalf("%d threads, want 3", len(p.Threads))
	}
	type ident struct {
		name     string
		pid, tid int64
	}
	a := analyse(t, p, view.Options{})
	want := make([]map[fn]times, 3)
	wantSum, wantMulti := make([]map[fn]int64, 3), make([]map[fn]int, 3)
	for i, tree := range a.trees {
		want[i], wantSum[i], wantMulti[i] = jsprofTimes(tree)
	}
	data := write(t, a)
	pp, err := pprofile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	perThread := map[ident]int64{}
	for _, s := range pp.Sample {
		name, pid, tid := s.Label["thread"], s.NumLabel["pid"], s.NumLabel["tid"]
		if len(name) != 1 || len(pid) != 1 || len(tid) != 1 {
			t.Fatalf("sample labels %v %v, want thread, pid and tid", s.Label, s.NumLabel)
		}
		perThread[ident{name[0], pid[0], tid[0]}] += s.Value[1]
	}
	if len(perThread) != 3 {
		t.Errorf("%d distinct threads in the labels, want 3: %v", len(perThread), perThread)
	}
	agree, total, events := 0, 0, 0
	for i, th := range p.Threads {
		id := ident{th.Name, th.PID, th.TID}
		if perThread[id] != shown(a.trees[i]) {
			t.Errorf("thread %v: %d ns, want %d", id, perThread[id], shown(a.trees[i]))
		}
		// Flat and cum of this thread's samples (labels select them).
		got := pprofTimes(pp, func(s *pprofile.Sample) bool {
			return s.NumLabel["pid"][0] == th.PID && s.NumLabel["tid"][0] == th.TID
		})
		agree += compareTimes(t, got, want[i], wantSum[i], wantMulti[i])
		total += len(want[i])
		for _, f := range a.trees[i].Funcs {
			if f.Key.Event {
				events++
			}
		}
	}
	if events == 0 {
		t.Error("no trace event among the functions")
	}

	q, err := pprof.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Threads) != 3 {
		t.Fatalf("read back %d threads, want 3", len(q.Threads))
	}
	b := analyse(t, q, view.Options{})
	back := 0
	for i, th := range q.Threads {
		orig := p.Threads[i]
		if th.Name != orig.Name || th.PID != orig.PID || th.TID != orig.TID {
			t.Errorf("thread %d read back as %q %d/%d, want %q %d/%d", i, th.Name, th.PID, th.TID, orig.Name, orig.PID, orig.TID)
		}
		got, _, _ := jsprofTimes(b.trees[i])
		for k, w := range want[i] {
			if g := got[k]; g.self != w.self || (wantMulti[i][k] == 1 && g.total != w.total) {
				t.Errorf("thread %d: %v: self/total %d/%d read back, want %d/%d", i, k, g.self, g.total, w.self, w.total)
			} else {
				back++
			}
		}
	}
	in, _ := os.Stat(file)
	t.Logf("two-workers: %d B (gzip) → pprof %d B; %d pprof samples, %d functions (%d trace events); %d/%d (thread, function) pairs agree; read back: %d/%d",
		in.Size(), len(data), len(pp.Sample), len(pp.Function), events, agree, total, back, total)
}

// A trace thread: its trace events (EvaluateScript, ParseHTML, Layout,
// V8.CompileCode, …) are pprof functions with no file, above and below the
// JS functions, with flat and cum equal to the self and total of the
// session's tree, under the "all" view and the JS view alike.
func TestTraceEvents(t *testing.T) {
	t.Parallel()
	file := proftest.Corpus(t, traceWithEvents)
	p, err := format.ReadFile(file, nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, vo := range []view.Options{{}, {View: view.JS}} {
		t.Run(vo.View.String(), func(t *testing.T) {
			a := analyse(t, p, vo)
			if len(a.trees) != 1 {
				t.Fatalf("%d threads, want 1", len(a.trees))
			}
			tree := a.trees[0]
			pp, err := pprofile.ParseData(write(t, a))
			if err != nil {
				t.Fatal(err)
			}
			want, sumTotal, multi := jsprofTimes(tree)
			got := pprofTimes(pp, nil)
			agree := compareTimes(t, got, want, sumTotal, multi)
			var ns int64
			for _, s := range pp.Sample {
				ns += s.Value[1]
			}
			if ns != shown(tree) {
				t.Errorf("sum of ns %d, want the tree's time less the root's self, %d", ns, shown(tree))
			}
			// Every trace event of the tree is a function of its own, with
			// its self and total; some call JS, some are called by it.
			events, above, below := 0, 0, 0
			eventNames := map[string]bool{}
			for _, f := range tree.Funcs {
				if !f.Key.Event || f.Total == 0 {
					continue
				}
				events++
				k := funcOf(a.p, f.Frame)
				eventNames[k.name] = true
				if k.file != "" || k.line != 0 {
					t.Errorf("event %q: file %q line %d, want none", k.name, k.file, k.line)
				}
				if g := got[k]; g.self != int64(f.Self) || g.total != int64(f.Total) {
					t.Errorf("event %q: flat/cum %d/%d, want self/total %d/%d", k.name, g.self, g.total, f.Self, f.Total)
				}
			}
			for _, s := range pp.Sample {
				// Leaf first: an event under a JS function, a JS function
				// under an event.
				js, ev := false, false
				for _, loc := range s.Location {
					isEvent := eventNames[loc.Line[0].Function.Name] && loc.Line[0].Function.Filename == ""
					if isEvent && js {
						above++
					}
					if !isEvent && ev {
						below++
					}
					js, ev = js || !isEvent, ev || isEvent
				}
			}
			if events < 5 || above == 0 || below == 0 {
				t.Errorf("%d trace events as functions; %d samples with an event above JS, %d with JS above an event; want at least 5, 1 and 1", events, above, below)
			}
			t.Logf("%s, view %s: %d functions, %d of them trace events; %d/%d agree (flat and cum); %d ns shown", filepath.Base(file), vo.View, len(tree.Funcs), events, agree, len(want), ns)
		})
	}
}

// Positions and names: 1-based lines and columns, 0 when unknown, one
// function per (name, URL, line), "(anonymous) FILE:LINE" for the empty
// name, a file:// URL's local path for the file; a root
// GC sample (the first sample) and a lone (program) sample between two
// different stacks survive Parse unchanged.
func TestMapping(t *testing.T) {
	t.Parallel()
	const in = `{"nodes":[
{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3,4,7]},
{"id":2,"callFrame":{"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},
{"id":3,"callFrame":{"functionName":"(garbage collector)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},
{"id":4,"callFrame":{"functionName":"","scriptId":"5","url":"file:///a.js","lineNumber":0,"columnNumber":0},"children":[5,6]},
{"id":5,"callFrame":{"functionName":"","scriptId":"5","url":"file:///a.js","lineNumber":3,"columnNumber":9}},
{"id":6,"callFrame":{"functionName":"","scriptId":"5","url":"file:///a.js","lineNumber":3,"columnNumber":30}},
{"id":7,"callFrame":{"functionName":"JSON.parse","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}],
"startTime":0,"endTime":1000,"samples":[3,5,2,7,6,4,7,3],"timeDeltas":[10,100,100,100,100,100,100,100]}`
	p, err := format.Parse([]byte(in), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := analyse(t, p, view.Options{})
	pp, err := pprofile.ParseData(write(t, a))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range pp.Location {
		ln := l.Line[0]
		lines = append(lines, fmt.Sprintf("%d %s %s start=%d %d:%d", l.ID, ln.Function.Name, ln.Function.Filename, ln.Function.StartLine, ln.Line, ln.Column))
	}
	got := strings.Join(lines, "\n")
	want := strings.Join([]string{
		"1 (garbage collector)  start=0 0:0",
		"2 (anonymous) a.js:4 /a.js start=4 4:10",
		"3 (anonymous) a.js:1 /a.js start=1 1:1",
		"4 (program)  start=0 0:0",
		"5 JSON.parse  start=0 0:0",
		"6 (anonymous) a.js:4 /a.js start=4 4:31",
	}, "\n")
	if got != want {
		t.Errorf("locations:\n%s\nwant:\n%s", got, want)
	}
	if len(pp.Function) != 5 {
		t.Errorf("%d functions, want 5 (the two anonymous functions of line 4 are one)", len(pp.Function))
	}
	tree := a.trees[0]
	q, err := pprof.Parse(bytes.NewReader(write(t, a)))
	if err != nil {
		t.Fatal(err)
	}
	back := sessionTree(t, q)
	// Functions read back with the names pprof shows (FuncName).
	dump := func(tr *calltree.Tree) string {
		var b strings.Builder
		fs := slices.Clone(tr.Funcs)
		slices.SortFunc(fs, func(a, b calltree.Function) int {
			return cmp.Or(cmp.Compare(a.Key.Line, b.Key.Line), cmp.Compare(a.Key.Column, b.Key.Column),
				strings.Compare(tr.Profile.Str(a.Key.Name), tr.Profile.Str(b.Key.Name)))
		})
		for _, f := range fs {
			fmt.Fprintf(&b, "%q %d:%d self=%d total=%d\n", pprof.FuncName(tr.Profile, &tr.Profile.Frames[f.Frame]), f.Key.Line, f.Key.Column, f.Self, f.Total)
		}
		return b.String()
	}
	if g, w := dump(back), dump(tree); g != w {
		t.Errorf("read back:\n%s\nwant:\n%s", g, w)
	}
}

// Write takes any selection of threads (none gives an empty profile) and
// rejects stacks of a thread the profile does not have; under the JS view
// (named in a comment) the stacks keep no (program) or (idle) frame and
// pprof's total is the time the view shows, that of the session's tree
// less its root's self.
func TestWriteOptions(t *testing.T) {
	t.Parallel()
	p := readNode(t, "../../testdata/node/mix.cpuprofile")
	js := analyse(t, p, view.Options{View: view.JS})
	bad := []profile.ThreadStacks{{Thread: 1, Stacks: js.stacks[0].Stacks}}
	if err := pprof.Write(&bytes.Buffer{}, js.p, bad, pprof.Options{}); err == nil || !strings.Contains(err.Error(), "no thread 1") {
		t.Errorf("thread 1 of 1: error %v", err)
	}
	var buf bytes.Buffer
	if err := pprof.Write(&buf, js.p, nil, pprof.Options{}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	pp, err := pprofile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(pp.Sample) != 0 {
		t.Errorf("no threads: %d samples", len(pp.Sample))
	}
	q, err := pprof.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("empty profile: %v", err)
	}
	if len(q.Threads) != 1 || q.Samples.Len() != 0 {
		t.Errorf("empty profile read as %d threads, %d samples", len(q.Threads), q.Samples.Len())
	}
	// The JS view, named in a comment.
	buf.Reset()
	if err := pprof.Write(&buf, js.p, js.stacks, pprof.Options{View: "js"}); err != nil {
		t.Fatal(err)
	}
	pp, err = pprofile.ParseData(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"source format: cpuprofile", "view: js"}; !slices.Equal(pp.Comments, want) {
		t.Errorf("comments %q, want %q", pp.Comments, want)
	}
	for _, f := range pp.Function {
		if f.Name == "(program)" || f.Name == "(idle)" {
			t.Errorf("JS view has %s", f.Name)
		}
	}
	var ns int64
	for _, s := range pp.Sample {
		ns += s.Value[1]
	}
	tree := js.trees[0]
	if ns != shown(tree) || tree.TopDown[0].Self == 0 {
		t.Errorf("JS view: %d ns, want %d (the tree's %d less %d out of the view)", ns, shown(tree), tree.TopDown[0].Total, tree.TopDown[0].Self)
	}
	want, sumTotal, multi := jsprofTimes(tree)
	agree := compareTimes(t, pprofTimes(pp, nil), want, sumTotal, multi)
	t.Logf("JS view: %d/%d functions agree (flat and cum); %d ns shown of %d", agree, len(want), ns, tree.TopDown[0].Total)
}

// Parse reads profiles from other producers: no labels, counts with a
// period, values in µs, inlined lines, locations without lines.
func TestParseOther(t *testing.T) {
	t.Parallel()
	f1 := &pprofile.Function{ID: 1, Name: "main.main", Filename: "main.go", StartLine: 10}
	f2 := &pprofile.Function{ID: 2, Name: "main.inlined", Filename: "main.go", StartLine: 20}
	m := &pprofile.Mapping{ID: 1, File: "/bin/x"}
	l1 := &pprofile.Location{ID: 1, Line: []pprofile.Line{{Function: f2, Line: 22}, {Function: f1, Line: 12}}}
	l2 := &pprofile.Location{ID: 2, Mapping: m, Address: 0x1234}
	for _, tc := range []struct {
		name    string
		types   []*pprofile.ValueType
		period  *pprofile.ValueType
		values  [][]int64
		wantNS  []profile.Time
		wantErr string
	}{
		{name: "micros", types: []*pprofile.ValueType{{Type: "wall", Unit: "microseconds"}}, values: [][]int64{{5}, {7}}, wantNS: []profile.Time{5000, 7000}},
		{name: "counts", types: []*pprofile.ValueType{{Type: "samples", Unit: "count"}}, period: &pprofile.ValueType{Type: "cpu", Unit: "nanoseconds"},
			values: [][]int64{{2}, {3}}, wantNS: []profile.Time{200, 300}},
		{name: "bytes", types: []*pprofile.ValueType{{Type: "alloc_space", Unit: "bytes"}}, values: [][]int64{{1}, {2}}, wantErr: "not a CPU profile: no CPU or time sample type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pp := &pprofile.Profile{SampleType: tc.types, PeriodType: tc.period, Period: 100,
				Mapping: []*pprofile.Mapping{m}, Location: []*pprofile.Location{l1, l2}, Function: []*pprofile.Function{f1, f2},
				Sample: []*pprofile.Sample{{Location: []*pprofile.Location{l1}, Value: tc.values[0]}, {Location: []*pprofile.Location{l2, l1}, Value: tc.values[1]}}}
			var buf bytes.Buffer
			if err := pp.WriteUncompressed(&buf); err != nil {
				t.Fatal(err)
			}
			q, err := pprof.Parse(&buf)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var stacks []string
			for i, n := range q.Samples.Node.All() {
				var st []string
				for x := range q.Stack(n) {
					f := q.NodeFrame(x)
					st = append(st, fmt.Sprintf("%s@%s:%d", q.Str(f.Name), q.Str(f.URL), f.Line))
				}
				w := q.Threads[0].End - q.Samples.Time.At(i)
				if i+1 < q.Samples.Len() {
					w = q.Samples.Time.At(i+1) - q.Samples.Time.At(i)
				}
				stacks = append(stacks, fmt.Sprintf("%s %d", strings.Join(st, ";"), w))
			}
			got := strings.Join(stacks, "\n")
			want := fmt.Sprintf("main.inlined@main.go:19;main.main@main.go:9 %d\n0x1234@/bin/x:-1;main.inlined@main.go:19;main.main@main.go:9 %d", tc.wantNS[0], tc.wantNS[1])
			if got != want {
				t.Errorf("stacks (leaf first):\n%s\nwant:\n%s", got, want)
			}
		})
	}
	if _, err := pprof.Parse(strings.NewReader("")); !errors.Is(err, profile.ErrEmpty) {
		t.Errorf("empty input: error %v, want ErrEmpty", err)
	}
	if _, err := pprof.Parse(strings.NewReader(`{"nodes":[]}`)); !errors.Is(err, profile.ErrUnrecognized) {
		t.Errorf("JSON input: error %v, want ErrUnrecognized", err)
	}
}

// Parse lays samples out in call-tree order, so that DevTools' repairs
// leave the times alone: here pprof's order would put the (program) sample
// between two samples under A (fixMissingSamples would give its time to B)
// and the root GC sample after them (it would be stacked on A;C).
func TestParseLayout(t *testing.T) {
	t.Parallel()
	var fns []*pprofile.Function
	var locs []*pprofile.Location
	loc := map[string]*pprofile.Location{}
	for i, name := range []string{"A", "B", "C", "(program)", "(garbage collector)"} {
		f := &pprofile.Function{ID: uint64(i + 1), Name: name}
		l := &pprofile.Location{ID: uint64(i + 1), Line: []pprofile.Line{{Function: f}}}
		fns, locs, loc[name] = append(fns, f), append(locs, l), l
	}
	stack := func(names ...string) []*pprofile.Location { // leaf first
		var out []*pprofile.Location
		for _, n := range names {
			out = append(out, loc[n])
		}
		return out
	}
	pp := &pprofile.Profile{
		SampleType: []*pprofile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Function:   fns, Location: locs,
		Sample: []*pprofile.Sample{
			{Location: stack("B", "A"), Value: []int64{1, 100}},
			{Location: stack("(program)"), Value: []int64{1, 20}},
			{Location: stack("C", "A"), Value: []int64{1, 3}},
			{Location: stack("(garbage collector)"), Value: []int64{1, 4000}},
		},
	}
	var buf bytes.Buffer
	if err := pp.Write(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := pprof.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tree := sessionTree(t, q)
	got := map[string]string{}
	for _, f := range tree.Funcs {
		got[q.Str(f.Key.Name)] = fmt.Sprintf("%d/%d", f.Self, f.Total)
	}
	want := map[string]string{"A": "0/103", "B": "100/100", "C": "3/3", "(program)": "20/20", "(garbage collector)": "4000/4000"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("self/total %v, want %v", got, want)
	}
}

func BenchmarkWrite(b *testing.B) {
	p, err := format.ReadFile("../../testdata/node/recursion.cpuprofile", nil, format.Options{})
	if err != nil {
		b.Fatal(err)
	}
	a := analyse(b, p, view.Options{}) // the stacks are computed once
	b.ReportAllocs()
	b.ReportMetric(float64(p.Samples.Len()), "samples/op")
	for b.Loop() {
		if err := pprof.Write(io.Discard, a.p, a.stacks, pprof.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	p, err := format.ReadFile("../../testdata/node/recursion.cpuprofile", nil, format.Options{})
	if err != nil {
		b.Fatal(err)
	}
	buf := bytes.NewBuffer(write(b, analyse(b, p, view.Options{})))
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pprof.Parse(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
}
