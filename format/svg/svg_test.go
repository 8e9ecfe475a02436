package svg_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/svg"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// plotW is the plotting width of the default 1200 px image (10 px margins).
const plotW = 1180.0

// svgFrame is one <g class="f"> of the output.
type svgFrame struct {
	Class      string
	Title      string
	X, Y, W    float64
	Label      string // the <text>, "" when none
	HasLabel   bool
	Name       string  // data-name, else the label
	LabelClipW float64 // width of the nested <svg> around the label
}

// svgDoc is what the tests read back from an SVG.
type svgDoc struct {
	Width, Height int
	Frames        []svgFrame
	Elements      map[string]int  // element name → count
	Attrs         map[string]bool // attribute names used
	Scripts       []string        // contents of <script> elements
	Texts         []string        // contents of <text> elements outside frames
}

// parseSVG parses data strictly with encoding/xml, failing the test if it
// is not well-formed XML.
func parseSVG(t *testing.T, data []byte) *svgDoc {
	t.Helper()
	doc, err := decodeSVG(data)
	if err != nil {
		t.Fatalf("output is not well-formed XML: %v", err)
	}
	return doc
}

func decodeSVG(data []byte) (*svgDoc, error) {
	doc := &svgDoc{Elements: map[string]int{}, Attrs: map[string]bool{}}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	var stack []string
	var cur *svgFrame // the frame being read
	var text *strings.Builder
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			name := tok.Name.Local
			if tok.Name.Space != "http://www.w3.org/2000/svg" {
				return nil, errors.New("element " + name + " outside the SVG namespace")
			}
			doc.Elements[name]++
			attr := map[string]string{}
			for _, a := range tok.Attr {
				doc.Attrs[a.Name.Local] = true
				attr[a.Name.Local] = a.Value
			}
			num := func(k string) float64 {
				v, _ := strconv.ParseFloat(attr[k], 64)
				return v
			}
			switch {
			case len(stack) == 0:
				doc.Width, _ = strconv.Atoi(attr["width"])
				doc.Height, _ = strconv.Atoi(attr["height"])
			case name == "g" && strings.HasPrefix(attr["class"], "f"):
				doc.Frames = append(doc.Frames, svgFrame{Class: attr["class"], Name: attr["data-name"]})
				cur = &doc.Frames[len(doc.Frames)-1]
			case cur != nil && name == "rect":
				cur.X, cur.Y, cur.W = num("x"), num("y"), num("width")
			case cur != nil && name == "svg":
				cur.LabelClipW = num("width")
			case name == "title" || name == "text" || name == "script":
				text = new(strings.Builder)
			}
			stack = append(stack, name)
		case xml.CharData:
			if text != nil {
				text.Write(tok)
			}
		case xml.EndElement:
			name := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch {
			case name == "g" && cur != nil:
				cur = nil
			case name == "title" && cur != nil:
				cur.Title = text.String()
			case name == "text" && cur != nil:
				cur.Label, cur.HasLabel = text.String(), true
				if cur.Name == "" {
					cur.Name = cur.Label
				}
			case name == "text":
				doc.Texts = append(doc.Texts, text.String())
			case name == "script":
				doc.Scripts = append(doc.Scripts, text.String())
			}
			if name == "title" || name == "text" || name == "script" {
				text = nil
			}
		}
	}
	if len(stack) != 0 {
		return nil, errors.New("unclosed elements")
	}
	return doc, nil
}

// tree builds the call tree Write draws.
func tree(t *testing.T, p *profile.Profile, th profile.ThreadID, vo view.Options) *calltree.Tree {
	t.Helper()
	tl, err := calls.NewTimeline(p, th)
	if err != nil {
		t.Fatal(err)
	}
	sb := calltree.NewStackBuilder(p, th)
	view.Stacks(tl, vo, func(s view.Stack) { sb.Add(s.Frames, s.Weight) })
	return sb.Finish()
}

func write(t testing.TB, p *profile.Profile, opts svg.Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := svg.Write(&b, p, opts); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func read(t testing.TB, name string) *profile.Profile {
	t.Helper()
	p, err := format.ReadFile(name, nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// label splits a frame's tooltip "label — X ms (Y%)".
func label(title string) string {
	i := strings.LastIndex(title, " \u2014 ")
	if i < 0 {
		return title
	}
	return title[:i]
}

// checkDoc checks what every output must satisfy: one frame per top-down
// node at least minW px wide, none narrower, labels that fit, and only the
// elements and attributes the writer uses.
func checkDoc(t *testing.T, doc *svgDoc, tr *calltree.Tree, minW float64) {
	t.Helper()
	want := 0
	root := float64(tr.TopDown[0].Total)
	for _, n := range tr.TopDown {
		if root > 0 && float64(n.Total)/root*plotW >= minW {
			want++
		}
	}
	if len(doc.Frames) != want {
		t.Errorf("got %d frames, want %d (top-down nodes at least %g px wide)", len(doc.Frames), want, minW)
	}
	for _, f := range doc.Frames {
		if f.W < minW-0.005 {
			t.Errorf("frame %q is %g px wide, narrower than %g", f.Title, f.W, minW)
		}
		if f.HasLabel && f.LabelClipW != f.W {
			t.Errorf("frame %q: label clipped to %g px, frame %g", f.Title, f.LabelClipW, f.W)
		}
		if !strings.HasPrefix(label(f.Title), f.Name) || f.Name == "" {
			t.Errorf("frame %q: name %q is not the start of its tooltip", f.Title, f.Name)
		}
		if short, ok := strings.CutSuffix(f.Label, "\u2026"); f.HasLabel && ok && !strings.HasPrefix(f.Name, short) {
			t.Errorf("frame %q: label %q does not start its name %q", f.Title, f.Label, f.Name)
		}
	}
	allowedElems := []string{"svg", "style", "rect", "text", "g", "title", "script"}
	for e := range doc.Elements {
		if !slices.Contains(allowedElems, e) {
			t.Errorf("unexpected element <%s>", e)
		}
	}
	allowedAttrs := []string{"xmlns", "version", "data-name", "width", "height", "viewBox", "id", "fill", "class", "x", "y", "display"}
	for a := range doc.Attrs {
		if !slices.Contains(allowedAttrs, a) {
			t.Errorf("unexpected attribute %s", a)
		}
	}
	if doc.Elements["script"] > 1 {
		t.Errorf("got %d <script> elements, want at most 1 (the zoom script)", doc.Elements["script"])
	}
}

// Every testdata profile gives well-formed XML with the expected frames,
// and the same bytes twice.
func TestTestdata(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../testdata/node/*.cpuprofile")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata profiles: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			p := read(t, file)
			start := time.Now()
			out := write(t, p, svg.Options{})
			took := time.Since(start)
			doc := parseSVG(t, out)
			checkDoc(t, doc, tree(t, p, 0, view.Options{}), 0.1)
			if doc.Width != 1200 {
				t.Errorf("width %d, want 1200", doc.Width)
			}
			if again := write(t, p, svg.Options{}); !bytes.Equal(again, out) {
				t.Error("a second Write gave different bytes")
			}
			t.Logf("%s: %d bytes of SVG, %d frames, height %d px, written in %v", filepath.Base(file), len(out), len(doc.Frames), doc.Height, took)
		})
	}
}

// Top-level frames fill the plotting width, and each frame's width is its
// total time's share of it.
func TestWidths(t *testing.T) {
	t.Parallel()
	p := read(t, "../../testdata/node/mix.cpuprofile")
	tr := tree(t, p, 0, view.Options{})
	doc := parseSVG(t, write(t, p, svg.Options{MinWidth: -1}))
	checkDoc(t, doc, tr, math.Inf(-1))
	td := tr.TopDown
	rootTotal := float64(td[0].Total)
	rows := map[float64][]svgFrame{}
	var ys []float64
	for _, f := range doc.Frames {
		if _, ok := rows[f.Y]; !ok {
			ys = append(ys, f.Y)
		}
		rows[f.Y] = append(rows[f.Y], f)
	}
	slices.Sort(ys)
	if len(rows[ys[0]]) != 1 || math.Abs(rows[ys[0]][0].W-plotW) > 0.005 || label(rows[ys[0]][0].Title) != "all" {
		t.Fatalf("top row %+v, want one frame \"all\" %g px wide", rows[ys[0]], plotW)
	}
	// Depth 1: the widths add up to the plotting width less the time of
	// stacks with no frame (none under the "all" view), within rounding.
	top := rows[ys[1]]
	var sum float64
	for _, f := range top {
		sum += f.W
	}
	want := plotW * float64(td[0].Total-td[0].Self) / rootTotal
	if math.Abs(sum-want) > 0.005*float64(len(top))+1e-9 {
		t.Errorf("depth-1 widths add up to %g px, want %g", sum, want)
	}
	// Frames follow the tree: for the hottest path down from the root,
	// each level's frames are the node's children, largest first, with
	// widths and x in proportion to their totals.
	byLabel := func(row []svgFrame, lo, hi float64) map[string]svgFrame {
		m := map[string]svgFrame{}
		for _, f := range row {
			if f.X >= lo-0.01 && f.X+f.W <= hi+0.01 {
				m[label(f.Title)] = f
			}
		}
		return m
	}
	n, lo, hi := int32(0), 10.0, 10+plotW
	checked := 0
	for depth := 1; depth < len(ys); depth++ {
		kids := calltree.Children(td, n, calltree.ByTotal)
		if len(kids) == 0 {
			break
		}
		got := byLabel(rows[ys[depth]], lo, hi)
		if len(got) != len(kids) {
			t.Errorf("depth %d: %d frames under the parent, want %d", depth, len(got), len(kids))
		}
		x := lo
		for _, c := range kids {
			name := frameLabel(p, tr, c)
			f, ok := got[name]
			if !ok {
				t.Errorf("depth %d: no frame %q", depth, name)
				continue
			}
			w := float64(td[c].Total) / rootTotal * plotW
			if math.Abs(f.W-w) > 0.006 || math.Abs(f.X-x) > 0.006 {
				t.Errorf("depth %d %q: x %g width %g, want %g %g", depth, name, f.X, f.W, x, w)
			}
			wantTitle := name + " \u2014 " + strconv.FormatFloat(td[c].Total.Millis(), 'f', 3, 64) + " ms (" +
				strconv.FormatFloat(float64(td[c].Total)/rootTotal*100, 'f', 2, 64) + "%)"
			if f.Title != wantTitle {
				t.Errorf("title %q, want %q", f.Title, wantTitle)
			}
			x += w
			checked++
		}
		n = kids[0]
		hot := got[frameLabel(p, tr, n)]
		lo, hi = hot.X, hot.X+hot.W
	}
	if checked < 10 {
		t.Errorf("checked only %d frames against the tree", checked)
	}
}

// frameLabel is the label the writer gives top-down node n (no hostile
// characters in the fixtures).
func frameLabel(p *profile.Profile, tr *calltree.Tree, n int32) string {
	f := &p.Frames[tr.Funcs[tr.TopDown[n].Func].Frame]
	s := p.Str(f.Name)
	if s == "" {
		s = "(anonymous)"
	}
	if u := p.Str(f.URL); u != "" {
		s += " " + u + ":" + strconv.Itoa(int(f.Line)+1) + ":" + strconv.Itoa(int(f.Column)+1)
	}
	return s
}

// hostileStrings are function names and URLs that try to break out of text
// and attributes, end a CDATA section, or carry characters XML cannot hold.
var hostileStrings = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(1)>`,
	`'><svg onload=alert(2)>`,
	`]]><script>alert(3)</script>`,
	`</title><script>alert(4)</script>`,
	`</text></svg><script>alert(5)</script>`,
	`&amp; &lt;script&gt; &#x3c;`,
	"nul\x00bell\x07esc\x1b tab\tnl\nCR\r del\x7f c1\u0085",
	"line\u2028para\u2029sep",
	"bad \xff\xfe utf8 \xc3( and \xed\xa0\x80 surrogate",
	"nonchar \uffff\ufffe end",
	"\u202eevil bidi",
	`javascript:alert(6)`,
}

// hostile builds a one-thread profile whose frames' names and URLs (and
// thread name) are hostileStrings: (root) → each name, each with a child
// whose URL is hostile.
func hostile(t testing.TB) *profile.Profile {
	t.Helper()
	b := profile.NewBuilder("cpuprofile")
	p := b.P
	root := b.Frame(profile.Frame{Name: b.Intern("(root)"), ScriptID: b.Intern("0"), Line: -1, Column: -1})
	p.Nodes = append(p.Nodes, profile.Node{Parent: profile.NoNode, Frame: root, InputID: 1})
	var leaves []profile.NodeID
	for i, s := range hostileStrings {
		f := b.Frame(profile.Frame{Name: b.Intern(s), URL: b.Intern("file:///ok.js"), ScriptID: b.Intern("1"), Line: int32(i), Column: 0})
		p.Nodes = append(p.Nodes, profile.Node{Parent: 0, Frame: f, InputID: int64(len(p.Nodes) + 1)})
		parent := profile.NodeID(len(p.Nodes) - 1)
		// A script per hostile URL: functions are told apart by script id.
		g := b.Frame(profile.Frame{Name: b.Intern("inner"), URL: b.Intern(s), ScriptID: b.Intern(strconv.Itoa(i + 2)), Line: 4, Column: 2})
		p.Nodes = append(p.Nodes, profile.Node{Parent: parent, Frame: g, InputID: int64(len(p.Nodes) + 1)})
		leaves = append(leaves, parent, profile.NodeID(len(p.Nodes)-1))
	}
	for i, n := range leaves {
		for range 3 + i%4 { // distinct weights, so the order is by total
			p.Samples.Node = append(p.Samples.Node, n)
			p.Samples.Time = append(p.Samples.Time, profile.Time(len(p.Samples.Time))*100_000)
		}
	}
	ns := len(p.Samples.Node)
	p.Threads = append(p.Threads, profile.Thread{
		Name:    "<script>alert('thread')</script>\x00",
		Nodes:   profile.Range{Start: 0, End: int32(len(p.Nodes))},
		Samples: profile.Range{Start: 0, End: int32(ns)},
		End:     profile.Time(ns) * 100_000,
	})
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	return p
}

// clean is what a hostile string must read as after a round trip: invalid
// bytes and control characters become U+FFFD (ranging over a string yields
// U+FFFD for each invalid byte), as do the non-characters XML cannot hold.
func clean(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0xfffe || r == 0xffff {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

const hostileTitle = `<script>alert("title")</script> & ]]>`

// Hostile names, URLs, thread name and title: the output parses, has no
// element or attribute of the data's making, and the tooltips read back as
// the original text.
func TestHostile(t *testing.T) {
	t.Parallel()
	p := hostile(t)
	out := write(t, p, svg.Options{Title: hostileTitle})
	doc := parseSVG(t, out)
	checkDoc(t, doc, tree(t, p, 0, view.Options{}), 0.1)
	if n := bytes.Count(out, []byte("<script")); n != 1 {
		t.Errorf("%d <script in the output, want 1 (the zoom script)", n)
	}
	for _, bad := range []string{"<img", "<svg onload", "]]><script", "\x00", "\u0085", "\xff"} {
		if bytes.Contains(out, []byte(bad)) {
			t.Errorf("output contains %q", bad)
		}
	}
	if !utf8.Valid(out) {
		t.Error("output is not valid UTF-8")
	}
	if len(doc.Scripts) != 1 || strings.Contains(doc.Scripts[0], "alert") {
		t.Errorf("scripts %q, want only the zoom script", doc.Scripts)
	}
	titles, names := map[string]bool{}, map[string]bool{}
	for _, f := range doc.Frames {
		titles[label(f.Title)] = true
		names[f.Name] = true
	}
	for i, s := range hostileStrings {
		for _, want := range []string{
			clean(s) + " file:///ok.js:" + strconv.Itoa(i+1) + ":1",
			"inner " + clean(s) + ":5:3",
		} {
			if !titles[want] {
				t.Errorf("no tooltip %q (from %q)", want, s)
			}
		}
		if !names[clean(s)] {
			t.Errorf("no frame named %q (from %q)", clean(s), s)
		}
	}
	if len(doc.Texts) < 2 || doc.Texts[0] != hostileTitle || !strings.HasPrefix(doc.Texts[1], clean(p.Threads[0].Name)+" (pid") {
		t.Errorf("heading texts %q, want the title and the thread name as given", doc.Texts)
	}
}

// A view that keeps no sample gives a valid, empty graph.
func TestNoSamples(t *testing.T) {
	t.Parallel()
	p := read(t, "../../testdata/node/mix.cpuprofile")
	out := write(t, p, svg.Options{View: view.Options{Focus: []view.Matcher{{Name: "no such function"}}}})
	doc := parseSVG(t, out)
	if len(doc.Frames) != 0 {
		t.Errorf("got %d frames, want 0", len(doc.Frames))
	}
}

func TestOptionErrors(t *testing.T) {
	t.Parallel()
	p := read(t, "../../testdata/node/mix.cpuprofile")
	for _, tc := range []struct {
		name string
		opts svg.Options
		want string
	}{
		{"thread", svg.Options{Thread: 3}, "thread 3 out of range"},
		{"width", svg.Options{Width: 50}, "want at least 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := svg.Write(io.Discard, p, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A stack 20,000 frames deep is drawn without recursion.
func TestDeep(t *testing.T) {
	t.Parallel()
	const depth = 20000
	b := profile.NewBuilder("cpuprofile")
	p := b.P
	p.Nodes = append(p.Nodes, profile.Node{Parent: profile.NoNode, Frame: b.Frame(profile.Frame{Name: b.Intern("(root)"), ScriptID: b.Intern("0"), Line: -1, Column: -1})})
	for i := range depth {
		f := b.Frame(profile.Frame{Name: b.Intern("f" + strconv.Itoa(i%7)), URL: b.Intern("a.js"), ScriptID: b.Intern("1"), Line: int32(i % 7), Column: 0})
		p.Nodes = append(p.Nodes, profile.Node{Parent: profile.NodeID(i), Frame: f})
	}
	for i := range 4 {
		p.Samples.Node = append(p.Samples.Node, profile.NodeID(depth))
		p.Samples.Time = append(p.Samples.Time, profile.Time(i)*1000)
	}
	p.Threads = []profile.Thread{{Nodes: profile.Range{End: depth + 1}, Samples: profile.Range{End: 4}, End: 4000}}
	doc := parseSVG(t, write(t, p, svg.Options{}))
	if len(doc.Frames) != depth+1 {
		t.Errorf("got %d frames, want %d", len(doc.Frames), depth+1)
	}
}

// The large DevTools fixture of the shared corpus: size and time.
func TestLargeCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("large profile: not in -short mode")
	}
	t.Parallel()
	p := read(t, proftest.Corpus(t, "devtools/large-profile.cpuprofile.gz"))
	for _, minW := range []float64{0.1, 1} {
		start := time.Now()
		out := write(t, p, svg.Options{MinWidth: minW})
		took := time.Since(start)
		doc := parseSVG(t, out)
		checkDoc(t, doc, tree(t, p, 0, view.Options{}), minW)
		t.Logf("large-profile.cpuprofile.gz, MinWidth %g: %d bytes of SVG, %d frames (of %d top-down nodes), height %d px, written in %v",
			minW, len(out), len(doc.Frames), len(tree(t, p, 0, view.Options{}).TopDown), doc.Height, took)
	}
}

func BenchmarkWrite(b *testing.B) {
	for _, name := range []string{"mix", "deep-stack"} {
		b.Run(name, func(b *testing.B) {
			p := read(b, "../../testdata/node/"+name+".cpuprofile")
			n := len(write(b, p, svg.Options{}))
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if err := svg.Write(io.Discard, p, svg.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("synthetic", func(b *testing.B) {
		p, err := format.Parse(proftest.LargeCPUProfile(1, 50_000, 100_000), format.Options{})
		if err != nil {
			b.Fatal(err)
		}
		n := len(write(b, p, svg.Options{}))
		b.SetBytes(int64(n))
		b.ReportAllocs()
		for b.Loop() {
			if err := svg.Write(io.Discard, p, svg.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
