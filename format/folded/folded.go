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
type Writer struct {
	p      *profile.Profile
	index  map[string]int32 // line → index in keys and weight
	keys   []string
	weight []profile.Time
	labels []string // per frame, lazily
	byPath map[pathKey]int32
	frames []profile.FrameID // a stack's frames, when they come from its path
}

type pathKey struct {
	head string
	path int32
}

// NewWriter returns a Writer for stacks of p's frames.
func NewWriter(p *profile.Profile) *Writer {
	return &Writer{p: p, index: map[string]int32{}, byPath: map[pathKey]int32{}}
}

// AddStack adds a stack of an analysis (profile.ThreadStacks) below head,
// as AddWithHead does; a stack with a Path is looked up by it, so that a
// path seen before costs no label building (millions of stacks, thousands
// of paths). head must name the stack's thread when several are added.
func (fw *Writer) AddStack(head string, s *profile.Stack) {
	fw.addStack(head, nil, s)
}

// AddThread adds every stack of ts below head, as AddStack does; stacks
// without frames of their own take them from ts.Paths, once per path
// (session.Thread.PathStacks).
func (fw *Writer) AddThread(head string, ts profile.ThreadStacks) {
	if ts.Stacks == nil {
		return
	}
	for s := range ts.Stacks {
		fw.addStack(head, &ts, s)
	}
}

func (fw *Writer) addStack(head string, ts *profile.ThreadStacks, s *profile.Stack) {
	fromPath := ts != nil && ts.Paths != nil && s.Frames == nil && s.Path > 0
	if s.Weight <= 0 || len(s.Frames) == 0 && !fromPath {
		return
	}
	if s.Path > 0 {
		if i, ok := fw.byPath[pathKey{head, s.Path}]; ok {
			fw.weight[i] += s.Weight
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

// add adds weight w to the line of frames under head and returns its index.
func (fw *Writer) add(head string, frames []profile.FrameID, w profile.Time) int32 {
	for len(fw.labels) < len(fw.p.Frames) {
		fw.labels = append(fw.labels, "")
	}
	var b strings.Builder
	if head != "" {
		b.WriteString(labelReplacer.Replace(head))
	}
	for i, f := range frames {
		if i > 0 || head != "" {
			b.WriteByte(';')
		}
		if fw.labels[f] == "" {
			fw.labels[f] = Label(fw.p, &fw.p.Frames[f])
		}
		b.WriteString(fw.labels[f])
	}
	key := b.String()
	i, ok := fw.index[key]
	if !ok {
		i = int32(len(fw.keys))
		fw.index[key] = i
		fw.keys = append(fw.keys, key)
		fw.weight = append(fw.weight, 0)
	}
	fw.weight[i] += w
	return i
}

// WriteTo writes the lines, sorted by stack for stable output.
func (fw *Writer) WriteTo(w io.Writer) (int64, error) {
	order := make([]int32, len(fw.keys))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(fw.keys[a], fw.keys[b]) })
	bw := bufio.NewWriter(w)
	var n int64
	for _, i := range order {
		m, _ := fmt.Fprintf(bw, "%s %d\n", fw.keys[i], fw.weight[i])
		n += int64(m)
	}
	return n, bw.Flush()
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
