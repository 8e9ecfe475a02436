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
// Write exports one profile per thread with the stacks and weights of
// analysis/view (DevTools' reconstruction: a stack lasts until the next
// sample), in integer nanoseconds, so that speedscope's sums equal jsprof's
// totals exactly. Parse reads both profile types back into the jsprof model,
// one thread per profile, with exact decimal times.
//
// The stacks Write exports have been through DevTools' repairs already (a GC
// sample on top of the previous sample's stack, a lone (program) sample
// between two samples of one function made the previous sample's).
// calls.NewTimeline applies them again to a profile Parse returns, which can
// change a few samples: a GC sample on top of its stack no longer keeps
// the (program) sample after it from being repaired (5 of 17,138 samples of
// the corpus's sucrase.cpuprofile). Taken as they are, as speedscope takes
// them, the samples read back give jsprof's self and total times exactly.
package speedscope

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/internal/jsonw"
	"github.com/jsprof/jsprof/profile"
)

// Schema is the value of the file's "$schema" member, which identifies the
// format.
const Schema = "https://www.speedscope.app/file-format-schema.json"

// Options controls Write. The zero value writes every thread under the "all"
// view with no transform, and names the file after its first profile.
type Options struct {
	Threads []profile.ThreadID // the threads to write, in this order; nil means all
	View    view.Options       // the view, range and transforms of the stacks
	Name    string             // the file's name as speedscope shows it; "" means the first profile's
}

// Write writes the threads of p as a speedscope file, one profile per thread
// named "NAME (pid P, tid T)", with frames shared by all profiles.
//
// Each profile holds the thread's stacks under opts.View, weighted in
// nanoseconds: its weights add up to the sampled time of jsprof's tree under
// the same options. Consecutive identical stacks are merged, but for
// (program) alone (see collect). Frames are numbered by how often the
// stacks name them, most often first, to keep the stacks short. A profile is
// written in the sampled form (one stack and weight per sample), or in the
// evented form (frames opened and closed where the stack changes) when that
// is smaller, as it is for deep stacks. startValue is the start of the first
// stack, endValue the end of the last, both on the input's clock.
//
// Write adds the frames of trace events to p when the view shows them (see
// view.Stacks).
func Write(w io.Writer, p *profile.Profile, opts Options) error {
	return write(w, p, opts, formSmaller)
}

// form selects the profile type Write uses.
type form int

const (
	formSmaller form = iota // the smaller of the two
	formSampled
	formEvented
)

func write(w io.Writer, p *profile.Profile, opts Options, fm form) error {
	ids := opts.Threads
	if ids == nil {
		ids = make([]profile.ThreadID, len(p.Threads))
		for i := range ids {
			ids[i] = profile.ThreadID(i)
		}
	}
	if len(ids) == 0 {
		return fmt.Errorf("no thread to write: speedscope needs a profile")
	}
	ft := newFrameTable(p)
	profs := make([]*stacks, 0, len(ids))
	for _, t := range ids {
		if t < 0 || int(t) >= len(p.Threads) {
			return fmt.Errorf("no thread %d; the profile has %d", t, len(p.Threads))
		}
		tl, err := calls.NewTimeline(p, t)
		if err != nil {
			return fmt.Errorf("thread %d: %w", t, err)
		}
		profs = append(profs, collect(tl, opts.View, ft))
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
		s.name = threadName(&p.Threads[ids[i]])
		switch fm {
		case formSampled:
			b = s.appendSampled(b)
		case formEvented:
			b = append(b, s.appendEvented(nil, math.MaxInt)...)
		default:
			sampled := s.appendSampled(nil)
			if evented := s.appendEvented(nil, len(sampled)); evented != nil {
				sampled = evented
			}
			b = append(b, sampled...)
		}
		b = flush(bw, b)
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
	return &frameTable{p: p, byFrame: map[sfFrame]int32{}, program: -1}
}

// get returns the speedscope index of frame f.
func (ft *frameTable) get(f profile.FrameID) int32 {
	for len(ft.index) < len(ft.p.Frames) { // the view adds event frames
		ft.index = append(ft.index, -1)
	}
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
		for _, f := range s.frames {
			count[f]++
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
	frames  []int32 // speedscope frame indexes of all stacks, root first
	off     []int32 // stack i is frames[off[i]:off[i+1]]
	start   []int64 // ns on the input's clock
	weight  []int64 // ns
	program int32   // the "(program)" frame, or −1
}

func (s *stacks) stack(i int) []int32 { return s.frames[s.off[i]:s.off[i+1]] }
func (s *stacks) len() int            { return len(s.weight) }

// collect gathers the stacks of a timeline under opts.
//
// A run of samples in (program) alone is not merged: DevTools' repair of a
// single (program) sample between two samples of the same function
// (calls.Timeline's fixMissingSamples) would then apply when the file is
// read back, where it did not apply to the run.
func collect(tl *calls.Timeline, opts view.Options, ft *frameTable) *stacks {
	s := &stacks{off: []int32{0}, program: -1}
	if len(tl.Times) == 0 {
		return s
	}
	from := tl.Times[0] + opts.From
	view.Stacks(tl, opts, func(st view.Stack) {
		n := len(s.frames)
		for _, f := range st.Frames {
			s.frames = append(s.frames, ft.get(f))
		}
		start := int64(max(tl.Times[st.Sample], from))
		if k := s.len(); k > 0 {
			prev, cur := s.stack(k-1), s.frames[n:]
			contiguous := s.start[k-1]+s.weight[k-1] == start
			if contiguous && slices.Equal(prev, cur) && !(len(cur) == 1 && cur[0] == ft.program) {
				s.frames = s.frames[:n]
				s.weight[k-1] += int64(st.Weight)
				return
			}
		}
		s.off = append(s.off, int32(len(s.frames)))
		s.start = append(s.start, start)
		s.weight = append(s.weight, int64(st.Weight))
	})
	s.program = ft.program
	return s
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

// appendSampled appends the profile in the sampled form. Gaps between
// stacks (samples a transform removed) are not kept: speedscope lays the
// samples end to end.
func (s *stacks) appendSampled(b []byte) []byte {
	b = s.appendHead(b, "sampled")
	b = append(b, `,"samples":[`...)
	for i := range s.len() {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, f := range s.stack(i) {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(f), 10)
		}
		b = append(b, ']')
	}
	b = append(b, `],"weights":[`...)
	for i, w := range s.weight {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, w, 10)
	}
	return append(b, "]}"...)
}

// appendEvented appends the profile in the evented form: at the start of
// each stack, the frames of the previous stack that it does not share are
// closed (innermost first) and its own opened. Where the previous stack
// ended earlier (a gap), all its frames close at its end. Between two
// samples of (program) alone the frame is closed and opened again, so that
// they stay two samples (see collect).
//
// It returns nil as soon as the result would be longer than limit.
func (s *stacks) appendEvented(b []byte, limit int) []byte {
	limit += len(b)
	if limit < 0 { // overflow
		limit = math.MaxInt
	}
	b = s.appendHead(b, "evented")
	b = append(b, `,"events":[`...)
	first := true
	event := func(typ byte, f int32, at int64) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, `{"type":"`...)
		b = append(b, typ)
		b = append(b, `","frame":`...)
		b = strconv.AppendInt(b, int64(f), 10)
		b = append(b, `,"at":`...)
		b = strconv.AppendInt(b, at, 10)
		b = append(b, '}')
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
		if len(b) > limit {
			return nil
		}
	}
	for j := len(open) - 1; j >= 0; j-- {
		event('C', open[j], end)
	}
	if b = append(b, "]}"...); len(b) >= limit {
		return nil
	}
	return b
}
