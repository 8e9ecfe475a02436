package category_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/category"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

func assign(t *testing.T, p *profile.Profile) []*calls.Timeline {
	t.Helper()
	var tls []*calls.Timeline
	for i := range p.Threads {
		tl, err := calls.NewTimeline(p, profile.ThreadID(i))
		if err != nil {
			t.Fatal(err)
		}
		tls = append(tls, tl)
	}
	category.Assign(p, tls)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return tls
}

// Samples take the innermost trace event with a rule, else their frame.
func TestAssignRules(t *testing.T) {
	doc := `[
{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":1,"ts":0,"args":{"data":{}}},
{"name":"ProfileChunk","ph":"P","id":"0x1","pid":1,"tid":2,"ts":0,"args":{"data":{"cpuProfile":{"nodes":[
 {"id":1,"callFrame":{"functionName":"(root)","scriptId":0}},
 {"id":2,"parent":1,"callFrame":{"functionName":"(idle)","scriptId":0}},
 {"id":3,"parent":1,"callFrame":{"functionName":"(program)","scriptId":0}},
 {"id":4,"parent":1,"callFrame":{"functionName":"(garbage collector)","scriptId":0}},
 {"id":5,"parent":1,"callFrame":{"functionName":"main","scriptId":7,"url":"a.js"}},
 {"id":6,"parent":5,"callFrame":{"functionName":"getElementById","scriptId":0}},
 {"id":7,"parent":5,"callFrame":{"functionName":"run","scriptId":8,"url":"b.wasm","codeType":"wasm"}}],
 "samples":[5,5,6,7,2,3,4,5]},"timeDeltas":[10,10,10,10,10,10,10,10]}}},
{"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":5,"dur":100,"cat":"t"},
{"name":"FunctionCall","ph":"X","pid":1,"tid":1,"ts":6,"dur":50,"cat":"t"},
{"name":"Layout","ph":"X","pid":1,"tid":1,"ts":15,"dur":10,"cat":"t"},
{"name":"ParseHTML","ph":"X","pid":1,"tid":1,"ts":75,"dur":10,"cat":"t"}
]`
	p, err := format.Parse([]byte(doc), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	assign(t, p)
	var got []string
	for i, c := range p.Samples.Category {
		cat := p.Categories[c]
		got = append(got, cat.Name+"/"+cat.Subcategories[p.Samples.Subcategory[i]])
	}
	want := "JavaScript/Other Layout/Layout JavaScript/Native JavaScript/Wasm Idle/Other Other/Program GC / CC/Other HTML Parsing/HTML"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
}

// On a real trace the per-category sample times add up to the sampled span,
// and a layout-heavy recording has Layout time.
func TestCorpusTimes(t *testing.T) {
	p, err := format.ReadFile(proftest.Corpus(t, "devtools/large-layout-small-recalc.json.gz"), nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tls := assign(t, p)
	for _, tl := range tls {
		times := category.Times(p, tl)
		var sum profile.Time
		for _, x := range times {
			sum += x
		}
		if span := tl.End - tl.Times.At(0); sum != span {
			t.Errorf("thread %d: categories add up to %d ns, span is %d ns", tl.Thread, sum, span)
		}
		if times[profile.CatLayout] == 0 {
			t.Errorf("thread %d: no Layout time: %v", tl.Thread, times)
		}
	}
}

func TestRulesTable(t *testing.T) {
	cats := profile.DefaultCategories()
	seen := map[string]bool{}
	for _, r := range category.EventRules {
		if seen[r.Event] {
			t.Errorf("%s: two rules", r.Event)
		}
		seen[r.Event] = true
		if profile.Subcategory(cats, r.Category, r.Subcategory) == 0 && r.Subcategory != "Other" {
			t.Errorf("%s: subcategory %q is not in category %s", r.Event, r.Subcategory, cats[r.Category].Name)
		}
	}
}

// TestNonJSSources requires frames of pprof and folded inputs (Go, C++, any
// language) not to claim JavaScript, while the same frame of a V8 profile
// does.
func TestNonJSSources(t *testing.T) {
	for _, c := range []struct {
		format string
		kind   profile.FrameKind
		want   profile.CategoryID
	}{
		{"pprof", profile.KindJS, profile.CatOther},
		{"pprof", profile.KindNative, profile.CatOther},
		{"folded", profile.KindJS, profile.CatOther},
		{"pprof", profile.KindGC, profile.CatGC},
		{"cpuprofile", profile.KindJS, profile.CatJavaScript},
		{"cpuprofile", profile.KindNative, profile.CatJavaScript},
		{"chrome-trace", profile.KindJS, profile.CatJavaScript},
	} {
		b := profile.NewBuilder(c.format)
		f := &profile.Frame{Name: b.Intern("main.main"), Line: -1, Column: -1, Kind: c.kind}
		if got, _ := category.Frame(b.P, f); got != c.want {
			t.Errorf("%s %v frame: category %d, want %d", c.format, c.kind, got, c.want)
		}
	}
}

// Without events a sample's category is its frame's: Assign leaves the
// columns out, ForSamples gives a table per node, and Times adds each
// sample's time to its frame's category, in one pass or in two halves.
func TestAssignWithoutEvents(t *testing.T) {
	p, err := format.ReadFile(filepath.Join(proftest.RepoRoot(), "testdata", "node", "mix.cpuprofile"), nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tls := assign(t, p)
	tl := tls[0]
	if len(p.Events) != 0 || tl.Len() < 100 {
		t.Fatalf("want a .cpuprofile's thread: %d events, %d samples", len(p.Events), tl.Len())
	}
	if p.Samples.Category != nil || p.Samples.Subcategory != nil {
		t.Errorf("Assign filled %d categories for a profile without events", len(p.Samples.Category))
	}
	cats, subs, perNode := category.ForSamples(p, tl)
	if !perNode || len(cats) != len(tl.Node) || len(subs) != len(tl.Node) {
		t.Fatalf("ForSamples: %d categories, per node %v; want one per node (%d)", len(cats), perNode, len(tl.Node))
	}
	kinds := map[profile.CategoryID]bool{}
	want := make([]profile.Time, len(p.Categories))
	for i, x := range tl.SamplesIn(0, tl.Len()) {
		c, sub := category.Frame(p, p.NodeFrame(tl.Node[x]))
		if cats[x] != c || subs[x] != sub {
			t.Fatalf("sample %d: category %d/%d, its frame's %d/%d", i, cats[x], subs[x], c, sub)
		}
		kinds[c] = true
		want[c] += tl.TimeAt(i+1) - tl.Times.At(i)
	}
	if len(kinds) < 3 {
		t.Errorf("only %d categories among the samples: the test would not tell them apart", len(kinds))
	}
	for _, split := range []int{1 << 62, 2} { // in one pass, and in two halves at once
		restore := category.SetSplitSamples(split)
		if got := category.Times(p, tl); !slices.Equal(got, want) {
			t.Errorf("split from %d: Times = %v, want %v", split, got, want)
		}
		restore()
	}
}
