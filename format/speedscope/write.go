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

	"github.com/jsprof/jsprof/internal/chunked"
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
	ft, profs, err := prepare(p, all)
	if err != nil {
		return err
	}

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
		evented := fm == formEvented
		if fm != formSampled && fm != formEvented {
			// The smaller form: both are measured first, written to no
			// file, so that neither is held whole (a 246 MB recording's
			// profile is 690 MB of JSON). The sampled form's size is
			// computed per path; the evented form's measuring stops once
			// it is the larger.
			evented = s.evented(&emitter{}, s.sampledSize())
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

// prepare collects the stacks of each thread and numbers the frames, for
// write.
func prepare(p *profile.Profile, all []profile.ThreadStacks) (*frameTable, []*stacks, error) {
	if len(all) == 0 {
		return nil, nil, fmt.Errorf("no thread to write: speedscope needs a profile")
	}
	ft := newFrameTable(p)
	profs := make([]*stacks, 0, len(all))
	for _, ts := range all {
		if ts.Thread < 0 || int(ts.Thread) >= len(p.Threads) {
			return nil, nil, fmt.Errorf("no thread %d; the profile has %d", ts.Thread, len(p.Threads))
		}
		s, err := collect(ts, ft)
		if err != nil {
			return nil, nil, fmt.Errorf("thread %d: %w", ts.Thread, err)
		}
		s.name = threadName(&p.Threads[ts.Thread])
		profs = append(profs, s)
	}
	ft.renumber(profs)
	return ft, profs, nil
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
//
// A frame's count is that of the stacks through the paths that end in it,
// summed from the innermost paths out: a cost per path, not per frame of
// each stack.
func (ft *frameTable) renumber(profs []*stacks) {
	count := make([]int, len(ft.out))
	for _, s := range profs {
		t := &s.paths
		under := make([]int, t.len()) // stacks at or below each path
		for _, b := range s.node.Blocks() {
			for _, n := range b {
				under[n]++
			}
		}
		for n := t.len() - 1; n > 0; n-- { // children before parents
			count[t.frame[n]] += under[n]
			under[t.parent[n]] += under[n]
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
		s.paths.renumber(newIndex)
		if s.program >= 0 {
			s.program = newIndex[s.program]
		}
	}
	// ft.index and ft.byFrame keep the old numbers: the table is not used
	// after this.
	ft.index, ft.byFrame = nil, nil
}

// pathTree is the tree of a profile's call paths in speedscope frames:
// path n is the frames of path parent[n] followed by frame[n]. Path 0 is
// the empty path; a path's parent comes before it. No two paths have the
// same parent and frame, so two stacks are the same (name the same
// speedscope frames) if and only if their paths are, and the frames two
// stacks share are those of their paths' common ancestor.
type pathTree struct {
	parent []int32
	frame  []int32 // speedscope frame index
	depth  []int32 // frames on the path
	child  map[uint64]int32
}

func newPathTree() pathTree {
	return pathTree{parent: []int32{-1}, frame: []int32{-1}, depth: []int32{0}, child: map[uint64]int32{}}
}

func (t *pathTree) len() int { return len(t.parent) }

// add returns the path of parent's frames followed by f, made if new.
func (t *pathTree) add(parent, f int32) int32 {
	key := uint64(uint32(parent))<<32 | uint64(uint32(f))
	if n, ok := t.child[key]; ok {
		return n
	}
	n := int32(len(t.parent))
	t.parent = append(t.parent, parent)
	t.frame = append(t.frame, f)
	t.depth = append(t.depth, t.depth[parent]+1)
	t.child[key] = n
	return n
}

// renumber gives the paths' frames their new indexes; no path is added
// after it.
func (t *pathTree) renumber(newIndex []int32) {
	for n := 1; n < t.len(); n++ {
		t.frame[n] = newIndex[t.frame[n]]
	}
	t.child = nil
}

// common returns the common ancestor of paths a and b (the frames they
// share), in as many steps as there are frames of a and b below it.
func (t *pathTree) common(a, b int32) int32 {
	for t.depth[a] > t.depth[b] {
		a = t.parent[a]
	}
	for t.depth[b] > t.depth[a] {
		b = t.parent[b]
	}
	for a != b {
		a, b = t.parent[a], t.parent[b]
	}
	return a
}

// below appends to dst the paths from n up to (not including) its
// ancestor top, innermost first.
func (t *pathTree) below(dst []int32, n, top int32) []int32 {
	for ; n != top; n = t.parent[n] {
		dst = append(dst, n)
	}
	return dst
}

// stacks is one thread's weighted stacks, consecutive identical ones
// merged. A stack is kept as its path, not as a copy of its frames: the
// stacks of a deep recursion or a long chain hold as many frames as the
// square of their number, their paths only as many as there are stacks.
type stacks struct {
	name  string
	paths pathTree
	// Stack i's path and weight (ns), in blocks (chunked: grown by
	// append, they were half of the writer's time on a 3 M-sample
	// profile), the same blocks for the two.
	node   chunked.Slice[int32]
	weight chunked.Slice[int64]
	// Stack i starts (ns on the input's clock) where stack i−1 ends but
	// at the gaps, which say where: stacks are sample intervals, most of
	// them back to back (all starts kept, the 232 MB samples-heavy shape's
	// 30 M intervals took 600 MB).
	gaps    []gap
	last    int64 // the last stack's end
	program int32 // the "(program)" frame, or −1
}

// gap is a stack that does not start where the one before it ends (the
// first stack is one).
type gap struct {
	i     int
	start int64
}

func (s *stacks) len() int { return s.weight.Len() }

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
//
// A stack's path is found from ts.Paths when the caller gives them (and
// they pass their check): once per path met, from its parent's, so that a
// stack costs nothing per frame. Otherwise from its frames, once per
// Stack.Path when the caller numbers them, else from the last stack's,
// past the frames the two share.
func collect(ts profile.ThreadStacks, ft *frameTable) (*stacks, error) {
	s := &stacks{paths: newPathTree(), program: -1}
	if ts.Stacks == nil {
		return s, nil
	}
	add := func(n int32, start, weight int64) {
		if k := s.len(); k == 0 || start != s.last {
			s.gaps = append(s.gaps, gap{k, start})
		}
		s.node.Append(n)
		s.weight.Append(weight)
		s.last = start + weight
	}
	t := &s.paths
	// With ts.Paths: the path of each of its paths, −1 until met. A path
	// that fails the check is left to the frames of its stacks, which say
	// what is wrong with them, if anything.
	var byPaths []int32
	if ts.Paths != nil && ts.Paths.Check(ft.p) == nil {
		byPaths = make([]int32, ts.Paths.Len())
		for i := range byPaths {
			byPaths[i] = -1
		}
		byPaths[0] = 0
	}
	var up []int32
	pathOf := func(p int32) int32 {
		up = up[:0]
		for ; byPaths[p] < 0; p = ts.Paths.Parent[p] {
			up = append(up, p)
		}
		n := byPaths[p]
		for _, q := range slices.Backward(up) { // root first, as the frames are numbered
			n = t.add(n, ft.get(ts.Paths.Frame[q]))
			byPaths[q] = n
		}
		return n
	}
	// Without: the path of each Stack.Path above 0 met, and the last
	// stack's frames with their paths.
	byPath := map[int32]int32{}
	var lastFrames []profile.FrameID
	lastPaths := []int32{0} // lastPaths[k]: the path of lastFrames[:k]
	var err error
	for st := range ts.Stacks {
		if st.Weight < 0 {
			err = fmt.Errorf("stack at %d ns has a negative weight (%d ns)", st.Time, st.Weight)
			break
		}
		if k := s.len(); k > 0 && int64(st.Time) < s.last-s.weight.At(k-1) {
			err = fmt.Errorf("stack at %d ns after one at %d ns: stacks must come in time order", st.Time, s.last-s.weight.At(k-1))
			break
		}
		var n int32
		if byPaths != nil && st.Path > 0 && int(st.Path) < len(byPaths) {
			n = byPaths[st.Path]
			if n < 0 {
				n = pathOf(st.Path)
			}
		} else if len(st.Frames) == 0 {
			continue
		} else if m, ok := byPath[st.Path]; ok {
			n = m
		} else {
			k := 0
			for k < len(lastFrames) && k < len(st.Frames) && lastFrames[k] == st.Frames[k] {
				k++
			}
			lastFrames, lastPaths = append(lastFrames[:k], st.Frames[k:]...), lastPaths[:k+1]
			n = lastPaths[k]
			for _, f := range st.Frames[k:] {
				if int(f) < 0 || int(f) >= len(ft.p.Frames) {
					err = fmt.Errorf("frame %d of a stack is not in the profile (%d frames)", f, len(ft.p.Frames))
					break
				}
				n = t.add(n, ft.get(f))
				lastPaths = append(lastPaths, n)
			}
			if err != nil {
				break
			}
			if byPaths == nil && st.Path > 0 {
				byPath[st.Path] = n
			}
		}
		start, weight := int64(st.Time), int64(st.Weight)
		program := t.depth[n] == 1 && t.frame[n] == ft.program
		if k := s.len(); k > 0 && !program {
			if s.node.At(k-1) == n && s.last == start {
				*s.weight.Ptr(k - 1) += weight
				s.last += weight
				continue
			}
		}
		if program && weight >= 2 {
			add(n, start, weight/2)
			start, weight = start+weight/2, weight-weight/2
		}
		add(n, start, weight)
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
	return s.gaps[0].start, s.last
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

// digits returns the length of v's decimal text, as strconv.AppendInt
// writes it.
func digits(v int64) int64 {
	n := int64(1)
	if v < 0 {
		n++ // the sign
	}
	for ; v >= 10 || v <= -10; v /= 10 { // division truncates towards 0
		n++
	}
	return n
}

// The parts of the sampled form around its stacks and weights.
const (
	samplesOpen  = `,"samples":[`
	weightsOpen  = `],"weights":[`
	sampledClose = "]}"
)

// sampledSize returns the length of what sampled emits, without making
// it: a stack's text is as long as its path's parent's and a comma
// (unless the parent is the empty path) and its frame's index.
func (s *stacks) sampledSize() int64 {
	t := &s.paths
	text := make([]int64, t.len())
	text[0] = int64(len("[]"))
	for n := 1; n < t.len(); n++ {
		text[n] = text[t.parent[n]] + digits(int64(t.frame[n]))
		if t.parent[n] != 0 {
			text[n]++
		}
	}
	size := int64(len(s.appendHead(nil, "sampled")) + len(samplesOpen) + len(weightsOpen) + len(sampledClose))
	if k := s.len(); k > 0 {
		size += 2 * int64(k-1) // commas between stacks and between weights
	}
	weights := s.weight.Blocks()
	for k, b := range s.node.Blocks() {
		for i, n := range b {
			size += text[n] + digits(weights[k][i])
		}
	}
	return size
}

// textBudget bounds the stack texts sampled keeps (a variable for tests).
var textBudget = 32 << 20

// sampled emits the profile in the sampled form. Gaps between stacks (time
// with no frames, or removed by a transform) are not kept: speedscope lays
// the samples end to end.
func (s *stacks) sampled(e *emitter) {
	t := &s.paths
	e.b = s.appendHead(e.b, "sampled")
	e.b = append(e.b, samplesOpen...)
	// A stack's text is made once per path, up to textBudget bytes of
	// texts: a long recording's millions of samples are a few thousand
	// paths, and formatting their numbers again was most of the writing.
	// Other texts are made from the last one made, past the frames their
	// paths share.
	texts := map[int32][]byte{}
	budget := textBudget
	text := []byte{'['} // the text of path at, without its ']'
	ends := []int{1}    // ends[d]: the length of the text of at's first d frames
	at := int32(0)
	var down []int32
	sep := false
	for _, b := range s.node.Blocks() {
		for _, n := range b {
			if sep {
				e.b = append(e.b, ',')
			}
			sep = true
			if txt, ok := texts[n]; ok {
				e.b = append(e.b, txt...)
				e.spill()
				continue
			}
			c := t.common(at, n)
			text, ends = text[:ends[t.depth[c]]], ends[:t.depth[c]+1]
			down = t.below(down[:0], n, c)
			for _, m := range slices.Backward(down) {
				if len(ends) > 1 {
					text = append(text, ',')
				}
				text = strconv.AppendInt(text, int64(t.frame[m]), 10)
				ends = append(ends, len(text))
			}
			at = n
			from := len(e.b)
			e.b = append(e.b, text...)
			e.b = append(e.b, ']')
			// A text costs its bytes and its map entry (~64 bytes).
			if txt := e.b[from:]; len(txt)+64 <= budget {
				texts[n] = bytes.Clone(txt)
				budget -= len(txt) + 64
			}
			e.spill()
		}
	}
	e.b = append(e.b, weightsOpen...)
	var last []byte // the last weight's text: weights repeat (the interval)
	lastW := int64(-1)
	sep = false
	for _, b := range s.weight.Blocks() {
		for _, w := range b {
			if sep {
				e.b = append(e.b, ',')
			}
			sep = true
			if w != lastW {
				at := len(e.b)
				e.b = strconv.AppendInt(e.b, w, 10)
				last, lastW = append(last[:0], e.b[at:]...), w
			} else {
				e.b = append(e.b, last...)
			}
			e.spill()
		}
	}
	e.b = append(e.b, sampledClose...)
}

// eventSize is the length of an event's text less its frame and time.
const eventSize = int64(len(`{"type":"O","frame":,"at":}`))

// evented emits the profile in the evented form: at the start of
// each stack, the frames of the previous stack that it does not share are
// closed (innermost first) and its own opened. Where the previous stack
// ended earlier (a gap), all its frames close at its end. Between two
// samples of (program) alone the frame is closed and opened again, so that
// they stay two samples (see collect). A stack costs the frames opened and
// closed, found from the common ancestor of its path and the last one's.
//
// It reports false as soon as the output would be limit bytes or longer
// (what it emitted is then incomplete: a measuring emitter's, which counts
// the events without making them).
func (s *stacks) evented(e *emitter, limit int64) bool {
	t := &s.paths
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
		if e.bw == nil {
			e.n += eventSize + digits(int64(f)) + digits(at)
			return
		}
		e.b = append(e.b, `{"type":"`...)
		e.b = append(e.b, typ)
		e.b = append(e.b, `","frame":`...)
		e.b = strconv.AppendInt(e.b, int64(f), 10)
		e.b = append(e.b, `,"at":`...)
		e.b = strconv.AppendInt(e.b, at, 10)
		e.b = append(e.b, '}')
	}
	closeTo := func(from, to int32, at int64) {
		for ; from != to; from = t.parent[from] {
			event('C', t.frame[from], at)
		}
	}
	open := int32(0) // the path whose frames are open
	var end int64
	var down []int32
	weights := s.weight.Blocks()
	g, gaps := 0, s.gaps // the stack's index; the gaps from it on
	for k, b := range s.node.Blocks() {
		for i, n := range b {
			at := end
			if len(gaps) > 0 && gaps[0].i == g {
				at, gaps = gaps[0].start, gaps[1:]
			}
			g++
			if at != end {
				closeTo(open, 0, end)
				open = 0
			}
			c := t.common(open, n)
			if open == n && t.depth[n] == 1 && t.frame[n] == s.program {
				c = 0
			}
			closeTo(open, c, at)
			down = t.below(down[:0], n, c)
			for _, m := range slices.Backward(down) {
				event('O', t.frame[m], at)
			}
			open = n
			end = at + weights[k][i]
			if e.size() > limit {
				return false
			}
			e.spill()
		}
	}
	closeTo(open, 0, end)
	e.b = append(e.b, "]}"...)
	return e.size() < limit
}
