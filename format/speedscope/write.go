// Package speedscope reads and writes the speedscope file format
// (https://www.speedscope.app/file-format-schema.json; the schema ships in the
// npm package speedscope as dist/release/file-format-schema.json):
//
//	{"$schema": "https://www.speedscope.app/file-format-schema.json",
//	 "shared": {"frames": [{"name", "file", "line", "col"}]},
//	 "profiles": [{"type": "sampled", "name", "unit", "startValue", "endValue",
//	               "samples": [[frame, …], …], "weights": [w, …]}
//	            | {"type": "evented", "name", "unit", "startValue", "endValue",
//	               "events": [{"type": "O"|"C", "frame", "at"}, …]}],
//	 "name", "activeProfileIndex", "exporter"}
//
// Frame lines and columns are 1-based in speedscope and 0-based in jsprof
// (−1, unknown, is left out). A sampled profile lists stacks root first,
// each with a weight; an evented one opens and closes frames at times.
//
// Write exports one profile per thread from the weighted stacks the caller
// computed (profile.ThreadStacks, as session.Thread.Stacks returns them
// under a view, range and transforms), in integer nanoseconds, so that
// speedscope's sums equal the self and total times of the tree the stacks
// came from (jsprof top and tree) exactly. Parse reads both profile types
// back into the jsprof model, one thread per profile, with exact decimal
// times.
//
// The stacks Write exports have been through DevTools' repairs already (a GC
// sample on top of the previous sample's stack, a lone (program) sample
// between two samples of one function made the previous sample's), and
// jsprof applies them again to a profile Parse returns. Write keeps the
// second pass from changing the stacks of the "all" view: a stack of
// (program) alone is written as two samples (see collect), which the
// (program) repair leaves alone, as it does a GC sample already on top of a
// stack. Read back by jsprof, such a file gives the self and total times it
// was written with. Under another view, the self times: a GC sample that
// the input stacked on a stack the view hides (not written) is stacked,
// read back, on the stack written before it, whose total then includes it.
package speedscope

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/jsprof/jsprof/internal/jsonw"
	"github.com/jsprof/jsprof/profile"
)

// Schema is the value of the file's "$schema" member, which identifies the
// format.
const Schema = "https://www.speedscope.app/file-format-schema.json"

// Options controls Write. The zero value names the file after its first
// profile.
type Options struct {
	Name string // the file's name as speedscope shows it; "" means the first profile's
}

// Write writes a speedscope file of p with one profile per element of
// stacks, in order, named "NAME (pid P, tid T)" after its thread, with
// frames shared by all profiles. The stacks' frames are frames of p (for a
// session, its Profile, which has the frames of trace events). p is not
// modified.
//
// Each profile holds the thread's stacks with frames, weighted in
// nanoseconds: the weights give each function the self and total time of
// the tree the stacks came from, and add up to that tree's time on
// functions (the root's total less its self time, which is the time the
// view hides; under the "all" view, the root's total). Stacks with no
// frames (idle time, time outside the calls, time the view hides) are not
// written, nor is time between stacks (removed by a transform): a sampled
// profile lays the stacks end to end, an evented one has no frame open
// there. Consecutive identical stacks are merged, but for (program) alone
// (see collect).
// Frames are numbered by how often the stacks name them, most often first,
// to keep the stacks short. A profile is written in the sampled form (one
// stack and weight per sample), or in the evented form (frames opened and
// closed where the stack changes) when that is smaller, as it is for deep
// stacks. startValue is the start of the first stack, endValue the end of
// the last, both on the input's clock.
func Write(w io.Writer, p *profile.Profile, stacks []profile.ThreadStacks, opts Options) error {
	return write(w, p, stacks, opts, formSmaller)
}

// form selects the profile type Write uses.
type form int

const (
	formSmaller form = iota // the smaller of the two
	formSampled
	formEvented
)

func write(w io.Writer, p *profile.Profile, all []profile.ThreadStacks, opts Options, fm form) error {
	if len(all) == 0 {
		return fmt.Errorf("no thread to write: speedscope needs a profile")
	}
	ft := newFrameTable(p)
	profs := make([]*stacks, 0, len(all))
	for _, ts := range all {
		if ts.Thread < 0 || int(ts.Thread) >= len(p.Threads) {
			return fmt.Errorf("no thread %d; the profile has %d", ts.Thread, len(p.Threads))
		}
		s, err := collect(ts, ft)
		if err != nil {
			return fmt.Errorf("thread %d: %w", ts.Thread, err)
		}
		profs = append(profs, s)
	}

	ft.renumber(profs)

	bw := bufio.NewWriterSize(w, 256<<10)
	b := make([]byte, 0, 64<<10)
	b = append(b, `{"$schema":`...)
	b = jsonw.String(b, Schema)
	b = append(b, `,"shared":{"frames":[`...)
	for i, f := range ft.out {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = jsonw.String(b, f.name)
		if f.file != "" {
			b = append(b, `,"file":`...)
			b = jsonw.String(b, f.file)
		}
		if f.line > 0 {
			b = append(b, `,"line":`...)
			b = strconv.AppendInt(b, int64(f.line), 10)
		}
		if f.col > 0 {
			b = append(b, `,"col":`...)
			b = strconv.AppendInt(b, int64(f.col), 10)
		}
		b = append(b, '}')
		b = flush(bw, b)
	}
	b = append(b, `]},"profiles":[`...)
	for i, s := range profs {
		if i > 0 {
			b = append(b, ',')
		}
		s.name = threadName(&p.Threads[all[i].Thread])
		evented := fm == formEvented
		if fm != formSampled && fm != formEvented {
			// The smaller form: both are measured first, written to no
			// file, so that neither is held whole (a 246 MB recording's
			// profile is 690 MB of JSON).
			sampled := &emitter{}
			s.sampled(sampled)
			evented = s.evented(&emitter{}, sampled.size())
		}
		e := &emitter{b: b, bw: bw}
		if evented {
			s.evented(e, math.MaxInt64)
		} else {
			s.sampled(e)
		}
		b = flush(bw, e.b)
	}
	b = append(b, `],"name":`...)
	name := opts.Name
	if name == "" {
		name = profs[0].name
	}
	b = jsonw.String(b, name)
	b = append(b, `,"activeProfileIndex":0,"exporter":"jsprof"}`...)
	b = append(b, '\n')
	bw.Write(b)
	return bw.Flush()
}

// flush writes b out once it is large, and returns it emptied if so.
func flush(bw *bufio.Writer, b []byte) []byte {
	if len(b) < 32<<10 {
		return b
	}
	bw.Write(b) // errors are sticky; Flush reports them
	return b[:0]
}

// threadName names a thread's profile "NAME (pid P, tid T)"; Parse reads the
// pid and tid back.
func threadName(th *profile.Thread) string {
	return fmt.Sprintf("%s (pid %d, tid %d)", th.Name, th.PID, th.TID)
}

// sfFrame is a frame as speedscope has it; line and col are 1-based, 0 if
// unknown.
type sfFrame struct {
	name, file string
	line, col  int32
}

// frameTable numbers the speedscope frames: jsprof frames that look the same
// in speedscope (same name, file, line and column) share an index.
type frameTable struct {
	p       *profile.Profile
	index   []int32 // FrameID → speedscope index, −1 until seen
	byFrame map[sfFrame]int32
	out     []sfFrame
	program int32 // the index of "(program)", or −1
}

func newFrameTable(p *profile.Profile) *frameTable {
	index := make([]int32, len(p.Frames))
	for i := range index {
		index[i] = -1
	}
	return &frameTable{p: p, index: index, byFrame: map[sfFrame]int32{}, program: -1}
}

// get returns the speedscope index of frame f, which must be in the
// profile.
func (ft *frameTable) get(f profile.FrameID) int32 {
	if i := ft.index[f]; i >= 0 {
		return i
	}
	fr := &ft.p.Frames[f]
	sf := sfFrame{name: ft.p.Str(fr.Name), file: ft.p.Str(fr.URL)}
	if sf.name == "" {
		sf.name = "(anonymous)"
	}
	if fr.Line >= 0 {
		sf.line = fr.Line + 1
	}
	if fr.Column >= 0 {
		sf.col = fr.Column + 1
	}
	i, ok := ft.byFrame[sf]
	if !ok {
		i = int32(len(ft.out))
		ft.out = append(ft.out, sf)
		ft.byFrame[sf] = i
		if sf.name == "(program)" {
			ft.program = i
		}
	}
	ft.index[f] = i
	return i
}

// renumber orders the frames by how often the stacks of profs name them,
// most often first (then by first use), and renumbers the stacks to match:
// the frames of deep recursions then get one-digit indexes, which makes
// stacks up to a third shorter.
func (ft *frameTable) renumber(profs []*stacks) {
	count := make([]int, len(ft.out))
	for _, s := range profs {
		for i := range s.len() {
			for _, f := range s.stack(i) {
				count[f]++
			}
		}
	}
	order := make([]int32, len(ft.out))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return count[b] - count[a] })
	newIndex := make([]int32, len(ft.out))
	out := make([]sfFrame, len(ft.out))
	for i, old := range order {
		newIndex[old] = int32(i)
		out[i] = ft.out[old]
	}
	ft.out = out
	for _, s := range profs {
		for i, f := range s.frames {
			s.frames[i] = newIndex[f]
		}
		if s.program >= 0 {
			s.program = newIndex[s.program]
		}
	}
	// ft.index and ft.byFrame keep the old numbers: the table is not used
	// after this.
	ft.index, ft.byFrame = nil, nil
}

// stacks is one thread's weighted stacks, consecutive identical ones merged.
type stacks struct {
	name    string
	frames  []int32 // speedscope frame indexes of the stacks, root first
	lo, hi  []int32 // stack i is frames[lo[i]:hi[i]]; stacks of one path share them
	start   []int64 // ns on the input's clock
	weight  []int64 // ns
	program int32   // the "(program)" frame, or −1
}

func (s *stacks) stack(i int) []int32 { return s.frames[s.lo[i]:s.hi[i]] }
func (s *stacks) len() int            { return len(s.weight) }

// collect gathers a thread's stacks with frames, merging consecutive
// identical ones that are contiguous in time (the stacks differ in
// category, which speedscope does not show).
//
// A stack of (program) alone is not merged, and is written as two samples
// (halves of its weight; one if it weighs 1 ns): DevTools' repair of a
// single (program) sample between two samples of the same function
// (fixMissingSamples) would otherwise apply when jsprof reads the file
// back, where it did not apply to the samples the stack came from (it
// repairs no run of two or more, and the stack is one only if the repair
// left it alone or a GC sample, now on top of the stack before it, kept it
// from applying).
func collect(ts profile.ThreadStacks, ft *frameTable) (*stacks, error) {
	s := &stacks{program: -1}
	if ts.Stacks == nil {
		return s, nil
	}
	add := func(lo, hi int32, start, weight int64) {
		s.lo = append(s.lo, lo)
		s.hi = append(s.hi, hi)
		s.start = append(s.start, start)
		s.weight = append(s.weight, weight)
	}
	// The frames of each call path (profile.Stack.Path) are kept once:
	// millions of stacks of a long recording share a few thousand paths.
	byPath := map[int32][2]int32{}
	var err error
	for st := range ts.Stacks {
		if st.Weight < 0 {
			err = fmt.Errorf("stack at %d ns has a negative weight (%d ns)", st.Time, st.Weight)
			break
		}
		if k := s.len(); k > 0 && int64(st.Time) < s.start[k-1] {
			err = fmt.Errorf("stack at %d ns after one at %d ns: stacks must come in time order", st.Time, s.start[k-1])
			break
		}
		if len(st.Frames) == 0 {
			continue
		}
		r, known := byPath[st.Path]
		if !known || st.Path <= 0 {
			n := len(s.frames)
			for _, f := range st.Frames {
				if int(f) < 0 || int(f) >= len(ft.p.Frames) {
					err = fmt.Errorf("frame %d of a stack is not in the profile (%d frames)", f, len(ft.p.Frames))
					break
				}
				s.frames = append(s.frames, ft.get(f))
			}
			if err != nil {
				break
			}
			r, known = [2]int32{int32(n), int32(len(s.frames))}, false
			if st.Path > 0 {
				byPath[st.Path] = r
			}
		}
		start, weight := int64(st.Time), int64(st.Weight)
		cur := s.frames[r[0]:r[1]]
		program := len(cur) == 1 && cur[0] == ft.program
		if k := s.len(); k > 0 && !program {
			contiguous := s.start[k-1]+s.weight[k-1] == start
			if contiguous && (s.lo[k-1] == r[0] && s.hi[k-1] == r[1] || slices.Equal(s.stack(k-1), cur)) {
				if !known && st.Path <= 0 {
					s.frames = s.frames[:r[0]] // not kept for a path: drop the copy
				}
				s.weight[k-1] += weight
				continue
			}
		}
		if program && weight >= 2 {
			add(r[0], r[1], start, weight/2)
			start, weight = start+weight/2, weight-weight/2
		}
		add(r[0], r[1], start, weight)
	}
	s.program = ft.program
	return s, err
}

// span returns startValue and endValue: the start of the first stack and
// the end of the last (0 and 0 without stacks).
func (s *stacks) span() (start, end int64) {
	k := s.len()
	if k == 0 {
		return 0, 0
	}
	return s.start[0], s.start[k-1] + s.weight[k-1]
}

func (s *stacks) appendHead(b []byte, typ string) []byte {
	start, end := s.span()
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","name":`...)
	b = jsonw.String(b, s.name)
	b = append(b, `,"unit":"nanoseconds","startValue":`...)
	b = strconv.AppendInt(b, start, 10)
	b = append(b, `,"endValue":`...)
	b = strconv.AppendInt(b, end, 10)
	return b
}

// emitter is where a profile's JSON goes: b is written to bw as it grows
// (or only counted, when bw is nil), so that the output is never held
// whole.
type emitter struct {
	b  []byte
	bw *bufio.Writer // nil: count only
	n  int64         // bytes already passed on
}

// spill passes b on once it is large.
func (e *emitter) spill() {
	if len(e.b) < 32<<10 {
		return
	}
	e.n += int64(len(e.b))
	if e.bw != nil {
		e.bw.Write(e.b) // errors are sticky; Flush reports them
	}
	e.b = e.b[:0]
}

// size returns the bytes emitted so far.
func (e *emitter) size() int64 { return e.n + int64(len(e.b)) }

// sampled emits the profile in the sampled form. Gaps between stacks (time
// with no frames, or removed by a transform) are not kept: speedscope lays
// the samples end to end.
// textBudget bounds the stack texts sampled keeps (a variable for tests).
var textBudget = 32 << 20

func (s *stacks) sampled(e *emitter) {
	e.b = s.appendHead(e.b, "sampled")
	e.b = append(e.b, `,"samples":[`...)
	// A stack's text is made once per call path (the stacks of a path
	// share their frames, and a stack's frames are never moved, so lo
	// tells the frames), up to textBudget bytes of texts: a long recording's millions of samples are a few thousand
	// paths, and formatting their numbers again was most of the writing.
	texts := map[int32][]byte{}
	budget := textBudget
	for i := range s.len() {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		if t, ok := texts[s.lo[i]]; ok {
			e.b = append(e.b, t...)
			e.spill()
			continue
		}
		at := len(e.b)
		e.b = append(e.b, '[')
		for j, f := range s.stack(i) {
			if j > 0 {
				e.b = append(e.b, ',')
			}
			e.b = strconv.AppendInt(e.b, int64(f), 10)
		}
		e.b = append(e.b, ']')
		// A text costs its bytes and its map entry (~64 bytes): stacks
		// without a path each have a text of their own, never reused.
		if t := e.b[at:]; len(t)+64 <= budget {
			texts[s.lo[i]] = bytes.Clone(t)
			budget -= len(t) + 64
		}
		e.spill()
	}
	e.b = append(e.b, `],"weights":[`...)
	var last []byte // the last weight's text: weights repeat (the interval)
	lastW := int64(-1)
	for i, w := range s.weight {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		if w != lastW {
			at := len(e.b)
			e.b = strconv.AppendInt(e.b, w, 10)
			last, lastW = append(last[:0], e.b[at:]...), w
		} else {
			e.b = append(e.b, last...)
		}
		e.spill()
	}
	e.b = append(e.b, "]}"...)
}

// evented emits the profile in the evented form: at the start of
// each stack, the frames of the previous stack that it does not share are
// closed (innermost first) and its own opened. Where the previous stack
// ended earlier (a gap), all its frames close at its end. Between two
// samples of (program) alone the frame is closed and opened again, so that
// they stay two samples (see collect).
//
// It reports false as soon as the output would be limit bytes or longer
// (what it emitted is then incomplete: a measuring emitter's).
func (s *stacks) evented(e *emitter, limit int64) bool {
	limit += e.size()
	if limit < 0 { // overflow
		limit = math.MaxInt64
	}
	e.b = s.appendHead(e.b, "evented")
	e.b = append(e.b, `,"events":[`...)
	first := true
	event := func(typ byte, f int32, at int64) {
		if !first {
			e.b = append(e.b, ',')
		}
		first = false
		e.b = append(e.b, `{"type":"`...)
		e.b = append(e.b, typ)
		e.b = append(e.b, `","frame":`...)
		e.b = strconv.AppendInt(e.b, int64(f), 10)
		e.b = append(e.b, `,"at":`...)
		e.b = strconv.AppendInt(e.b, at, 10)
		e.b = append(e.b, '}')
	}
	var open []int32
	var end int64
	for i := range s.len() {
		st, at := s.stack(i), s.start[i]
		if at != end {
			for j := len(open) - 1; j >= 0; j-- {
				event('C', open[j], end)
			}
			open = open[:0]
		}
		k := 0
		for k < len(open) && k < len(st) && open[k] == st[k] {
			k++
		}
		if k == 1 && len(st) == 1 && st[0] == s.program && len(open) == 1 {
			k = 0
		}
		for j := len(open) - 1; j >= k; j-- {
			event('C', open[j], at)
		}
		for _, f := range st[k:] {
			event('O', f, at)
		}
		open = append(open[:k], st[k:]...)
		end = at + s.weight[i]
		if e.size() > limit {
			return false
		}
		e.spill()
	}
	for j := len(open) - 1; j >= 0; j-- {
		event('C', open[j], end)
	}
	e.b = append(e.b, "]}"...)
	return e.size() < limit
}
