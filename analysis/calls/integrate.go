package calls

import (
	"strings"

	"github.com/jsprof/jsprof/internal/pages"
	"github.com/jsprof/jsprof/profile"
)

// IntegrateOptions controls Integrate. The zero value is the pinned
// reference engine's behaviour (@paulirish/trace_engine 0.0.65).
type IntegrateOptions struct {
	// ShowAllEvents keeps the "native V8Runtime" frames that DevTools
	// otherwise drops (its showAllEvents setting).
	ShowAllEvents bool
	// TraceIDFakeMode turns on the newer upstream rule: a trace event with a
	// sampleTraceId whose parent is not a JS invocation starts "fake JS
	// invocation" mode. Off by default until the reference engine has it.
	TraceIDFakeMode bool
}

// A constructed call, times in float µs exactly as DevTools holds them.
type tcall struct {
	ts, dur     float64
	x           int32 // expanded node
	sampleIndex int32
	depth       int32 // position on the JS stack when pushed
}

// callStore holds the constructed calls in blocks: their number is not
// known before the walk, and a slice grown by doubling allocated 402 MB
// for 117 MB of calls on a 2 GB trace (and held both at its last growth).
// finish gives each block back once its calls are converted.
type callStore struct {
	blocks [][]tcall
	n      int32
}

const callBlock = 1 << 16

func (s *callStore) len() int { return int(s.n) }

func (s *callStore) at(c int32) *tcall { return &s.blocks[c/callBlock][c%callBlock] }

func (s *callStore) add(c tcall) {
	if s.n%callBlock == 0 {
		// The first block grows as append grows it, up to callBlock: a
		// trace of thousands of small threads allocated a 2 MB block for
		// each (4 k threads: 8.4 GB, mostly in the collector's assists).
		size := callBlock
		if s.n == 0 {
			size = 64
		}
		s.blocks = append(s.blocks, make([]tcall, 0, size))
	}
	b := &s.blocks[len(s.blocks)-1]
	*b = append(*b, c)
	s.n++
}

// An entry of the thread's merged order: a trace event (ev ≥ 0) or a sample
// or a constructed call (ev < 0, call ≥ 0).
type entry struct {
	ev   int32
	call int32
}

// A frame of a stack to compare with the JS stack; it becomes a call only
// if it is pushed.
type frameRef struct {
	x int32
}

type integrator struct {
	tl      *Timeline
	opts    IntegrateOptions
	p       *profile.Profile
	events  []profile.Event
	evFlags []uint8
	calls   callStore // constructed, in order
	jsStack []int32   // indexes into calls
	jsKey   []int32   // the nodeKey of each call of jsStack (extract)
	locked  []int
	fake    bool
	native  []bool // per expanded node: url == "native V8Runtime"
	skip    []bool // per expanded node: root or meta node, never emitted
	// Per expanded node, its (script id, name, line) numbered: DevTools'
	// test of two nodes for the same call (sameNode) is the same frame or
	// the same script id, function name and line, so equal keys.
	nodeKey []int32
	traceID map[int64]int32
	// A stack's frames go up from its node through up (each node's
	// nearest proper ancestor that is a frame of a stack: not native
	// unless ShowAllEvents), a frame's index in the stack is its level.
	// Both are −1 at the root, which no stack holds.
	up, level []int32
	st        []frameRef // the last stack (stackOf)
	stChain   int        // st[:stChain] is the last stack's chain of frames
	// agree is how many levels of st from the bottom are known to be the
	// JS stack's calls (sameNode, through jsKey): set by extract, lowered
	// where stackOf writes st or truncate cuts the JS stack. extract
	// compares from there: consecutive samples share most of a deep stack.
	agree int

	// The last cut of the JS stack (truncate): its time, and the frames at
	// the bottom of the stack that have seen it.
	cut      float64
	cutDepth int
	entries  bool // build flame-chart entries

	// The stretch of the thread this integrator walks (integrateSplit):
	// its events are the thread's from evBase on (events is a subslice),
	// its samples [sLo, sHi).
	evBase   int32
	sLo, sHi int32
	// The samples as repaired, read in the walk's order (sampleStack):
	// Timeline.Sample searched the repairs for every sample.
	samples SampleCursor
}

const (
	flagRunTask      = 1 << iota // RunTask or RunMicrotasks: resets the JS stack
	flagJSInvocation             // a JS-invocation event
	flagVisible                  // visible in the timeline (visible)
	flagTimeStamp                // named TimeStamp (a timing marker if an instant)

	flagsKnown = 1 << 7 // newIntegrator's mark of a name whose flags it has found
)

// Integrate reconstructs the thread's ProfileCalls from its samples and
// trace events exactly as DevTools' SamplesIntegrator does
// (docs/devtools-engine.md §4), then computes their self times as its treify does
// over the thread's entries (§4.6). Calls come in DevTools' order; a
// call that treify leaves out of the tree has InTree false and Self 0.
func (tl *Timeline) Integrate(opts IntegrateOptions) []Call {
	cs, _ := tl.integrate(opts, false)
	return cs
}

// IntegrateEntries is Integrate that also returns the thread's flame-chart
// entries (docs/devtools-engine.md §6).
func (tl *Timeline) IntegrateEntries(opts IntegrateOptions) ([]Call, []Entry) {
	return tl.integrate(opts, true)
}

func (tl *Timeline) integrate(opts IntegrateOptions, entries bool) ([]Call, []Entry) {
	it := newIntegrator(tl, opts, entries)
	if sp, ok := it.splitPoint(); ok {
		if cs, es, ok := it.integrateSplit(sp); ok {
			return cs, es
		}
		// The halves were walked by integrators of their own: it walks
		// the thread whole.
	}
	it.walk()
	it.settle()
	out := it.allocCalls(it.calls.len())
	return out, it.finish(out, 0, nil)
}

// newIntegrator returns the integrator of tl's samples and events, ready
// to walk.
func newIntegrator(tl *Timeline, opts IntegrateOptions, entries bool) *integrator {
	p := tl.Profile
	th := &p.Threads[tl.Thread]
	it := &integrator{tl: tl, opts: opts, p: p, events: p.Events[th.Events.Start:th.Events.End], entries: entries,
		evBase: th.Events.Start, sHi: int32(tl.Len()), samples: tl.Cursor(0)}
	it.evFlags = make([]uint8, len(it.events))
	// Each name's flags found once, kept in a byte per string of the
	// profile (flagsKnown set): with a map lookup per event, newIntegrator
	// took 1.9 ms on nytimes-bad-mobile-viewport's 99 k events before the
	// halves could start (0.4–0.5 ms now).
	var flagsOf []uint8
	if len(p.Strings) <= 16*len(it.events) {
		flagsOf = make([]uint8, len(p.Strings))
	}
	flagsMap := map[profile.StringID]uint8{} // where the profile has far more strings than events
	for i := range it.events {
		e := &it.events[i]
		var f uint8
		if flagsOf != nil {
			if f = flagsOf[e.Name]; f == 0 {
				f = eventFlags(p.Str(e.Name)) | flagsKnown
				flagsOf[e.Name] = f
			}
			f &^= flagsKnown
		} else {
			var ok bool
			if f, ok = flagsMap[e.Name]; !ok {
				f = eventFlags(p.Str(e.Name))
				flagsMap[e.Name] = f
			}
		}
		// Timing markers: performance.mark instants and console.timeStamp.
		if e.Phase == 'I' && (f&flagTimeStamp != 0 || p.Str(e.Cat) == "blink.user_timing") {
			f |= flagVisible
		}
		it.evFlags[i] = f
	}
	it.native = make([]bool, len(tl.Node))
	it.skip = make([]bool, len(tl.Node))
	it.nodeKey = make([]int32, len(tl.Node))
	type callKey struct {
		script, name profile.StringID
		line         int32
	}
	keys := map[callKey]int32{}
	// A frame's key and nativeness, found once for all its nodes (the
	// typescript shape: 160 k nodes of 6 k frames), where the profile's
	// frames are not far more than the thread's nodes (a trace of
	// thousands of small threads would make a table of every frame for
	// each).
	var byFrame []int32 // key + 1, or −(key + 1) for a native frame; 0 not yet
	if len(p.Frames) <= 4*len(tl.Node) {
		byFrame = make([]int32, len(p.Frames))
	}
	for x, n := range tl.Node {
		fid := p.Nodes[n].Frame
		if byFrame != nil && byFrame[fid] != 0 {
			k := byFrame[fid]
			it.nodeKey[x], it.native[x] = max(k, -k)-1, k < 0
		} else {
			f := &p.Frames[fid]
			k := callKey{f.ScriptID, f.Name, f.Line}
			id, ok := keys[k]
			if !ok {
				id = int32(len(keys))
				keys[k] = id
			}
			it.nodeKey[x] = id
			it.native[x] = p.Str(f.URL) == "native V8Runtime"
			if byFrame != nil {
				byFrame[fid] = id + 1
				if it.native[x] {
					byFrame[fid] = -(id + 1)
				}
			}
		}
		x := int32(x)
		it.skip[x] = tl.sameID(x, 0) || tl.sameID(x, tl.Program) || tl.sameID(x, tl.Idle) || tl.sameID(x, tl.GC)
	}
	it.frameLevels()
	it.traceID = map[int64]int32{}
	base := profile.NodeID(th.Nodes.Start)
	for _, t := range p.TraceIDs {
		// DevTools: nodeId && nodeById(nodeId): a node id of 0 names nothing.
		if t.Thread == tl.Thread && p.Nodes[t.Node].InputID != 0 {
			it.traceID[t.ID] = tl.byNode[t.Node-base]
		}
	}
	return it
}

func eventFlags(name string) uint8 {
	var f uint8
	switch name {
	case "RunTask", "RunMicrotasks":
		f |= flagRunTask
	}
	switch name {
	case "RunMicrotasks", "FunctionCall", "EvaluateScript", "v8.evaluateModule", "EventDispatch", "V8.Execute", "V8Console::runTask":
		f |= flagJSInvocation
	}
	if strings.HasPrefix(name, "v8") || strings.HasPrefix(name, "V8") {
		f |= flagJSInvocation
	}
	if visibleEvents[name] || name == "UpdateCounters" {
		f |= flagVisible
	}
	if name == "TimeStamp" {
		f |= flagTimeStamp
	}
	return f
}

// micros converts a model time to DevTools' float µs.
func micros(t profile.Time) float64 {
	if t%1000 == 0 && t < 1<<62 && t > -(1<<62) {
		return float64(t / 1000)
	}
	return float64(t) / 1000
}

// gcParent returns, for GC sample i, the node of the previous non-GC sample
// (callsFromProfileSamples' nodeForGC), or −1.
func (it *integrator) gcParent(i int32) int32 {
	tl := it.tl
	for k := i - 1; k >= 0; k-- {
		if x := tl.Sample(int(k)); !tl.sameID(x, tl.GC) {
			return x
		}
	}
	return -1
}

func (it *integrator) evStart(i int32) float64 { return micros(it.events[i].Start) }
func (it *integrator) evDur(i int32) float64   { return micros(it.events[i].Dur) }

// sampleTs is the ProfileCall time of sample i: its ms timestamp × 1000.
func (it *integrator) sampleTs(i int32) float64 { return it.tl.msAt(int(i)) * 1000 }

// compareTimes is eventTimeComparator for a trace event a (start at, duration
// ad) and a call entry b: start, then end (later first), then the call
// before the trace event.
func compareTimes(at, ad, bt, bd float64) int {
	switch {
	case at < bt:
		return -1
	case at > bt:
		return 1
	}
	switch ae, be := at+ad, bt+bd; {
	case ae > be:
		return -1
	case ae < be:
		return 1
	}
	return 1
}

func (it *integrator) entryTime(e entry, sample bool) (ts, dur float64) {
	if e.ev >= 0 {
		return it.evStart(e.ev), it.evDur(e.ev)
	}
	if sample {
		return it.sampleTs(e.call), 0
	}
	c := it.calls.at(e.call)
	return c.ts, c.dur
}

// merger is mergeEventsInOrder as a cursor: the thread's events (a) and n
// call entries (b), taking from a while compareTimes(a, b) ≤ 0.
type merger struct {
	it      *integrator
	i, j    int32
	na, nb  int32
	sample  bool
	cur     entry
	ts, dur float64 // cur's time (entryTime)
	ok      bool

	// The times of the entries i and j, each computed once (entryTime
	// divides), valid while ai == i and bj == j.
	ai, bj               int32
	ats, adur, bts, bdur float64
}

// newMerger returns the merger of the integrator's events with the call
// entries [lo, hi): its samples, or its constructed calls.
func (it *integrator) newMerger(lo, hi int32, sample bool) *merger {
	m := &merger{it: it, na: int32(len(it.events)), j: lo, nb: hi, sample: sample, ai: -1, bj: -1}
	m.next()
	return m
}

// next moves to the next entry; ok is false at the end.
func (m *merger) next() {
	if m.i < m.na && m.ai != m.i {
		m.ats, m.adur = m.it.entryTime(entry{ev: m.i, call: -1}, m.sample)
		m.ai = m.i
	}
	if m.j < m.nb && m.bj != m.j {
		m.bts, m.bdur = m.it.entryTime(entry{ev: -1, call: m.j}, m.sample)
		m.bj = m.j
	}
	switch {
	case m.i < m.na && (m.j >= m.nb || compareTimes(m.ats, m.adur, m.bts, m.bdur) <= 0):
		m.cur, m.ts, m.dur = entry{ev: m.i, call: -1}, m.ats, m.adur
		m.i++
	case m.j < m.nb:
		m.cur, m.ts, m.dur = entry{ev: -1, call: m.j}, m.bts, m.bdur
		m.j++
	default:
		m.ok = false
		return
	}
	m.ok = true
}

// walk is buildProfileCalls: the merged walk with a stack of open events.
func (it *integrator) walk() {
	var parents []int32 // open trace events
	for m := it.newMerger(it.sLo, it.sHi, true); m.ok; {
		e := m.cur
		if e.ev >= 0 && it.events[e.ev].Phase == 'I' && it.events[e.ev].SampleTraceID == 0 {
			m.next()
			continue
		}
		if len(parents) == 0 {
			if e.ev < 0 {
				it.onSample(e.call, m.ts, -1)
			} else {
				parents = append(parents, e.ev)
				it.onStart(e.ev, -1)
			}
			m.next()
			continue
		}
		par := parents[len(parents)-1]
		if m.ts >= it.evStart(par)+it.evDur(par) {
			it.onEnd(par)
			parents = parents[:len(parents)-1]
			continue // the same entry again
		}
		if e.ev < 0 {
			it.onSample(e.call, m.ts, par)
		} else {
			it.onStart(e.ev, par)
			parents = append(parents, e.ev)
		}
		m.next()
	}
	for len(parents) > 0 {
		it.onEnd(parents[len(parents)-1])
		parents = parents[:len(parents)-1]
	}
}

func (it *integrator) lockedTop() int {
	if len(it.locked) == 0 {
		return 0
	}
	return it.locked[len(it.locked)-1]
}

func (it *integrator) popLocked() int {
	if len(it.locked) == 0 {
		return 0
	}
	v := it.locked[len(it.locked)-1]
	it.locked = it.locked[:len(it.locked)-1]
	return v
}

func (it *integrator) onStart(ev int32, parent int32) {
	ts := it.evStart(ev)
	if it.evFlags[ev]&flagRunTask != 0 {
		it.locked = it.locked[:0]
		it.truncate(0, ts)
		it.fake = false
	}
	if it.fake {
		it.truncate(it.popLocked(), ts)
		it.fake = false
	}
	it.extractEvent(ev)
	if it.opts.TraceIDFakeMode && it.events[ev].SampleTraceID != 0 && !(parent >= 0 && it.evFlags[parent]&flagJSInvocation != 0) {
		it.fake = true
	}
	it.locked = append(it.locked, len(it.jsStack))
}

// onSample handles sample i at ts (sampleTs).
func (it *integrator) onSample(i int32, ts float64, parent int32) {
	switch {
	case parent >= 0 && it.evFlags[parent]&flagJSInvocation != 0 || it.fake:
		it.extractSample(i, ts)
	case len(it.jsStack) == 0:
		it.fake = true
		it.extractSample(i, ts)
		it.locked = append(it.locked, 0)
	}
}

func (it *integrator) onEnd(ev int32) {
	it.truncate(it.popLocked(), it.evStart(ev)+it.evDur(ev))
}

// frameLevels sets it.up and it.level (see integrator) for the expanded
// nodes, whatever their order.
func (it *integrator) frameLevels() {
	tl := it.tl
	n := len(tl.Node)
	it.up, it.level = make([]int32, n), make([]int32, n)
	done := make([]bool, n)
	var path []int32
	for x := range int32(n) {
		for y := x; y >= 0 && !done[y]; y = tl.Parent[y] {
			path = append(path, y)
		}
		for k := len(path) - 1; k >= 0; k-- {
			y := path[k]
			it.up[y], it.level[y] = -1, -1
			if q := tl.Parent[y]; q >= 0 {
				// q's own level when it is a frame (the root is none), else
				// that of the frame below it.
				if tl.Parent[q] >= 0 && (it.opts.ShowAllEvents || !it.native[q]) {
					it.up[y], it.level[y] = q, it.level[q]+1
				} else {
					it.up[y], it.level[y] = it.up[q], it.level[q]
					if tl.Parent[q] < 0 {
						it.level[y] = 0
					}
				}
			}
			done[y] = true
		}
		path = path[:0]
	}
}

// stackOf fills it.st with the frames of node x (depth 0 first, the root
// excluded, and the native ones unless ShowAllEvents), plus a GC frame on
// top when gc ≥ 0 (the GC sample itself). Consecutive samples share most
// of their stack: the frames are written from x up only to the first that
// the last stack holds at the same level, below which the two agree (a
// frame's ancestors are its own). Written whole, the stacks of the
// typescript shape's 400 k samples, 60 deep, were a third of the calls'
// integration (docs/performance.md §5s).
func (it *integrator) stackOf(x, gc int32) []frameRef {
	y := x // the top frame: x, or the frame below it
	if it.level[x] < 0 || !it.opts.ShowAllEvents && it.native[x] {
		y = it.up[x]
	}
	depth := 0
	if y >= 0 {
		depth = int(it.level[y]) + 1
	}
	if gc >= 0 && !it.opts.ShowAllEvents && it.native[gc] {
		gc = -1 // left out as the stack's other native frames
	}
	n := depth
	if gc >= 0 {
		n++
	}
	if cap(it.st) < n {
		st := make([]frameRef, n, 2*n)
		it.st = st[:copy(st, it.st[:it.stChain])]
	}
	st := it.st[:n]
	same := 0 // the levels below it are the last stack's
	for d := depth - 1; d >= 0; d, y = d-1, it.up[y] {
		if d < it.stChain && st[d].x == y {
			same = d + 1
			break
		}
		st[d] = frameRef{x: y}
	}
	if gc >= 0 {
		st[n-1] = frameRef{x: gc}
		same = min(same, n-1)
	}
	it.st, it.stChain = st, depth
	it.agree = min(it.agree, same)
	return st
}

// sampleStack is makeProfileCallsForStack for sample i: its node's stack, or
// for a GC sample the previous sample's stack with the GC frame on top.
func (it *integrator) sampleStack(i int32) []frameRef {
	tl := it.tl
	x := it.samples.At(int(i)) // i only grows: the walk's order
	if tl.sameID(x, tl.GC) {
		gp := it.gcParent(i)
		if gp < 0 {
			return it.st[:0]
		}
		return it.stackOf(gp, x)
	}
	return it.stackOf(x, -1)
}

// traceIDStack is getStackForSampleTraceId: the stack of the node the trace
// id names, or nil.
func (it *integrator) traceIDStack(id int64) ([]frameRef, bool) {
	x, ok := it.traceID[id]
	if !ok || x < 0 {
		return nil, false
	}
	if it.tl.sameID(x, it.tl.GC) {
		return it.st[:0], true // a GC call made here has no recorded parent
	}
	return it.stackOf(x, -1), true
}

// extractSample is extractStackTrace for sample i at ts (sampleTs).
func (it *integrator) extractSample(i int32, ts float64) {
	it.extract(it.sampleStack(i), ts, i)
}

// extractEvent is extractStackTrace for a trace event: it works on the JS
// stack itself, unless a sample trace id names another stack.
func (it *integrator) extractEvent(ev int32) {
	ts := it.evStart(ev)
	if id := it.events[ev].SampleTraceID; id != 0 {
		if st, ok := it.traceIDStack(id); ok {
			it.extract(st, ts, -1)
			return
		}
	}
	// The stack is the JS stack (aliased, as in DevTools): DevTools drops
	// its native frames, but it holds none (extract pushes only frames it
	// has filtered the same way); it extends the frames above the lock to
	// the event's end, then truncates at the stack's own depth, which ends
	// every frame at the event's start and cuts none off (see truncate).
	it.truncate(max(it.lockedTop(), len(it.jsStack)), ts)
}

// extract is the rest of extractStackTrace for a new stack st at ts: keep
// the common prefix, end the rest of the JS stack at ts, push the new
// frames. DevTools also extends the common frames to the end of the entry
// (ts plus its duration), but truncate then sets the duration of every
// frame on the stack, those included, so the extension never lasts.
func (it *integrator) extract(st []frameRef, ts float64, sampleIndex int32) {
	// st holds no native frame unless ShowAllEvents (stackOf).
	minFrames := min(len(st), len(it.jsStack))
	// DevTools compares from the lock up; the levels known to agree
	// (it.agree) need no comparing again.
	known := min(it.agree, minFrames)
	i := max(it.lockedTop(), known)
	counted := i == known // the levels below i are known to agree
	// DevTools' sameNode of each frame and call: equal keys (nodeKey), the
	// calls' kept beside them (jsKey).
	for i < minFrames && it.nodeKey[st[i].x] == it.jsKey[i] {
		i++
	}
	it.truncate(i, ts)
	agree := known
	if counted && len(it.jsStack) == i { // not kept deeper by a lock
		agree = i
	} else {
		counted = false
	}
	for ; i < len(st); i++ {
		x := st[i].x
		if it.skip[x] {
			counted = false // the JS stack's levels no longer st's
			continue
		}
		c := it.calls.n
		it.calls.add(tcall{x: x, ts: ts, sampleIndex: sampleIndex, depth: int32(len(it.jsStack))})
		it.jsStack = append(it.jsStack, c)
		it.jsKey = append(it.jsKey, it.nodeKey[x])
		if counted {
			agree = i + 1
		}
	}
	it.agree = agree
}

// truncate is truncateJSStack: it ends every frame of the JS stack at t
// (its duration max(t − ts, 0)) and cuts the stack to depth (at least the
// lock's). Nothing else sets a call's duration (extract), so a call's is
// decided by the last cut it sees on the stack: the frames cut off are
// given theirs here, those left only when the next cut removes them or
// the walk ends (settle), instead of at every cut, which cost the depth
// of the stack per sample.
func (it *integrator) truncate(depth int, t float64) {
	if len(it.locked) > 0 {
		if ld := it.locked[len(it.locked)-1]; ld != 0 && depth < ld {
			depth = ld
		}
	}
	if len(it.jsStack) < depth {
		depth = len(it.jsStack)
	}
	for _, c := range it.jsStack[depth:] {
		f := it.calls.at(c)
		f.dur = max(t-f.ts, 0)
	}
	it.jsStack, it.jsKey = it.jsStack[:depth], it.jsKey[:depth]
	it.cut, it.cutDepth = t, depth
	it.agree = min(it.agree, depth)
}

// settle gives the frames left on the JS stack at the end of the walk the
// duration of the last cut they saw (truncate); frames pushed after it saw
// none, and keep 0.
func (it *integrator) settle() {
	for _, c := range it.jsStack[:min(it.cutDepth, len(it.jsStack))] {
		f := it.calls.at(c)
		f.dur = max(it.cut-f.ts, 0)
	}
}

// Entry is a flame-chart entry of a trace thread (docs/devtools-engine.md §6): a
// trace event or a call in the thread's tree, at the level DevTools draws
// it. Entries come depth-first, as DevTools appends them.
type Entry struct {
	Level      int32
	Event      int32 // index into Profile.Events, or −1 for a call
	Call       int32 // index into the calls, or −1 for a trace event
	Start, Dur profile.Time
}

// allocCalls returns the calls to return, n of them (48 bytes a call: 30
// MB for the typescript shape as a trace), allocated before treify's
// arrays and faulted in on the idle core while treify runs on this one.
// Time n.s.; the large traces' peak RSS −8 to −10%, allocated before
// treify's arrays rather than after (docs/performance.md §5s).
func (it *integrator) allocCalls(n int) []Call {
	out := make([]Call, n)
	pages.PopulateAhead(pages.Bytes(out))
	return out
}

// finish runs treify over the integrator's events merged with its
// constructed calls, writes the calls with their self times into out (one
// for each), and returns the flame-chart entries, whose calls are numbered
// from callBase, appended to entries (allocated when nil).
func (it *integrator) finish(out []Call, callBase int32, entries []Entry) []Entry {
	self := make([]float64, it.calls.len())
	inTree := make([]bool, it.calls.len())
	evSelf := make([]float64, len(it.events))
	slot := func(e entry) *float64 {
		if e.ev >= 0 {
			return &evSelf[e.ev]
		}
		return &self[e.call]
	}
	type open struct {
		e         entry
		end       float64
		nextLevel int32 // the level of its children
	}
	var stack []open
	if it.entries && entries == nil {
		// At most one entry per call and event: one allocation instead of
		// growths that copy (on a 2 GB trace, 735 MB allocated for 147 MB).
		entries = make([]Entry, 0, it.calls.len()+len(it.events))
	}
	evBase := it.evBase
	add := func(e entry, ts, dur float64, level int32) int32 {
		next := level
		if it.visible(e) {
			next++
			if !it.entries {
				return next
			}
			en := Entry{Level: level, Event: -1, Call: -1, Start: profile.TimeFromMicros(ts), Dur: profile.TimeFromMicros(dur)}
			if e.ev >= 0 {
				en.Event = evBase + e.ev
			} else {
				en.Call = callBase + e.call
			}
			entries = append(entries, en)
		}
		return next
	}
	for m := it.newMerger(0, int32(it.calls.len()), false); m.ok; m.next() {
		e, ts, dur := m.cur, m.ts, m.dur
		if len(stack) == 0 {
			*slot(e) = dur
			if e.ev < 0 {
				inTree[e.call] = true
			}
			stack = append(stack, open{e, ts + dur, add(e, ts, dur, 0)})
			continue
		}
		for len(stack) > 0 && ts >= stack[len(stack)-1].end {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			*slot(e) = dur
			if e.ev < 0 {
				inTree[e.call] = true
			}
			stack = append(stack, open{e, ts + dur, add(e, ts, dur, 0)})
			continue
		}
		par := &stack[len(stack)-1]
		if ts+dur > par.end {
			continue // overlaps its parent's end: left out of the tree
		}
		*slot(e) = dur
		*slot(par.e) -= dur
		if e.ev < 0 {
			inTree[e.call] = true
		}
		stack = append(stack, open{e, ts + dur, add(e, ts, dur, par.nextLevel)})
	}
	for k, b := range it.calls.blocks {
		for i := range b {
			tc, c := &b[i], k*callBlock+i
			out[c] = Call{Node: it.tl.Node[tc.x], Start: profile.TimeFromMicros(tc.ts), Dur: profile.TimeFromMicros(tc.dur),
				Depth: tc.depth, SampleIndex: tc.sampleIndex, InTree: inTree[c]}
			if inTree[c] {
				out[c].Self = profile.TimeFromMicros(self[c])
			}
		}
		it.calls.blocks[k] = nil // converted: the collector may take it
	}
	it.calls = callStore{}
	return entries
}

// visible is DevTools' entryIsVisibleInTimeline without ignore-listing and
// user modifications: every entry of a generic trace, calls, and trace
// events with a visible style or a timing marker.
func (it *integrator) visible(e entry) bool {
	if e.ev < 0 || it.opts.ShowAllEvents || it.p.Generic {
		return true
	}
	return it.evFlags[e.ev]&flagVisible != 0 // eventFlags, and the timing markers (integrate)
}

// visibleEvents are the trace event names that have a visible style in
// DevTools (Styles.visibleTypes of the pinned engine), plus the post-message
// events it always shows.
var visibleEvents = map[string]bool{}

func init() {
	for _, n := range strings.Split("AbortPostTaskCallback,Animation,AsyncTask,v8.deserializeOnBackground,v8.produceModuleCache,"+
		"v8.produceCache,CancelAnimationFrame,CancelIdleCallback,Commit,V8.CompileCode,V8.CompileModule,v8.compile,"+
		"CompositeLayers,ComputeIntersections,ConsoleTime,CppGC.IncrementalSweep,DoDecryptReply,DoDecrypt,DoDigestReply,"+
		"DoDigest,DoEncryptReply,DoEncrypt,DoSignReply,DoSign,DoVerifyReply,DoVerify,Decode Image,EmbedderCallback,"+
		"v8.evaluateModule,EvaluateScript,EventDispatch,EventTiming,V8.FinalizeDeserialization,FireAnimationFrame,"+
		"FireIdleCallback,FunctionCall,BlinkGC.AtomicPhase,GCEvent,GPUTask,HandlePostMessage,HitTest,JSSample,Layerize,"+
		"Layout,MajorGC,MinorGC,V8.OptimizeCode,PaintSetup,Paint,ParseAuthorStyleSheet,ParseHTML,PrePaint,ProfileCall,"+
		"Program,RasterTask,RequestAnimationFrame,RequestIdleCallback,ResourceFinish,ResourceReceivedData,"+
		"ResourceReceiveResponse,ResourceSendRequest,ResourceWillSendRequest,RunMicrotasks,RunPostTaskCallback,RunTask,"+
		"SchedulePostMessage,SchedulePostTaskCallback,ScheduleStyleRecalculation,ScrollLayer,CpuProfiler::StartProfiling,"+
		"v8.parseOnBackgroundParsing,v8.parseOnBackgroundWaiting,v8.parseOnBackground,SyntheticLayoutShiftCluster,"+
		"SyntheticLayoutShift,TimeStamp,TimerFire,TimerInstall,TimerRemove,UpdateLayerTree,UpdateLayoutTree,UserTiming,"+
		"V8Console::runTask,v8.wasm.cachedModule,v8.wasm.compiledModule,v8.wasm.moduleCacheHit,v8.wasm.moduleCacheInvalid,"+
		"v8.wasm.streamFromResponseCallback,WebSocketCreate,WebSocketDestroy,WebSocketReceiveHandshakeResponse,"+
		"WebSocketReceive,WebSocketSendHandshakeRequest,WebSocketSend,XHRLoad,XHRReadyStateChange", ",") {
		visibleEvents[n] = true
	}
}

// VisibleStyle reports whether DevTools gives trace events of this name a
// visible style (Styles.visibleTypes of the pinned engine): the names its
// VisibleEventsFilter accepts in the Bottom-Up and Call Tree tabs.
func VisibleStyle(name string) bool { return visibleEvents[name] }
