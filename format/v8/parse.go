// Package v8 reads V8 CPU profiles (.cpuprofile): the Profiler.Profile object
// of the DevTools protocol that Node --cpu-prof, Chrome DevTools, Deno and XS
// write, in its current form (nodes with children or parent links, samples and
// timeDeltas in µs) and its legacy form (a nested head tree, start and end in
// seconds, timestamps in µs). See docs/formats.md §1 and §3.
//
// Parse fills the profile tables directly from a byte-level scanner: it never
// builds a generic JSON tree. Input node ids are renumbered densely in preorder
// from the root; a node reachable through several parents (XS call graphs)
// makes the thread a call graph, its extra parents kept as Profile.Edges.
package v8

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/internal/pages"
	"github.com/jsprof/jsprof/profile"
)

// Limits bounds what Parse accepts. The zero value means the defaults.
type Limits struct {
	MaxNodes int // default 50,000,000
	MaxDepth int // nesting of the legacy head tree and of skipped values; default 100,000
}

// Parse reads a .cpuprofile, plain or gzip.
func Parse(r io.Reader) (*profile.Profile, error) {
	data, err := input.Read(r, -1, input.Options{})
	if err != nil {
		return nil, err
	}
	return ParseBytes(data, Limits{})
}

// Sniff reports whether data (decompressed) looks like a .cpuprofile: a JSON
// object whose first member is one of the profile's own keys.
func Sniff(data []byte) bool {
	s := jsonscan.New(data)
	if s.BeginObject() != nil {
		return false
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil || !ok {
			return false
		}
		switch string(key) {
		case "nodes", "head":
			return true
		case "startTime", "endTime", "samples", "timeDeltas", "timestamps", "title", "id", "typeId", "uid":
			if s.Skip() != nil {
				return false
			}
		default:
			return false
		}
	}
}

type rawNode struct {
	id                 int64
	off                int64 // byte offset of the node object
	name, url, script  profile.StringID
	codeType, deopt    profile.StringID
	line, col          int32
	hit                int64
	parent             int64
	hasHit, hasParent  bool
	hasChildren, hasID bool
	children           [2]int32 // range in parser.children
}

// frame returns the node's call frame.
func (n *rawNode) frame() callFrame {
	return callFrame{n.name, n.url, n.script, n.line, n.col, n.codeType}
}

type parser struct {
	s      *jsonscan.Scanner
	b      *profile.Builder
	limits Limits

	path lazyPath // the path of the node being read (parseNode)

	nodes    []rawNode
	children []int64
	// inOrder counts the leading nodes whose ids are the first's plus
	// their index, as V8 numbers them (noteOrder): when it is every node,
	// an id is its node's index plus the first id (indexIDs).
	inOrder int
	// The positionTicks entries of every node, in input order; Node holds
	// the raw node's index until build, or −1 for an entry left out.
	ticks     []profile.LineTick
	samples   []int64
	samples32 []int32  // the samples instead, when every id fits (ParseBytes)
	samples16 []uint16 // instead of both, when every id is below 1<<16 (readIds)
	deltas    []int64  // ns
	deltas32  []int32  // µs, instead of deltas when each is a whole µs that fits (readDeltas)
	deltas16  []int16  // µs, instead of both when each fits 2 bytes
	// The deltas read into the line form, instead of all three (a fine
	// sampling's, readDeltasLined).
	deltasLined *profile.LineBuilder
	timestamps  []int64 // ns (legacy)
	startF      float64 // startTime as written: µs, or seconds in the legacy form
	endF        float64
	hasStart    bool
	hasEnd      bool
	hasSamples  bool
	hasDeltas   bool
	legacy      bool

	samplesOff, deltasOff   int64
	nodesOff, timestampsOff int64
	startOff, endOff        int64
	heapOff                 int64            // offset of the first selfSize of a node (a heap profile); 0 if none
	heapPath                string           // its JSON path
	lastURL                 profile.StringID // intern cache
	plainHits, plainMisses  int              // call frames read plainly (plain.go), and not
	// Intern caches for call frames (internScript, internURL): script ids
	// by their number, and the URL last read after each script id.
	scriptByNum []profile.StringID
	urlByScript []profile.StringID

	// Trace chunks (see Assembler): per-sample lines and columns, trace ids
	// (trace id → node id), and the JSON path prefix of the profile.
	lines, cols []int32
	traceIDs    map[int64]int64
	prefix      string
	chunkStart  int         // index of the current chunk's first node
	chunks      chunkArrays // the chunks' samples, deltas and lines, not yet joined
	lenient     bool        // drop samples naming unknown nodes (trace chunks) instead of failing

	// The call frames of the first len(frameOf) raw nodes, found while
	// the parser waits for the node table's second half (framesAhead);
	// appendThread finds the rest's.
	frames  frameTable
	frameOf []int32 // raw node → index in frames

	tail    *tailArrays              // samples and timeDeltas read ahead, in parallel
	release func(lo, hi int64) error // see ParseMapped
	drop    func(lo, hi int64)
}

// chunkArrays are the samples, time deltas, lines and columns of a trace's
// chunks, kept until they are joined (Assembler.AddSamples, joinChunks):
// each chunk's sample ids and time deltas in the narrowest width that
// holds them (ints: 16 bits, 32, or 64 as ns for deltas that are not
// whole µs).
type chunkArrays struct {
	samples, deltas   []chunkInts
	nSamples, nDeltas int
	// Lines and columns, from the first chunk that has them
	// (Assembler.AddLines).
	lines  []chunkLines
	nLines int
}

// chunkInts is one chunk's sample ids or time deltas, as the bytes of the
// []uint16 (ids) or []int16 (deltas, µs), []int32 or []int64 they were read
// into, width bytes each: 32 bytes a chunk where an ints of five slices
// took 104 (web-dev's 5 k chunks: 0.7 MB while its events are read).
type chunkInts struct {
	b     []byte
	width uint8
}

// chunkOf returns v as a chunkInts, sharing its storage.
func chunkOf[T uint16 | int16 | int32 | int64](v []T) chunkInts {
	var zero T
	w := int(unsafe.Sizeof(zero))
	return chunkInts{b: unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*w), width: uint8(w)}
}

// len returns the number of values.
func (c chunkInts) len() int { return len(c.b) / int(c.width) }

// ints returns the chunk's values as the slice they were read into (a
// 16-bit chunk's as deltas if signed, else as ids); none when empty.
func (c chunkInts) ints(signed bool) ints {
	n := c.len()
	if n == 0 {
		return ints{}
	}
	at := unsafe.Pointer(unsafe.SliceData(c.b))
	switch c.width {
	case 2:
		if signed {
			return ints{d16: unsafe.Slice((*int16)(at), n)}
		}
		return ints{v16: unsafe.Slice((*uint16)(at), n)}
	case 4:
		return ints{v32: unsafe.Slice((*int32)(at), n)}
	}
	return ints{wide: unsafe.Slice((*int64)(at), n)}
}

// chunkLines are the lines and columns of n samples; missing ones are 0.
// The lines are in lines16 instead when each fits 16 bits.
type chunkLines struct {
	lines, cols []int32
	lines16     []uint16
	n           int
}

// appendLines appends the chunk's n lines to dst, 0 past the end of a
// short array.
func (l chunkLines) appendLines(dst []int32) []int32 {
	if l.lines16 != nil {
		k := min(len(l.lines16), l.n)
		return appendZeros(ints{v16: l.lines16[:k]}.append32(dst), l.n-k)
	}
	return appendN(dst, l.lines, l.n)
}

// appendN appends v's first n values to dst, and zeros for those past its
// end.
func appendN(dst, v []int32, n int) []int32 {
	k := min(len(v), n)
	return appendZeros(append(dst, v[:k]...), n-k)
}

// appendZeros appends n zeros to dst, which has room for them.
func appendZeros(dst []int32, n int) []int32 {
	at := len(dst)
	dst = dst[:at+n]
	clear(dst[at:])
	return dst
}

func (p *parser) fail(off int64, path string, err error) error {
	return jsonscan.Locate(err, off, path)
}

func (p *parser) failf(off int64, path string, format string, args ...any) error {
	return &profile.ParseError{Offset: off, Path: path, Err: fmt.Errorf(format, args...)}
}

// ParseBytes reads a decompressed .cpuprofile held in memory.
func ParseBytes(data []byte, limits Limits) (*profile.Profile, error) {
	return parseBytes(data, limits, nil, nil)
}

// ParseMapped is ParseBytes for a file mapped into memory
// (input.Mapping): release is called with each stretch of data the parser
// has gone past (an error it returns stops the parse), drop with a stretch
// it looked at ahead and will read again (its pages go back without
// counting it as read), and a fault reading the mapping (the file
// truncated meanwhile) is an error, not a crash.
func ParseMapped(data []byte, limits Limits, release func(lo, hi int64) error, drop func(lo, hi int64)) (p *profile.Profile, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = input.FaultError(r)
		}
	}()
	return parseBytes(data, limits, release, drop)
}

func parseBytes(data []byte, limits Limits, release func(lo, hi int64) error, drop func(lo, hi int64)) (*profile.Profile, error) {
	if limits.MaxNodes <= 0 {
		limits.MaxNodes = 50_000_000
	}
	if limits.MaxDepth <= 0 {
		limits.MaxDepth = 100_000
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &profile.ParseError{Offset: 0, Path: "$", Err: profile.ErrEmpty}
	}
	s := jsonscan.New(data)
	s.MaxDepth = limits.MaxDepth
	s.Release, s.Drop = release, drop
	p := &parser{s: s, b: profile.NewBuilder("cpuprofile"), limits: limits, release: release, drop: drop}
	if len(data) >= parallelTailBytes {
		p.tail = p.readTailArrays(data)
	}
	err := p.parseTop()
	p.tail.wait()
	if plainCounts != nil {
		plainCounts(p.plainHits, p.plainMisses)
	}
	if err != nil {
		return nil, err
	}
	if !s.AtEnd() {
		return nil, p.failf(s.Offset(), "$", "unexpected data after the profile object")
	}
	if release != nil {
		// Read whole: what the readers still hold of a mapped file goes
		// back before the profile is built, at the reading's peak. That
		// was the node table's last stretch, shorter than a release, and
		// what the parser touched between and after the arrays read
		// ahead, which the kernel maps a large folio at a time on a file
		// just written: 1.2–2.2 MB of samples-heavy's 20.6 at its peak
		// (docs/performance.md §5x). The errors build may report read
		// the pages they need again.
		_ = release(0, int64(len(data)))
	}
	return p.build()
}

func (p *parser) parseTop() error {
	s := p.s
	if err := s.BeginObject(); err != nil {
		return p.fail(s.Offset(), "$", err)
	}
	sawNodes := false
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return p.fail(s.Offset(), "$", err)
		}
		if !ok {
			break
		}
		off := s.Offset()
		switch string(key) {
		case "nodes", "head":
			if s.Null() {
				continue
			}
			if sawNodes {
				return p.failf(off, string(key), "a second node table: a profile has one nodes or head member")
			}
			sawNodes, p.nodesOff = true, off
			if key[0] == 'h' {
				p.legacy = true
				p.tail.startNow() // not read in halves
				err = p.parseHeadNode(0, &headPath{})
			} else if err = p.parseNodes(); err == nil {
				s.ReleaseRest() // the table's last stretch, shorter than a release
			}
		case "startTime":
			p.startOff = off
			p.startF, err = p.readTime("startTime")
			p.hasStart = err == nil
		case "endTime":
			p.endOff = off
			p.endF, err = p.readTime("endTime")
			p.hasEnd = err == nil
		case "samples":
			p.samplesOff = off
			if p.heapOff > 0 {
				return p.heapProfile()
			}
			if s.Null() {
				continue
			}
			if s.Kind() != '[' {
				return p.fail(off, "samples", s.TypeError("array"))
			}
			p.hasSamples = true
			if v, ok := p.tail.take(s, false); ok {
				p.samples, p.samples32, p.samples16 = v.wide, v.v32, v.v16
				continue
			}
			var v ints
			if v, err = readIds(s); err != nil {
				return p.fail(off, fmt.Sprintf("samples[%d]", len(v.wide)), err)
			}
			p.samples, p.samples32, p.samples16 = v.wide, v.v32, v.v16
		case "timeDeltas":
			p.deltasOff = off
			if s.Null() {
				continue
			}
			p.hasDeltas = true
			v, ok := p.tail.take(s, true)
			if !ok {
				v, err = p.readDeltas(s, "timeDeltas")
			}
			p.deltas, p.deltas32, p.deltas16, p.deltasLined = v.wide, v.v32, v.d16, v.lined
		case "timestamps":
			p.timestampsOff = off
			if s.Null() {
				continue
			}
			p.timestamps, err = p.readMicrosArray(p.timestamps[:0], "timestamps")
		default:
			err = s.Skip()
			if err != nil {
				err = p.fail(off, "$."+string(key), err)
			}
		}
		if err != nil {
			var pe *profile.ParseError
			if errors.As(err, &pe) {
				return err
			}
			return p.fail(off, string(key), err)
		}
	}
	if !sawNodes {
		return p.failf(0, "$", "%w: no nodes or head member (not a .cpuprofile)", profile.ErrUnrecognized)
	}
	if p.heapOff > 0 && !p.hasStart && !p.hasEnd && !p.hasDeltas && len(p.timestamps) == 0 {
		return p.heapProfile()
	}
	return nil
}

// heapProfile returns the error for a V8 sampling heap profile
// (.heapprofile: a head tree whose nodes have selfSize, allocation samples,
// no times), which would otherwise read as an empty legacy CPU profile.
func (p *parser) heapProfile() error {
	return p.failf(p.heapOff, p.heapPath, "a V8 heap profile (.heapprofile: nodes with selfSize in bytes, no sample times), not a CPU profile; "+
		"record a CPU profile with node --cpu-prof or DevTools' Performance panel")
}

// sawSelfSize records the first selfSize member of a node, the mark of a
// heap profile. The path is formatted for the first only: a legacy head
// node's path is as long as its depth, and formatting it at every node of
// a deep chain of heap nodes was quadratic (20 k nodes: 14 s and 18 GB).
func (p *parser) sawSelfSize(off int64, path fmt.Stringer) {
	if p.heapOff == 0 {
		p.heapOff, p.heapPath = off, path.String()+".selfSize"
	}
}

// readTime reads startTime/endTime as written: µs in the current format,
// seconds in the legacy one (which may only be known later, from head).
func (p *parser) readTime(path string) (float64, error) {
	if p.s.Null() {
		return 0, nil
	}
	off := p.s.Offset()
	f, err := p.s.Float()
	if err != nil {
		return 0, p.fail(p.s.Offset(), path, err)
	}
	if math.Abs(f) > maxMicros {
		return 0, p.failf(off, path, "time %g µs out of range", f)
	}
	return f, nil
}

// maxTime bounds the absolute times the reader accepts, in ns: ±2^62 (±146
// years) keeps every sum and difference of two times inside an int64.
// maxMicros is the same bound in µs, for each time or time delta as written.
const (
	maxTime   = 1 << 62
	maxMicros = maxTime / 1000
)

// ReadMicros reads the number s is at, a time or time delta in µs, as ns:
// an integer exactly, any other number as profile.TimeFromMicros rounds
// it. Not a number, it returns Int's error with s back at the value; beyond
// ±maxMicros, a *MicrosRangeError. The .cpuprofile reader and the trace
// reader's ProfileChunk deltas read their time arrays with it.
func ReadMicros(s *jsonscan.Scanner) (int64, error) {
	at := s.Offset()
	v, err := s.Int()
	if err == nil {
		if v > maxMicros || v < -maxMicros {
			return 0, &MicrosRangeError{v}
		}
		return v * 1000, nil
	}
	s.SetOffset(at)
	f, ferr := s.Float()
	if ferr != nil {
		s.SetOffset(at)
		return 0, err
	}
	if !(f <= maxMicros && f >= -maxMicros) {
		return 0, &MicrosRangeError{f}
	}
	return int64(profile.TimeFromMicros(f)), nil
}

// MicrosRangeError is a time beyond any clock: its value in µs, an int64
// or a float64 as written.
type MicrosRangeError struct{ Value any }

func (e *MicrosRangeError) Error() string { return fmt.Sprintf("time %v µs out of range", e.Value) }

// ints is an array of integers read in the narrowest width that holds them
// all: one field is set.
type ints struct {
	wide  []int64
	v32   []int32
	v16   []uint16             // ids
	d16   []int16              // deltas
	lined *profile.LineBuilder // deltas
}

// len returns the number of integers (not of the line form's).
func (v ints) len() int { return len(v.wide) + len(v.v32) + len(v.v16) + len(v.d16) }

// width returns the bits of the form v holds: 64, 32, 16, or 0 for none.
func (v ints) width() int {
	switch {
	case v.wide != nil:
		return 64
	case v.v32 != nil:
		return 32
	case v.v16 != nil || v.d16 != nil:
		return 16
	}
	return 0
}

// append32 appends v's integers to dst in 32 bits; v is not wide.
func (v ints) append32(dst []int32) []int32 {
	for _, x := range v.v16 {
		dst = append(dst, int32(x))
	}
	for _, x := range v.d16 {
		dst = append(dst, int32(x))
	}
	return append(dst, v.v32...)
}

// append64 appends v's integers to dst in 64 bits, those not already
// wide times scale.
func (v ints) append64(dst []int64, scale int64) []int64 {
	for _, x := range v.v16 {
		dst = append(dst, int64(x)*scale)
	}
	for _, x := range v.d16 {
		dst = append(dst, int64(x)*scale)
	}
	return append(jsonscan.AppendScaled(dst, v.v32, scale), v.wide...)
}

// readIds reads an array of node ids (a profile's samples), in 2 bytes each
// when they fit, else 4, else 8.
func readIds(s *jsonscan.Scanner) (ints, error) {
	start := s.Offset()
	if v16, v32, fits, err := jsonscan.Ints16[uint16](s, nil); err == nil && fits {
		return ints{v32: v32, v16: v16}, nil
	}
	s.SetOffset(start)
	v, err := s.Ints(nil)
	return ints{wide: v}, err
}

// readDeltas reads a timeDeltas array: as µs in an int16 or int32 each
// when every delta is a whole number of µs that fits (V8 and Chrome write
// them so; a fine sampling's are below 32 ms), which the times are then
// computed over in place (build) and kept in (profile.Times), at a quarter
// or half the memory of int64 ns; else as ns.
func (p *parser) readDeltas(s *jsonscan.Scanner, path string) (ints, error) {
	at := s.Offset()
	if p.prefix == "" {
		if b := readDeltasLined(s); b != nil {
			return ints{lined: b}, nil
		}
		s.SetOffset(at)
	}
	if d16, us, fits, err := jsonscan.Ints16[int16](s, nil); err == nil && fits {
		return ints{v32: us, d16: d16}, nil
	}
	// A fraction, a delta beyond ±35 minutes, or an error: read again,
	// which reports the error where an in-order read would.
	s.SetOffset(at)
	ns, err := p.readMicrosArrayFrom(s, nil, path)
	return ints{wide: ns}, err
}

// lineMinDeltas is the number of time deltas from which a .cpuprofile's
// are read into the line form (a variable for tests).
var lineMinDeltas = 1 << 16

// lineChunk is how many deltas readDeltasLined gives the builder at once.
const lineChunk = 16 << 10

// readDeltasLined reads a timeDeltas array of at least lineMinDeltas
// deltas, each a whole µs in an int32, into the line form
// (profile.LineBuilder) by chunks, never holding them all: 1.13 bytes a
// sample instead of 2 or 4 (a pause of more than 32 ms between two
// samples, common, widens a whole array of deltas to 4 bytes). It returns
// nil, having read some of the array, when the array is not so (smaller,
// a delta that does not fit, an error) or its times are too far from
// lines (a coarse sampling's jitter): the caller reads it again from its
// start.
func readDeltasLined(s *jsonscan.Scanner) *profile.LineBuilder {
	if s.Peek() != '[' {
		return nil
	}
	if err := s.BeginArray(); err != nil {
		return nil
	}
	n := s.CountElems()
	if n < lineMinDeltas {
		return nil
	}
	b := profile.NewLineBuilder(n)
	// A run reads at most 64 KB of input, so at most 32 k deltas: the
	// buffer never grows.
	const within = 64 << 10
	buf := make([]int32, 0, lineChunk+within/2+1)
	for first := true; ; first = false {
		ok, err := s.NextElem(first)
		if err != nil {
			return nil
		}
		if !ok {
			if !b.Add(buf) {
				return nil
			}
			return b
		}
		v, err := s.Int()
		if err != nil || int64(int32(v)) != v {
			return nil
		}
		buf = append(buf, int32(v))
		buf = jsonscan.IntRunWithin(s, buf, math.MaxInt32, within)
		if len(buf) >= lineChunk {
			if !b.Add(buf) {
				return nil
			}
			buf = buf[:0]
		}
	}
}

// readMicrosArray reads an array of µs values (integers, or any number) as ns.
func (p *parser) readMicrosArray(dst []int64, path string) ([]int64, error) {
	return p.readMicrosArrayFrom(p.s, dst, path)
}

// readMicrosArrayFrom is readMicrosArray with scanner s.
func (p *parser) readMicrosArrayFrom(s *jsonscan.Scanner, dst []int64, path string) ([]int64, error) {
	if err := s.BeginArray(); err != nil {
		return dst, p.fail(s.Offset(), path, err)
	}
	dst = jsonscan.Grow(dst, s.CountElems())
	for first := true; ; first = false {
		ok, err := s.NextElem(first)
		if err != nil {
			return dst, p.fail(s.Offset(), fmt.Sprintf("%s[%d]", path, len(dst)), err)
		}
		if !ok {
			return dst, nil
		}
		off := s.Offset()
		ns, err := ReadMicros(s)
		if err != nil {
			if _, ok := err.(*MicrosRangeError); ok {
				return dst, &profile.ParseError{Offset: off, Path: fmt.Sprintf("%s[%d]", path, len(dst)), Err: err}
			}
			return dst, p.fail(off, fmt.Sprintf("%s[%d]", path, len(dst)), err)
		}
		dst = append(dst, ns)
		k := len(dst)
		dst = jsonscan.IntRun(s, dst, maxMicros)
		for j := k; j < len(dst); j++ {
			dst[j] *= 1000
		}
	}
}

func (p *parser) parseNodes() error {
	s := p.s
	if err := s.BeginArray(); err != nil {
		return p.fail(s.Offset(), "nodes", err)
	}
	// Size the node table up front: a node is two objects (itself and its
	// callFrame), and a SIMD count of '{' is far cheaper than growing a
	// slice of 100k+ nodes (positionTicks objects make it an overestimate).
	// The count stops where the arrays read ahead start: counting through
	// them would bring a long recording's samples into memory early. A
	// table read in two halves is counted by halves, one on each core:
	// the count was a tenth of the many-nodes shape's summary, before the
	// second core had a node to read.
	data := s.Raw(0, int64(s.Len()))
	start, limit := s.Offset(), p.nodesLimit(s.Offset())
	at := p.splitPoint(data, start, limit)
	var c1, c2 tableCounts // in [start, at) and [at, limit)
	if at >= 0 {
		var err error
		if c1, c2, err = p.countBraces(data, start, at, limit); err != nil {
			return p.fail(at, "nodes", err)
		}
	} else {
		c1.braces = s.CountByte('{', start, limit)
	}
	if est := (c1.braces + c2.braces) / 2; est > 0 && len(p.nodes) == 0 {
		est = min(est, p.limits.MaxNodes)
		p.nodes = make([]rawNode, 0, est)
		p.children = make([]int64, 0, est)
		// Both are filled from their start by the two halves, page after
		// fresh page (88 bytes a node: 30 MB for many-nodes, 7,500
		// faults): in huge pages, a fault is 2 MB (docs/performance.md
		// §5n: many-nodes −6.5%, large-profile −7.1%, typescript −5.3%).
		pages.Huge(pages.Bytes(p.nodes[:cap(p.nodes)]))
		pages.Huge(pages.Bytes(p.children[:cap(p.children)]))
	}
	if est := c1.ticks + c2.ticks; est > 0 && cap(p.ticks) == 0 {
		// Grown by doubling in each half, then joined, the entries were
		// allocated four times over (15.5 MB for 3.6 MB on many-nodes);
		// sized so, the table becomes the profile's (appendLineTicks).
		// No more than the table has room for ({"line":1,"ticks":1} is
		// 20 bytes): "ticks" strings elsewhere count too.
		est = min(est, int((limit-start)/20))
		p.ticks = make([]profile.LineTick, 0, est)
	}
	if at < 0 {
		p.tail.startNow()
	}
	half := p.splitNodes(data, at, c1, c2)
	defer half.wait()
	for first := true; ; first = false {
		ok, err := s.NextElem(first)
		if err != nil {
			return p.fail(s.Offset(), fmt.Sprintf("nodes[%d]", len(p.nodes)), err)
		}
		if !ok {
			return nil
		}
		if half != nil && s.Offset() >= half.at {
			// At (or past) the node where the half read ahead starts.
			taken := half.take(p)
			half.wait()
			if taken {
				return nil
			}
			half = nil
		}
		if len(p.nodes) >= p.limits.MaxNodes {
			return p.failf(s.Offset(), fmt.Sprintf("nodes[%d]", len(p.nodes)), "more than %d nodes", p.limits.MaxNodes)
		}
		if err := p.parseNode(); err != nil {
			return err
		}
		p.noteOrder()
	}
}

// noteOrder counts the node just read in inOrder while every node's id is
// the first's plus its index.
func (p *parser) noteOrder() {
	if k := len(p.nodes) - 1; p.inOrder == k && p.nodes[k].hasID && p.nodes[k].id == p.nodes[0].id+int64(k) {
		p.inOrder++
	}
}

// countBraces estimates what a node table's two halves, [start, at) and
// [at, limit), hold, to size the tables: the '{' that open a node or its
// call frame (two a node), and the positionTicks entries. An entry is an
// object too, and counted as half a node it overestimated the first
// half's share (many-nodes: 225 k entries for 350 k nodes), which left a
// gap that take's move of the second half faulted in (6 MB) and kept
// resident. Counting them all touched the whole table twice, once to
// count it and once to read it (its pages go back as counted, or the
// table would be resident before its first node is read): 11 ms of the
// typescript shape's reading before its first node, on both cores. A half
// of more than sampleBraces·4 bytes is counted in four stretches spread
// over it, and the count scaled with a margin: a half that outgrows its
// share of the tables gets its own (splitNodes), and one smaller than its
// estimate leaves pages that are never touched.
func (p *parser) countBraces(data []byte, start, at, limit int64) (c1, c2 tableCounts, err error) {
	s := p.s
	estimate := func(lo, hi int64) tableCounts {
		if hi-lo <= 4*sampleBraces {
			return countTable(data[lo:hi])
		}
		var c tableCounts
		for k := range int64(4) {
			w := lo + k*(hi-lo)/4
			ck := countTable(data[w : w+sampleBraces])
			c.braces += ck.braces
			c.ticks += ck.ticks
			if k > 0 && s.Drop != nil {
				s.Drop(w, w+sampleBraces)
			}
		}
		scale := float64(hi-lo) / float64(4*sampleBraces) * 1.05
		return tableCounts{int(float64(c.braces) * scale), int(float64(c.ticks) * scale)}
	}
	done := make(chan struct{})
	p.goAhead(done, &err, func() { c2 = estimate(at, limit) })
	c1 = estimate(start, at)
	<-done
	return c1, c2, err
}

// tableCounts is what a stretch of a node table holds, or is estimated to.
type tableCounts struct {
	braces int // '{' that open a node or its call frame: two a node
	ticks  int // positionTicks entries
}

// countTable counts the '{' and positionTicks entries in b. An entry
// ({"line":…,"ticks":…}, the only other object of a node table) is told
// by its key "ticks", which no other key of the table is and no string
// holds unescaped.
func countTable(b []byte) tableCounts {
	ticks := bytes.Count(b, []byte(`"ticks"`))
	return tableCounts{braces: max(bytes.Count(b, []byte{'{'})-ticks, 0), ticks: ticks}
}

// sampleBraces is the size of a stretch of a node table counted to
// estimate its '{' (countBraces; a variable for tests).
var sampleBraces int64 = 256 << 10

// parseNode reads one node object of the current format. Paths for errors
// are built only when an error happens.
func (p *parser) parseNode() error {
	s := p.s
	// The path lives in the parser: a pointer to it makes a fmt.Stringer
	// without allocating for every node.
	p.path = lazyPath{p.prefix, "nodes", len(p.nodes) - p.chunkStart}
	path := &p.path
	n := rawNode{off: s.Offset(), line: -1, col: -1}
	var ticks [2]int32 // its positionTicks entries in p.ticks
	if err := s.BeginObject(); err != nil {
		return p.fail(n.off, path.String(), err)
	}
	for first := !(plainNodes && p.readPlainMembers(&n)); ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return p.fail(s.Offset(), path.String(), err)
		}
		if !ok {
			break
		}
		off := s.Offset()
		switch string(key) {
		case "id":
			n.id, err = p.readID()
			n.hasID = err == nil
		case "callFrame":
			err = p.parseCallFrame(&n, path, ".callFrame")
		case "hitCount":
			if !s.Null() {
				n.hit, err = s.Int()
				n.hasHit = err == nil
			}
		case "children":
			if s.Null() {
				continue
			}
			n.hasChildren = true
			start := len(p.children)
			p.children, err = s.Ints(p.children)
			if err != nil {
				return p.fail(off, fmt.Sprintf("%s.children[%d]", path, len(p.children)-start), err)
			}
			n.children = [2]int32{int32(start), int32(len(p.children))}
		case "parent":
			if !s.Null() {
				n.parent, err = s.Int()
				n.hasParent = err == nil
			}
		case "deoptReason", "bailoutReason":
			n.deopt, err = p.readDeopt()
		case "positionTicks":
			err = p.parsePositionTicks(profile.NodeID(len(p.nodes)), &ticks, path, ".positionTicks")
		// The legacy format keeps the call frame in the node itself.
		case "functionName", "url", "scriptId", "lineNumber", "columnNumber":
			err = p.callFrameField(&n, key, true)
		case "selfSize":
			p.sawSelfSize(off, path)
			err = s.Skip()
		default:
			err = s.Skip()
		}
		if err != nil {
			var pe *profile.ParseError
			if errors.As(err, &pe) {
				return err
			}
			return p.fail(off, path.String()+"."+string(key), err)
		}
	}
	if !n.hasID {
		return p.failf(n.off, path.String(), "node has no id")
	}
	if len(p.nodes) == cap(p.nodes) {
		// Doubled: append grows a large slice by a quarter, and a trace's
		// chunks, whose nodes are not counted ahead (parseNodes), allocated
		// five times their table (88 bytes a node: 66 MB for the 160 k
		// nodes of the typescript shape as a trace, 0.1 s of copying,
		// clearing and faulting in; docs/performance.md §5s).
		p.nodes = jsonscan.Room(p.nodes, 1)
	}
	p.nodes = append(p.nodes, n)
	return nil
}

func (p *parser) readID() (int64, error) {
	s := p.s
	if s.Kind() == '"' { // some exporters write ids as strings
		b, err := s.String()
		if err != nil {
			return 0, err
		}
		var v int64
		if _, err := fmt.Sscan(string(b), &v); err != nil {
			return 0, fmt.Errorf("want integer id, got %q", b)
		}
		return v, nil
	}
	return s.Int()
}

func (p *parser) readDeopt() (profile.StringID, error) {
	if p.s.Null() {
		return 0, nil
	}
	b, err := p.s.String()
	if err != nil {
		return 0, err
	}
	if string(b) == "no reason" {
		return 0, nil
	}
	return p.intern(b), nil
}

// intern interns b, made valid UTF-8 (as DevTools' decoder does). The
// strings interned are valid, so a string found is valid as it is: only a
// new one is checked.
func (p *parser) intern(b []byte) profile.StringID {
	if id, ok := p.b.Lookup(b); ok {
		return id
	}
	if !utf8.Valid(b) {
		return p.b.Intern(jsonscan.ToValidUTF8(b))
	}
	return p.b.Intern(string(b))
}

// lazyPath is a JSON path, prefix then name[index], formatted only when
// needed (a trace's prefix, "traceEvents[12].args.data.cpuProfile.", joined
// to the name at every node allocated 1.5 MB on web-dev).
type lazyPath struct {
	prefix, name string
	i            int
}

func (l lazyPath) String() string {
	if l.i < 0 {
		return l.prefix + l.name
	}
	return fmt.Sprintf("%s%s[%d]", l.prefix, l.name, l.i)
}

func (p *parser) parseCallFrame(n *rawNode, base fmt.Stringer, suffix string) error {
	s := p.s
	if err := s.BeginObject(); err != nil {
		return p.fail(s.Offset(), base.String()+suffix, err)
	}
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return p.fail(s.Offset(), base.String()+suffix, err)
		}
		if !ok {
			return nil
		}
		off := s.Offset()
		switch string(key) {
		case "functionName", "url", "scriptId", "lineNumber", "columnNumber", "codeType":
			err = p.callFrameField(n, key, false)
		default:
			err = s.Skip()
		}
		if err != nil {
			return p.fail(off, base.String()+suffix+"."+string(key), err)
		}
	}
}

// callFrameField reads one call-frame member. With legacy set the member sits
// in a legacy node, whose lineNumber and columnNumber are 1-based.
func (p *parser) callFrameField(n *rawNode, key []byte, legacy bool) error {
	s := p.s
	switch string(key) {
	case "lineNumber", "columnNumber":
		if s.Null() {
			return nil
		}
		v, err := s.Int()
		if err != nil {
			// XS and others write NaN as null; anything else numeric but odd
			// (fractions) is an error.
			return err
		}
		if legacy {
			v--
		}
		if v < -1<<31 || v > 1<<31-1 {
			return fmt.Errorf("position %d out of range", v)
		}
		if key[0] == 'l' {
			n.line = int32(v)
		} else {
			n.col = int32(v)
		}
		return nil
	case "scriptId":
		if s.Null() {
			return nil
		}
		if s.Kind() == '0' {
			start := s.Offset()
			if _, err := s.Float(); err != nil {
				return err
			}
			n.script = p.internScript(p.raw(start, s.Offset()))
			return nil
		}
		b, err := s.String()
		if err != nil {
			return err
		}
		n.script = p.internScript(b)
		return nil
	}
	if s.Null() {
		return nil
	}
	b, err := s.String()
	if err != nil {
		return err
	}
	switch string(key) {
	case "functionName":
		n.name = p.intern(b)
	case "url":
		n.url = p.internURL(b, n.script)
	case "codeType":
		n.codeType = p.intern(b)
	}
	return nil
}

func (p *parser) raw(start, end int64) []byte { return p.s.Raw(start, end) }

// maxScriptCache bounds the script ids internScript remembers by number.
const maxScriptCache = 1 << 16

// internScript is intern for a script id: V8 writes small numbers ("20"),
// which are remembered by their value in a dense array instead of hashed
// again for every node.
func (p *parser) internScript(b []byte) profile.StringID {
	if len(b) == 0 || len(b) > 5 || b[0] == '0' && len(b) > 1 {
		return p.intern(b)
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return p.intern(b)
		}
		v = v*10 + int(c-'0')
	}
	if v >= maxScriptCache {
		return p.intern(b)
	}
	p.scriptByNum = reach(p.scriptByNum, v)
	if id := p.scriptByNum[v]; id != 0 {
		return id
	}
	id := p.intern(b)
	p.scriptByNum[v] = id
	return id
}

// internURL is intern for the URL of a call frame whose script id, read
// before it as V8 writes them, is script (0 if none yet). The nodes of a
// script share its URL: the one last read with that script id (or, without
// one, the last URL read) is compared before hashing.
func (p *parser) internURL(b []byte, script profile.StringID) profile.StringID {
	last := p.lastURL
	if int(script) < len(p.urlByScript) && script != 0 {
		last = p.urlByScript[script]
	}
	if last != 0 && string(b) == p.b.P.Strings[last] {
		return last
	}
	id := p.intern(b)
	p.lastURL = id
	if script != 0 {
		p.urlByScript = reach(p.urlByScript, int(script))
		p.urlByScript[script] = id
	}
	return id
}

// parsePositionTicks reads the positionTicks of raw node node into
// p.ticks, and sets *at to their range there. An earlier range in *at (a
// second positionTicks member: the last one counts, as in JSON.parse) is
// left out.
func (p *parser) parsePositionTicks(node profile.NodeID, at *[2]int32, base fmt.Stringer, suffix string) error {
	s := p.s
	for i := at[0]; i < at[1]; i++ {
		p.ticks[i].Node = -1
	}
	*at = [2]int32{}
	if s.Null() {
		return nil
	}
	path := func() string { return base.String() + suffix } // formatted only on error
	if err := s.BeginArray(); err != nil {
		return p.fail(s.Offset(), path(), err)
	}
	start := len(p.ticks)
	for first := true; ; first = false {
		i := len(p.ticks) - start
		ok, err := s.NextElem(first)
		if err != nil {
			return p.fail(s.Offset(), fmt.Sprintf("%s[%d]", path(), i), err)
		}
		if !ok {
			break
		}
		lt := profile.LineTick{Node: node}
		if plainNodes && readPlainTick(s, &lt) {
			p.ticks = appendTick(p.ticks, lt)
			continue
		}
		if err := s.BeginObject(); err != nil {
			return p.fail(s.Offset(), fmt.Sprintf("%s[%d]", path(), i), err)
		}
		for f := true; ; f = false {
			key, ok, err := s.NextKey(f)
			if err != nil {
				return p.fail(s.Offset(), fmt.Sprintf("%s[%d]", path(), i), err)
			}
			if !ok {
				break
			}
			var v int64
			switch string(key) {
			case "line":
				v, err = s.Int()
				if err == nil && (v < 0 || v > 1<<31-1) {
					err = fmt.Errorf("line %d out of range", v)
				}
				lt.Line = int32(v)
			case "ticks":
				lt.Ticks, err = s.Int()
			default:
				err = s.Skip()
			}
			if err != nil {
				return p.fail(s.Offset(), fmt.Sprintf("%s[%d].%s", path(), i, key), err)
			}
		}
		p.ticks = appendTick(p.ticks, lt)
	}
	*at = [2]int32{int32(start), int32(len(p.ticks))}
	return nil
}

// appendTick appends lt to ticks, doubling them when full: append grows
// a large slice by a quarter, which allocated five to eight times the
// ticks' final size.
func appendTick(ticks []profile.LineTick, lt profile.LineTick) []profile.LineTick {
	if len(ticks) == cap(ticks) {
		ticks = jsonscan.Room(ticks, max(len(ticks), 256))
	}
	return append(ticks, lt)
}

// parseHeadNode reads a node of the legacy nested head tree and its subtree.
// Children are appended after their parent (preorder); each node's children
// ids go to p.children once the subtree is read.
func (p *parser) parseHeadNode(depth int, path *headPath) error {
	s := p.s
	if depth > p.limits.MaxDepth {
		return p.failf(s.Offset(), path.String(), "head tree deeper than %d", p.limits.MaxDepth)
	}
	if len(p.nodes) >= p.limits.MaxNodes {
		return p.failf(s.Offset(), path.String(), "more than %d nodes", p.limits.MaxNodes)
	}
	idx := len(p.nodes)
	p.nodes = append(p.nodes, rawNode{off: s.Offset(), line: -1, col: -1, hasChildren: true})
	if err := s.BeginObject(); err != nil {
		return p.fail(s.Offset(), path.String(), err)
	}
	var kids []int64
	var ticks [2]int32 // its positionTicks entries in p.ticks
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			return p.fail(s.Offset(), path.String(), err)
		}
		if !ok {
			break
		}
		off := s.Offset()
		n := &p.nodes[idx]
		switch string(key) {
		case "id":
			n.id, err = p.readID()
			n.hasID = err == nil
		case "callFrame":
			err = p.parseCallFrame(n, path, ".callFrame")
		case "functionName", "url", "scriptId", "lineNumber", "columnNumber":
			err = p.callFrameField(n, key, true)
		case "hitCount":
			if !s.Null() {
				n.hit, err = s.Int()
				n.hasHit = err == nil
			}
		case "deoptReason", "bailoutReason":
			n.deopt, err = p.readDeopt()
		case "positionTicks":
			err = p.parsePositionTicks(profile.NodeID(idx), &ticks, path, ".positionTicks")
		case "selfSize":
			p.sawSelfSize(off, path)
			err = s.Skip()
		case "children":
			if s.Null() {
				continue
			}
			if err = s.BeginArray(); err != nil {
				break
			}
			for f := true; ; f = false {
				ok, err2 := s.NextElem(f)
				if err2 != nil {
					return p.fail(s.Offset(), fmt.Sprintf("%s.children[%d]", path, len(kids)), err2)
				}
				if !ok {
					break
				}
				child := len(p.nodes)
				if err := p.parseHeadNode(depth+1, &headPath{path, len(kids)}); err != nil {
					return err
				}
				// Provisional id: the index, fixed up below if the child had an id.
				kids = append(kids, int64(child))
			}
		default:
			err = s.Skip()
		}
		if err != nil {
			var pe *profile.ParseError
			if errors.As(err, &pe) {
				return err
			}
			return p.fail(off, path.String()+"."+string(key), err)
		}
	}
	// Children were recorded by index; store them as indexes marked negative
	// so build can tell them from ids (legacy ids are resolved by index).
	start := len(p.children)
	for _, k := range kids {
		p.children = append(p.children, -1-k)
	}
	p.nodes[idx].children = [2]int32{int32(start), int32(len(p.children))}
	return nil
}

// headPath is the JSON path of a node of the legacy head tree: a chain of
// child indexes, formatted only when an error needs it (formatting every
// node's path would cost time quadratic in the depth of the tree).
type headPath struct {
	parent *headPath // nil for head itself
	i      int       // index in the parent's children
}

func (h *headPath) String() string {
	var idx []int
	for x := h; x.parent != nil; x = x.parent {
		idx = append(idx, x.i)
	}
	var b strings.Builder
	b.WriteString("head")
	for k := len(idx) - 1; k >= 0; k-- {
		fmt.Fprintf(&b, ".children[%d]", idx[k])
	}
	return b.String()
}
