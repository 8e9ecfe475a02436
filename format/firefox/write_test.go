package firefox_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/category"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
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
			Time       []float64
			Weight     []float64
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

func read(t testing.TB, path string) *profile.Profile {
	t.Helper()
	p, err := format.ReadFile(path, nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func write(t testing.TB, p *profile.Profile, opts firefox.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := firefox.Write(&buf, p, opts); err != nil {
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
// (subtests skip when it is absent), a trace with three threads.
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
	return append(out, input{"two-workers.json.gz", func(t *testing.T) string {
		return proftest.Corpus(t, "devtools/two-workers.json.gz")
	}})
}

// A viewCase is a view and transforms the tests write each input with.
type viewCase struct {
	name string
	opts func(p *profile.Profile) view.Options
}

// views are the views the tests use: all, platform, and JS over the middle
// half of the first thread with recursion collapsed.
var views = []viewCase{
	{"all", func(*profile.Profile) view.Options { return view.Options{} }},
	{"platform", func(*profile.Profile) view.Options { return view.Options{View: view.Platform} }},
	{"js-middle-collapsed", func(p *profile.Profile) view.Options {
		ts := p.ThreadSamples(0).Time
		d := ts[len(ts)-1] - ts[0]
		return view.Options{View: view.JS, From: d / 4, To: 3 * d / 4, CollapseRecursion: true}
	}},
}

// jsprofTrees returns jsprof's tree of each selected thread under vo
// (calltree.StackBuilder fed by view.Stacks), and the time per category of
// the samples with a non-empty stack, from category.Assign.
func jsprofTrees(t testing.TB, p *profile.Profile, vo view.Options) ([]*calltree.Tree, [][]profile.Time) {
	t.Helper()
	var tls []*calls.Timeline
	for i := range p.Threads {
		tl, err := calls.NewTimeline(p, profile.ThreadID(i))
		if err != nil {
			t.Fatal(err)
		}
		tls = append(tls, tl)
	}
	q := *p
	category.Assign(&q, tls)
	var trees []*calltree.Tree
	var cats [][]profile.Time
	for i, tl := range tls {
		sb := calltree.NewStackBuilder(p, profile.ThreadID(i))
		ct := make([]profile.Time, len(p.Categories))
		base := int(p.Threads[i].Samples.Start)
		view.Stacks(tl, vo, func(s view.Stack) {
			sb.Add(s.Frames, s.Weight)
			if len(s.Frames) > 0 {
				ct[q.Samples.Category[base+s.Sample]] += s.Weight
			}
		})
		trees = append(trees, sb.Finish())
		cats = append(cats, ct)
	}
	return trees, cats
}

// checkStructure parses a written profile and checks its invariants: the
// version fields, the table lengths, every index in range, sample times in
// order. It returns the parsed profile.
func checkStructure(t *testing.T, data []byte, p *profile.Profile) *processed {
	t.Helper()
	var pp processed
	if err := json.Unmarshal(data, &pp); err != nil {
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
	if !(m.Interval > 0) {
		t.Errorf("meta.interval = %v, want > 0", m.Interval)
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
			if name != u.Scheme+"://"+u.Host || rt.Host[r] == nil || sh.StringArray[*rt.Host[r]] != u.Host || rt.Type[r] != 3 {
				t.Errorf("%s: resource %q (type %d), want the webhost %s://%s", file, name, rt.Type[r], u.Scheme, u.Host)
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
	if len(pp.Threads) != len(p.Threads) {
		t.Fatalf("%d threads, want %d", len(pp.Threads), len(p.Threads))
	}
	mains := map[string]int{}
	for ti := range pp.Threads {
		th := &pp.Threads[ti]
		if th.Name == "" || th.ProcessType == "" {
			t.Errorf("thread %d: name %q, processType %q", ti, th.Name, th.ProcessType)
		}
		want := &p.Threads[ti]
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
			if i > 0 && s.Time[i] < s.Time[i-1] {
				t.Fatalf("thread %d: samples.time[%d] = %v before %v", ti, i, s.Time[i], s.Time[i-1])
			}
			if s.Time[i] < 0 || s.Weight[i] < 0 {
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

// selfFromTables aggregates the written samples per function, as the
// Firefox Profiler's function list does: self to the leaf's function, total
// once per sample to each function on the stack. Values in ms.
func selfFromTables(pp *processed, ti int) (self, total map[string]float64) {
	sh := &pp.Shared
	self, total = map[string]float64{}, map[string]float64{}
	s := &pp.Threads[ti].Samples
	seen := map[int32]bool{}
	for i, stp := range s.Stack {
		if stp == nil {
			continue
		}
		st := *stp
		self[pp.funcLabel(int(sh.FrameTable.Func[sh.StackTable.Frame[st]]))] += s.Weight[i]
		clear(seen)
		for {
			fn := sh.FrameTable.Func[sh.StackTable.Frame[st]]
			if !seen[fn] {
				seen[fn] = true
				total[pp.funcLabel(int(fn))] += s.Weight[i]
			}
			off := sh.StackTable.PrefixOffset[st]
			if off == 0 {
				break
			}
			st -= off
		}
	}
	return self, total
}

// TestStructure writes every input in several views and checks the
// invariants of the output and that its own tables give jsprof's self and
// total time per function (to 1 ns per sample of float rounding).
func TestStructure(t *testing.T) {
	t.Parallel()
	for _, in := range inputs(t) {
		for _, v := range views {
			t.Run(in.name+"/"+v.name, func(t *testing.T) {
				t.Parallel()
				p := read(t, in.path(t))
				vo := v.opts(p)
				data := write(t, p, firefox.Options{View: vo})
				pp := checkStructure(t, data, p)
				trees, _ := jsprofTrees(t, p, vo)
				for ti, tree := range trees {
					self, total := selfFromTables(pp, ti)
					compareFuncs(t, p, tree, self, total, 1e-6*float64(max(1, pp.Threads[ti].Samples.Length)))
				}
			})
		}
	}
}

// compareFuncs compares a tree's self and total times per function with
// per-label ms values, within tol ms; it returns the largest difference.
func compareFuncs(t *testing.T, p *profile.Profile, tree *calltree.Tree, self, total map[string]float64, tol float64) float64 {
	t.Helper()
	worst := 0.0
	want := map[string]bool{}
	for _, f := range tree.Funcs {
		label := funcKeyLabel(p, &f)
		want[label] = true
		ws, wt := float64(f.Self)/1e6, float64(f.Total)/1e6
		ds, dt := math.Abs(self[label]-ws), math.Abs(total[label]-wt)
		worst = max(worst, ds, dt)
		if ds > tol || dt > tol {
			t.Errorf("%s: self/total %.6f/%.6f ms, jsprof %.6f/%.6f", label, self[label], total[label], ws, wt)
		}
	}
	for label, v := range self {
		if !want[label] && (v != 0 || total[label] != 0) {
			t.Errorf("%s: self/total %.6f/%.6f ms, not a jsprof function", label, v, total[label])
		}
	}
	return worst
}

func TestThreadSelection(t *testing.T) {
	t.Parallel()
	p := read(t, proftest.Corpus(t, "devtools/two-workers.json.gz"))
	data := write(t, p, firefox.Options{Threads: []profile.ThreadID{2, 0}})
	var pp processed
	if err := json.Unmarshal(data, &pp); err != nil {
		t.Fatal(err)
	}
	if len(pp.Threads) != 2 || pp.Threads[0].TID != fmt.Sprint(p.Threads[2].TID) || pp.Threads[1].TID != fmt.Sprint(p.Threads[0].TID) {
		t.Errorf("threads %+v, want thread 2 then thread 0", pp.Threads)
	}
	if !pp.Threads[1].IsMainThread || pp.Threads[0].IsMainThread {
		t.Errorf("main threads: %v %v, want CrRendererMain only", pp.Threads[0].IsMainThread, pp.Threads[1].IsMainThread)
	}
	for _, bad := range [][]profile.ThreadID{{3}, {-1}, {0, 0}} {
		if err := firefox.Write(&bytes.Buffer{}, p, firefox.Options{Threads: bad}); err == nil {
			t.Errorf("threads %v: no error", bad)
		}
	}
}
