package v8

import (
	"errors"
	"slices"

	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/profile"
)

// Assembler collects the parts of one CPU profile that a Chrome trace spreads
// over events (a Profile event, then ProfileChunk events with nodes, samples,
// time deltas, lines, columns and trace ids) and appends it to a profile as a
// thread, with the same renumbering, checks and diagnostics as Parse.
type Assembler struct {
	p parser
}

// NewAssembler returns an assembler that appends to b's profile.
func NewAssembler(b *profile.Builder) *Assembler {
	a := &Assembler{}
	a.p.b = b
	a.p.limits = Limits{MaxNodes: 50_000_000, MaxDepth: 100_000}
	a.p.hasDeltas = true
	// A trace cut short can lose the chunk that defines a node that
	// earlier samples name: salvage the rest, counting the loss.
	a.p.lenient = true
	return a
}

// SetStart sets the profile's start time in µs (DevTools takes the Profile
// event's ts).
func (a *Assembler) SetStart(us float64) { a.p.startF = us }

// SetEnd sets the profile's end time in µs.
func (a *Assembler) SetEnd(us float64) { a.p.endF = us }

// Start returns the start time set so far, in µs.
func (a *Assembler) Start() float64 { return a.p.startF }

// End returns the end time set so far, in µs.
func (a *Assembler) End() float64 { return a.p.endF }

// ReadNodes reads a JSON array of nodes (parent- or children-linked) from s.
// prefix is the JSON path of the array's parent, e.g.
// "traceEvents[12].args.data.cpuProfile.", and base the file offset of s's
// input, both used in errors.
func (a *Assembler) ReadNodes(s *jsonscan.Scanner, base int64, prefix string) error {
	p := &a.p
	p.s, p.prefix, p.chunkStart = s, prefix, len(p.nodes)
	if err := s.BeginArray(); err != nil {
		return rebase(p.fail(s.Offset(), prefix+"nodes", err), base)
	}
	for first := true; ; first = false {
		ok, err := s.NextElem(first)
		if err != nil {
			return rebase(p.fail(s.Offset(), prefix+"nodes", err), base)
		}
		if !ok {
			return nil
		}
		if len(p.nodes) >= p.limits.MaxNodes {
			return rebase(p.failf(s.Offset(), prefix+"nodes", "more than %d nodes", p.limits.MaxNodes), base)
		}
		if err := p.parseNode(); err != nil {
			return rebase(err, base)
		}
		p.nodes[len(p.nodes)-1].off += base // errors found later point into the file
	}
}

// rebase adds base to the offset of a *profile.ParseError.
func rebase(err error, base int64) error {
	var pe *profile.ParseError
	if errors.As(err, &pe) && pe.Offset >= 0 {
		cp := *pe
		cp.Offset += base
		return &cp
	}
	return err
}

// AddSamples appends sample node ids. It keeps ids, which the caller must
// not change: the chunks' arrays are joined once, when the profile is
// appended (appended chunk by chunk, a long profile's arrays were copied
// through growths that allocated five times their size).
func (a *Assembler) AddSamples(ids []int64) {
	c := &a.p.chunks
	c.samples = append(c.samples, chunkInts{wide: ids})
	c.nSamples += len(ids)
	a.p.hasSamples = true
}

// AddSamples32 is AddSamples for ids that each fit in an int32, as Chrome
// writes them: joined in 32 bits while every chunk's are, they take half
// the memory.
func (a *Assembler) AddSamples32(ids []int32) {
	c := &a.p.chunks
	c.samples = append(c.samples, chunkInts{narrow: ids})
	c.nSamples += len(ids)
	a.p.hasSamples = true
}

// AddTimeDeltas appends time deltas in ns. It keeps ns, as AddSamples
// keeps its ids.
func (a *Assembler) AddTimeDeltas(ns []int64) {
	c := &a.p.chunks
	c.deltas = append(c.deltas, chunkInts{wide: ns})
	c.nDeltas += len(ns)
}

// AddTimeDeltas32 is AddTimeDeltas for deltas that are each a whole number
// of µs, given in µs: while every chunk's are, the times are made over
// them in place and kept in 4 bytes each (profile.Times), as for a
// .cpuprofile.
func (a *Assembler) AddTimeDeltas32(us []int32) {
	c := &a.p.chunks
	c.deltas = append(c.deltas, chunkInts{narrow: us})
	c.nDeltas += len(us)
}

// joinInts appends chunks (n values in all) to the array of 64-bit values
// wide or, while it is nil and no chunk is wide, of 32-bit values narrow;
// a 32-bit value v stands for v·scale in 64 bits.
func joinInts(wide []int64, narrow []int32, chunks []chunkInts, n int, scale int64) ([]int64, []int32) {
	if len(chunks) == 0 {
		return wide, narrow
	}
	if wide == nil && !slices.ContainsFunc(chunks, func(c chunkInts) bool { return c.wide != nil }) {
		narrow = jsonscan.Grow(narrow, n)
		for _, c := range chunks {
			narrow = append(narrow, c.narrow...)
		}
		return nil, narrow
	}
	wide = jsonscan.AppendScaled(jsonscan.Grow(wide, len(narrow)+n), narrow, scale)
	for _, c := range chunks {
		if c.wide != nil {
			wide = append(wide, c.wide...)
		} else {
			wide = jsonscan.AppendScaled(wide, c.narrow, scale)
		}
	}
	return wide, nil
}

// joinChunks appends the samples and deltas kept by AddSamples and
// AddTimeDeltas to the parser's arrays.
func (p *parser) joinChunks() {
	c := &p.chunks
	p.samples, p.samples32 = joinInts(p.samples, p.samples32, c.samples, c.nSamples, 1)
	p.deltas, p.deltas32 = joinInts(p.deltas, p.deltas32, c.deltas, c.nDeltas, 1000)
	if len(c.lines) > 0 {
		// The columns only when a chunk has them: Chrome's traces before
		// 156 give lines alone, and a column of zeros cost 4 bytes a
		// sample twice over (here and in the profile).
		cols := p.cols != nil || slices.ContainsFunc(c.lines, func(l chunkLines) bool { return l.cols != nil })
		p.lines = joinLines(p.lines, c.lines, c.nLines, func(l chunkLines) []int32 { return l.lines })
		if cols {
			p.cols = joinLines(p.cols, c.lines, c.nLines, func(l chunkLines) []int32 { return l.cols })
		}
	}
	*c = chunkArrays{}
}

// joinLines appends the chunks' lines or columns (of) to dst, n values in
// all, each chunk's missing ones 0.
func joinLines(dst []int32, chunks []chunkLines, n int, of func(chunkLines) []int32) []int32 {
	dst = jsonscan.Grow(dst, n)
	if dst == nil { // zero values to join
		dst = []int32{}
	}
	for _, l := range chunks {
		v := of(l)
		if len(v) >= l.n { // as Chrome writes them: copied whole
			dst = append(dst, v[:l.n]...)
			continue
		}
		at := len(dst)
		dst = append(dst, v...)
		dst = dst[:at+l.n]
		clear(dst[at+len(v):])
	}
	return dst
}

// AddLines appends per-sample lines and columns (nil: zeros for n samples),
// keeping the lines (and the columns, once a chunk has them) as long as
// the samples. It keeps lines and cols, as AddSamples keeps its ids, and
// they are joined with the samples.
func (a *Assembler) AddLines(lines, cols []int32, n int) {
	p := &a.p
	c := &p.chunks
	if p.lines == nil && len(c.lines) == 0 {
		if lines == nil && cols == nil {
			return
		}
		// Zeros for the samples before the first chunk with lines.
		before := p.joinedSamples() + c.nSamples - n
		c.lines = append(c.lines, chunkLines{n: before})
		c.nLines += before
	}
	c.lines = append(c.lines, chunkLines{lines, cols, n})
	c.nLines += n
}

// AddTraceID records that trace id names the stack ending at node.
func (a *Assembler) AddTraceID(id, node int64) {
	if a.p.traceIDs == nil {
		a.p.traceIDs = map[int64]int64{}
	}
	a.p.traceIDs[id] = node
}

// Counts returns the numbers of nodes, samples and time deltas so far.
func (a *Assembler) Counts() (nodes, samples, deltas int) {
	p := &a.p
	return len(p.nodes), p.joinedSamples() + p.chunks.nSamples, p.joinedDeltas() + p.chunks.nDeltas
}

// joinedSamples returns the number of samples in the parser's arrays (at
// most one of samples, samples32 and samples16 is not empty).
func (p *parser) joinedSamples() int { return len(p.samples) + len(p.samples32) + len(p.samples16) }

// joinedDeltas is joinedSamples for the time deltas.
func (p *parser) joinedDeltas() int { return len(p.deltas) + len(p.deltas32) + len(p.deltas16) }

// Append appends the profile as a thread with th's identity (PID, TID, Name,
// ProfileID); prefix names the profile in errors.
func (a *Assembler) Append(th profile.Thread, prefix string) error {
	a.p.joinChunks()
	a.p.prefix, a.p.chunkStart = prefix, 0
	a.p.hasSamples = a.p.joinedSamples() > 0
	a.p.s = nil // the chunks' scanners are gone: offsets of samples are unknown
	return a.p.appendThread(th)
}

// ReadProfile reads a whole CPU profile object (a legacy CpuProfile trace
// event's args.data.cpuProfile) into the assembler and returns its startTime
// and endTime in µs. base and prefix locate data in errors.
func (a *Assembler) ReadProfile(data []byte, base int64, prefix string) (start, end float64, err error) {
	p := &a.p
	p.joinChunks()
	p.s = jsonscan.New(data)
	p.prefix, p.chunkStart = prefix, len(p.nodes)
	p.hasDeltas = false
	if err := p.parseTop(); err != nil {
		return 0, 0, rebase(err, base)
	}
	return p.startF, p.endF, nil
}

// Truncate cuts samples, time deltas, lines and columns to the shortest of
// samples and deltas, and returns how many samples were dropped.
func (a *Assembler) Truncate() int {
	p := &a.p
	p.joinChunks()
	n := min(p.joinedSamples(), p.joinedDeltas())
	dropped := p.joinedSamples() - n
	p.samples, p.samples32, p.samples16 = cut(p.samples, n), cut(p.samples32, n), cut(p.samples16, n)
	p.deltas, p.deltas32, p.deltas16 = cut(p.deltas, n), cut(p.deltas32, n), cut(p.deltas16, n)
	if p.lines != nil {
		p.lines, p.cols = p.lines[:min(n, len(p.lines))], p.cols[:min(n, len(p.cols))]
	}
	return dropped
}

// HasLines reports whether the profile has per-sample lines.
func (a *Assembler) HasLines() bool { return a.p.lines != nil || len(a.p.chunks.lines) > 0 }

// HasColumns reports whether the profile has per-sample columns.
func (a *Assembler) HasColumns() bool {
	return a.p.cols != nil || slices.ContainsFunc(a.p.chunks.lines, func(l chunkLines) bool { return l.cols != nil })
}

// cut returns s cut to at most n elements (nil stays nil).
func cut[S ~[]E, E any](s S, n int) S { return s[:min(n, len(s))] }
