package firefox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// processed is the part of a processed profile the tests read.
type processed struct {
	Meta struct {
		Version                    *int    `json:"version"`
		PreprocessedProfileVersion *int    `json:"preprocessedProfileVersion"`
		Interval                   float64 `json:"interval"`
		StartTime                  *float64
		Product                    string
		Categories                 []profile.Category
		MarkerSchema               []json.RawMessage `json:"markerSchema"`
	}
	Libs    []json.RawMessage
	Pages   []json.RawMessage
	Threads []struct {
		Name         string
		PID          string `json:"pid"`
		TID          string `json:"tid"`
		ProcessType  string
		IsMainThread bool
		Samples      struct {
			WeightType string
			Stack      []*int32
			Time       []json.Number
			Weight     []json.Number
			Length     int
		}
		Markers struct {
			Name   []int32
			Length int
		}
	}
	Shared struct {
		StringArray []string
		FuncTable   struct {
			Flags, Name, Resource, Source, LineNumber, ColumnNumber, OriginalLocation []int32
			Length                                                                    int
		}
		FrameTable struct {
			Flags, Address, Category, Subcategory, Func, Lib, NativeSymbol, InnerWindowID, Line, Column, OriginalLocation []int32
			Length                                                                                                        int
		}
		StackTable struct {
			Frame, PrefixOffset []int32
			Length              int
		}
		ResourceTable struct {
			Name   []int32
			Host   []*int32
			Type   []int32
			Length int
		}
		Sources struct {
			ID                     []*string `json:"id"`
			Filename               []int32
			StartLine, StartColumn []int32
			SourceMapURL, Content  []*int32
			Length                 int
		}
		NativeSymbols struct {
			Length int
		}
	}
}

// ns converts a written time or weight (ms, an exact decimal of integer ns)
// back to ns, exactly.
func ns(t testing.TB, n json.Number) profile.Time {
	t.Helper()
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		t.Fatalf("%q is not a number", n)
	}
	r.Mul(r, big.NewRat(1e6, 1))
	if !r.IsInt() {
		t.Fatalf("%s ms is not a whole number of ns", n)
	}
	return profile.Time(r.Num().Int64())
}

// funcLabel names a function of the written profile the way funcKeyLabel
// names a jsprof function: name, URL, 1-based line and column.
func (pp *processed) funcLabel(i int) string {
	ft := &pp.Shared.FuncTable
	s := pp.Shared.StringArray
	url := ""
	if ft.Flags[i]&8 != 0 {
		url = s[pp.Shared.Sources.Filename[ft.Source[i]]]
	}
	line, col := int32(0), int32(0)
	if ft.Flags[i]&16 != 0 {
		line = ft.LineNumber[i]
	}
	if ft.Flags[i]&32 != 0 {
		col = ft.ColumnNumber[i]
	}
	return fmt.Sprintf("%s %s:%d:%d", s[ft.Name[i]], url, line, col)
}

func funcKeyLabel(p *profile.Profile, f *calltree.Function) string {
	k := f.Key
	name := p.Str(k.Name)
	if name == "" {
		name = "(anonymous)"
	}
	line, col := int32(0), int32(0)
	if k.Line >= 0 {
		line = k.Line + 1
		if k.Column >= 0 {
			col = k.Column + 1
		}
	}
	return fmt.Sprintf("%s %s:%d:%d", name, p.Str(p.Frames[f.Frame].URL), line, col)
}

// times is a function's self and total time, in ns.
type times struct{ Self, Total profile.Time }

// treeTimes returns a tree's self and total time per function label. Labels
// name functions as the written file does; functions that only the script
// id tells apart share one, and their times are summed, as selfFromTables
// sums the funcTable rows of one label.
func treeTimes(tree *calltree.Tree) map[string]times {
	out := map[string]times{}
	for i := range tree.Funcs {
		f := &tree.Funcs[i]
		label := funcKeyLabel(tree.Profile, f)
		v := out[label]
		v.Self += f.Self
		v.Total += f.Total
		out[label] = v
	}
	return out
}

func load(t testing.TB, path string) *session.Session {
	t.Helper()
	s, err := session.Load(context.Background(), path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
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

// trees returns the tree of every thread of s under vo: what jsprof top and
// tree show.
func trees(t testing.TB, s *session.Session, vo view.Options) []*calltree.Tree {
	t.Helper()
	var out []*calltree.Tree
	for _, th := range s.Threads() {
		tree, err := th.Tree(context.Background(), vo)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tree)
	}
	return out
}

var opts = firefox.Options{RelevantForJS: view.RelevantForJS}

func write(t testing.TB, s *session.Session, vo view.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := firefox.Write(&buf, s.Profile, threadStacks(t, s, vo), opts); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// An input is a profile the tests write.
type input struct {
	name string
	path func(t *testing.T) string
}

// inputs are the project's own .cpuprofiles and, from the shared corpus
// (subtests skip when it is absent), a trace with three threads, whose
// stacks hold trace events, and an XS call graph.
func inputs(t *testing.T) []input {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(proftest.RepoRoot(), "testdata", "node", "*.cpuprofile"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/node/*.cpuprofile: %v", err)
	}
	var out []input
	for _, f := range files {
		out = append(out, input{filepath.Base(f), func(*testing.T) string { return f }})
	}
	for _, rel := range []string{"devtools/two-workers.json.gz", "xs/xs_workload.cpuprofile"} {
		out = append(out, input{filepath.Base(rel), func(t *testing.T) string { return proftest.Corpus(t, rel) }})
	}
	return out
}

// A viewCase is a view and transforms the tests write each input with.
type viewCase struct {
	name string
	opts func(t testing.TB, s *session.Session) view.Options
}

// views are the views the tests use: all; platform; JS over the middle
// half of the first thread's window with recursion collapsed; and all with
// (program) dropped, which leaves time out between stacks.
var views = []viewCase{
	{"all", func(testing.TB, *session.Session) view.Options { return view.Options{} }},
	{"platform", func(testing.TB, *session.Session) view.Options { return view.Options{View: view.Platform} }},
	{"js-middle-collapsed", func(t testing.TB, s *session.Session) view.Options {
		from, to, err := s.Threads()[0].Window(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		d := to - from
		return view.Options{View: view.JS, From: d / 4, To: 3 * d / 4, CollapseRecursion: true}
	}},
	{"drop-program", func(t testing.TB, _ *session.Session) view.Options {
		m, err := view.ParseMatcher("(program)")
		if err != nil {
			t.Fatal(err)
		}
		return view.Options{Drop: []view.Matcher{m}}
	}},
}

// stackCategories returns the time per category of the stacks with frames.
func stackCategories(t testing.TB, p *profile.Profile, stacks []profile.ThreadStacks) [][]profile.Time {
	var out [][]profile.Time
	for _, ts := range stacks {
		ct := make([]profile.Time, len(p.Categories))
		for s := range ts.Stacks {
			if len(s.Frames) > 0 {
				ct[s.Category] += s.Weight
			}
		}
		out = append(out, ct)
	}
	return out
}

// checkStructure parses a written profile and checks its invariants: the
// version fields, the table lengths, every index in range, sample times in
// order. It returns the parsed profile.
func checkStructure(t *testing.T, data []byte, p *profile.Profile, ids []profile.ThreadID) *processed {
	t.Helper()
	var pp processed
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&pp); err != nil {
		t.Fatalf("output is not valid JSON for the format: %v", err)
	}
	m := &pp.Meta
	if m.PreprocessedProfileVersion == nil || *m.PreprocessedProfileVersion != firefox.ProcessedVersion {
		t.Errorf("meta.preprocessedProfileVersion = %v, want %d", m.PreprocessedProfileVersion, firefox.ProcessedVersion)
	}
	if m.Version == nil || *m.Version != firefox.GeckoVersion {
		t.Errorf("meta.version = %v, want %d", m.Version, firefox.GeckoVersion)
	}
	if m.StartTime == nil || *m.StartTime != 0 {
		t.Errorf("meta.startTime = %v, want 0", m.StartTime)
	}
	// The sampling interval is summary's: the median of the threads'
	// intervals, 1 ms when there is none.
	var series []profile.Times
	for _, id := range ids {
		series = append(series, p.ThreadSamples(id).Time)
	}
	wantInterval := profile.MedianInterval(series...)
	if wantInterval <= 0 {
		wantInterval = 1e6
	}
	if math.Abs(m.Interval-float64(wantInterval)/1e6) > 1e-9 {
		t.Errorf("meta.interval = %v ms, want %v ms (the median interval)", m.Interval, float64(wantInterval)/1e6)
	}
	if m.Product != "jsprof" {
		t.Errorf("meta.product = %q, want jsprof", m.Product)
	}
	if m.MarkerSchema == nil || pp.Libs == nil || pp.Pages == nil {
		t.Errorf("meta.markerSchema, libs or pages missing (want [])")
	}
	if !slices.EqualFunc(m.Categories, p.Categories, func(a, b profile.Category) bool {
		return a.Name == b.Name && a.Color == b.Color && slices.Equal(a.Subcategories, b.Subcategories)
	}) {
		t.Errorf("meta.categories = %v, want %v", m.Categories, p.Categories)
	}
	grey := slices.ContainsFunc(m.Categories, func(c profile.Category) bool { return c.Color == "grey" })
	if !grey {
		t.Errorf("no grey (default) category")
	}

	sh := &pp.Shared
	nstr := len(sh.StringArray)
	inRange := func(what string, i int, v int32, n int) {
		t.Helper()
		if v < 0 || int(v) >= n {
			t.Fatalf("%s[%d] = %d, want in [0, %d)", what, i, v, n)
		}
	}
	lengths := func(table string, n int, cols map[string]int) {
		t.Helper()
		for name, l := range cols {
			if l != n {
				t.Fatalf("%s.%s has %d rows, length is %d", table, name, l, n)
			}
		}
	}
	ft := &sh.FuncTable
	lengths("funcTable", ft.Length, map[string]int{"flags": len(ft.Flags), "name": len(ft.Name), "resource": len(ft.Resource),
		"source": len(ft.Source), "lineNumber": len(ft.LineNumber), "columnNumber": len(ft.ColumnNumber), "originalLocation": len(ft.OriginalLocation)})
	rt := &sh.ResourceTable
	lengths("resourceTable", rt.Length, map[string]int{"name": len(rt.Name), "host": len(rt.Host), "type": len(rt.Type)})
	src := &sh.Sources
	lengths("sources", src.Length, map[string]int{"id": len(src.ID), "filename": len(src.Filename), "startLine": len(src.StartLine),
		"startColumn": len(src.StartColumn), "sourceMapURL": len(src.SourceMapURL), "content": len(src.Content)})
	fr := &sh.FrameTable
	lengths("frameTable", fr.Length, map[string]int{"flags": len(fr.Flags), "address": len(fr.Address), "category": len(fr.Category),
		"subcategory": len(fr.Subcategory), "func": len(fr.Func), "lib": len(fr.Lib), "nativeSymbol": len(fr.NativeSymbol),
		"innerWindowID": len(fr.InnerWindowID), "line": len(fr.Line), "column": len(fr.Column), "originalLocation": len(fr.OriginalLocation)})
	st := &sh.StackTable
	lengths("stackTable", st.Length, map[string]int{"frame": len(st.Frame), "prefixOffset": len(st.PrefixOffset)})
	for i := range rt.Length {
		inRange("resourceTable.name", i, rt.Name[i], nstr)
		if rt.Host[i] != nil {
			inRange("resourceTable.host", i, *rt.Host[i], nstr)
		}
		if rt.Type[i] != 3 && rt.Type[i] != 5 {
			t.Fatalf("resourceTable.type[%d] = %d, want 3 (webhost) or 5 (url)", i, rt.Type[i])
		}
	}
	for i := range src.Length {
		inRange("sources.filename", i, src.Filename[i], nstr)
	}
	for i := range ft.Length {
		f := ft.Flags[i]
		if f&^63 != 0 {
			t.Fatalf("funcTable.flags[%d] = %d: unknown bits", i, f)
		}
		inRange("funcTable.name", i, ft.Name[i], nstr)
		if f&4 != 0 {
			inRange("funcTable.resource", i, ft.Resource[i], rt.Length)
		} else if ft.Resource[i] != 0 {
			t.Fatalf("funcTable.resource[%d] = %d without its flag", i, ft.Resource[i])
		}
		if f&8 != 0 {
			inRange("funcTable.source", i, ft.Source[i], src.Length)
		}
		if f&16 != 0 && ft.LineNumber[i] < 1 || f&32 != 0 && ft.ColumnNumber[i] < 1 {
			t.Fatalf("funcTable[%d]: line %d column %d, want 1-based", i, ft.LineNumber[i], ft.ColumnNumber[i])
		}
	}
	// Resources as the Profiler's Chrome importer makes them: an http(s)
	// origin is a webhost resource (type 3, with its host), any other URL a
	// url resource (type 5) named by the URL.
	for i := range ft.Length {
		if ft.Flags[i]&12 != 12 {
			continue
		}
		file, r := sh.StringArray[src.Filename[ft.Source[i]]], ft.Resource[i]
		name := sh.StringArray[rt.Name[r]]
		if u, err := url.Parse(file); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			// The origin: the host in lower case, without the scheme's
			// default port.
			host := strings.ToLower(u.Host)
			host = strings.TrimSuffix(host, map[string]string{"http": ":80", "https": ":443"}[u.Scheme])
			if name != u.Scheme+"://"+host || rt.Host[r] == nil || sh.StringArray[*rt.Host[r]] != host || rt.Type[r] != 3 {
				t.Errorf("%s: resource %q (type %d), want the webhost %s://%s", file, name, rt.Type[r], u.Scheme, host)
			}
		} else if name != file || rt.Host[r] != nil || rt.Type[r] != 5 {
			t.Errorf("%s: resource %q (type %d), want a url resource", file, name, rt.Type[r])
		}
	}
	for i := range fr.Length {
		if fr.Flags[i]&4 == 0 {
			t.Fatalf("frameTable.flags[%d] = %d: no category", i, fr.Flags[i])
		}
		inRange("frameTable.func", i, fr.Func[i], ft.Length)
		inRange("frameTable.category", i, fr.Category[i], len(m.Categories))
		inRange("frameTable.subcategory", i, fr.Subcategory[i], len(m.Categories[fr.Category[i]].Subcategories))
	}
	for i := range st.Length {
		inRange("stackTable.frame", i, st.Frame[i], fr.Length)
		if off := st.PrefixOffset[i]; off < 0 || int(off) > i {
			t.Fatalf("stackTable.prefixOffset[%d] = %d, want 0 (root) or a prefix before the stack", i, off)
		}
	}
	if len(pp.Threads) != len(ids) {
		t.Fatalf("%d threads, want %d", len(pp.Threads), len(ids))
	}
	mains := map[string]int{}
	for ti := range pp.Threads {
		th := &pp.Threads[ti]
		if th.Name == "" || th.ProcessType == "" {
			t.Errorf("thread %d: name %q, processType %q", ti, th.Name, th.ProcessType)
		}
		want := &p.Threads[ids[ti]]
		if th.PID != fmt.Sprint(want.PID) || th.TID != fmt.Sprint(want.TID) {
			t.Errorf("thread %d: pid/tid %s/%s, want %d/%d", ti, th.PID, th.TID, want.PID, want.TID)
		}
		if th.IsMainThread {
			mains[th.PID]++
		}
		s := &th.Samples
		if s.WeightType != "tracing-ms" {
			t.Errorf("thread %d: weightType %q, want tracing-ms", ti, s.WeightType)
		}
		lengths(fmt.Sprintf("threads[%d].samples", ti), s.Length, map[string]int{"stack": len(s.Stack), "time": len(s.Time), "weight": len(s.Weight)})
		for i := range s.Length {
			if s.Stack[i] != nil {
				inRange("samples.stack", i, *s.Stack[i], st.Length)
			}
			if i > 0 && ns(t, s.Time[i]) < ns(t, s.Time[i-1]) {
				t.Fatalf("thread %d: samples.time[%d] = %v before %v", ti, i, s.Time[i], s.Time[i-1])
			}
			if ns(t, s.Time[i]) < 0 || ns(t, s.Weight[i]) < 0 {
				t.Fatalf("thread %d: sample %d at %v weighs %v", ti, i, s.Time[i], s.Weight[i])
			}
		}
		if th.Markers.Length != 0 || th.Markers.Name == nil {
			t.Errorf("thread %d: markers %+v, want an empty table", ti, th.Markers)
		}
	}
	for pid, n := range mains {
		if n != 1 {
			t.Errorf("process %s has %d main threads, want 1", pid, n)
		}
	}
	return &pp
}

// fromTables aggregates the written samples of thread ti per function, as
// the Firefox Profiler's function list does: self to the leaf's function,
// total once per sample to each function on the stack; and per category,
// as its category breakdown does: the leaf frame's. It also returns the
// weight of the samples with a stack, and of all samples. Values in ns,
// exact.
func fromTables(t testing.TB, pp *processed, ti int) (funcs map[string]times, cats map[int]profile.Time, framed, all profile.Time) {
	sh := &pp.Shared
	funcs, cats = map[string]times{}, map[int]profile.Time{}
	s := &pp.Threads[ti].Samples
	seen := map[int32]bool{}
	for i, stp := range s.Stack {
		w := ns(t, s.Weight[i])
		all += w
		if stp == nil {
			continue
		}
		framed += w
		st := *stp
		leaf := sh.StackTable.Frame[st]
		cats[int(sh.FrameTable.Category[leaf])] += w
		label := pp.funcLabel(int(sh.FrameTable.Func[leaf]))
		v := funcs[label]
		v.Self += w
		funcs[label] = v
		clear(seen)
		for {
			fn := sh.FrameTable.Func[sh.StackTable.Frame[st]]
			if !seen[fn] {
				seen[fn] = true
				label := pp.funcLabel(int(fn))
				v := funcs[label]
				v.Total += w
				funcs[label] = v
			}
			off := sh.StackTable.PrefixOffset[st]
			if off == 0 {
				break
			}
			st -= off
		}
	}
	return funcs, cats, framed, all
}

// TestStructure writes every input in several views and checks the
// invariants of the output, and that its own tables give exactly the self
// and total time of every function of the session's tree (jsprof top and
// tree), the tree's time on functions, the stacks' time per category, and
// the time the stacks cover.
//
// The tree of an XS call graph is exact only to the float rounding of
// DevTools' calls, which the stacks are cut at (session's
// TestStacksMatchTrees): there, what is written equals the stacks exactly,
// and the tree within 50 µs.
func TestStructure(t *testing.T) {
	t.Parallel()
	for _, in := range inputs(t) {
		for _, v := range views {
			t.Run(in.name+"/"+v.name, func(t *testing.T) {
				t.Parallel()
				s := load(t, in.path(t))
				vo := v.opts(t, s)
				data := write(t, s, vo)
				ids := make([]profile.ThreadID, len(s.Threads()))
				for i := range ids {
					ids[i] = profile.ThreadID(i)
				}
				pp := checkStructure(t, data, s.Profile, ids)
				stacks := threadStacks(t, s, vo)
				cats := stackCategories(t, s.Profile, stacks)
				var tol profile.Time
				if s.Profile.Format == "xs" {
					tol = 50_000
				}
				nfuncs, nsamples, worst := 0, 0, profile.Time(0)
				for ti, tree := range trees(t, s, vo) {
					what := fmt.Sprintf("thread %d", ti)
					got, gotCats, framed, all := fromTables(t, pp, ti)
					want, wantFramed, wantAll := stackTimes(s.Profile, stacks[ti])
					compareFuncs(t, what+" (stacks)", want, got)
					worst = max(worst, compareFuncs(t, what+" (tree)", treeTimes(tree), got, tol))
					nfuncs += len(tree.Funcs)
					nsamples += pp.Threads[ti].Samples.Length
					if framed != wantFramed || all != wantAll {
						t.Errorf("%s: the samples weigh %d ns, %d with a stack; the stacks %d, %d with frames", what, all, framed, wantAll, wantFramed)
					}
					if d := framed - (tree.TopDown[0].Total - tree.TopDown[0].Self); d > tol || d < -tol {
						t.Errorf("%s: the samples with a stack weigh %d ns, the tree's time on functions is %d ns", what, framed, tree.TopDown[0].Total-tree.TopDown[0].Self)
					}
					for c, w := range cats[ti] {
						if gotCats[c] != w {
							t.Errorf("%s: category %s: %d ns written, the stacks have %d ns", what, s.Profile.Categories[c].Name, gotCats[c], w)
						}
					}
				}
				t.Logf("%d threads, %d samples, %d functions: largest difference from the tree %d ns", len(ids), nsamples, nfuncs, worst)
			})
		}
	}
}

// stackTimes aggregates stacks per function label, as the tree does (total
// once per stack), and returns the weight of the stacks with frames and of
// all of them. A function is labelled by the first frame of it seen, as
// the writer names it.
func stackTimes(p *profile.Profile, ts profile.ThreadStacks) (funcs map[string]times, framed, all profile.Time) {
	funcs = map[string]times{}
	labels := map[profile.FunctionKey]string{}
	seen := map[profile.FunctionKey]bool{}
	for st := range ts.Stacks {
		all += st.Weight
		if len(st.Frames) == 0 {
			continue
		}
		framed += st.Weight
		clear(seen)
		for i, f := range st.Frames {
			k := p.FunctionKey(f)
			label, ok := labels[k]
			if !ok {
				label = funcKeyLabel(p, &calltree.Function{Key: k, Frame: f})
				labels[k] = label
			}
			v := funcs[label]
			if i == len(st.Frames)-1 {
				v.Self += st.Weight
			}
			if !seen[k] {
				seen[k] = true
				v.Total += st.Weight
			}
			funcs[label] = v
		}
	}
	return funcs, framed, all
}

// compareFuncs requires the self and total time per function label of a
// written file (got) to equal the tree's (want), within tol ns, and returns
// the largest difference.
func compareFuncs(t *testing.T, what string, want, got map[string]times, tol ...profile.Time) profile.Time {
	t.Helper()
	var tl, worst profile.Time
	if len(tol) > 0 {
		tl = tol[0]
	}
	abs := func(d profile.Time) profile.Time { return max(d, -d) }
	bad := 0
	for label, w := range want {
		g := got[label]
		d := max(abs(g.Self-w.Self), abs(g.Total-w.Total))
		worst = max(worst, d)
		if d > tl {
			if bad++; bad <= 10 {
				t.Errorf("%s: %s: self/total %d/%d ns written, the tree has %d/%d", what, label, g.Self, g.Total, w.Self, w.Total)
			}
		}
	}
	for label, g := range got {
		if _, ok := want[label]; !ok && (g.Self != 0 || g.Total != 0) {
			t.Errorf("%s: %s: self/total %d/%d ns written, not a function of the tree", what, label, g.Self, g.Total)
		}
	}
	return worst
}

func TestThreadSelection(t *testing.T) {
	t.Parallel()
	s := load(t, proftest.Corpus(t, "devtools/two-workers.json.gz"))
	p := s.Profile
	all := threadStacks(t, s, view.Options{})
	var buf bytes.Buffer
	if err := firefox.Write(&buf, p, []profile.ThreadStacks{all[2], all[0]}, opts); err != nil {
		t.Fatal(err)
	}
	pp := checkStructure(t, buf.Bytes(), p, []profile.ThreadID{2, 0})
	if !pp.Threads[1].IsMainThread || pp.Threads[0].IsMainThread {
		t.Errorf("main threads: %v %v, want CrRendererMain only", pp.Threads[0].IsMainThread, pp.Threads[1].IsMainThread)
	}
	for _, bad := range [][]profile.ThreadStacks{{{Thread: 3}}, {{Thread: -1}}, {all[0], all[0]}} {
		if err := firefox.Write(&bytes.Buffer{}, p, bad, opts); err == nil {
			t.Errorf("threads %v: no error", bad)
		}
	}
}

// TestInterval: meta.interval is the median sampling interval as summary
// gives it, the upper middle one of an even count (the writer took the
// lower one, from a sorted copy of every interval, until the fourteenth
// pass).
func TestInterval(t *testing.T) {
	t.Parallel()
	// Intervals 1, 2, 3 and 4 ms, and 0 (not counted): 3 ms.
	p, err := format.Parse([]byte(`{"nodes":[
	{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},
	{"id":2,"callFrame":{"functionName":"main","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0}}],
	"startTime":0,"endTime":20000,"samples":[2,2,2,2,2,2],"timeDeltas":[0,1000,2000,3000,4000,0]}`), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := firefox.Write(&buf, p, []profile.ThreadStacks{stacksOf(0)}, firefox.Options{}); err != nil {
		t.Fatal(err)
	}
	var pp processed
	if err := json.Unmarshal(buf.Bytes(), &pp); err != nil {
		t.Fatal(err)
	}
	if pp.Meta.Interval != 3 {
		t.Errorf("meta.interval = %v ms, want 3", pp.Meta.Interval)
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

// TestSamples writes hand-made stacks: one sample per stack at its time;
// a null sample for a stack with no frames; a null sample of weight 0 where
// the stacks leave time out and after the last stack with frames. The
// leaf's frame row has the stack's category, the others their frame's.
// Stacks out of time order, of negative weight or naming no frame of the
// profile are errors.
func TestSamples(t *testing.T) {
	t.Parallel()
	p, err := format.Parse([]byte(`{"nodes":[
	{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},
	{"id":2,"callFrame":{"functionName":"main","scriptId":"1","url":"https://example.com:443/a.js","lineNumber":0,"columnNumber":0},"children":[3]},
	{"id":3,"callFrame":{"functionName":"hot","scriptId":"1","url":"https://example.com/a.js","lineNumber":9,"columnNumber":4}}],
	"startTime":0,"endTime":100,"samples":[2,3],"timeDeltas":[10,10]}`), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mainF, hotF profile.FrameID
	for i, f := range p.Frames {
		switch p.Str(f.Name) {
		case "main":
			mainF = profile.FrameID(i)
		case "hot":
			hotF = profile.FrameID(i)
		}
	}
	ms := profile.Time(1e6)
	stacks := stacksOf(0,
		profile.Stack{Frames: []profile.FrameID{mainF}, Time: 5 * ms, Weight: 1 * ms, Category: profile.CatJavaScript},
		profile.Stack{Frames: []profile.FrameID{mainF, hotF}, Time: 6 * ms, Weight: 2*ms + 1, Category: profile.CatLayout, Subcategory: 1},
		profile.Stack{Time: 8*ms + 1, Weight: 1 * ms},
		profile.Stack{Frames: []profile.FrameID{mainF}, Time: 9*ms + 1, Weight: 1 * ms, Category: profile.CatJavaScript},
		// 1 ms left out (a transform removed it).
		profile.Stack{Frames: []profile.FrameID{mainF, hotF}, Time: 11*ms + 1, Weight: 3, Category: profile.CatJavaScript},
	)
	var buf bytes.Buffer
	if err := firefox.Write(&buf, p, []profile.ThreadStacks{stacks}, firefox.Options{}); err != nil {
		t.Fatal(err)
	}
	pp := checkStructure(t, buf.Bytes(), p, []profile.ThreadID{0})
	sm := &pp.Threads[0].Samples
	var got []string
	for i := range sm.Length {
		st := "null"
		if sm.Stack[i] != nil {
			var names []string
			for x := *sm.Stack[i]; ; x -= pp.Shared.StackTable.PrefixOffset[x] {
				fr := pp.Shared.StackTable.Frame[x]
				names = append(names, fmt.Sprintf("%s/%d.%d", pp.Shared.StringArray[pp.Shared.FuncTable.Name[pp.Shared.FrameTable.Func[fr]]],
					pp.Shared.FrameTable.Category[fr], pp.Shared.FrameTable.Subcategory[fr]))
				if pp.Shared.StackTable.PrefixOffset[x] == 0 {
					break
				}
			}
			slices.Reverse(names)
			st = strings.Join(names, ";")
		}
		got = append(got, fmt.Sprintf("%s@%s+%s", st, sm.Time[i], sm.Weight[i]))
	}
	want := []string{
		"main/2.0@0+1",
		"main/2.0;hot/3.1@1+2.000001",
		"null@3.000001+1",
		"main/2.0@4.000001+1",
		"null@5.000001+0",
		"main/2.0;hot/2.0@6.000001+0.000003",
		"null@6.000004+0",
	}
	if !slices.Equal(got, want) {
		t.Errorf("samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f := pp.Shared.FuncTable.Flags; len(f) != 2 || f[0]&2 != 0 || f[1]&2 != 0 {
		t.Errorf("funcTable.flags %v: want no relevantForJS without Options.RelevantForJS", f)
	}
	if rt := &pp.Shared.ResourceTable; rt.Length != 1 || pp.Shared.StringArray[rt.Name[0]] != "https://example.com" {
		t.Errorf("resources %+v: want the one origin https://example.com", rt)
	}

	for name, bad := range map[string]profile.Stack{
		"out of order":    {Frames: []profile.FrameID{mainF}, Time: 4 * ms, Weight: 1},
		"negative weight": {Frames: []profile.FrameID{mainF}, Time: 20 * ms, Weight: -1},
		"unknown frame":   {Frames: []profile.FrameID{profile.FrameID(len(p.Frames))}, Time: 20 * ms, Weight: 1},
	} {
		ts := stacksOf(0, profile.Stack{Frames: []profile.FrameID{mainF}, Time: 5 * ms, Weight: 1}, bad)
		if err := firefox.Write(&bytes.Buffer{}, p, []profile.ThreadStacks{ts}, firefox.Options{}); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}
