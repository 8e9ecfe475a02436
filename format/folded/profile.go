package folded

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/jsprof/jsprof/profile"
)

var location = regexp.MustCompile(`^(.*) (\S+?):(\d+)(?::(\d+))?$`)

// ParseProfile reads folded stacks into a profile of one thread. Folded
// stacks have no times: each line becomes one sample lasting its weight (ns,
// as jsprof writes them), the samples laid end to end from 0, and the last
// sample's end is recorded so that every line keeps its weight exactly.
// Frames written by Label ("name url:line:col") get their URL and position
// back. UTF-16 input with a byte-order mark is decoded. Lines that are not
// folded stacks (no weight, a weight that is not a non-negative integer) are
// skipped and counted in the diagnostic "invalid-line"; an input with no
// valid line is an error naming its first line.
func ParseProfile(r io.Reader) (*profile.Profile, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	lines, bad, err := parseLines(data)
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		if bad.first != nil {
			return nil, bad.first
		}
		return nil, &profile.ParseError{Offset: 0, Err: profile.ErrEmpty}
	}
	b := profile.NewBuilder("folded")
	p := b.P
	frameOf := map[string]profile.FrameID{}
	frame := func(label string) profile.FrameID {
		if f, ok := frameOf[label]; ok {
			return f
		}
		fr := profile.Frame{Name: b.Intern(label), ScriptID: b.Intern("0"), Line: -1, Column: -1}
		if m := location.FindStringSubmatch(label); m != nil {
			line, _ := strconv.Atoi(m[3])
			fr = profile.Frame{Name: b.Intern(m[1]), URL: b.Intern(m[2]), ScriptID: b.Intern(m[2]), Line: int32(line - 1), Column: -1}
			if m[4] != "" {
				col, _ := strconv.Atoi(m[4])
				fr.Column = int32(col - 1)
			}
		}
		if name := p.Str(fr.Name); name == "(anonymous)" {
			fr.Name = 0
		}
		f := b.Frame(fr)
		frameOf[label] = f
		return f
	}
	root := b.Frame(profile.Frame{Name: b.Intern("(root)"), ScriptID: b.Intern("0"), Line: -1, Column: -1})
	p.Nodes = append(p.Nodes, profile.Node{Parent: profile.NoNode, Frame: root, InputID: 1})
	child := map[[2]int32]profile.NodeID{}
	var t profile.Time
	for _, l := range lines {
		n := profile.NodeID(0)
		for _, label := range l.Frames {
			f := frame(label)
			k := [2]int32{int32(n), int32(f)}
			c, ok := child[k]
			if !ok {
				c = profile.NodeID(len(p.Nodes))
				p.Nodes = append(p.Nodes, profile.Node{Parent: n, Frame: f, InputID: int64(c) + 1})
				child[k] = c
			}
			n = c
		}
		p.Nodes[n].HitCount++
		p.Samples.Node.Append(n)
		p.Samples.Time.Append(t)
		if l.Weight > 1<<62-int64(t) {
			return nil, fmt.Errorf("weights add up beyond %d ns", int64(1)<<62)
		}
		t += profile.Time(l.Weight)
	}
	p.Threads = []profile.Thread{{PID: 1, TID: 1, Name: "main", Nodes: profile.Range{Start: 0, End: int32(len(p.Nodes))},
		Samples: profile.Range{Start: 0, End: int32(p.Samples.Node.Len())}, End: t, LastSampleEnd: t}}
	if bad.n > 0 {
		p.Diagnostics.Add("invalid-line", bad.n, "%d lines are not folded stacks (\"frame;frame weight\") and were skipped; the first: %v", bad.n, bad.first)
	}
	p.Diagnostics.Add("synthetic-times", int64(len(lines)), "folded stacks have no times: %d samples were laid end to end, each lasting its weight", len(lines))
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("internal error: %w", err)
	}
	return p, nil
}

// Sniff reports whether data looks like folded stacks: text (UTF-8, or
// UTF-16 with a byte-order mark) whose first non-empty line ends in a space
// and a number.
func Sniff(data []byte) bool {
	if len(data) >= 2 && (data[0] == 0xff && data[1] == 0xfe || data[0] == 0xfe && data[1] == 0xff) {
		data = []byte(decode(data[:min(len(data), 64<<10)&^1]))
	}
	line := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = bytes.TrimSpace(line[:i])
	}
	if len(line) == 0 || line[0] == '{' || line[0] == '[' {
		return false
	}
	i := bytes.LastIndexByte(line, ' ')
	if i < 0 {
		return false
	}
	_, err := strconv.ParseUint(string(line[i+1:]), 10, 64)
	return err == nil
}
