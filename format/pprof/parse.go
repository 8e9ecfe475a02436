package pprof

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	pprofile "github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/profile"
)

// Limits on what Parse builds, so that a small malicious input cannot make it
// run out of memory: pprof's encoding is compact (a deep stack is one varint
// per frame), and each frame of each sample can become a node.
const (
	// MaxStackFrames bounds the frames of one stack (locations × lines).
	MaxStackFrames = 1 << 20
	// MaxNodes bounds the call-tree nodes of the whole profile.
	MaxNodes = 1 << 25
)

// timeUnits gives the nanoseconds of each pprof time unit.
var timeUnits = map[string]int64{"nanoseconds": 1, "microseconds": 1e3, "milliseconds": 1e6, "seconds": 1e9}

// Parse reads a pprof profile, gzipped or not (and the legacy text formats
// that github.com/google/pprof/profile reads), into the model:
//
//  1. Pick the value that measures time: the default sample type if it is a
//     time, else "cpu", else "wall", else the first in a time unit; or, for a
//     profile with only counts, count × Period when the period is a time.
//  2. Make one thread per distinct thread: the "thread" label with the "pid"
//     and "tid" numeric labels (Write's labels); a profile without them is
//     one thread.
//  3. Build each thread's call tree: the root "(root)", then one node per
//     distinct call path. Frames come from the Location lines, innermost
//     inlined line first: the function name ("(anonymous)" becomes the
//     empty name jsprof uses for anonymous functions), the file name as the
//     URL and the function's 0-based start line (StartLine−1; −1 when the
//     start is unknown), with the column−1 of the Line when it is at that
//     start line, else of the first Line at the start line (in Location
//     table order; −1 if none). A function is thus one
//     frame whatever line of it a sample is at, as pprof aggregates it by
//     function; the 1-based line of each sample's innermost Line goes to
//     the line table (LineTicks: per node and line, the samples' count
//     value when the profile has one, else one per sample). A location
//     without lines is a frame named by its address.
//  4. Synthesize sample times. pprof has none (samples are aggregated), so
//     each pprof sample becomes one jsprof sample lasting its time value,
//     laid out one after another from TimeNanos in call-tree order
//     (depth-first, a root "(garbage collector)" first). That order keeps
//     DevTools' repairs (a GC sample stacked on the previous stack, a lone
//     "(program)" sample replaced by its neighbour) from moving time when
//     jsprof analyses the result, so self and total times per function are
//     exactly pprof's flat and cum times. The diagnostic "synthetic-times"
//     counts the samples laid out; negative values count as 0
//     ("negative-value").
//
// The profile's Format is "pprof". Parse calls Validate before it returns.
// An input that is not a pprof profile gives an error that wraps
// profile.ErrUnrecognized; an empty one, profile.ErrEmpty.
func Parse(r io.Reader) (*profile.Profile, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading pprof profile: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &profile.ParseError{Offset: 0, Err: profile.ErrEmpty}
	}
	in, err := pprofile.ParseData(data)
	if err != nil {
		// google/pprof formats its errors with %v; its "unrecognized" case
		// (neither profile.proto nor a legacy text profile) is told apart by
		// its text, so that callers can branch on ErrUnrecognized.
		if strings.Contains(err.Error(), "unrecognized profile format") {
			err = fmt.Errorf("%w: %v", profile.ErrUnrecognized, err)
		}
		return nil, &profile.ParseError{Offset: -1, Err: err}
	}
	return build(in)
}

// weigher returns the time of a sample in nanoseconds.
type weigher struct {
	index int   // the value used
	scale int64 // ns per unit of it (Period × unit for counts)
}

// weigherFor implements step 1 of Parse.
func weigherFor(in *pprofile.Profile) (weigher, error) {
	find := func(match func(*pprofile.ValueType) bool) int {
		return slices.IndexFunc(in.SampleType, func(vt *pprofile.ValueType) bool { return vt != nil && match(vt) })
	}
	isTime := func(vt *pprofile.ValueType) bool { return timeUnits[vt.Unit] > 0 }
	for _, match := range []func(*pprofile.ValueType) bool{
		func(vt *pprofile.ValueType) bool { return vt.Type == in.DefaultSampleType && isTime(vt) },
		func(vt *pprofile.ValueType) bool { return vt.Type == "cpu" && isTime(vt) },
		func(vt *pprofile.ValueType) bool { return vt.Type == "wall" && isTime(vt) },
		isTime,
	} {
		if i := find(match); i >= 0 {
			return weigher{i, timeUnits[in.SampleType[i].Unit]}, nil
		}
	}
	if pt := in.PeriodType; pt != nil && timeUnits[pt.Unit] > 0 && in.Period > 0 {
		if i := find(func(vt *pprofile.ValueType) bool { return vt.Unit == "count" || vt.Type == "samples" }); i >= 0 {
			if in.Period > math.MaxInt64/timeUnits[pt.Unit] {
				return weigher{}, fmt.Errorf("period %d %s overflows int64 nanoseconds", in.Period, pt.Unit)
			}
			return weigher{i, in.Period * timeUnits[pt.Unit]}, nil
		}
	}
	var types []string
	for _, vt := range in.SampleType {
		if vt != nil {
			types = append(types, vt.Type+"/"+vt.Unit)
		}
	}
	return weigher{}, fmt.Errorf("not a CPU profile: no CPU or time sample type (have %s; a heap or allocation profile?); want a unit of nanoseconds, microseconds, milliseconds or seconds, or counts with a time period",
		strings.Join(types, ", "))
}

// threadKey identifies a thread by its labels.
type threadKey struct {
	name     string
	pid, tid int64
	hasIDs   bool
}

// tnode is a call-tree node while a thread is built.
type tnode struct {
	parent, first, last, next int32 // −1 for none
	frame                     profile.FrameID
	order                     int32 // preorder index, the final NodeID − thread start
}

// tsample is a sample while a thread is built.
type tsample struct {
	node   int32
	weight profile.Time
	line   int32 // 1-based line of the innermost Line; 0 for none
	ticks  int64 // what the line table counts for this sample
}

// tthread is a thread while it is built.
type tthread struct {
	key     threadKey
	nodes   []tnode
	child   map[[2]int32]int32 // (parent, frame) → node
	through map[locStep]int32  // (parent, location of several lines) → the node of its innermost line
	samples []tsample
}

// locStep is a location of a stack under a node.
type locStep struct {
	parent int32
	loc    *pprofile.Location
}

// parser holds the state of build.
type parser struct {
	b      *profile.Builder
	w      weigher
	frames map[*pprofile.Location][]profile.FrameID // leaf first
	column map[*pprofile.Function]int32             // 0-based column at the start line, −1 for none
	count  int                                      // index of a count value, −1 for none
	nnodes int
	neg    int64
	// steps counts the map lookups made to build the call trees and the
	// line tables (a clear of a map would count as the entries it has held:
	// Go keeps a map's slots when it clears it), the part of build's work
	// that depends on the shape of the stacks, which the tests bound in
	// proportion to the input.
	steps int
}

// build converts a parsed pprof profile.
func build(in *pprofile.Profile) (*profile.Profile, error) {
	return new(parser).build(in)
}

// build converts a parsed pprof profile with the zero parser ps.
func (ps *parser) build(in *pprofile.Profile) (*profile.Profile, error) {
	w, err := weigherFor(in)
	if err != nil {
		return nil, &profile.ParseError{Offset: -1, Err: err}
	}
	ps.b, ps.w = profile.NewBuilder("pprof"), w
	ps.frames, ps.column = map[*pprofile.Location][]profile.FrameID{}, map[*pprofile.Function]int32{}
	ps.count = slices.IndexFunc(in.SampleType, func(vt *pprofile.ValueType) bool {
		return vt != nil && (vt.Unit == "count" || vt.Type == "samples")
	})
	for _, loc := range in.Location {
		for _, ln := range loc.Line {
			if fn := ln.Function; fn != nil && fn.StartLine > 0 && ln.Line == fn.StartLine {
				if _, ok := ps.column[fn]; !ok {
					ps.column[fn] = zeroBased(ln.Column)
				}
			}
		}
	}
	root := ps.b.Frame(profile.Frame{Name: ps.b.Intern("(root)"), Line: -1, Column: -1})
	var threads []*tthread
	byKey := map[threadKey]*tthread{}
	var stack [][]profile.FrameID // each location's frames, leaf location first
	for si, s := range in.Sample {
		k := keyOf(s)
		th := byKey[k]
		if th == nil {
			th = &tthread{key: k, nodes: []tnode{{parent: -1, first: -1, last: -1, next: -1, frame: root}},
				child: map[[2]int32]int32{}, through: map[locStep]int32{}}
			byKey[k] = th
			threads = append(threads, th)
			ps.nnodes++
		}
		stack = stack[:0]
		depth := 0
		for _, loc := range s.Location {
			fs := ps.locationFrames(loc)
			stack = append(stack, fs)
			if depth += len(fs); depth > MaxStackFrames {
				return nil, &profile.ParseError{Offset: -1, Path: fmt.Sprintf("sample[%d]", si), Err: fmt.Errorf("stack deeper than %d frames", MaxStackFrames)}
			}
		}
		n := int32(0)
		for i := len(stack) - 1; i >= 0; i-- {
			if n, err = ps.descend(th, n, s.Location[i], stack[i]); err != nil {
				return nil, &profile.ParseError{Offset: -1, Path: fmt.Sprintf("sample[%d]", si), Err: err}
			}
		}
		wt, err := ps.weight(s)
		if err != nil {
			return nil, &profile.ParseError{Offset: -1, Path: fmt.Sprintf("sample[%d]", si), Err: err}
		}
		ts := tsample{node: n, weight: wt, ticks: 1}
		if len(s.Location) > 0 && len(s.Location[0].Line) > 0 {
			if l := s.Location[0].Line[0].Line; l > 0 && l <= math.MaxInt32 {
				ts.line = int32(l)
			}
		}
		if ps.count >= 0 {
			ts.ticks = s.Value[ps.count]
		}
		th.samples = append(th.samples, ts)
	}
	p := ps.b.P
	for _, th := range threads {
		if err := ps.finish(th, profile.Time(in.TimeNanos)); err != nil {
			return nil, &profile.ParseError{Offset: -1, Err: err}
		}
	}
	if len(threads) == 0 {
		// An empty profile: one thread with its root and no samples.
		p.Nodes = append(p.Nodes, profile.Node{Parent: profile.NoNode, Frame: root})
		p.Threads = append(p.Threads, profile.Thread{PID: 1, TID: 1, Nodes: profile.Range{Start: 0, End: 1},
			Start: profile.Time(in.TimeNanos), End: profile.Time(in.TimeNanos)})
	}
	p.Diagnostics.Add("synthetic-times", int64(p.Samples.Len()),
		"pprof records no sample times: %d samples were laid out one after another in call-tree order, each lasting its value", p.Samples.Len())
	p.Diagnostics.Add("negative-value", ps.neg, "%d samples had a negative time value, counted as 0", ps.neg)
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("pprof reader built an invalid profile: %w", err)
	}
	return p, nil
}

// keyOf returns the thread of sample s.
func keyOf(s *pprofile.Sample) threadKey {
	var k threadKey
	if v := s.Label["thread"]; len(v) > 0 {
		k.name = v[0]
	}
	if v := s.NumLabel["pid"]; len(v) > 0 {
		k.pid, k.hasIDs = v[0], true
	}
	if v := s.NumLabel["tid"]; len(v) > 0 {
		k.tid, k.hasIDs = v[0], true
	}
	return k
}

// weight returns the time value of sample s in nanoseconds.
func (ps *parser) weight(s *pprofile.Sample) (profile.Time, error) {
	v := s.Value[ps.w.index] // CheckValid guarantees one value per type
	if v < 0 {
		ps.neg++
		return 0, nil
	}
	if v > math.MaxInt64/ps.w.scale {
		return 0, fmt.Errorf("value %d overflows int64 nanoseconds", v)
	}
	return profile.Time(v * ps.w.scale), nil
}

// locationFrames returns the frames of loc, innermost first.
func (ps *parser) locationFrames(loc *pprofile.Location) []profile.FrameID {
	if fs, ok := ps.frames[loc]; ok {
		return fs
	}
	b := ps.b
	var fs []profile.FrameID
	for _, ln := range loc.Line {
		fn := ln.Function // CheckValid guarantees it is not nil
		name := fn.Name
		if name == "" {
			name = fn.SystemName
		}
		if name == "(anonymous)" {
			name = ""
		}
		f := profile.Frame{Name: b.Intern(name), URL: b.Intern(fn.Filename), Line: zeroBased(fn.StartLine), Column: -1}
		if fn.StartLine > 0 && ln.Line == fn.StartLine {
			f.Column = zeroBased(ln.Column) // distinct columns at the start line: distinct functions (jsprof's writer shares a Function between them)
		} else if c, ok := ps.column[fn]; ok {
			f.Column = c
		}
		fs = append(fs, b.Frame(f))
	}
	if len(loc.Line) == 0 {
		f := profile.Frame{Name: b.Intern(fmt.Sprintf("0x%x", loc.Address)), Line: -1, Column: -1}
		if loc.Mapping != nil {
			f.URL = b.Intern(loc.Mapping.File)
		}
		fs = append(fs, b.Frame(f))
	}
	ps.frames[loc] = fs
	return fs
}

// zeroBased converts a 1-based pprof line or column (0 unknown) to jsprof's
// 0-based form (−1 unknown).
func zeroBased(x int64) int32 {
	if x <= 0 || x > math.MaxInt32 {
		return -1
	}
	return int32(x - 1)
}

// descend returns the node of th that the frames fs of location loc lead
// to from node n, outermost frame first, adding the nodes needed. The node
// that a location of several lines (inlined calls) leads to is kept per
// parent: each sample would otherwise walk all its lines again, and a
// location of K lines named by N samples cost N×K lookups for an input of
// N+K. A location of one frame is walked as it is: its one lookup costs the
// same as one in the map of kept nodes.
func (ps *parser) descend(th *tthread, n int32, loc *pprofile.Location, fs []profile.FrameID) (int32, error) {
	if len(fs) == 1 {
		return ps.child(th, n, fs[0])
	}
	k := locStep{n, loc}
	ps.steps++
	if c, ok := th.through[k]; ok {
		return c, nil
	}
	for i := len(fs) - 1; i >= 0; i-- {
		var err error
		if n, err = ps.child(th, n, fs[i]); err != nil {
			return 0, err
		}
	}
	th.through[k] = n
	return n, nil
}

// child returns the child of node n of th for frame f, adding it if needed.
func (ps *parser) child(th *tthread, n int32, f profile.FrameID) (int32, error) {
	k := [2]int32{n, int32(f)}
	ps.steps++
	if c, ok := th.child[k]; ok {
		return c, nil
	}
	if ps.nnodes >= MaxNodes {
		return 0, fmt.Errorf("more than %d call-tree nodes", MaxNodes)
	}
	ps.nnodes++
	c := int32(len(th.nodes))
	th.nodes = append(th.nodes, tnode{parent: n, first: -1, last: -1, next: -1, frame: f})
	if p := &th.nodes[n]; p.first < 0 {
		p.first = c
	} else {
		th.nodes[p.last].next = c
	}
	th.nodes[n].last = c
	th.child[k] = c
	return c, nil
}

// finish appends thread th to the profile: its nodes in preorder and its
// samples laid out in that order (step 4 of Parse).
func (ps *parser) finish(th *tthread, origin profile.Time) error {
	p := ps.b.P
	// A root "(garbage collector)" goes first, so that no sample precedes
	// its samples: DevTools stacks a root GC sample on the previous one.
	nodes := th.nodes
	var gc, rest []int32
	for c := nodes[0].first; c >= 0; c = nodes[c].next {
		if p.Str(p.Frames[nodes[c].frame].Name) == "(garbage collector)" {
			gc = append(gc, c)
		} else {
			rest = append(rest, c)
		}
	}
	// Preorder, with an explicit stack: stacks can be very deep.
	base := int32(len(p.Nodes))
	var order int32
	visit := func(x int32) {
		nodes[x].order = order
		order++
		parent := profile.NoNode
		if nodes[x].parent >= 0 {
			parent = profile.NodeID(base + nodes[nodes[x].parent].order)
		}
		p.Nodes = append(p.Nodes, profile.Node{Parent: parent, Frame: nodes[x].frame})
	}
	visit(0)
	var todo []int32
	top := append(gc, rest...)
	for i := len(top) - 1; i >= 0; i-- {
		todo = append(todo, top[i])
	}
	var kids []int32
	for len(todo) > 0 {
		x := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		visit(x)
		kids = kids[:0]
		for c := nodes[x].first; c >= 0; c = nodes[c].next {
			kids = append(kids, c)
		}
		for i := len(kids) - 1; i >= 0; i-- {
			todo = append(todo, kids[i])
		}
	}
	// Samples in preorder of their nodes (stable: pprof's order within a
	// node), laid out from origin.
	slices.SortStableFunc(th.samples, func(a, b tsample) int { return int(nodes[a.node].order - nodes[b.node].order) })
	first := int32(p.Samples.Len())
	t := origin
	// The line table: per node (in preorder) and line, in order of first
	// sample. The samples of a node are adjacent after the sort, so an
	// entry of an earlier node is never added to again: lineAt keeps the
	// last entry made for each line, which is the current node's if its
	// Node says so, one entry a distinct line. It is not cleared at each
	// node, as it was: Go's clear costs as much as the map has grown (it
	// keeps its slots), so a node at L lines followed by M other nodes
	// cost L×M.
	lineAt := map[int32]int{} // line → index in p.LineTicks
	for _, s := range th.samples {
		if s.line > 0 && s.ticks > 0 {
			node := profile.NodeID(base + nodes[s.node].order)
			ps.steps++
			if j, ok := lineAt[s.line]; ok && p.LineTicks[j].Node == node {
				p.LineTicks[j].Ticks += s.ticks
			} else {
				lineAt[s.line] = len(p.LineTicks)
				p.LineTicks = append(p.LineTicks, profile.LineTick{Node: node, Line: s.line, Ticks: s.ticks})
			}
		}
	}
	for _, s := range th.samples {
		p.Samples.Node.Append(profile.NodeID(base + nodes[s.node].order))
		p.Samples.Time.Append(t)
		if t > math.MaxInt64-s.weight {
			return fmt.Errorf("thread %q: sample times overflow int64 nanoseconds", th.key.name)
		}
		t += s.weight
	}
	pt := profile.Thread{
		PID: 1, TID: int64(len(p.Threads) + 1), Name: th.key.name,
		Nodes:   profile.Range{Start: base, End: int32(len(p.Nodes))},
		Samples: profile.Range{Start: first, End: int32(p.Samples.Len())},
		Start:   origin, End: t, LastSampleEnd: t,
	}
	if th.key.hasIDs {
		pt.PID, pt.TID = th.key.pid, th.key.tid
	}
	p.Threads = append(p.Threads, pt)
	return nil
}
