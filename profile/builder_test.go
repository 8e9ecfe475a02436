package profile_test

import (
	"slices"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

func TestNewBuilder(t *testing.T) {
	t.Parallel()
	b := profile.NewBuilder("xs")
	p := b.P
	if p.Format != "xs" || !slices.Equal(p.Strings, []string{""}) || len(p.Frames) != 0 || len(p.Threads) != 0 {
		t.Errorf("got format %q, strings %q, %d frames, %d threads; want xs, [\"\"], none, none", p.Format, p.Strings, len(p.Frames), len(p.Threads))
	}
	var got, want []string
	for _, c := range p.Categories {
		got = append(got, c.Name)
	}
	for _, c := range profile.DefaultCategories() {
		want = append(want, c.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("got categories %q, want the defaults %q", got, want)
	}
	if err := p.Validate(); err != nil {
		t.Errorf("a new builder's profile: got %v, want valid", err)
	}
}

func TestIntern(t *testing.T) {
	t.Parallel()
	b := profile.NewBuilder("x")
	if id := b.Intern(""); id != 0 {
		t.Errorf(`Intern(""): got %d, want 0`, id)
	}
	a, c := b.Intern("a"), b.Intern("c")
	if a != 1 || c != 2 {
		t.Errorf("got ids %d, %d; want 1, 2 (dense, in first-seen order)", a, c)
	}
	if id := b.Intern("a"); id != a {
		t.Errorf(`Intern("a") again: got %d, want %d`, id, a)
	}
	buf := []byte("c")
	if id := b.InternBytes(buf); id != c {
		t.Errorf(`InternBytes("c"): got %d, want %d, the id Intern gave`, id, c)
	}
	buf = []byte("new")
	id := b.InternBytes(buf)
	copy(buf, "xxx") // the builder must have copied the bytes
	if id != 3 || b.P.Strings[id] != "new" {
		t.Errorf(`InternBytes("new"): got id %d, string %q; want 3, "new" after the caller reuses its buffer`, id, b.P.Strings[id])
	}
	if id2 := b.Intern("new"); id2 != id {
		t.Errorf(`Intern("new") after InternBytes: got %d, want %d`, id2, id)
	}
	if want := []string{"", "a", "c", "new"}; !slices.Equal(b.P.Strings, want) {
		t.Errorf("got strings %q, want %q", b.P.Strings, want)
	}
}

// Frames equal in every field are one frame; a frame differing in any one
// field is another.
func TestFrameDedup(t *testing.T) {
	t.Parallel()
	b := profile.NewBuilder("x")
	s := b.Intern
	base := profile.Frame{Name: s("f"), URL: s("a.js"), ScriptID: s("3"), Line: 4, Column: 5, CodeType: s("JS")}
	id := b.Frame(base)
	if again := b.Frame(base); again != id || len(b.P.Frames) != 1 {
		t.Fatalf("the same frame again: got id %d and %d frames, want %d and 1", again, len(b.P.Frames), id)
	}
	tests := []struct {
		name   string
		change func(f *profile.Frame)
	}{
		{"name", func(f *profile.Frame) { f.Name = s("g") }},
		{"url", func(f *profile.Frame) { f.URL = s("b.js") }},
		{"script id", func(f *profile.Frame) { f.ScriptID = s("4") }},
		{"line", func(f *profile.Frame) { f.Line = 5 }},
		{"column", func(f *profile.Frame) { f.Column = -1 }},
		{"code type", func(f *profile.Frame) { f.CodeType = s("wasm") }},
		{"kind", func(f *profile.Frame) { f.Kind = profile.KindNative }},
		{"category", func(f *profile.Frame) { f.Category = profile.CatLayout }},
	}
	seen := map[profile.FrameID]string{id: "base"}
	for _, tt := range tests {
		f := base
		tt.change(&f)
		got := b.Frame(f)
		if other, dup := seen[got]; dup {
			t.Errorf("frame with another %s: got id %d, the id of the %s frame", tt.name, got, other)
		}
		seen[got] = tt.name
		if again := b.Frame(f); again != got {
			t.Errorf("frame with another %s, again: got id %d, want %d", tt.name, again, got)
		}
	}
	if n := len(b.P.Frames); n != len(tests)+1 {
		t.Errorf("got %d frames, want %d", n, len(tests)+1)
	}
	if err := b.P.Validate(); err != nil {
		t.Error(err)
	}
}

// The builder classifies frames that come unclassified (KindJS, category
// 0) from their name, URL and script id, and fills in the category of the
// kind; frames that come classified keep their kind and category.
func TestFrameClassification(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url, script string
		kind              profile.FrameKind  // given
		category          profile.CategoryID // given
		wantKind          profile.FrameKind
		wantCategory      profile.CategoryID
	}{
		{"(root)", "", "0", profile.KindJS, 0, profile.KindRoot, profile.CatOther},
		{"(root)", "", "", profile.KindJS, 0, profile.KindRoot, profile.CatOther},
		{"(root)", "", "5", profile.KindJS, 0, profile.KindRoot, profile.CatOther},
		{"(host)", "", "0", profile.KindJS, 0, profile.KindRoot, profile.CatOther},
		{"(program)", "", "0", profile.KindJS, 0, profile.KindProgram, profile.CatOther},
		{"(idle)", "", "0", profile.KindJS, 0, profile.KindIdle, profile.CatIdle},
		{"(garbage collector)", "", "0", profile.KindJS, 0, profile.KindGC, profile.CatGC},
		{"(gc)", "", "0", profile.KindJS, 0, profile.KindGC, profile.CatGC},
		// Meta names with a URL are functions of that script.
		{"(root)", "file:///a.js", "3", profile.KindJS, 0, profile.KindJS, profile.CatJavaScript},
		{"(program)", "x.js", "0", profile.KindJS, 0, profile.KindJS, profile.CatJavaScript},
		// Names are case-sensitive and must match whole.
		{"(Root)", "", "0", profile.KindJS, 0, profile.KindNative, profile.CatJavaScript},
		{"(idle) ", "", "0", profile.KindJS, 0, profile.KindNative, profile.CatJavaScript},
		{"(garbage", "", "0", profile.KindJS, 0, profile.KindNative, profile.CatJavaScript},
		// No URL: native when the script id is "0" or empty.
		{"Math.max", "", "0", profile.KindJS, 0, profile.KindNative, profile.CatJavaScript},
		{"f", "", "", profile.KindJS, 0, profile.KindNative, profile.CatJavaScript},
		{"", "", "0", profile.KindJS, 0, profile.KindNative, profile.CatJavaScript},
		{"(unknown)", "", "0", profile.KindJS, 0, profile.KindNative, profile.CatJavaScript},
		{"(anonymous)", "", "7", profile.KindJS, 0, profile.KindJS, profile.CatJavaScript},
		{"evaluated", "", "12", profile.KindJS, 0, profile.KindJS, profile.CatJavaScript},
		// A URL makes a JS frame whatever the script id.
		{"f", "a.js", "0", profile.KindJS, 0, profile.KindJS, profile.CatJavaScript},
		{"f", "a.js", "", profile.KindJS, 0, profile.KindJS, profile.CatJavaScript},
		// Given kinds and categories are kept.
		{"f", "a.js", "3", profile.KindGC, 0, profile.KindGC, profile.CatGC},
		{"RunTask", "", "", profile.KindEvent, 0, profile.KindEvent, profile.CatOther},
		{"(root)", "", "0", profile.KindNative, 0, profile.KindNative, profile.CatJavaScript},
		{"Layout", "", "", profile.KindEvent, profile.CatLayout, profile.KindEvent, profile.CatLayout},
		{"f", "a.js", "3", profile.KindJS, profile.CatDOM, profile.KindJS, profile.CatDOM},
		{"(idle)", "", "0", profile.KindJS, profile.CatGraphics, profile.KindIdle, profile.CatGraphics},
	}
	for _, tt := range tests {
		b := profile.NewBuilder("x")
		id := b.Frame(profile.Frame{Name: b.Intern(tt.name), URL: b.Intern(tt.url), ScriptID: b.Intern(tt.script), Line: -1, Column: -1,
			Kind: tt.kind, Category: tt.category})
		f := b.P.Frames[id]
		if f.Kind != tt.wantKind || f.Category != tt.wantCategory {
			t.Errorf("frame %q url=%q script=%q given kind %v category %d: got kind %v category %d, want %v %d",
				tt.name, tt.url, tt.script, tt.kind, tt.category, f.Kind, f.Category, tt.wantKind, tt.wantCategory)
		}
	}
}

// A frame given unclassified again is the frame classified the first time.
func TestFrameDedupAfterClassification(t *testing.T) {
	t.Parallel()
	b := profile.NewBuilder("x")
	raw := profile.Frame{Name: b.Intern("(garbage collector)"), ScriptID: b.Intern("0"), Line: -1, Column: -1}
	id := b.Frame(raw)
	if again := b.Frame(raw); again != id || len(b.P.Frames) != 1 {
		t.Errorf("got id %d and %d frames, want %d and 1", again, len(b.P.Frames), id)
	}
	if f := b.P.Frames[id]; f.Kind != profile.KindGC || f.Category != profile.CatGC {
		t.Errorf("got kind %v category %d, want gc %d", f.Kind, f.Category, profile.CatGC)
	}
}

// NewBuilderFor continues an existing profile: its strings and frames are
// found again (frames both in their stored, classified form and in the
// unclassified form readers pass), new ones are appended.
func TestNewBuilderFor(t *testing.T) {
	t.Parallel()
	p := testProfile()
	nStrings, nFrames := len(p.Strings), len(p.Frames)
	b := profile.NewBuilderFor(p)
	if b.P != p {
		t.Fatal("the builder does not add to the given profile")
	}
	for i, s := range p.Strings[:nStrings] {
		if id := b.Intern(s); id != profile.StringID(i) {
			t.Errorf("Intern(%q): got %d, want %d", s, id, i)
		}
	}
	for i, f := range p.Frames[:nFrames] {
		if id := b.Frame(f); id != profile.FrameID(i) {
			t.Errorf("frame %d as stored: got id %d", i, id)
		}
		raw := f
		raw.Kind, raw.Category = profile.KindJS, 0
		if id := b.Frame(raw); id != profile.FrameID(i) {
			t.Errorf("frame %d unclassified: got id %d", i, id)
		}
	}
	if len(p.Strings) != nStrings || len(p.Frames) != nFrames {
		t.Errorf("looking up existing entries added some: %d strings, %d frames; want %d, %d", len(p.Strings), len(p.Frames), nStrings, nFrames)
	}
	id := b.Frame(profile.Frame{Name: b.Intern("(idle)"), Line: -1, Column: -1})
	if int(id) != nFrames || p.Frames[id].Kind != profile.KindIdle || b.Intern("(idle)") != profile.StringID(nStrings) {
		t.Errorf("new frame: got id %d kind %v, want %d idle", id, p.Frames[id].Kind, nFrames)
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}

	// A duplicated string keeps the first id.
	q := &profile.Profile{Strings: []string{"", "a", "a"}}
	if id := profile.NewBuilderFor(q).Intern("a"); id != 1 {
		t.Errorf(`duplicated string: got id %d, want 1`, id)
	}
}

func TestKinds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind     profile.FrameKind
		name     string
		meta     bool
		category profile.CategoryID
	}{
		{profile.KindJS, "js", false, profile.CatJavaScript},
		{profile.KindNative, "native", false, profile.CatJavaScript},
		{profile.KindRoot, "root", true, profile.CatOther},
		{profile.KindProgram, "program", true, profile.CatOther},
		{profile.KindIdle, "idle", true, profile.CatIdle},
		{profile.KindGC, "gc", true, profile.CatGC},
		{profile.KindEvent, "event", false, profile.CatOther},
		{profile.KindEvent + 1, "invalid", false, profile.CatJavaScript},
		{255, "invalid", false, profile.CatJavaScript},
	}
	for _, tt := range tests {
		if got := tt.kind.String(); got != tt.name {
			t.Errorf("kind %d: got String %q, want %q", tt.kind, got, tt.name)
		}
		if got := tt.kind.Meta(); got != tt.meta {
			t.Errorf("kind %s: got Meta %t, want %t", tt.name, got, tt.meta)
		}
		if got := profile.KindCategory(tt.kind); got != tt.category {
			t.Errorf("kind %s: got category %d, want %d", tt.name, got, tt.category)
		}
	}
	if profile.ShapeTree.String() != "tree" || profile.ShapeCallGraph.String() != "callgraph" {
		t.Errorf("got shapes %q, %q; want tree, callgraph", profile.ShapeTree, profile.ShapeCallGraph)
	}
}

func TestCategories(t *testing.T) {
	t.Parallel()
	cats := profile.DefaultCategories()
	for id, name := range map[profile.CategoryID]string{
		profile.CatIdle: "Idle", profile.CatOther: "Other", profile.CatJavaScript: "JavaScript", profile.CatLayout: "Layout",
		profile.CatGraphics: "Graphics", profile.CatDOM: "DOM", profile.CatGC: "GC / CC", profile.CatNetwork: "Network",
		profile.CatHTMLParsing: "HTML Parsing",
	} {
		if cats[id].Name != name {
			t.Errorf("category %d: got %q, want %q", id, cats[id].Name, name)
		}
	}
	for _, c := range cats {
		if len(c.Subcategories) == 0 || c.Subcategories[0] != "Other" || c.Color == "" {
			t.Errorf("category %q: got subcategories %q, colour %q; want Other first and a colour", c.Name, c.Subcategories, c.Color)
		}
	}
	// DefaultCategories returns a fresh copy each time.
	cats[0].Name = "changed"
	if profile.DefaultCategories()[0].Name != "Idle" {
		t.Error("changing the returned categories changed the defaults")
	}
	tests := []struct {
		cat  profile.CategoryID
		sub  string
		want uint8
	}{
		{profile.CatJavaScript, "Optimized", 3},
		{profile.CatJavaScript, "Other", 0},
		{profile.CatGC, "Major GC", 2},
		{profile.CatGC, "Optimized", 0},
		{profile.CatGC, "major gc", 0},
		{200, "Optimized", 0},
	}
	for _, tt := range tests {
		if got := profile.Subcategory(cats, tt.cat, tt.sub); got != tt.want {
			t.Errorf("Subcategory(%d, %q): got %d, want %d", tt.cat, tt.sub, got, tt.want)
		}
	}
}

// TestNewFrame checks that frames added by NewFrame are classified as
// Frame classifies them and are found by Frame afterwards, and that a
// frame appended to the profile behind the builder's back is not.
func TestNewFrame(t *testing.T) {
	b := profile.NewBuilder("test")
	c := profile.NewBuilder("test")
	mk := func(b *profile.Builder, name, url string, line int32) profile.Frame {
		return profile.Frame{Name: b.Intern(name), URL: b.Intern(url), ScriptID: b.Intern("0"), Line: line, Column: 1}
	}
	var ids []profile.FrameID
	for i, name := range []string{"(root)", "(program)", "f", "(garbage collector)", "g"} {
		url := "https://a.example/x.js"
		if name[0] == '(' {
			url = ""
		}
		ids = append(ids, b.NewFrame(mk(b, name, url, int32(i))))
		if want := c.Frame(mk(c, name, url, int32(i))); ids[i] != want || b.P.Frames[ids[i]] != c.P.Frames[want] {
			t.Fatalf("NewFrame(%s) = %d %+v, Frame gives %d %+v", name, ids[i], b.P.Frames[ids[i]], want, c.P.Frames[want])
		}
	}
	// Appended directly (as merge does): not for Frame to find.
	direct := profile.FrameID(len(b.P.Frames))
	b.P.Frames = append(b.P.Frames, profile.Frame{Name: b.Intern("h"), Line: 9, Column: 1, Kind: profile.KindJS, Category: profile.CatJavaScript})
	for i, name := range []string{"(root)", "(program)", "f", "(garbage collector)", "g"} {
		url := "https://a.example/x.js"
		if name[0] == '(' {
			url = ""
		}
		if got := b.Frame(mk(b, name, url, int32(i))); got != ids[i] {
			t.Errorf("Frame(%s) after NewFrame = %d, want %d", name, got, ids[i])
		}
	}
	if got := b.Frame(profile.Frame{Name: b.Intern("h"), Line: 9, Column: 1}); got == direct {
		t.Error("Frame found a frame the builder did not add")
	}
	// A frame that comes classified is deduplicated as Frame does.
	f := mk(b, "f", "https://a.example/x.js", 2)
	f.Kind = profile.KindNative
	if got, want := b.NewFrame(f), b.Frame(f); got != want {
		t.Errorf("NewFrame of a classified frame = %d, Frame = %d", got, want)
	}
}
