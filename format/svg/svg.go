// Package svg writes a thread's samples as a self-contained SVG flame graph,
// hand-written (no dependency; flamegraph.pl is CDDL and none of its code is
// used).
//
// Input. The graph is drawn from one thread's time as weighted stacks
// (profile.ThreadStacks), as the analysis session computes them under a
// view and transforms; stacks with no frames (idle or out-of-view time) are
// left out. Aggregated, the stacks give the session's tree: each frame's
// time is its node's total, as `jsprof tree` shows it. Trace events on the
// stacks (frames of kind profile.KindEvent, such as Layout or
// FunctionCall) are frames like the JS functions.
//
// Layout. The graph is an icicle, as in the DevTools flame chart: the root
// ("all", the time of the thread's stacks) is the top row and
// callees hang below their callers, one 16 px row per stack depth. Each
// frame instance is a top-down call-tree node (a path of functions from the
// root, merged by profile.FunctionKey) and is drawn as
// one <g class="f"> holding a <title> tooltip "name url:line:col — X ms
// (Y%)" (1-based positions, no location when the frame has no URL; Y of the
// root's time), a <rect> and, when at least three characters fit, a <text>
// label clipped to the frame by a nested <svg>: the function name
// ("(anonymous)" when empty), shortened with "…" to the estimated width
// (7 px a character). When the label is shortened or absent the <g> carries
// the full name in data-name, for the zoom script.
//
// Widths and order. A frame is Total/root Total of the plotting width (the
// image width less 10 px margins on each side); its x comes from the exact
// integer sum of the totals to its left, so rounding does not accumulate.
// Children are laid out left to right by total time, largest first (ties in
// the order the stacks first reached them, which is deterministic for an
// input), under the left edge of their parent; a parent's self time is the
// space to the right of its children. Frames narrower than Options.MinWidth
// are not drawn, nor are their descendants: their time stays in the parent.
// This bounds the output: at most Width/MinWidth frames per row.
//
// Colours. A frame takes the colour of its jsprof category (the frame's
// profile.Frame.Category: a trace event's is that of jsprof's rule for its
// name, as the session sets it; a JS function's JavaScript): the
// category's CSS colour name (profile.Category.Color) picks a hue and
// saturation, and an FNV-1a hash of the function name picks the lightness
// (62–82 %), so neighbouring functions differ. "transparent" (Idle) is drawn
// pale grey with a dashed outline; an unknown colour name is grey. Text is
// black.
//
// Untrusted text. Every string from the profile (names, URLs, the thread
// name) is data: invalid UTF-8 bytes, control characters (C0 including tab
// and newline, DEL, C1) and code points XML 1.0 cannot carry (U+FFFE,
// U+FFFF) become U+FFFD, and & < > " ' are escaped as entities, so the
// output is well-formed XML whatever the input. The optional click-to-zoom
// script (see Options.NoScript) is a constant: it reads the profile's
// strings only as data (textContent, the data-name attribute) and writes
// them only as textContent; it never evaluates them or builds markup.
//
// The output is deterministic: the same profile and options give the same
// bytes.
package svg

import (
	"bufio"
	"cmp"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jsprof/jsprof/profile"
)

// Options controls Write. The zero value draws 1200 px wide, hiding frames
// narrower than 0.1 px, with the zoom script.
type Options struct {
	// Width is the image width in px; 0 means 1200. At least 100.
	Width int
	// MinWidth is the narrowest frame drawn, in px; 0 means 0.1, and a
	// negative value draws every frame.
	MinWidth float64
	// Title is the heading; "" means "Flame graph".
	Title string
	// NoScript leaves out the click-to-zoom script (for pages whose content
	// security policy forbids inline scripts); tooltips still work.
	NoScript bool
	// View names the view the stacks were computed under, for the
	// subheading; "" names none.
	View string
}

// Layout constants, in px.
const (
	pad       = 10   // left and right margins
	rowHeight = 16   // one stack level
	boxHeight = 15   // a frame's rect (1 px gap between rows)
	top       = 50   // the heading and subheading
	bottom    = 26   // the details line
	charWidth = 7.0  // estimated advance of a 12 px label character
	textPad   = 3    // label inset from the frame's left edge
	textBase  = 11.5 // label baseline from the frame's top
	minChars  = 3    // a label needs room for this many characters
)

// tree is the top-down tree of a thread's stacks: node 0 is the root, and
// a node is a path of functions (profile.FunctionKey) from it. A node comes
// after its parent.
type tree struct {
	funcs []profile.FrameID // per function: the first frame seen
	nodes []node
}

type node struct {
	fn          int32 // index in funcs; −1 for the root
	parent      int32 // −1 for the root
	kids        []int32
	self, total profile.Time
}

// addChild appends a node of function fn under node n and returns it.
func (t *tree) addChild(n, fn int32) int32 {
	c := int32(len(t.nodes))
	t.nodes = append(t.nodes, node{fn: fn, parent: n})
	t.nodes[n].kids = append(t.nodes[n].kids, c)
	return c
}

// sumTotals adds each node's self time and its children's totals to its
// total, children before parents: a stack's weight, put on the self of its
// last node, is then on the total of every node of its path, at one step
// per node rather than one per frame of every stack.
func (t *tree) sumTotals() {
	for i := len(t.nodes) - 1; i > 0; i-- {
		nd := &t.nodes[i]
		nd.total += nd.self
		t.nodes[nd.parent].total += nd.total
	}
}

// build aggregates the stacks of ts, leaving out those with no frames: a
// stack's weight is self time of its last node and total time of every
// node on its path.
//
// A stack's node is found once per call path when ts.Paths gives the
// paths (see pathNodes), else by walking its frames; totals are summed at
// the end. So a thread costs time linear in its stacks and paths, not in
// their frames, which on deep stacks (a chain 20 k frames deep, each stack
// a frame deeper than the last) was quadratic: 5 s for 20 k frames.
func build(p *profile.Profile, ts profile.ThreadStacks) (*tree, error) {
	// A node per call path at most, when the paths are given: made room
	// for at once, the nodes (48 bytes each) and their index are not
	// grown and copied again (the many-nodes shape: 350 k nodes, a fifth
	// of the writer's time).
	size := 1
	if ts.Paths != nil {
		size = ts.Paths.Len()
	}
	t := &tree{nodes: make([]node, 1, size)}
	t.nodes[0] = node{fn: -1, parent: -1}
	funcOf := map[profile.FunctionKey]int32{}
	frameFn := make([]int32, len(p.Frames)) // FrameID → function+1
	child := make(map[[2]int32]int32, size)
	r := newPathNodes(p, ts.Paths, func(n int32, f profile.FrameID) (int32, bool) {
		fn := frameFn[f] - 1
		if fn < 0 {
			k := p.FunctionKey(f)
			var ok bool
			if fn, ok = funcOf[k]; !ok {
				fn = int32(len(t.funcs))
				t.funcs = append(t.funcs, f)
				funcOf[k] = fn
			}
			frameFn[f] = fn + 1
		}
		c, ok := child[[2]int32{n, fn}]
		if !ok {
			c = t.addChild(n, fn)
			child[[2]int32{n, fn}] = c
		}
		return c, true
	})
	var err error
	ts.Stacks(func(s *profile.Stack) bool {
		if s.Weight <= 0 || len(s.Frames) == 0 && !r.hasPath(s) {
			return true
		}
		var n int32
		if n, _, err = r.node(s); err != nil {
			return false
		}
		t.nodes[n].self += s.Weight
		return true
	})
	t.sumTotals()
	return t, err
}

// pathNodes finds the tree node of each stack's call path: with a path
// tree (profile.ThreadStacks.Paths), once per path, from the node of the
// path's parent; without, by walking the stack's frames from the root.
type pathNodes struct {
	p     *profile.Profile
	paths *profile.PathTree // nil: walk the frames
	// memo, per path: node+1 when every frame of the path has a node,
	// −(node+1) of the deepest that has when not, 0 when not met yet.
	memo []int32
	step func(n int32, f profile.FrameID) (int32, bool)
	tmp  []int32
}

// newPathNodes returns the pathNodes of a thread's stacks, whose frames
// are in p and whose paths (nil if not known) are paths. step returns the
// child of node n for frame f, false when there is none (it is called once
// per path, or frame of a stack without paths, from the root down).
func newPathNodes(p *profile.Profile, paths *profile.PathTree, step func(n int32, f profile.FrameID) (int32, bool)) *pathNodes {
	r := &pathNodes{p: p, step: step}
	if paths != nil && paths.Check(p) == nil {
		r.paths = paths
		r.memo = make([]int32, paths.Len())
		r.memo[0] = 1 // the empty path is the root
	}
	return r
}

// hasPath reports whether s's frames are those of its path in the path
// tree: a stack without frames of its own (session.Thread.PathStacks) has
// them there.
func (r *pathNodes) hasPath(s *profile.Stack) bool {
	return r.paths != nil && s.Path > 0 && int(s.Path) < len(r.memo)
}

// node returns the node of stack s's path and true, or, when step finds no
// node for one of its frames, the deepest node of the path and false; an
// error for a frame not in the profile.
func (r *pathNodes) node(s *profile.Stack) (int32, bool, error) {
	if !r.hasPath(s) {
		return r.walk(s.Frames)
	}
	if v := r.memo[s.Path]; v != 0 {
		n, ok := decodeNode(v)
		return n, ok, nil
	}
	// The path and its ancestors not met yet, deepest first, then their
	// nodes from the nearest ancestor met.
	r.tmp = r.tmp[:0]
	q := s.Path
	for ; r.memo[q] == 0; q = r.paths.Parent[q] {
		r.tmp = append(r.tmp, q)
	}
	n, ok := decodeNode(r.memo[q])
	for k := len(r.tmp) - 1; k >= 0; k-- {
		x := r.tmp[k]
		if ok {
			if c, found := r.step(n, r.paths.Frame[x]); found {
				n = c
			} else {
				ok = false
			}
		}
		if ok {
			r.memo[x] = n + 1
		} else {
			r.memo[x] = -(n + 1)
		}
	}
	return n, ok, nil
}

func decodeNode(v int32) (int32, bool) {
	if v < 0 {
		return -v - 1, false
	}
	return v - 1, true
}

// walk is node for a stack without a known path: one step per frame.
func (r *pathNodes) walk(frames []profile.FrameID) (int32, bool, error) {
	n := int32(0)
	for _, f := range frames {
		if f < 0 || int(f) >= len(r.p.Frames) {
			return 0, false, fmt.Errorf("svg: stack frame %d out of range; the profile has %d frames", f, len(r.p.Frames))
		}
		c, ok := r.step(n, f)
		if !ok {
			return n, false, nil
		}
		n = c
	}
	return n, true, nil
}

// children returns the children of node n, largest total first, ties in
// the order the stacks first reached them.
func (t *tree) children(n int32) []int32 {
	kids := slices.Clone(t.nodes[n].kids)
	slices.SortStableFunc(kids, func(a, b int32) int { return cmp.Compare(t.nodes[b].total, t.nodes[a].total) })
	return kids
}

// frame is one frame instance to draw.
type frame struct {
	node  int32 // top-down node; 0 is the root
	depth int32
	off   int64 // ns of the root's time to the frame's left
}

// Write draws the flame graph of one thread's stacks. p is the profile the
// stacks' frames and thread index (for a session, its Profile, which has
// the trace events' frames); it is not modified.
func Write(w io.Writer, p *profile.Profile, stacks profile.ThreadStacks, opts Options) error {
	width, minW, err := opts.sizes()
	if err != nil {
		return err
	}
	if stacks.Thread < 0 || int(stacks.Thread) >= len(p.Threads) {
		return fmt.Errorf("svg: thread %d out of range; the profile has %d threads", stacks.Thread, len(p.Threads))
	}
	if stacks.Stacks == nil {
		stacks.Stacks = func(func(*profile.Stack) bool) {}
	}
	t, err := build(p, stacks)
	if err != nil {
		return err
	}

	plotW := float64(width - 2*pad)
	frames := layout(t, plotW, minW)
	depth := int32(0)
	for _, f := range frames {
		depth = max(depth, f.depth)
	}
	height := top + int(depth+1)*rowHeight + bottom

	e := &encoder{w: bufio.NewWriterSize(w, 64<<10), p: p, t: t, plotW: plotW, labels: make([]string, len(t.funcs)),
		names: make([]string, len(t.funcs)), fills: make([]string, len(t.funcs))}
	e.header(width, height, opts, &p.Threads[stacks.Thread])
	for _, f := range frames {
		e.frame(f)
	}
	e.footer(width, height, opts)
	return e.w.Flush()
}

// layout returns the frames to draw in preorder, left to right: an explicit
// stack, because stacks can be thousands of frames deep.
func layout(t *tree, plotW, minW float64) []frame {
	td := t.nodes
	rootTotal := td[0].total
	if rootTotal <= 0 {
		return nil
	}
	var out []frame
	stack := []frame{{node: 0}}
	var kids []frame
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, f)
		kids = kids[:0]
		off := f.off
		for _, c := range t.children(f.node) {
			if float64(td[c].total)/float64(rootTotal)*plotW >= minW {
				kids = append(kids, frame{node: c, depth: f.depth + 1, off: off})
			}
			off += int64(td[c].total)
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	return out
}

type encoder struct {
	w      *bufio.Writer
	p      *profile.Profile
	t      *tree
	plotW  float64
	labels []string // per function: sanitised tooltip label, lazily
	names  []string // per function: sanitised function name, lazily
	fills  []string // per function: fill colour, lazily
	num    []byte
}

func (e *encoder) header(width, height int, opts Options, th *profile.Thread) {
	title := opts.Title
	if title == "" {
		title = "Flame graph"
	}
	name := th.Name
	if name == "" {
		name = "thread"
	}
	sub := fmt.Sprintf("%s (pid %d tid %d): %s ms", name, th.PID, th.TID, ms(e.t.nodes[0].total))
	if opts.View != "" {
		sub += ", view " + opts.View
	}
	sub += "; click a frame to zoom"
	if opts.NoScript {
		sub = strings.TrimSuffix(sub, "; click a frame to zoom")
	}
	if e.t.nodes[0].total <= 0 {
		sub = name + ": no samples in this view"
	}
	e.head(width, height, title, sub, opts.NoScript)
}

// head writes the SVG's start: the document and its style, the background,
// the title and subheading, the reset-zoom control (unless noScript), and
// opens the frames' group.
func (e *encoder) head(width, height int, title, sub string, noScript bool) {
	w := e.w
	fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%d" height="%d" viewBox="0 0 %d %d">
<style>
text{font:12px Verdana,"DejaVu Sans",sans-serif;fill:#000}
.h{font-size:17px;text-anchor:middle}
.s{fill:#555;text-anchor:middle}
.f rect{rx:2px;ry:2px}
.f:hover rect{stroke:#000;stroke-width:.5}
.idle rect{stroke:#999;stroke-dasharray:2 1}
.f{cursor:pointer}
#unzoom{cursor:pointer;fill:#03c}
</style>
<rect id="bg" width="100%%" height="100%%" fill="#fff"/>
`, width, height, width, height)
	fmt.Fprintf(w, `<text class="h" x="%d" y="22">`, width/2)
	writeEscaped(w, sanitize(title))
	fmt.Fprintf(w, "</text>\n<text class=\"s\" x=\"%d\" y=\"40\">", width/2)
	writeEscaped(w, sanitize(sub))
	w.WriteString("</text>\n")
	if !noScript {
		w.WriteString(`<text id="unzoom" x="10" y="22" display="none">Reset zoom</text>` + "\n")
	}
	w.WriteString("<g id=\"frames\">\n")
}

func (e *encoder) footer(width, height int, opts Options) {
	w := e.w
	w.WriteString("</g>\n")
	fmt.Fprintf(w, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", pad, height-9)
	if !opts.NoScript {
		w.WriteString("<script><![CDATA[\n")
		w.WriteString(zoomScript)
		w.WriteString("]]></script>\n")
	}
	w.WriteString("</svg>\n")
}

// frame writes one frame instance.
func (e *encoder) frame(f frame) {
	td := e.t.nodes
	n := &td[f.node]
	rootTotal := float64(td[0].total)
	x := pad + float64(f.off)/rootTotal*e.plotW
	wd := float64(n.total) / rootTotal * e.plotW
	y := top + int(f.depth)*rowHeight

	label, name, fill := "all", "all", "#d0d0d0"
	idle := false
	if f.node != 0 {
		fn := n.fn
		fr := &e.p.Frames[e.t.funcs[fn]]
		if e.labels[fn] == "" {
			e.labels[fn] = sanitize(frameLabel(e.p, fr))
			e.names[fn] = sanitize(funcName(e.p, fr))
			e.fills[fn] = fillOf(e.p, fr)
		}
		label, name, fill = e.labels[fn], e.names[fn], e.fills[fn]
		idle = fr.Kind == profile.KindIdle
	}
	text := fit(name, wd)

	w := e.w
	if idle {
		w.WriteString(`<g class="f idle"`)
	} else {
		w.WriteString(`<g class="f"`)
	}
	if text != name {
		// The zoom script refits labels from the full name.
		w.WriteString(` data-name="`)
		writeEscaped(w, name)
		w.WriteByte('"')
	}
	w.WriteString("><title>")
	writeEscaped(w, label)
	w.WriteString(" \u2014 ")
	w.WriteString(ms(n.total))
	w.WriteString(" ms (")
	w.WriteString(strconv.FormatFloat(float64(n.total)/rootTotal*100, 'f', 2, 64))
	w.WriteString("%)</title><rect x=\"")
	e.float(x)
	w.WriteString(`" y="`)
	w.WriteString(strconv.Itoa(y))
	w.WriteString(`" width="`)
	e.float(wd)
	w.WriteString(`" height="` + strconv.Itoa(boxHeight) + `" fill="`)
	w.WriteString(fill)
	w.WriteString(`"/>`)
	if text != "" {
		w.WriteString(`<svg x="`)
		e.float(x)
		w.WriteString(`" y="`)
		w.WriteString(strconv.Itoa(y))
		w.WriteString(`" width="`)
		e.float(wd)
		w.WriteString(`" height="` + strconv.Itoa(boxHeight) + `"><text x="` + strconv.Itoa(textPad) + `" y="` + strconv.FormatFloat(textBase, 'f', -1, 64) + `">`)
		writeEscaped(w, text)
		w.WriteString("</text></svg>")
	}
	w.WriteString("</g>\n")
}

// float writes v with at most two decimals, without trailing zeros.
func (e *encoder) float(v float64) {
	b := strconv.AppendFloat(e.num[:0], v, 'f', 2, 64)
	b = trimZeros(b)
	e.num = b
	e.w.Write(b)
}

func trimZeros(b []byte) []byte {
	for len(b) > 0 && b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	if len(b) == 0 || string(b) == "-" {
		return append(b[:0], '0')
	}
	return b
}

// ms formats a duration in ms with three decimals, as jsprof's tables do.
func ms(t profile.Time) string { return strconv.FormatFloat(t.Millis(), 'f', 3, 64) }

// funcName is a frame's function name, "(anonymous)" when empty.
func funcName(p *profile.Profile, f *profile.Frame) string {
	if name := p.Str(f.Name); name != "" {
		return name
	}
	return "(anonymous)"
}

// frameLabel is a frame's function name, then "url:line:col" (1-based)
// when it has a URL.
func frameLabel(p *profile.Profile, f *profile.Frame) string {
	name := funcName(p, f)
	u := p.Str(f.URL)
	if u == "" {
		return name
	}
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte(' ')
	b.WriteString(u)
	if f.Line >= 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(int(f.Line) + 1))
		if f.Column >= 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(int(f.Column) + 1))
		}
	}
	return b.String()
}

// fit returns the function name shortened with "…" to what fits in a frame w px
// wide, estimating charWidth px per character, or "" when not even minChars
// fit. The nested <svg> clips what the estimate gets wrong (wide glyphs).
func fit(name string, w float64) string {
	n := int(math.Floor((w - 2*textPad) / charWidth))
	if n < minChars {
		return ""
	}
	if utf8.RuneCountInString(name) <= n {
		return name
	}
	i, k := 0, 0
	for k < n-1 {
		_, size := utf8.DecodeRuneInString(name[i:])
		i += size
		k++
	}
	return name[:i] + "\u2026"
}

// replaced reports whether sanitize replaces rune r: control characters and
// what XML 1.0's Char production excludes.
func replaced(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0xd800 && r <= 0xdfff, r == 0xfffe, r == 0xffff, r > 0x10ffff:
		return true
	}
	return false
}

// sanitize returns s with invalid UTF-8 bytes, control characters and code
// points XML cannot carry replaced by U+FFFD.
func sanitize(s string) string {
	clean := true
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || replaced(r) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || replaced(r) {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// writeEscaped writes a sanitised string with & < > " ' escaped, for text
// and attribute values alike.
func writeEscaped(w *bufio.Writer, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		default:
			continue
		}
		w.WriteString(s[last:i])
		w.WriteString(esc)
		last = i + 1
	}
	w.WriteString(s[last:])
}

// hues maps the CSS colour names of categories to a hue (degrees) and
// saturation (0–1). Unknown names are grey.
var hues = map[string][2]float64{
	"grey":       {0, 0},
	"gray":       {0, 0},
	"darkgray":   {0, 0},
	"yellow":     {50, 0.95},
	"orange":     {30, 0.95},
	"red":        {0, 0.8},
	"lightred":   {0, 0.65},
	"magenta":    {300, 0.6},
	"purple":     {275, 0.6},
	"blue":       {215, 0.8},
	"lightblue":  {195, 0.75},
	"green":      {120, 0.5},
	"lightgreen": {100, 0.45},
	"teal":       {180, 0.5},
	"brown":      {25, 0.45},
}

// fillOf returns the fill colour of frame f, from its category.
func fillOf(p *profile.Profile, f *profile.Frame) string {
	c := f.Category
	color := "grey"
	if int(c) < len(p.Categories) {
		color = p.Categories[c].Color
	}
	if color == "transparent" {
		return "#f7f7f7"
	}
	hs, ok := hues[color]
	if !ok {
		hs = hues["grey"]
	}
	h := fnv.New32a()
	h.Write([]byte(p.Str(f.Name)))
	l := 0.62 + 0.20*float64(h.Sum32()%1024)/1023
	return hsl(hs[0], hs[1], l)
}

// hsl returns the colour as #rrggbb.
func hsl(h, s, l float64) string {
	c := (1 - math.Abs(2*l-1)) * s
	hp := h / 60
	x := c * (1 - math.Abs(math.Mod(hp, 2)-1))
	var r, g, b float64
	switch {
	case hp < 1:
		r, g = c, x
	case hp < 2:
		r, g = x, c
	case hp < 3:
		g, b = c, x
	case hp < 4:
		g, b = x, c
	case hp < 5:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := l - c/2
	to := func(v float64) int { return int(math.Round((v + m) * 255)) }
	return fmt.Sprintf("#%02x%02x%02x", to(r), to(g), to(b))
}

// sizes returns the image width and the narrowest frame drawn, in px, with
// their defaults, or an error for a width under 100 px.
func (o *Options) sizes() (width int, minWidth float64, err error) {
	width, minWidth = o.Width, o.MinWidth
	if width == 0 {
		width = 1200
	}
	if width < 100 {
		return 0, 0, fmt.Errorf("svg: width %d px is too small; want at least 100", width)
	}
	if minWidth == 0 {
		minWidth = 0.1
	}
	return width, minWidth, nil
}
