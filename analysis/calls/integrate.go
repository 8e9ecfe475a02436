package calls

import (
	"math"
	"strings"

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

// A trace call under construction, times in float µs exactly as DevTools
// holds them.
type tcall struct {
	x           int32 // expanded node
	ts, dur     float64
	sampleIndex int32
	depth       int32 // position on the JS stack when pushed
	out         int32 // index in constructed, −1 if not (yet) emitted
	gcParent    int32 // for a sample call on the GC node: the previous sample's node, or −1
}

// An entry of the thread: a trace event or a sample call, in the merged
// order.
type entry struct {
	ev   int32 // index into Profile.Events, or −1 for a call
	call int32 // index into integrator.calls
}

type integrator struct {
	tl      *Timeline
	opts    IntegrateOptions
	p       *profile.Profile
	events  []profile.Event
	evName  []uint8 // per event: flags
	calls   []tcall // sample calls, then frames made by extract
	jsStack []int32 // indexes into calls
	locked  []int
	fake    bool
	out     []int32 // constructed, in order
	native  []bool  // per expanded node: url == "native V8Runtime"
	skip    []bool  // per expanded node: root or meta node, never emitted
	traceID map[int64]int32
}

const (
	flagRunTask      = 1 << iota // RunTask or RunMicrotasks: resets the JS stack
	flagJSInvocation             // a JS-invocation event
)

// Integrate reconstructs the thread's ProfileCalls from its samples and
// trace events exactly as DevTools' SamplesIntegrator does
// (devtools-engine.md §4), then computes their self times as its treify does
// over the thread's entries (§4 Step 3). Calls come in DevTools' order; a
// call that treify leaves out of the tree has InTree false and Self 0.
func (tl *Timeline) Integrate(opts IntegrateOptions) []Call {
	cs, _ := tl.IntegrateEntries(opts)
	return cs
}

// IntegrateEntries is Integrate that also returns the thread's flame-chart
// entries (devtools-engine.md §6).
func (tl *Timeline) IntegrateEntries(opts IntegrateOptions) ([]Call, []Entry) {
	p := tl.Profile
	th := &p.Threads[tl.Thread]
	it := &integrator{tl: tl, opts: opts, p: p, events: p.Events[th.Events.Start:th.Events.End]}
	it.evName = make([]uint8, len(it.events))
	for i := range it.events {
		it.evName[i] = eventFlags(p.Str(it.events[i].Name))
	}
	it.native = make([]bool, len(tl.Node))
	nativeURL := "native V8Runtime"
	for x, n := range tl.Node {
		it.native[x] = p.Str(p.NodeFrame(n).URL) == nativeURL
	}
	it.traceID = map[int64]int32{}
	base := profile.NodeID(th.Nodes.Start)
	for _, t := range p.TraceIDs {
		// DevTools: nodeId && nodeById(nodeId): a node id of 0 names nothing.
		if t.Thread == tl.Thread && p.Nodes[t.Node].InputID != 0 {
			it.traceID[t.ID] = tl.byNode[t.Node-base]
		}
	}
	it.skip = make([]bool, len(tl.Node))
	for x := range tl.Node {
		x := int32(x)
		it.skip[x] = tl.sameID(x, 0) || tl.sameID(x, tl.Program) || tl.sameID(x, tl.Idle) || tl.sameID(x, tl.GC)
	}
	it.sampleCalls()
	it.walk()
	return it.finish()
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
	return f
}

// micros converts a model time to DevTools' float µs.
func micros(t profile.Time) float64 {
	if t%1000 == 0 && t < 1<<62 && t > -(1<<62) {
		return float64(t / 1000)
	}
	return float64(t) / 1000
}

// sampleCalls makes one call per sample (callsFromProfileSamples).
func (it *integrator) sampleCalls() {
	tl := it.tl
	prev := int32(-1)
	it.calls = make([]tcall, 0, len(tl.Samples)*2)
	for i, x := range tl.Samples {
		c := tcall{x: x, ts: tl.ms[i] * 1000, sampleIndex: int32(i), out: -1, gcParent: -1}
		if tl.sameID(x, tl.GC) && prev >= 0 {
			c.gcParent = prev
		} else {
			prev = x
		}
		it.calls = append(it.calls, c)
	}
}

func (it *integrator) evStart(i int32) float64 { return micros(it.events[i].Start) }
func (it *integrator) evDur(i int32) float64   { return micros(it.events[i].Dur) }

// compare is eventTimeComparator on entries: start, then end (later first),
// then calls before trace events.
func (it *integrator) compare(a, b entry) int {
	at, ad := it.entryTime(a)
	bt, bd := it.entryTime(b)
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
	switch {
	case a.ev < 0 && b.ev >= 0:
		return -1
	case b.ev < 0 && a.ev >= 0:
		return 1
	}
	return 0
}

func (it *integrator) entryTime(e entry) (ts, dur float64) {
	if e.ev >= 0 {
		return it.evStart(e.ev), it.evDur(e.ev)
	}
	c := &it.calls[e.call]
	return c.ts, c.dur
}

// merge is mergeEventsInOrder: take from a while compare(a, b) ≤ 0.
func (it *integrator) merge(a, b []entry) []entry {
	out := make([]entry, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if c := it.compare(a[i], b[j]); c <= 0 {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

func (it *integrator) eventEntries() []entry {
	ev := make([]entry, len(it.events))
	for i := range ev {
		ev[i] = entry{ev: int32(i), call: -1}
	}
	return ev
}

// walk is buildProfileCalls: the merged walk with a stack of open events.
func (it *integrator) walk() {
	samples := make([]entry, len(it.calls))
	for i := range samples {
		samples[i] = entry{ev: -1, call: int32(i)}
	}
	merged := it.merge(it.eventEntries(), samples)
	var parents []int32 // open trace events
	for k := 0; k < len(merged); k++ {
		e := merged[k]
		if e.ev >= 0 && it.events[e.ev].Phase == 'I' && it.events[e.ev].SampleTraceID == 0 {
			continue
		}
		if len(parents) == 0 {
			if e.ev < 0 {
				it.onSample(e.call, -1)
			} else {
				parents = append(parents, e.ev)
				it.onStart(e.ev, -1)
			}
			continue
		}
		par := parents[len(parents)-1]
		ts, _ := it.entryTime(e)
		if ts >= it.evStart(par)+it.evDur(par) {
			it.onEnd(par)
			parents = parents[:len(parents)-1]
			k--
			continue
		}
		if e.ev < 0 {
			it.onSample(e.call, par)
		} else {
			it.onStart(e.ev, par)
			parents = append(parents, e.ev)
		}
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
	if it.evName[ev]&flagRunTask != 0 {
		it.locked = it.locked[:0]
		it.truncate(0, ts)
		it.fake = false
	}
	if it.fake {
		it.truncate(it.popLocked(), ts)
		it.fake = false
	}
	it.extract(entry{ev: ev, call: -1})
	if it.opts.TraceIDFakeMode && it.events[ev].SampleTraceID != 0 && !(parent >= 0 && it.evName[parent]&flagJSInvocation != 0) {
		it.fake = true
	}
	it.locked = append(it.locked, len(it.jsStack))
}

func (it *integrator) onSample(c int32, parent int32) {
	switch {
	case parent >= 0 && it.evName[parent]&flagJSInvocation != 0 || it.fake:
		it.extract(entry{ev: -1, call: c})
	case len(it.jsStack) == 0:
		it.fake = true
		it.extract(entry{ev: -1, call: c})
		it.locked = append(it.locked, 0)
	}
}

func (it *integrator) onEnd(ev int32) {
	it.truncate(it.popLocked(), it.evStart(ev)+it.evDur(ev))
}

// stackFor makes the calls of the stack of node x (depth 0 first, the root
// excluded) at ts; with a GC sample call, the previous sample's stack with
// the GC call on top.
func (it *integrator) stackFor(c int32, ts float64, sampleIndex int32) []int32 {
	tl := it.tl
	x := it.calls[c].x
	isGC := tl.sameID(x, tl.GC)
	if isGC {
		x = it.calls[c].gcParent
		if x < 0 {
			return nil
		}
	}
	depth := int(tl.Depth[x]) + 1
	n := depth
	if isGC {
		n++
	}
	st := make([]int32, n)
	for i, y := depth-1, x; i >= 0; i, y = i-1, tl.Parent[y] {
		st[i] = int32(len(it.calls))
		it.calls = append(it.calls, tcall{x: y, ts: ts, sampleIndex: sampleIndex, out: -1, gcParent: -1})
	}
	if isGC {
		st[n-1] = c
	}
	return st
}

func (it *integrator) sameFrame(a, b int32) bool {
	p := it.p
	fa, fb := p.NodeFrame(it.tl.Node[it.calls[a].x]), p.NodeFrame(it.tl.Node[it.calls[b].x])
	return fa.ScriptID == fb.ScriptID && fa.Name == fb.Name && fa.Line == fb.Line
}

// extract is extractStackTrace for a sample call or a trace event.
func (it *integrator) extract(e entry) {
	var st []int32
	aliased := false
	var ts, dur float64
	var traceID int64
	if e.ev < 0 {
		c := &it.calls[e.call]
		ts, dur = c.ts, c.dur
		st = it.stackFor(e.call, c.ts, c.sampleIndex)
	} else {
		ts, dur = it.evStart(e.ev), it.evDur(e.ev)
		traceID = it.events[e.ev].SampleTraceID
		st, aliased = it.jsStack, true
	}
	if traceID != 0 {
		if x, ok := it.traceID[traceID]; ok && x >= 0 {
			c := int32(len(it.calls))
			it.calls = append(it.calls, tcall{x: x, ts: ts, sampleIndex: -1, out: -1, gcParent: -1})
			st, aliased = it.stackFor(c, ts, -1), false
		}
	}
	if !it.opts.ShowAllEvents {
		j := 0
		for _, c := range st {
			if !it.native[it.calls[c].x] {
				st[j] = c
				j++
			}
		}
		st = st[:j]
		if aliased {
			it.jsStack = st
		}
	}
	end := ts + dur
	minFrames := min(len(st), len(it.jsStack))
	i := it.lockedTop()
	for ; i < minFrames && it.sameFrame(st[i], it.jsStack[i]); i++ {
		f := &it.calls[it.jsStack[i]]
		f.dur = math.Max(f.dur, end-f.ts)
	}
	it.truncate(i, ts)
	if aliased {
		return // st is the JS stack itself, now i frames long
	}
	for ; i < len(st); i++ {
		c := st[i]
		if it.skip[it.calls[c].x] {
			continue
		}
		it.calls[c].depth = int32(len(it.jsStack))
		it.jsStack = append(it.jsStack, c)
		it.calls[c].out = int32(len(it.out))
		it.out = append(it.out, c)
	}
}

func (it *integrator) truncate(depth int, t float64) {
	if len(it.locked) > 0 {
		if ld := it.locked[len(it.locked)-1]; ld != 0 && depth < ld {
			depth = ld
		}
	}
	if len(it.jsStack) < depth {
		depth = len(it.jsStack)
	}
	for _, c := range it.jsStack {
		f := &it.calls[c]
		f.dur = math.Max(t-f.ts, 0)
	}
	it.jsStack = it.jsStack[:depth]
}

// Entry is a flame-chart entry of a trace thread (devtools-engine.md §6): a
// trace event or a call in the thread's tree, at the level DevTools draws
// it. Entries come depth-first, as DevTools appends them.
type Entry struct {
	Level      int32
	Event      int32 // index into Profile.Events, or −1 for a call
	Call       int32 // index into the calls, or −1 for a trace event
	Start, Dur profile.Time
}

// finish runs treify over the thread's entries merged with the constructed
// calls and returns the calls with their self times, and the flame-chart
// entries.
func (it *integrator) finish() ([]Call, []Entry) {
	callEntries := make([]entry, len(it.out))
	for i, c := range it.out {
		callEntries[i] = entry{ev: -1, call: c}
	}
	merged := it.merge(it.eventEntries(), callEntries)
	self := make([]float64, len(it.calls))
	inTree := make([]bool, len(it.calls))
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
	var entries []Entry
	evBase := int32(it.p.Threads[it.tl.Thread].Events.Start)
	add := func(e entry, ts, dur float64, level int32) int32 {
		next := level
		if it.visible(e) {
			en := Entry{Level: level, Event: -1, Call: -1, Start: profile.TimeFromMicros(ts), Dur: profile.TimeFromMicros(dur)}
			if e.ev >= 0 {
				en.Event = evBase + e.ev
			} else {
				en.Call = it.calls[e.call].out
			}
			entries = append(entries, en)
			next++
		}
		return next
	}
	for k := 0; k < len(merged); k++ {
		e := merged[k]
		ts, dur := it.entryTime(e)
		if len(stack) == 0 {
			*slot(e) = dur
			if e.ev < 0 {
				inTree[e.call] = true
			}
			stack = append(stack, open{e, ts + dur, add(e, ts, dur, 0)})
			continue
		}
		par := &stack[len(stack)-1]
		if ts >= par.end {
			stack = stack[:len(stack)-1]
			k--
			continue
		}
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
	out := make([]Call, len(it.out))
	for i, c := range it.out {
		tc := &it.calls[c]
		out[i] = Call{Node: it.tl.Node[tc.x], Start: profile.TimeFromMicros(tc.ts), Dur: profile.TimeFromMicros(tc.dur),
			Depth: tc.depth, SampleIndex: tc.sampleIndex, InTree: inTree[c]}
		if inTree[c] {
			out[i].Self = profile.TimeFromMicros(self[c])
		}
	}
	return out, entries
}

// visible is DevTools' entryIsVisibleInTimeline without ignore-listing and
// user modifications: every entry of a generic trace, calls, and trace
// events with a visible style or a timing marker.
func (it *integrator) visible(e entry) bool {
	if e.ev < 0 || it.opts.ShowAllEvents || it.p.Generic {
		return true
	}
	ev := &it.events[e.ev]
	name := it.p.Str(ev.Name)
	if visibleEvents[name] || name == "UpdateCounters" {
		return true
	}
	// Timing markers: performance.mark instants and console.timeStamp.
	return ev.Phase == 'I' && (it.p.Str(ev.Cat) == "blink.user_timing" || name == "TimeStamp")
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
