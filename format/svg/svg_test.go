package svg_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/svg"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// plotW is the plotting width of the default 1200 px image (10 px margins).
const plotW = 1180.0

// svgFrame is one <g class="f"> of the output.
type svgFrame struct {
	Class      string
	Title      string
	Fill       string
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
				cur.X, cur.Y, cur.W, cur.Fill = num("x"), num("y"), num("width"), attr["fill"]
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

// analysed is a thread as `jsprof tree` sees it: the session's profile
// (with the trace events' frames), the stacks Write takes and the tree
// whose numbers the graph must show.
type analysed struct {
	p      *profile.Profile
	stacks profile.ThreadStacks
	tree   *calltree.Tree
}

// analyse opens a session on p and computes thread th's stacks and tree
// under vo.
func analyse(t testing.TB, p *profile.Profile, th profile.ThreadID, vo view.Options) *analysed {
	t.Helper()
	s := session.New("test", p, session.Options{})
	st := s.Threads()[th]
	ts, err := st.Stacks(t.Context(), vo)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := st.Tree(t.Context(), vo)
	if err != nil {
		t.Fatal(err)
	}
	return &analysed{s.Profile, ts, tree}
}

// shown is the time the graph shows, its root "all": the tree's time less
// the time out of the view (the root's self), which no stack with frames
// holds.
func (a *analysed) shown() profile.Time { return a.tree.TopDown[0].Total - a.tree.TopDown[0].Self }

func write(t testing.TB, a *analysed, opts svg.Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := svg.Write(&b, a.p, a.stacks, opts); err != nil {
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
// node of the session's tree with time, at least minW px wide, none
// narrower, labels that fit, and only the elements and attributes the
// writer uses.
func checkDoc(t *testing.T, doc *svgDoc, a *analysed, minW float64) {
	t.Helper()
	want := 0
	root := float64(a.shown())
	if root > 0 && plotW >= minW {
		want++ // "all"
	}
	for _, n := range a.tree.TopDown[1:] {
		if root > 0 && n.Total > 0 && float64(n.Total)/root*plotW >= minW {
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

// Every testdata profile gives well-formed XML with the frames of the
// session's tree and their times, and the same bytes twice.
func TestTestdata(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../testdata/node/*.cpuprofile")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata profiles: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			a := analyse(t, read(t, file), 0, view.Options{})
			start := time.Now()
			out := write(t, a, svg.Options{})
			took := time.Since(start)
			doc := parseSVG(t, out)
			checkDoc(t, doc, a, 0.1)
			checkTree(t, doc, a)
			if doc.Width != 1200 {
				t.Errorf("width %d, want 1200", doc.Width)
			}
			if again := write(t, a, svg.Options{}); !bytes.Equal(again, out) {
				t.Error("a second Write gave different bytes")
			}
			t.Logf("%s: %d bytes of SVG, %d frames, height %d px, written in %v", filepath.Base(file), len(out), len(doc.Frames), doc.Height, took)
		})
	}
}

// checkTree checks every frame of doc against the session's tree: frame
// instances are its top-down nodes (matched by the path of labels from the
// root), in preorder, children largest first; each frame's tooltip is its
// node's total (ms) and share of the shown time, its width that share of
// the plotting width and its x the exact sum of the totals to its left.
// It returns how many frames it checked.
func checkTree(t *testing.T, doc *svgDoc, a *analysed) int {
	t.Helper()
	td := a.tree.TopDown
	root := float64(a.shown())
	if len(doc.Frames) == 0 {
		if root > 0 {
			t.Errorf("no frame, want %g ms", root/1e6)
		}
		return 0
	}
	title := func(label string, total profile.Time) string {
		return label + " \u2014 " + strconv.FormatFloat(total.Millis(), 'f', 3, 64) + " ms (" +
			strconv.FormatFloat(float64(total)/root*100, 'f', 2, 64) + "%)"
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 0.005+1e-9 }
	// Per depth: the node, its left offset (ns) and the offset of the next
	// child to draw under it.
	type open struct {
		node      int32
		off, next int64
		used      map[int32]bool
	}
	var path []open
	checked := 0
	for i, f := range doc.Frames {
		depth := int((f.Y - 50) / 16)
		if i == 0 {
			if depth != 0 || f.Title != title("all", a.shown()) || !near(f.W, plotW) || !near(f.X, 10) {
				t.Fatalf("first frame %+v, want \"all\" %s px wide at depth 0", f, strconv.FormatFloat(plotW, 'f', -1, 64))
			}
			path = []open{{node: 0, used: map[int32]bool{}}}
			continue
		}
		if depth < 1 || depth > len(path) {
			t.Fatalf("frame %q at depth %d after a frame at depth %d", f.Title, depth, len(path)-1)
		}
		path = path[:depth]
		par := &path[depth-1]
		// The first unused child of the parent with this label (labels
		// can repeat: functions differing only by script id).
		n := int32(-1)
		for _, c := range calltree.Children(td, par.node, calltree.ByTotal) {
			if !par.used[c] && td[c].Total > 0 && frameLabel(a.p, a.tree, c) == label(f.Title) {
				n = c
				break
			}
		}
		if n < 0 {
			t.Errorf("frame %q at depth %d: no such node under %q", f.Title, depth, frameLabel(a.p, a.tree, par.node))
			return checked
		}
		par.used[n] = true
		off := par.next
		par.next += int64(td[n].Total)
		if want := title(frameLabel(a.p, a.tree, n), td[n].Total); f.Title != want {
			t.Errorf("title %q, want %q", f.Title, want)
		}
		w, x := float64(td[n].Total)/root*plotW, 10+float64(off)/root*plotW
		if !near(f.W, w) || !near(f.X, x) {
			t.Errorf("%q: x %g width %g, want %.3f %.3f", f.Title, f.X, f.W, x, w)
		}
		path = append(path, open{node: n, off: off, next: off, used: map[int32]bool{}})
		checked++
	}
	return checked
}

// Each frame's width is its node's total share of the plotting width, x
// the sum of the totals to its left, its tooltip the node's total: every
// node of the session's tree, under the "all" view and the JS view.
func TestWidths(t *testing.T) {
	t.Parallel()
	p := read(t, "../../testdata/node/mix.cpuprofile")
	for _, vo := range []view.Options{{}, {View: view.JS}} {
		a := analyse(t, p, 0, vo)
		doc := parseSVG(t, write(t, a, svg.Options{MinWidth: -1, View: vo.View.String()}))
		checkDoc(t, doc, a, math.Inf(-1))
		checked := checkTree(t, doc, a)
		wantSub := fmt.Sprintf("main (pid %d tid %d): %s ms, view %s; click a frame to zoom", p.Threads[0].PID, p.Threads[0].TID,
			strconv.FormatFloat(a.shown().Millis(), 'f', 3, 64), vo.View)
		if len(doc.Texts) < 2 || doc.Texts[1] != wantSub {
			t.Errorf("heading texts %q, want the subheading %q", doc.Texts, wantSub)
		}
		// Depth 1 fills the plotting width: the stacks with no frame are
		// not drawn.
		var sum float64
		for _, f := range doc.Frames {
			if f.Y == 66 {
				sum += f.W
			}
		}
		if math.Abs(sum-plotW) > 0.01*float64(len(doc.Frames)) {
			t.Errorf("view %s: depth-1 widths add up to %g px, want %g", vo.View, sum, plotW)
		}
		if checked < 100 {
			t.Errorf("view %s: checked only %d frames against the tree", vo.View, checked)
		}
		t.Logf("view %s: %d frames checked against the session's tree (%g ms shown, %g ms out of the view)", vo.View, checked,
			a.shown().Millis(), a.tree.TopDown[0].Self.Millis())
	}
}

// traceWithEvents is a corpus trace whose one sampled thread has trace
// events of several categories (EvaluateScript, ParseHTML, Layout, Paint,
// V8.CompileCode, …) above and below its JS functions.
const traceWithEvents = "devtools/simple-js-program.json.gz"

// hues are the hue and saturation of the category colours of the trace's
// events (those of the writer's table).
var hues = map[string][2]float64{"grey": {0, 0}, "yellow": {50, 0.95}, "purple": {275, 0.6}, "green": {120, 0.5}, "brown": {25, 0.45}}

// hueOf returns the hue (degrees) and saturation of a #rrggbb colour.
func hueOf(hex string) (h, s, l float64, ok bool) {
	v, err := strconv.ParseUint(strings.TrimPrefix(hex, "#"), 16, 32)
	if err != nil || len(hex) != 7 {
		return 0, 0, 0, false
	}
	r, g, b := float64(v>>16)/255, float64(v>>8&0xff)/255, float64(v&0xff)/255
	hi, lo := max(r, g, b), min(r, g, b)
	l = (hi + lo) / 2
	d := hi - lo
	if d == 0 {
		return 0, 0, l, true
	}
	s = d / (1 - math.Abs(2*l-1))
	switch hi {
	case r:
		h = 60 * math.Mod((g-b)/d, 6)
	case g:
		h = 60 * ((b-r)/d + 2)
	default:
		h = 60 * ((r-g)/d + 4)
	}
	if h < 0 {
		h += 360
	}
	return h, s, l, true
}

// A trace thread: its trace events are frames of their own, above and
// below the JS functions, with the session's times (checkTree), coloured
// by their category (Layout purple, Paint green, ParseHTML brown,
// V8.CompileCode yellow, the rest grey).
func TestTraceEvents(t *testing.T) {
	t.Parallel()
	p := read(t, proftest.Corpus(t, traceWithEvents))
	for _, vo := range []view.Options{{}, {View: view.JS}} {
		a := analyse(t, p, 0, vo)
		doc := parseSVG(t, write(t, a, svg.Options{MinWidth: -1}))
		checkDoc(t, doc, a, math.Inf(-1))
		checked := checkTree(t, doc, a)
		events := map[string]profile.CategoryID{}
		for _, f := range a.tree.Funcs {
			if fr := &a.p.Frames[f.Frame]; f.Key.Event {
				events[a.p.Str(fr.Name)] = fr.Category
			}
		}
		cats := map[string]bool{}
		drawn, above, below := 0, 0, 0
		kind := map[float64]bool{} // by depth, of the current path: an event?
		for _, f := range doc.Frames[1:] {
			c, isEvent := events[label(f.Title)]
			kind[f.Y] = isEvent
			if f.Y > 66 && kind[f.Y-16] != isEvent {
				if isEvent {
					below++ // an event called by JS
				} else {
					above++ // JS called by an event
				}
			}
			if !isEvent {
				continue
			}
			drawn++
			color := a.p.Categories[c].Color
			cats[color] = true
			want, ok := hues[color]
			h, s, l, okHex := hueOf(f.Fill)
			switch {
			case !ok || !okHex:
				t.Errorf("event %q: category colour %q, fill %q", label(f.Title), color, f.Fill)
			case want[1] == 0 && s > 0.01, want[1] > 0 && (math.Abs(h-want[0]) > 2 || math.Abs(s-want[1]) > 0.02), l < 0.61 || l > 0.83:
				t.Errorf("event %q (%s): fill %s is hue %.0f saturation %.2f lightness %.2f, want %v", label(f.Title), color, f.Fill, h, s, l, want)
			}
		}
		minCats := 4 // the JS view keeps fewer events: Layout, Paint and ParseHTML go
		if vo.View == view.JS {
			minCats = 2
		}
		if drawn < 5 || len(cats) < minCats || above == 0 || below == 0 {
			t.Errorf("view %s: %d event frames in %d colours, %d JS frames under an event, %d events under JS; want at least 5, %d, 1 and 1",
				vo.View, drawn, len(cats), above, below, minCats)
		}
		t.Logf("view %s: %d frames checked against the session's tree; %d trace-event frames of %d events, colours %v",
			vo.View, checked, drawn, len(events), slices.Sorted(maps.Keys(cats)))
	}
}

// frameLabel is the label the writer gives top-down node n: the name, then
// the URL and 1-based line and column when known (no hostile characters in
// the fixtures).
func frameLabel(p *profile.Profile, tr *calltree.Tree, n int32) string {
	if n == 0 {
		return "all"
	}
	f := &p.Frames[tr.Funcs[tr.TopDown[n].Func].Frame]
	s := p.Str(f.Name)
	if s == "" {
		s = "(anonymous)"
	}
	if u := p.Str(f.URL); u != "" {
		s += " " + u
		if f.Line >= 0 {
			s += ":" + strconv.Itoa(int(f.Line)+1)
			if f.Column >= 0 {
				s += ":" + strconv.Itoa(int(f.Column)+1)
			}
		}
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
			p.Samples.Node.Append(n)
			p.Samples.Time.Append(profile.Time(p.Samples.Time.Len()) * 100_000)
		}
	}
	ns := p.Samples.Node.Len()
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
	a := analyse(t, p, 0, view.Options{})
	out := write(t, a, svg.Options{Title: hostileTitle})
	doc := parseSVG(t, out)
	checkDoc(t, doc, a, 0.1)
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
	out := write(t, analyse(t, p, 0, view.Options{Focus: []view.Matcher{{Name: "no such function"}}}), svg.Options{})
	doc := parseSVG(t, out)
	if len(doc.Frames) != 0 {
		t.Errorf("got %d frames, want 0", len(doc.Frames))
	}
}

func TestOptionErrors(t *testing.T) {
	t.Parallel()
	a := analyse(t, read(t, "../../testdata/node/mix.cpuprofile"), 0, view.Options{})
	for _, tc := range []struct {
		name   string
		thread profile.ThreadID
		opts   svg.Options
		want   string
	}{
		{"thread", 3, svg.Options{}, "thread 3 out of range"},
		{"width", 0, svg.Options{Width: 50}, "want at least 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := svg.Write(io.Discard, a.p, profile.ThreadStacks{Thread: tc.thread, Stacks: a.stacks.Stacks}, tc.opts)
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
		p.Samples.Node.Append(profile.NodeID(depth))
		p.Samples.Time.Append(profile.Time(i) * 1000)
	}
	p.Threads = []profile.Thread{{Nodes: profile.Range{End: depth + 1}, Samples: profile.Range{End: 4}, End: 4000}}
	doc := parseSVG(t, write(t, analyse(t, p, 0, view.Options{}), svg.Options{}))
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
	a := analyse(t, read(t, proftest.Corpus(t, "devtools/large-profile.cpuprofile.gz")), 0, view.Options{})
	for _, minW := range []float64{0.1, 1} {
		start := time.Now()
		out := write(t, a, svg.Options{MinWidth: minW})
		took := time.Since(start)
		doc := parseSVG(t, out)
		checkDoc(t, doc, a, minW)
		checkTree(t, doc, a)
		t.Logf("large-profile.cpuprofile.gz, MinWidth %g: %d bytes of SVG, %d frames (of %d top-down nodes), height %d px, written in %v",
			minW, len(out), len(doc.Frames), len(a.tree.TopDown), doc.Height, took)
	}
}

func BenchmarkWrite(b *testing.B) {
	for _, name := range []string{"mix", "deep-stack"} {
		b.Run(name, func(b *testing.B) {
			a := analyse(b, read(b, "../../testdata/node/"+name+".cpuprofile"), 0, view.Options{})
			n := len(write(b, a, svg.Options{}))
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if err := svg.Write(io.Discard, a.p, a.stacks, svg.Options{}); err != nil {
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
		a := analyse(b, p, 0, view.Options{})
		n := len(write(b, a, svg.Options{}))
		b.SetBytes(int64(n))
		b.ReportAllocs()
		for b.Loop() {
			if err := svg.Write(io.Discard, a.p, a.stacks, svg.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
