// Package folded reads and writes folded stacks, the text format of
// flamegraph.pl, speedscope and inferno: one line per distinct stack,
// "frame;frame;frame weight", root first.
//
// jsprof writes weights in nanoseconds (so that the sums equal its totals
// exactly) and frame names as "name url:line:col" with 1-based positions,
// or just the name when the frame has no URL. A ';' or newline inside a name
// would break the format and is replaced by ':' and a space.
package folded

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/jsprof/jsprof/profile"
)

// Label renders frame f as it appears in a folded line.
func Label(p *profile.Profile, f *profile.Frame) string {
	name := p.Str(f.Name)
	if name == "" {
		name = "(anonymous)"
	}
	if u := p.Str(f.URL); u != "" {
		if f.Line >= 0 {
			name += " " + u + ":" + strconv.Itoa(int(f.Line)+1)
			if f.Column >= 0 {
				name += ":" + strconv.Itoa(int(f.Column)+1)
			}
		} else {
			name += " " + u
		}
	}
	return labelReplacer.Replace(name)
}

var labelReplacer = strings.NewReplacer(";", ":", "\n", " ", "\r", " ")

// Writer aggregates weighted stacks and writes them folded.
//
// It keeps the lines as a trie of their labels (Label, and the head first
// when there is one), not as text: a line is a node, whose weight is the
// line's, and a stack of n frames is at most n new nodes, whatever the
// lines' length. A deep profile's folded text grows as the square of its
// depth (a chain of 20,000 frames writes 3.6 GB), which the Writer keeps
// out of memory: it holds one node per distinct prefix of the lines, and
// WriteTo makes each line as it writes it, from its parent's.
type Writer struct {
	p *profile.Profile
	// nodes[0] is the root, the empty line; node i's line is its parent's
	// and its label, ';' between them unless the parent is the root.
	nodes    []node
	children map[childKey]int32 // (parent, label) → node
	labels   []string           // by label id
	labelIDs map[string]int32
	frameIDs []int32 // label id of each frame, -1 until needed
	byPath   map[pathKey]int32
	// The last stack added from its frames, to start the next from where
	// they part: nodes[i] is the node of frames[:i+1] below head.
	last struct {
		head   int32
		frames []profile.FrameID
		nodes  []int32
	}
	frames []profile.FrameID // a stack's frames, when they come from its path
	chain  []int32           // paths met on the way to a known one
}

// node is one line, written when line is true (a stack ended there).
type node struct {
	label       int32
	firstChild  int32 // -1 when none
	nextSibling int32 // -1 when none
	line        bool
	weight      profile.Time
}

type childKey struct{ parent, label int32 }

type pathKey struct {
	head string
	path int32
}

// NewWriter returns a Writer for stacks of p's frames.
func NewWriter(p *profile.Profile) *Writer {
	fw := &Writer{
		p:        p,
		nodes:    []node{{label: -1, firstChild: -1, nextSibling: -1}},
		children: map[childKey]int32{},
		labelIDs: map[string]int32{},
		byPath:   map[pathKey]int32{},
	}
	fw.last.head = -1
	return fw
}

// AddStack adds a stack of an analysis (profile.ThreadStacks) below head,
// as AddWithHead does; a stack with a Path is looked up by it, so that a
// path seen before costs no walk of its frames (millions of stacks,
// thousands of paths). head must name the stack's thread when several are
// added.
func (fw *Writer) AddStack(head string, s *profile.Stack) {
	fw.addStack(head, nil, s)
}

// AddThread adds every stack of ts below head, as AddStack does. When
// ts.Paths is a valid tree of p's frames (profile.PathTree.Check), a
// stack's line is found from its path's, and a path's from its parent's,
// each once: a cost per stack and per path, whatever their depth. Else a
// stack without frames of its own takes them from ts.Paths, and a stack is
// walked frame by frame, as AddStack does (one call's paths are not
// mistaken for another's: head may be the same for several threads).
func (fw *Writer) AddThread(head string, ts profile.ThreadStacks) {
	if ts.Stacks == nil {
		return
	}
	if ts.Paths == nil || ts.Paths.Check(fw.p) != nil {
		for s := range ts.Stacks {
			fw.addStack(head, &ts, s)
		}
		return
	}
	// A node per path at most: made room for at once, the nodes and
	// their index are not grown and copied again (a fifth of the writer's
	// time on the typescript shape, 160 k paths).
	fw.nodes = slices.Grow(fw.nodes, ts.Paths.Len())
	if len(fw.children) == 0 {
		fw.children = make(map[childKey]int32, ts.Paths.Len())
	}
	// atPath[q] is the node of path q below head, -1 until met.
	atPath := make([]int32, ts.Paths.Len())
	for i := range atPath {
		atPath[i] = -1
	}
	atPath[0] = fw.headNode(head)
	for s := range ts.Stacks {
		if s.Weight > 0 && s.Path > 0 && int(s.Path) < len(atPath) && (s.Frames == nil || len(s.Frames) > 0) {
			fw.addWeight(fw.pathNode(ts.Paths, atPath, s.Path), s.Weight)
		} else {
			fw.addStack(head, &ts, s)
		}
	}
}

// pathNode returns the node of path q, found from that of its nearest
// ancestor already met (atPath, which it fills on the way down).
func (fw *Writer) pathNode(t *profile.PathTree, atPath []int32, q int32) int32 {
	fw.chain = fw.chain[:0]
	for atPath[q] < 0 {
		fw.chain = append(fw.chain, q)
		q = t.Parent[q]
	}
	n := atPath[q]
	for i := len(fw.chain) - 1; i >= 0; i-- {
		q = fw.chain[i]
		n = fw.child(n, fw.frameLabel(t.Frame[q]))
		atPath[q] = n
	}
	return n
}

func (fw *Writer) addStack(head string, ts *profile.ThreadStacks, s *profile.Stack) {
	fromPath := ts != nil && ts.Paths != nil && s.Frames == nil && s.Path > 0
	if s.Weight <= 0 || len(s.Frames) == 0 && !fromPath {
		return
	}
	if s.Path > 0 {
		if i, ok := fw.byPath[pathKey{head, s.Path}]; ok {
			fw.addWeight(i, s.Weight)
			return
		}
	}
	frames := s.Frames
	if fromPath {
		fw.frames = ts.StackFrames(s, fw.frames)
		if frames = fw.frames; len(frames) == 0 {
			return
		}
	}
	i := fw.add(head, frames, s.Weight)
	if s.Path > 0 {
		fw.byPath[pathKey{head, s.Path}] = i
	}
}

// Add adds a stack (root first) with weight w.
func (fw *Writer) Add(frames []profile.FrameID, w profile.Time) { fw.AddWithHead("", frames, w) }

// AddWithHead adds a stack (root first) with weight w, below a first frame
// named head when head is not "" (e.g. the thread, when several threads
// are written to one file).
func (fw *Writer) AddWithHead(head string, frames []profile.FrameID, w profile.Time) {
	if len(frames) == 0 || w <= 0 {
		return
	}
	fw.add(head, frames, w)
}

// add adds weight w to the line of frames under head and returns its node.
// It walks only the frames after those the last stack added shares with
// it (under the same head), comparing the shared ones.
func (fw *Writer) add(head string, frames []profile.FrameID, w profile.Time) int32 {
	h := fw.headNode(head)
	l := &fw.last
	k := 0
	if h == l.head {
		for k < len(frames) && k < len(l.frames) && frames[k] == l.frames[k] {
			k++
		}
	}
	l.head = h
	l.frames = append(l.frames[:k], frames[k:]...)
	l.nodes = l.nodes[:k]
	n := h
	if k > 0 {
		n = l.nodes[k-1]
	}
	for _, f := range frames[k:] {
		n = fw.child(n, fw.frameLabel(f))
		l.nodes = append(l.nodes, n)
	}
	fw.addWeight(n, w)
	return n
}

func (fw *Writer) addWeight(n int32, w profile.Time) {
	fw.nodes[n].weight += w
	fw.nodes[n].line = true
}

// headNode returns the node of head, a line's first label: the root when
// head is "".
func (fw *Writer) headNode(head string) int32 {
	if head == "" {
		return 0
	}
	return fw.child(0, fw.labelID(labelReplacer.Replace(head)))
}

// frameLabel returns the label id of frame f.
func (fw *Writer) frameLabel(f profile.FrameID) int32 {
	for len(fw.frameIDs) < len(fw.p.Frames) {
		fw.frameIDs = append(fw.frameIDs, -1)
	}
	if fw.frameIDs[f] < 0 {
		fw.frameIDs[f] = fw.labelID(Label(fw.p, &fw.p.Frames[f]))
	}
	return fw.frameIDs[f]
}

func (fw *Writer) labelID(label string) int32 {
	id, ok := fw.labelIDs[label]
	if !ok {
		id = int32(len(fw.labels))
		fw.labels = append(fw.labels, label)
		fw.labelIDs[label] = id
	}
	return id
}

// child returns the child of node parent with label id label, made if new.
func (fw *Writer) child(parent, label int32) int32 {
	k := childKey{parent, label}
	c, ok := fw.children[k]
	if !ok {
		c = int32(len(fw.nodes))
		fw.nodes = append(fw.nodes, node{label: label, firstChild: -1, nextSibling: fw.nodes[parent].firstChild})
		fw.nodes[parent].firstChild = c
		fw.children[k] = c
	}
	return c
}

// group is the lines of node n, exactly its line (below false) or those
// below it (below true), as WriteTo orders them.
type group struct {
	n     int32
	below bool
	sep   bool // a ';' before n's label: its parent is not the root
	at    int  // the length of n's parent's line
}

// WriteTo writes the lines, sorted by stack (in byte order of the lines'
// text) for stable output. It makes each line in one buffer from its
// parent's and writes it, so that it holds the longest line, not all the
// text.
//
// Labels hold no ';', so that below a line P (its own line comes first, as
// a prefix of the others), the lines of each child c fall in two runs of
// the sorted output: exactly "P;c", and those that start with "P;c;". No
// run's first text is a prefix of another's but where a run is one line
// that is ("f1" before "f10" and "f10;…"): the runs sort as their first
// texts, c and c+";" (from which "P;" is left out), and within a run the
// order is that of the same rule one level down. WriteTo
//  1. pushes the runs of the root's children on a stack, the first on
//     top;
//  2. pops a run: writes its line, or pushes the runs of its node's
//     children, the first on top, with the node's line in the buffer;
//  3. repeats 2 until the stack is empty.
func (fw *Writer) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	var n int64
	var buf []byte
	var stack []group
	push := func(parent int32, sep bool, at int) {
		first := len(stack)
		for c := fw.nodes[parent].firstChild; c >= 0; c = fw.nodes[c].nextSibling {
			if fw.nodes[c].line {
				stack = append(stack, group{n: c, sep: sep, at: at})
			}
			if fw.nodes[c].firstChild >= 0 {
				stack = append(stack, group{n: c, below: true, sep: sep, at: at})
			}
		}
		slices.SortFunc(stack[first:], func(a, b group) int {
			return -compareRuns(fw.labels[fw.nodes[a.n].label], a.below, fw.labels[fw.nodes[b.n].label], b.below)
		})
	}
	push(0, false, 0)
	for len(stack) > 0 {
		g := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		buf = buf[:g.at]
		if g.sep {
			buf = append(buf, ';')
		}
		buf = append(buf, fw.labels[fw.nodes[g.n].label]...)
		if g.below {
			push(g.n, true, len(buf))
			continue
		}
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(fw.nodes[g.n].weight), 10)
		buf = append(buf, '\n')
		// A line longer than bw's buffer goes to w as it is, without a
		// copy: bufio writes it directly when nothing is buffered.
		if len(buf) > bw.Size() && bw.Buffered() > 0 {
			if err := bw.Flush(); err != nil {
				return n, err
			}
		}
		m, err := bw.Write(buf)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// compareRuns compares two runs of lines below one line by their first
// texts: label a, followed by ';' when aBelow, against label b, followed
// by ';' when bBelow (see WriteTo).
func compareRuns(a string, aBelow bool, b string, bBelow bool) int {
	m := min(len(a), len(b))
	if c := strings.Compare(a[:m], b[:m]); c != 0 {
		return c
	}
	// The text that goes on, after the m bytes they share: the byte at m
	// or -1 where it ends.
	next := func(s string, below bool) int {
		switch {
		case m < len(s):
			return int(s[m])
		case below:
			return ';'
		}
		return -1
	}
	return cmp.Compare(next(a, aBelow), next(b, bBelow))
}

// Line is one parsed folded line.
type Line struct {
	Frames []string
	Weight int64
}

// Parse reads folded stacks (UTF-8, or UTF-16 with a byte-order mark).
// Empty lines are skipped; a line without a numeric weight after its last
// space is an error naming the line.
func Parse(r io.Reader) ([]Line, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	lines, bad, err := parseLines(data)
	if err == nil && bad.n > 0 {
		err = bad.first
	}
	if err != nil {
		return nil, err
	}
	return lines, nil
}

// invalid counts the lines parseLines skipped, and gives the first one's
// error.
type invalid struct {
	n     int64
	first error
}

// parseLines reads the folded lines of data, skipping (and counting) the
// invalid ones. UTF-16 input with a byte-order mark is decoded first, and a
// UTF-8 byte-order mark is dropped.
func parseLines(data []byte) ([]Line, invalid, error) {
	var out []Line
	var bad invalid
	text := decode(data)
	for n := 1; len(text) > 0; n++ {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		l, err := parseLine(line)
		if err != nil {
			bad.n++
			if bad.first == nil {
				bad.first = fmt.Errorf("line %d: %w", n, err)
			}
			continue
		}
		out = append(out, l)
	}
	return out, bad, nil
}

// parseLine parses one non-blank line.
func parseLine(line string) (Line, error) {
	i := strings.LastIndexByte(line, ' ')
	if i < 0 {
		return Line{}, errors.New("no weight")
	}
	w, err := strconv.ParseInt(line[i+1:], 10, 64)
	if err != nil || w < 0 {
		return Line{}, fmt.Errorf("weight %q is not a non-negative integer", line[i+1:])
	}
	return Line{Frames: strings.Split(line[:i], ";"), Weight: w}, nil
}

// decode returns data as text: UTF-16 (little or big endian) when it
// starts with that byte-order mark, else as it is without a UTF-8
// byte-order mark. An odd final byte of UTF-16 is dropped.
func decode(data []byte) string {
	var order binary.ByteOrder
	switch {
	case len(data) >= 2 && data[0] == 0xff && data[1] == 0xfe:
		order = binary.LittleEndian
	case len(data) >= 2 && data[0] == 0xfe && data[1] == 0xff:
		order = binary.BigEndian
	default:
		return string(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	}
	units := make([]uint16, 0, len(data)/2-1)
	for i := 2; i+1 < len(data); i += 2 {
		units = append(units, order.Uint16(data[i:]))
	}
	return string(utf16.Decode(units))
}
