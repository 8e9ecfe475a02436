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
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

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
	weight map[string]profile.Time
	labels []string // per frame, lazily
}

// NewWriter returns a Writer for stacks of p's frames.
func NewWriter(p *profile.Profile) *Writer {
	return &Writer{p: p, weight: map[string]profile.Time{}}
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
	fw.weight[b.String()] += w
}

// WriteTo writes the lines, sorted by stack for stable output.
func (fw *Writer) WriteTo(w io.Writer) (int64, error) {
	keys := make([]string, 0, len(fw.weight))
	for k := range fw.weight {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare[string])
	bw := bufio.NewWriter(w)
	var n int64
	for _, k := range keys {
		m, _ := fmt.Fprintf(bw, "%s %d\n", k, fw.weight[k])
		n += int64(m)
	}
	return n, bw.Flush()
}

// Line is one parsed folded line.
type Line struct {
	Frames []string
	Weight int64
}

// Parse reads folded stacks. Empty lines are skipped; a line without a
// numeric weight after its last space is an error naming the line.
func Parse(r io.Reader) ([]Line, error) {
	var out []Line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("line %d: no weight", n)
		}
		w, err := strconv.ParseInt(line[i+1:], 10, 64)
		if err != nil || w < 0 {
			return nil, fmt.Errorf("line %d: weight %q is not a non-negative integer", n, line[i+1:])
		}
		out = append(out, Line{Frames: strings.Split(line[:i], ";"), Weight: w})
	}
	return out, sc.Err()
}
