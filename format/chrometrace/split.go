package chrometrace

import (
	"math"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/profile"
)

// The events array on two cores.
//
// Reading a trace is mostly parsing its events (docs/performance.md §6),
// one after the other on one core. When the whole input is in memory (a
// mapped file, or bytes), a large events array is cut into pairs of parts
// of up to pairBytes: the main reader parses and applies the first part of
// each pair, while a worker parses the second (a segment) ahead of it into
// a compact list of events, with a string table of its own. A segment
// starts at a guessed event boundary (jsonscan.ElementStart) and ends at the first
// event that starts at or after the next pair, or at the array's ']'.
//
// The main reader takes a segment only when it reaches an event that
// starts at that very offset. It then applies the segment's events in
// order, as the worker publishes them (the two overlap), and reads on from
// the segment's end. Before applying an event it interns the strings that
// the worker met first in it, in the order met: so the profile, string
// table included, is the one the in-order read makes
// (TestSplitEventsSameResult). Where the worker stops short of the end (an
// error, a truncated or oddly ended array, an event above the size limit)
// the main reader reads on itself from the last event applied, with the
// same result and errors; a segment whose start is no event of the array
// (a wrong guess) is dropped.
//
// Applying an event (threads, profiles, the event store) stays on the main
// reader: it is order-dependent, and about a fifth of reading. The worker
// holds at most one segment beyond the one being applied, so memory stays
// bounded on a trace of any size.

// splitEventsBytes is the size of input from which the events array is read
// on two cores (a variable for tests).
var splitEventsBytes = 8 << 20

// releaseEvery is the stretch of a mapped input after which its pages are
// given back: two readers each hold up to this much of the file.
const releaseEvery = 1 << 20

// splitTaken counts the segments the main reader took (for tests).
var splitTaken atomic.Int64

// segEvent is one event of a segment, parsed: the fields apply needs,
// with pid, tid and id copied out of the input (applying most events then
// reads nothing of the input again, whose pages the worker has given
// back).
type segEvent struct {
	start        int64 // offset of its '{'
	n            int32 // its length in bytes
	args0, args1 int32
	name, cat    profile.StringID // the segment's own strings
	strEnd       int32            // the segment's strings met up to the end of this event
	ts, dur      float64
	traceID      int64
	ids          int32 // offset of pid, tid and id in segment.ids (block·idBlock + offset)
	pidN, tidN   uint16
	idN          uint16
	badTimes     int32
	ph           byte
	flags        uint8
}

const (
	hasName = 1 << iota
	hasCat
	hasID
	isProfile
	isWeb
)

// segment is a stretch of the events array that the worker parses ahead.
type segment struct {
	at    int64 // offset of its first event's '{' (a guess until taken)
	limit int64 // it ends at the first event that starts here or later
	q     *reader

	// What the worker has published (under mu): its first n events, the
	// blocks holding them and their ids, and its string table so far.
	mu  sync.Mutex
	pub published
	// more is signalled when the worker publishes.
	more chan struct{}

	// Set before done is closed.
	ok     bool  // read to its end: else the main reader reads on after pub's events
	end    int64 // where it ended: the next event's '{', or after the array's ']'
	closes bool  // it ended with the array
	fault  error
	stop   atomic.Bool
	done   chan struct{}
}

type published struct {
	events [][]segEvent // in blocks of segBlock: no copies as it grows
	ids    [][]byte     // pid, tid and id, in blocks of idBlock
	strs   []string
	n      int
}

// split is the events array read on two cores: the segments the worker
// parses, in order, each the second part of a stretch of up to pairBytes
// of input whose first part the main reader reads itself.
type split struct {
	segs []*segment
	next int           // the first segment not yet taken or passed
	free chan struct{} // a token per segment the worker may hold parsed
}

const (
	segBlock = 4096
	idBlock  = 256 << 10
	// publishEvery is how many events the worker parses between two
	// publications.
	publishEvery = 256
)

// eventKeys are the keys that an event's first member has in every trace
// seen (sorted writers start with "args" or "cat", Chrome with "args",
// "pid" or "name"): a boundary guess wants one, which a node of a profile
// chunk ("callFrame", "id") or most args never start with
// (jsonscan.ElementStart).
var eventKeys = []string{"args", "cat", "name", "ph", "pid", "tid", "ts", "dur"}

// pairBytes is the most input read as one pair of parts, the main
// reader's and the worker's: it bounds what the worker holds parsed (a
// segment's events take about a third of their input's size). 16 MB kept
// the four 29–44 MB DevTools traces as fast as 64 MB did, at 0–6 MB less
// peak RSS; 8 MB was slower.
var pairBytes = 16 << 20

// workerShare is the worker's part of a pair: the main reader parses and
// applies its own part and applies the worker's (applying is about a
// fifth of reading), so the worker takes the larger part.
const workerShare = 0.58

// splitEvents starts the worker on the events array whose first element
// is at r.pos, when the input is whole and large enough: one pair of parts
// for an array of up to pairBytes, more of equal size beyond.
func (r *reader) splitEvents() {
	if !r.whole || r.splitTried {
		return
	}
	r.splitTried = true
	rest := r.end - r.pos
	if rest < splitEventsBytes || rest < 2 {
		return
	}
	pairs := (rest + pairBytes - 1) / pairBytes
	sp := &split{free: make(chan struct{}, 1)}
	prev := r.pos
	for k := range pairs {
		lo, hi := r.pos+k*rest/pairs, r.pos+(k+1)*rest/pairs
		at := jsonscan.ElementStart(r.buf[:r.end], max(prev+1, lo+int(float64(hi-lo)*(1-workerShare))), eventKeys...)
		if at < 0 || at >= hi {
			continue
		}
		sp.segs = append(sp.segs, &segment{at: int64(at), limit: int64(hi), more: make(chan struct{}, 1), done: make(chan struct{})})
		prev = at
	}
	if len(sp.segs) == 0 {
		return
	}
	r.split = sp
	data, max, depth, release := r.buf[:r.end], r.max, r.s.MaxDepth, r.release
	sp.free <- struct{}{}
	go func() {
		for _, g := range sp.segs {
			<-sp.free // the main reader has taken or passed the one before
			func() {
				defer close(g.done)
				if release != nil { // a mapped file: a fault is an error, not a crash
					defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
					defer func() {
						if e := recover(); e != nil {
							g.fault = input.FaultError(e)
						}
					}()
				}
				if g.stop.Load() {
					return
				}
				g.q = &reader{buf: data, pos: int(g.at), end: len(data), eof: true, whole: true, max: max,
					b: profile.NewBuilder("chrome-trace")}
				g.q.s.MaxDepth = depth
				g.ok = g.read(release)
			}()
		}
	}()
}

// read parses the segment's events up to its limit or the array's ']',
// publishing them as it goes. It reports false as soon as anything asks
// for the main reader's own handling.
func (g *segment) read(release func(lo, hi int64) error) bool {
	q := g.q
	data := q.buf
	relAt := q.pos
	var events [][]segEvent
	var ids [][]byte
	idsLen := 0 // bytes used in the last block of ids
	publish := func(n int) {
		g.mu.Lock()
		g.pub = published{events: events, ids: ids, strs: q.b.P.Strings, n: n}
		g.mu.Unlock()
		select {
		case g.more <- struct{}{}:
		default:
		}
	}
	for n := 0; ; n++ {
		if n%publishEvery == 0 && n > 0 {
			publish(n)
			if g.stop.Load() {
				return false
			}
		}
		if release != nil && q.pos-relAt >= releaseEvery {
			if release(int64(relAt), int64(q.pos)) != nil {
				publish(n)
				return false
			}
			relAt = q.pos
		}
		var e ev
		q.s.Reset(data[q.pos:])
		err := q.parseEvent(&e)
		size := q.s.Offset()
		if err != nil || size > int64(q.max) || size > math.MaxInt32 || len(e.pid)|len(e.tid)|len(e.id) > math.MaxUint16 {
			publish(n)
			return false
		}
		he := segEvent{
			start: int64(q.pos), n: int32(size), args0: int32(e.args0), args1: int32(e.args1),
			name: e.name, cat: e.cat, strEnd: int32(len(q.b.P.Strings)), ts: e.ts, dur: e.dur, traceID: e.traceID,
			pidN: uint16(len(e.pid)), tidN: uint16(len(e.tid)), idN: uint16(len(e.id)),
			badTimes: int32(e.badTimes), ph: e.ph,
		}
		for _, f := range []struct {
			on   bool
			flag uint8
		}{{e.hasName, hasName}, {e.hasCat, hasCat}, {e.hasID, hasID}, {e.isProfile, isProfile}, {e.isWeb, isWeb}} {
			if f.on {
				he.flags |= f.flag
			}
		}
		// The ids go into blocks of idBlock bytes, an event's within one.
		// Blocks are allocated whole and written in place: the main reader
		// reads the published part of the last one meanwhile.
		if k := len(e.pid) + len(e.tid) + len(e.id); len(ids) == 0 || idsLen+k > idBlock {
			if len(ids) == math.MaxInt32/idBlock {
				publish(n)
				return false
			}
			ids, idsLen = append(ids, make([]byte, idBlock)), 0
		}
		he.ids = int32((len(ids)-1)*idBlock + idsLen)
		b := ids[len(ids)-1]
		idsLen += copy(b[idsLen:], e.pid)
		idsLen += copy(b[idsLen:], e.tid)
		idsLen += copy(b[idsLen:], e.id)
		if n%segBlock == 0 {
			events = append(events, make([]segEvent, segBlock))
		}
		events[n/segBlock][n%segBlock] = he
		q.pos = jsonscan.SkipSpace(data, q.pos+int(size))
		if q.pos < len(data) && data[q.pos] == ']' {
			g.end, g.closes = int64(q.pos)+1, true
		} else if q.pos < len(data) && data[q.pos] == ',' {
			if q.pos = jsonscan.SkipSpace(data, q.pos+1); q.pos >= len(data) || data[q.pos] == ']' {
				// A trailing comma or a cut: the main reader reports it.
				publish(n + 1)
				return false
			}
			if int64(q.pos) >= g.limit {
				g.end = int64(q.pos)
			}
		} else { // a cut or a missing comma
			publish(n + 1)
			return false
		}
		if g.end > 0 {
			publish(n + 1)
			return release == nil || release(int64(relAt), g.end) == nil
		}
	}
}

// segNext tells the main reader where takeSegment left it.
type segNext int

const (
	segNone      segNext = iota // nothing taken: read the element at hand
	segAtElement                // at the next element (its comma passed)
	segAfter                    // after an event: a ',' or the ']' comes next
	segClosed                   // past the array's ']'
)

// takeSegment is called with the main reader at an element of the events
// array at path. If the element is the next segment's first event, it
// applies the segment's events as the worker publishes them, moves to
// where the segment ends (or to the end of the last event the worker
// read, when it stopped short), and tells where that is.
func (r *reader) takeSegment(path string) (segNext, error) {
	sp := r.split
	at := r.base + int64(r.pos)
	for sp.next < len(sp.segs) && sp.segs[sp.next].at < at {
		// Passed: the guess was no element of the array.
		g := sp.segs[sp.next]
		g.free()
		sp.next++
		sp.free <- struct{}{}
		if g.fault != nil {
			return segNone, g.fault
		}
	}
	if sp.next == len(sp.segs) || sp.segs[sp.next].at != at {
		return segNone, nil
	}
	// The main reader's own stretch up to the segment goes back now: after
	// the segment it goes on from the segment's end.
	if r.release != nil && at > r.released {
		if err := r.release(r.released, at); err != nil {
			return segNone, err
		}
		r.released = at
	}
	g := sp.segs[sp.next]
	sp.next++
	defer func() {
		g.free()
		sp.free <- struct{}{} // the worker may go on to the next segment
	}()
	var remap []profile.StringID
	data := r.buf[:r.end]
	dropped := g.at
	applied, interned := 0, int32(0)
	var last *segEvent
	for finished := false; !finished; {
		select {
		case <-g.more:
		case <-g.done:
			finished = true
		}
		g.mu.Lock()
		pub := g.pub
		g.mu.Unlock()
		for ; applied < pub.n; applied++ {
			he := &pub.events[applied/segBlock][applied%segBlock]
			// The strings the worker met first in this event, in order.
			for ; interned < he.strEnd; interned++ {
				remap = append(remap, r.b.Intern(pub.strs[interned]))
			}
			ids := pub.ids[he.ids/idBlock][he.ids%idBlock:]
			e := ev{
				ph: he.ph, ts: he.ts, dur: he.dur, traceID: he.traceID,
				args0: int(he.args0), args1: int(he.args1),
				name: remap[he.name], cat: remap[he.cat],
				pid:     ids[:he.pidN:he.pidN],
				tid:     ids[he.pidN : he.pidN+he.tidN : he.pidN+he.tidN],
				id:      ids[he.pidN+he.tidN : he.pidN+he.tidN+he.idN : he.pidN+he.tidN+he.idN],
				hasName: he.flags&hasName != 0, hasCat: he.flags&hasCat != 0, hasID: he.flags&hasID != 0,
				isProfile: he.flags&isProfile != 0, isWeb: he.flags&isWeb != 0,
			}
			idx := r.nEvents
			r.nEvents++
			r.itemPath, r.item = path, idx
			r.badTimes += int(he.badTimes)
			if err := r.apply(&e, data[he.start:he.start+int64(he.n)], he.start, idx, path); err != nil {
				return segNone, err
			}
			last = he
			// Applying reads the args of some events again: their pages
			// go back as they are passed.
			if r.drop != nil && he.start-dropped >= releaseEvery {
				r.drop(dropped, he.start)
				dropped = he.start
			}
		}
	}
	if g.fault != nil {
		return segNone, g.fault
	}
	if applied == 0 {
		return segNone, nil // read the segment in order
	}
	splitTaken.Add(1)
	end, next := g.end, segAtElement
	switch {
	case !g.ok:
		end, next = last.start+int64(last.n), segAfter
	case g.closes:
		next = segClosed
	}
	if r.drop != nil {
		r.drop(dropped, end)
	}
	r.pos = int(end - r.base)
	r.released = end // the worker gave its pages back as it went
	return next, nil
}

// free stops the worker on the segment, waits for it and lets go of what
// it parsed.
func (g *segment) free() {
	g.stop.Store(true)
	<-g.done
	g.q, g.pub = nil, published{}
}

// stopSplit tells the worker that no segment is wanted any more and waits
// for it to finish.
func (r *reader) stopSplit() {
	sp := r.split
	if sp == nil {
		return
	}
	r.split = nil
	for _, g := range sp.segs[sp.next:] {
		g.stop.Store(true)
	}
	for _, g := range sp.segs[sp.next:] {
		select {
		case sp.free <- struct{}{}:
		default:
		}
		<-g.done
	}
}
