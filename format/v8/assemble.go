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
func (a *Assembler) AddSamples(ids []int64) { a.addSamples(chunkOf(ids)) }

// AddSamples32 is AddSamples for ids that each fit in an int32: joined in
// 32 bits while every chunk's are, they take half the memory.
func (a *Assembler) AddSamples32(ids []int32) { a.addSamples(chunkOf(ids)) }

// AddSamples16 is AddSamples for ids that each fit in a uint16, as Chrome
// writes them for a profile of fewer than 65,536 nodes: joined in 16 bits
// while every chunk's are, a quarter of the memory, and the profile's
// nodes are then written over them (appendSamples).
func (a *Assembler) AddSamples16(ids []uint16) { a.addSamples(chunkOf(ids)) }

func (a *Assembler) addSamples(v chunkInts) {
	c := &a.p.chunks
	c.samples = append(c.samples, v)
	c.nSamples += v.len()
	a.p.hasSamples = true
}

// AddTimeDeltas appends time deltas in ns. It keeps ns, as AddSamples
// keeps its ids.
func (a *Assembler) AddTimeDeltas(ns []int64) { a.addDeltas(chunkOf(ns)) }

// AddTimeDeltas32 is AddTimeDeltas for deltas that are each a whole number
// of µs, given in µs: while every chunk's are, the times are made over
// them in place and kept in 4 bytes each (profile.Times), as for a
// .cpuprofile.
func (a *Assembler) AddTimeDeltas32(us []int32) { a.addDeltas(chunkOf(us)) }

// AddTimeDeltas16 is AddTimeDeltas32 for deltas that each fit an int16
// (a sampling finer than every 32 ms): while every chunk's do, the times
// are made over them in 2 bytes each when they allow (profile.Times).
func (a *Assembler) AddTimeDeltas16(us []int16) { a.addDeltas(chunkOf(us)) }

func (a *Assembler) addDeltas(v chunkInts) {
	c := &a.p.chunks
	c.deltas = append(c.deltas, v)
	c.nDeltas += v.len()
}

// joinInts appends chunks (n values in all; 16-bit ones are deltas if
// signed, else ids) to v, in the narrowest form that holds v and every
// chunk: 16 bits, 32, or 64, where a narrower value x stands for x·scale.
func joinInts(v ints, chunks []chunkInts, signed bool, n int, scale int64) ints {
	width := v.width()
	for _, c := range chunks {
		if c.len() > 0 {
			width = max(width, 8*int(c.width))
		}
	}
	switch width {
	case 16:
		if signed {
			v.d16 = jsonscan.Grow(v.d16, n)
			for _, c := range chunks {
				v.d16 = append(v.d16, c.ints(true).d16...)
			}
		} else {
			v.v16 = jsonscan.Grow(v.v16, n)
			for _, c := range chunks {
				v.v16 = append(v.v16, c.ints(false).v16...)
			}
		}
	case 32:
		w := v.v32
		if w == nil {
			w = v.append32(jsonscan.Grow([]int32(nil), v.len()+n))
		} else {
			w = jsonscan.Grow(w, n)
		}
		for _, c := range chunks {
			w = c.ints(signed).append32(w)
		}
		v = ints{v32: w}
	case 64:
		w := v.wide
		if w == nil {
			w = v.append64(jsonscan.Grow([]int64(nil), v.len()+n), scale)
		} else {
			w = jsonscan.Grow(w, n)
		}
		for _, c := range chunks {
			w = c.ints(signed).append64(w, scale)
		}
		v = ints{wide: w}
	}
	return v
}

// joinChunks appends the samples and deltas kept by AddSamples and
// AddTimeDeltas to the parser's arrays.
func (p *parser) joinChunks() {
	c := &p.chunks
	if len(c.samples) > 0 {
		v := joinInts(ints{wide: p.samples, v32: p.samples32, v16: p.samples16}, c.samples, false, c.nSamples, 1)
		p.samples, p.samples32, p.samples16 = v.wide, v.v32, v.v16
	}
	if len(c.deltas) > 0 {
		v := joinInts(ints{wide: p.deltas, v32: p.deltas32, d16: p.deltas16}, c.deltas, true, c.nDeltas, 1000)
		p.deltas, p.deltas32, p.deltas16 = v.wide, v.v32, v.d16
	}
	if len(c.lines) > 0 {
		// The columns only when a chunk has them: Chrome's traces before
		// 156 give lines alone, and a column of zeros cost 4 bytes a
		// sample twice over (here and in the profile).
		cols := p.cols != nil || slices.ContainsFunc(c.lines, func(l chunkLines) bool { return l.cols != nil })
		before := len(p.lines)
		p.lines = growColumn(p.lines, 0, c.nLines) // not nil, even for no lines
		for _, l := range c.lines {
			p.lines = l.appendLines(p.lines)
		}
		if cols {
			// The first columns after lines joined before (Truncate,
			// ReadProfile): zeros for those.
			p.cols = growColumn(p.cols, before, c.nLines)
			for _, l := range c.lines {
				p.cols = appendN(p.cols, l.cols, l.n)
			}
		}
	}
	*c = chunkArrays{}
}

// AddLines appends per-sample lines and columns (nil: zeros for n samples),
// keeping the lines (and the columns, once a chunk has them) as long as
// the samples. It keeps lines and cols, as AddSamples keeps its ids, and
// they are joined with the samples.
func (a *Assembler) AddLines(lines, cols []int32, n int) {
	a.addLines(chunkLines{lines: lines, cols: cols, n: n}, lines == nil && cols == nil)
}

// AddLines16 is AddLines for lines that each fit a uint16, kept so until
// they are joined.
func (a *Assembler) AddLines16(lines []uint16, cols []int32, n int) {
	a.addLines(chunkLines{lines16: lines, cols: cols, n: n}, lines == nil && cols == nil)
}

func (a *Assembler) addLines(l chunkLines, none bool) {
	p := &a.p
	c := &p.chunks
	if p.lines == nil && len(c.lines) == 0 {
		if none {
			return
		}
		// Zeros for the samples before the first chunk with lines.
		before := p.joinedSamples() + c.nSamples - l.n
		c.lines = append(c.lines, chunkLines{n: before})
		c.nLines += before
	}
	c.lines = append(c.lines, l)
	c.nLines += l.n
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
