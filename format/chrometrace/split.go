package chrometrace

import (
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/profile"
)

// The events array on two cores.
//
// Reading a trace is mostly parsing its events (docs/performance.md §5a),
// one after the other on one core. When the whole input is in memory (a
// mapped file, or bytes), a large events array is cut into pairs of up to
// pairBytes, and each pair into segments of about segmentBytes, each
// starting at a guessed event boundary (jsonscan.ElementStart). In each
// pair the main reader parses and applies segments from the front, and a
// worker parses segments from the back into compact lists of events, with
// a string table of its own; a segment belongs to whichever claims it
// first. When they meet, the worker goes on to the next pair and the main
// reader applies the worker's segments of this one. So the split adapts to
// the input: where applying is cheap the main reader parses nearly half of
// each pair, where applying is dear (ProfileChunks) it parses less, and
// neither waits for the other except where they meet and at the end.
//
// The main reader takes a worker's segment only when it reaches an event
// that starts at that very offset. It then applies the segment's events in
// order, as the worker publishes them (the two overlap), and reads on from
// the segment's end. Before applying an event it maps the event's name
// and category to the profile's strings, interning each on first use in
// the order the event has them (split.intern): so the profile, string
// table included, is the one the in-order read makes
// (TestSplitEventsSameResult). Where the worker stops short of the end (an
// error, a truncated or oddly ended array, an event above the size limit)
// the main reader reads on itself from the last event applied, with the
// same result and errors; a segment whose start is no event of the array
// (a wrong guess) is dropped, and the main reader reads it itself.
//
// Applying an event (threads, profiles, the event store) stays on the main
// reader: it is order-dependent. Applying a ProfileChunk cost more than
// parsing it, so the worker also reads a ProfileChunk's samples, time
// deltas, lines and columns ahead (preChunk); only its nodes, whose strings
// enter the profile's table, are left to the main reader. The worker
// starts a pair only when the main reader has reached the one before it,
// so it holds at most two pairs' segments parsed and memory stays bounded
// on a trace of any size. The last pair is a quarter of a pair: after the
// worker's last segment, the main reader applies the worker's part of it
// alone.

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
//
// The fields go from the widest to the narrowest, which leaves no padding
// between them: 72 bytes an event, where the order they were written in
// took 80. The parsed events waiting between the two readers are most of
// a large trace's memory while it is read (some 5–7 MB of cls-no-nav's).
type segEvent struct {
	start        int64 // offset of its '{'
	ts, dur      float64
	traceID      int64
	n            int32 // its length in bytes
	args0, args1 int32
	name, cat    profile.StringID // the worker's strings
	ids          int32            // offset of pid, tid and id in segment.ids (block·idBlock + offset)
	badTimes     int32
	pre          int32 // 1 + its index in published.pres, if read ahead
	pidN, tidN   uint16
	idN          uint16
	ph           byte
	flags        uint8
}

const (
	hasName = 1 << iota
	hasCat
	hasID
	isProfile
	isWeb
	catFirst
)

// segment is a stretch of the events array, which either reader may claim.
type segment struct {
	at    int64 // offset of its first event's '{' (a guess until taken)
	limit int64 // it ends at the first event that starts here or later
	q     *reader
	sp    *split
	claim atomic.Int32 // unclaimed, byWorker or byMain
	last  bool         // the last segment of its pair

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
	pres   []*chunk // ProfileChunk args read ahead
	n      int
}

const (
	unclaimed = iota
	byWorker
	byMain
)

// split is the events array read on two cores: its segments in order, in
// pairs.
type split struct {
	segs  []*segment
	pairs [][]*segment
	next  int                // the first segment not yet taken or passed
	remap []profile.StringID // the worker's string ids → the profile's + 1 (0: not yet)
	free  chan struct{}      // a token per pair the worker may start
	quit  chan struct{}      // closed when no segment is wanted any more
	// Blocks of parsed events and of ids, given back as the main reader
	// is done with a segment, for the worker's next ones.
	eventBlocks chan []segEvent
	idBlocks    chan []byte
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
// "pid" or "name"): a boundary guess wants one, which a node of a
// ProfileChunk ("callFrame", "id") or most args never start with
// (jsonscan.ElementStart).
var eventKeys = []string{"args", "cat", "name", "ph", "pid", "tid", "ts", "dur"}

// pairBytes is the most input read as one pair: it bounds what the worker
// holds parsed (a segment's events take about a third of their input's
// size; the worker may hold two pairs). 8 MB against 16: the same time on
// the four DevTools traces, 1–4% less peak RSS (16 runs). 4 MB against 8,
// once the reading's garbage was given back before the profiles are made
// (Options.EventsRead): cls-no-nav −7.6% and shift-attribution −6.9% peak
// RSS, the other four traces and the time n.s. (12 runs; 3 MB took 5%
// longer, 2 MB gave no less memory), the 2 GB trace the same
// (docs/performance.md §5p). 2 MB against 4 (and segments of 512 KB
// against 1 MB), once the binary's own pages no longer took 3 MB of the
// peak: the three traces of 21–32 MB −8 to −11% peak RSS, the four of
// 28–44 MB −5% to n.s., for +3 to +6% of their time (16 runs; §5z).
var pairBytes = 2 << 20

// dropGuesses is the stretch of a mapped file whose pages are given back at
// once after its segment boundaries were guessed (one call, one flush of the
// other core's TLB, for several guesses). It was 64 MB, so that a trace of
// less had all its guesses' pages mapped until the last guess: where a
// guess's fault maps a large folio (a file just written, or read ahead in
// large folios), that was the whole file, and the trace's peak RSS
// (shift-attribution written anew: 46.6 MiB, 1.1× its size, against 17 MiB
// read from disk; docs/performance.md §5s). At 4 MB: 19.2 MiB, the time
// n.s., the 2 GB trace's 500 calls instead of 30 n.s. A variable for tests.
var dropGuesses = 4 << 20

// segmentBytes is about the size of a segment: the main reader waits at most
// about the time the worker takes to parse one where they meet. 512 KB
// with pairBytes' 2 MB (above); 256 KB gave more memory, not less.
var segmentBytes = 512 << 10

// workerTakesLast makes the main reader leave the last segment of each pair
// to the worker (for tests: on a small input the main reader would often
// claim every segment before the worker starts).
var workerTakesLast bool

// splitEvents starts the worker on the events array whose first element
// is at r.pos, when the input is whole and large enough: one pair for an
// array of up to pairBytes, more of equal size beyond.
func (r *reader) splitEvents() {
	if !r.whole || r.splitTried {
		return
	}
	r.splitTried = true
	rest := r.end - r.pos
	if rest < splitEventsBytes || rest < 2 {
		return
	}
	// The last pair is a quarter of a pair: after the worker has parsed
	// its part of it, the main reader applies that part alone.
	tail := min(rest/4, pairBytes/4)
	npairs := (rest - tail + pairBytes - 1) / pairBytes
	bounds := make([]int, 0, npairs+2)
	for k := range npairs + 1 {
		bounds = append(bounds, r.pos+k*(rest-tail)/npairs)
	}
	bounds = append(bounds, r.end)
	sp := &split{quit: make(chan struct{}), eventBlocks: make(chan []segEvent, 64), idBlocks: make(chan []byte, 64)}
	data := r.buf[:r.end]
	prev, dropFrom := -1, -1
	for k := range len(bounds) - 1 {
		lo, hi := bounds[k], bounds[k+1]
		nc := max(2, (hi-lo+segmentBytes/2)/segmentBytes) // one for each reader at least
		var pair []*segment
		for c := range nc {
			from := lo + c*(hi-lo)/nc
			var at int
			if from == r.pos {
				at = jsonscan.SkipSpace(data, from) // the array's first element
			} else {
				at = jsonscan.ElementStart(data, max(prev+1, from), eventKeys...)
				// The guesses touch the file, and the kernel may map a
				// fault's whole read-ahead window (a freshly written
				// file's large folios; read_ahead_kb is 8 MB here): the
				// 2 GB trace was all resident before an event was read.
				// Those pages go back by stretches of dropGuesses.
				if dropFrom < 0 {
					dropFrom = from
				} else if from-dropFrom >= dropGuesses && r.drop != nil {
					r.drop(r.base+int64(dropFrom), r.base+int64(from))
					dropFrom = from
				}
			}
			if at <= prev || at < 0 || at >= hi {
				continue
			}
			g := &segment{at: int64(at), sp: sp, more: make(chan struct{}, 1), done: make(chan struct{})}
			if n := len(sp.segs); n > 0 {
				sp.segs[n-1].limit = g.at
			}
			sp.segs = append(sp.segs, g)
			pair = append(pair, g)
			prev = at
		}
		if len(pair) > 0 {
			pair[len(pair)-1].last = true
			sp.pairs = append(sp.pairs, pair)
		}
	}
	if len(sp.segs) == 0 {
		return
	}
	sp.segs[len(sp.segs)-1].limit = math.MaxInt64
	if dropFrom >= 0 && r.drop != nil {
		r.drop(r.base+int64(dropFrom), r.base+int64(r.end))
	}
	r.split = sp
	// Two pairs may be started at once: the worker goes on to the next
	// pair while the main reader applies its segments of this one.
	sp.free = make(chan struct{}, len(sp.pairs)+2)
	sp.free <- struct{}{}
	sp.free <- struct{}{}
	max, depth, release := r.max, r.s.MaxDepth, r.release
	// The worker's strings, one table for all its segments: the main
	// reader maps them to the profile's as it applies the events that name
	// them (split.intern).
	strs := profile.NewBuilder("chrome-trace")
	go func() {
		for _, pair := range sp.pairs {
			select {
			case <-sp.free: // the main reader has reached the pair before
			case <-sp.quit:
				return
			}
			for j := len(pair) - 1; j >= 0; j-- {
				g := pair[j]
				if !g.claim.CompareAndSwap(unclaimed, byWorker) {
					break // the main reader has come this far
				}
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
					g.q = &reader{buf: data, pos: int(g.at), end: len(data), eof: true, whole: true, max: max, b: strs}
					g.q.s.MaxDepth = depth
					g.ok = g.read(release)
				}()
			}
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
	var pres []*chunk
	idsLen := 0 // bytes used in the last block of ids
	publish := func(n int) {
		g.mu.Lock()
		g.pub = published{events: events, ids: ids, strs: q.b.P.Strings, pres: pres, n: n}
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
		// An event that names itself twice (duplicate keys) is left to the
		// main reader, which interns every name it reads, in order.
		if err != nil || e.twice || size > int64(q.max) || size > math.MaxInt32 || len(e.pid)|len(e.tid)|len(e.id) > math.MaxUint16 {
			publish(n)
			return false
		}
		he := segEvent{
			start: int64(q.pos), n: int32(size), args0: int32(e.args0), args1: int32(e.args1),
			name: e.name, cat: e.cat, ts: e.ts, dur: e.dur, traceID: e.traceID,
			pidN: uint16(len(e.pid)), tidN: uint16(len(e.tid)), idN: uint16(len(e.id)),
			badTimes: int32(e.badTimes), ph: e.ph,
		}
		if e.isProfile && e.args1 > e.args0 && q.b.P.Strings[e.name] == "ProfileChunk" {
			if c := preChunk(data[q.pos+e.args0 : q.pos+e.args1]); c != nil && len(pres) < math.MaxInt32 {
				pres = append(pres, c)
				he.pre = int32(len(pres))
			}
		}
		for _, f := range []struct {
			on   bool
			flag uint8
		}{{e.hasName, hasName}, {e.hasCat, hasCat}, {e.hasID, hasID}, {e.isProfile, isProfile}, {e.isWeb, isWeb}, {e.catFirst, catFirst}} {
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
			ids, idsLen = append(ids, reuse(g.sp.idBlocks, idBlock)), 0
		}
		he.ids = int32((len(ids)-1)*idBlock + idsLen)
		b := ids[len(ids)-1]
		idsLen += copy(b[idsLen:], e.pid)
		idsLen += copy(b[idsLen:], e.tid)
		idsLen += copy(b[idsLen:], e.id)
		if n%segBlock == 0 {
			events = append(events, reuse(g.sp.eventBlocks, segBlock))
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
// array at path. If the element is the next segment's first event, the main
// reader claims the segment, or, if the worker has, applies the segment's
// events as the worker publishes them, moves to where the segment ends (or
// to the end of the last event the worker read, when it stopped short),
// and tells where that is.
func (r *reader) takeSegment(path string) (segNext, error) {
	sp := r.split
	at := r.base + int64(r.pos)
	for sp.next < len(sp.segs) && sp.segs[sp.next].at < at {
		// Passed: the guess was no element of the array, or the segment
		// before ended past it.
		g := sp.segs[sp.next]
		sp.pass(g)
		if g.fault != nil {
			return segNone, g.fault
		}
	}
	if sp.next == len(sp.segs) || sp.segs[sp.next].at != at {
		return segNone, nil
	}
	g := sp.segs[sp.next]
	if workerTakesLast && g.last {
		for g.claim.Load() == unclaimed { // the worker claims it first
			runtime.Gosched()
		}
	}
	if g.claim.CompareAndSwap(unclaimed, byMain) {
		sp.pass(g)
		return segNone, nil // the main reader reads it
	}
	// The main reader's own stretch up to the segment goes back now: after
	// the segment it goes on from the segment's end.
	if r.release != nil && at > r.released {
		if err := r.release(r.released, at); err != nil {
			return segNone, err
		}
		r.released = at
	}
	defer sp.pass(g)
	data := r.buf[:r.end]
	dropped := g.at
	applied := 0
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
			// The event's name and category, interned in the order the
			// event has them, as the in-order read interns them.
			var name, cat profile.StringID
			if he.flags&catFirst != 0 {
				cat = sp.intern(r, pub.strs, he.cat)
			}
			name = sp.intern(r, pub.strs, he.name)
			if he.flags&catFirst == 0 {
				cat = sp.intern(r, pub.strs, he.cat)
			}
			ids := pub.ids[he.ids/idBlock][he.ids%idBlock:]
			e := ev{
				ph: he.ph, ts: he.ts, dur: he.dur, traceID: he.traceID,
				args0: int(he.args0), args1: int(he.args1),
				name: name, cat: cat,
				pid:     ids[:he.pidN:he.pidN],
				tid:     ids[he.pidN : he.pidN+he.tidN : he.pidN+he.tidN],
				id:      ids[he.pidN+he.tidN : he.pidN+he.tidN+he.idN : he.pidN+he.tidN+he.idN],
				hasName: he.flags&hasName != 0, hasCat: he.flags&hasCat != 0, hasID: he.flags&hasID != 0,
				isProfile: he.flags&isProfile != 0, isWeb: he.flags&isWeb != 0,
			}
			if he.pre > 0 {
				e.pre = pub.pres[he.pre-1]
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

// intern returns the profile's id of the worker's string x (strs, as
// published), interning it on first use. The worker's id 0 is "", which
// the profile's is too.
func (sp *split) intern(r *reader, strs []string, x profile.StringID) profile.StringID {
	if x == 0 {
		return 0
	}
	for int(x) >= len(sp.remap) {
		sp.remap = append(sp.remap, 0)
	}
	if id := sp.remap[x]; id > 0 {
		return id - 1
	}
	id := r.b.Intern(strs[x])
	sp.remap[x] = id + 1
	return id
}

// pass moves the main reader past segment g, the next one: if the worker
// has it, it is stopped and its blocks are kept for the worker's next
// segments. The last segment of a pair lets the worker start another.
func (sp *split) pass(g *segment) {
	sp.next++
	if !g.claim.CompareAndSwap(unclaimed, byMain) && g.claim.Load() == byWorker {
		g.stop.Store(true)
		<-g.done
		giveBack(sp.eventBlocks, g.pub.events)
		giveBack(sp.idBlocks, g.pub.ids)
		g.q, g.pub = nil, published{}
	}
	if g.last {
		sp.free <- struct{}{}
	}
}

// reuse returns a block the main reader is done with, from pool, or a new
// one of n elements: for the worker's parsed events and ids.
func reuse[T any](pool chan []T, n int) []T {
	select {
	case b := <-pool:
		return b
	default:
		return make([]T, n)
	}
}

// giveBack puts blocks into pool, as many as it has room for.
func giveBack[T any](pool chan []T, blocks [][]T) {
	for _, b := range blocks {
		select {
		case pool <- b:
		default:
			return
		}
	}
}

// stopSplit tells the worker that no segment is wanted any more and waits
// for it to finish the one it is on.
func (r *reader) stopSplit() {
	sp := r.split
	if sp == nil {
		return
	}
	r.split = nil
	close(sp.quit)
	for _, g := range sp.segs[sp.next:] {
		if !g.claim.CompareAndSwap(unclaimed, byMain) {
			g.stop.Store(true)
			<-g.done
		}
	}
}
