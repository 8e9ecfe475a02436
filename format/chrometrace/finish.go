package chrometrace

import (
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/jsprof/jsprof/internal/jsonscan"
	"github.com/jsprof/jsprof/profile"
)

// finish chooses one profile per thread, appends the threads and their
// events, and validates the result.
func (r *reader) finish() (*profile.Profile, error) {
	b := r.b
	prof := b.P
	prof.Diagnostics = append(prof.Diagnostics, r.diag...)
	prof.Generic = !r.web
	if r.hasStarted && r.started >= 0 {
		r.boundsMin = r.started
	}
	if r.boundsMin <= r.boundsMax {
		prof.Bounds = profile.Span{Start: profile.TimeFromMicros(r.boundsMin), End: profile.TimeFromMicros(r.boundsMax)}
	}
	prof.Diagnostics.Add("bad-time", int64(r.badTimes), "%d ts or dur values were strings that are not numbers and were taken as 0", r.badTimes)

	// 1. Group profiles by process, then by thread, in DevTools' map orders.
	type group struct {
		pid     profile.StringID
		threads []profile.StringID
		cands   map[profile.StringID][]*profState
	}
	var groups []*group
	byPid := map[profile.StringID]*group{}
	orphans := 0
	for _, p := range r.profs {
		g := byPid[p.key.pid]
		if g == nil {
			g = &group{pid: p.key.pid, cands: map[profile.StringID][]*profState{}}
			byPid[p.key.pid] = g
			groups = append(groups, g)
		}
		if !p.hasThread {
			orphans++
			continue
		}
		if _, ok := g.cands[p.tid]; !ok {
			g.threads = append(g.threads, p.tid)
		}
		g.cands[p.tid] = append(g.cands[p.tid], p)
	}
	prof.Diagnostics.Add("profile-without-head", int64(orphans), "%d profiles have ProfileChunk events but no Profile event naming their thread and were dropped (as in DevTools)", orphans)

	// 2. Choose (source Internal, then Inspector, else the first) and append.
	threadOfKey := map[threadKey]profile.ThreadID{}
	notChosen, empty := 0, 0
	type choice struct {
		g      *group
		tid    profile.StringID
		chosen *profState
	}
	var choices []choice
	var samples int
	lines, cols := false, false
	for _, g := range groups {
		for _, tid := range g.threads {
			cands := g.cands[tid]
			chosen := cands[0]
		pick:
			for _, src := range []string{"Internal", "Inspector"} {
				for _, c := range cands {
					if c.source == src {
						chosen = c
						break pick
					}
				}
			}
			notChosen += len(cands) - 1
			n, ns, _ := chosen.asm.Counts()
			if n == 0 {
				empty++
				continue
			}
			samples += ns
			lines = lines || chosen.asm.HasLines()
			cols = cols || chosen.asm.HasColumns()
			choices = append(choices, choice{g, tid, chosen})
		}
	}
	// The profile's sample columns sized for every thread at once: grown
	// thread by thread, each would copy all the threads before it.
	if len(choices) > 1 {
		ps := &prof.Samples
		ps.Node.Grow(samples)
		ps.Time.Grow(samples)
		if lines {
			ps.Line = jsonscan.Grow(ps.Line, samples)
		}
		if cols {
			ps.Column = jsonscan.Grow(ps.Column, samples)
		}
	}
	// 3 (beside 2). The events of the sampled threads are kept and sorted
	// on another core while the profiles are appended on this one: the
	// two touch different tables, and the events need only each thread's
	// model thread, which is the order of the choices. Not beside when the
	// events are read again from the input (deferred), a thread without a
	// profile may be kept (Options.Unsampled), or the trace's own samples
	// add threads: those read the builder's strings, which the appends
	// grow. On nytimes-bad-mobile-viewport (one profile, 99 k events) the
	// events were 4.1 of finish's 6.1 ms (docs/performance.md §5y). Nor
	// for a few events: two cores allocating at once took more memory
	// (react-console-timestamp, 16 k events kept: +1.8% peak RSS), for a
	// time too small to see.
	beside := r.deferred == nil && r.unsampled == nil && r.topSamples.data == nil
	var evThread []int32
	if beside {
		model := make(map[threadKey]profile.ThreadID, len(choices))
		for i, c := range choices {
			model[threadKey{c.g.pid, c.tid}] = profile.ThreadID(len(prof.Threads) + i)
		}
		evThread = r.modelThreads(model)
		events := 0
		for i, t := range evThread {
			if t >= 0 {
				events += r.threads[i].kept
			}
		}
		beside = events >= besideEvents
	}
	var kept keptEvents
	var keeping sync.WaitGroup
	defer keeping.Wait() // the early returns below
	if beside {
		threads := len(prof.Threads) + len(choices)
		keeping.Go(func() { kept, _ = r.keepEvents(evThread, threads) })
	}
	for _, c := range choices {
		g, tid, chosen := c.g, c.tid, c.chosen
		key := threadKey{g.pid, tid}
		th := profile.Thread{PID: r.numericID(g.pid), TID: r.numericID(tid), ProfileID: idString(b.P.Strings[chosen.key.id]),
			ProcessName: r.procName[g.pid], URL: r.procURL[g.pid]}
		if t, ok := r.threadOf[key]; ok && r.threads[t].hasName {
			th.Name = r.threads[t].name
		}
		if chosen.broken {
			lost := chosen.asm.Truncate()
			prof.Diagnostics.Add("samples-without-delta", int64(lost), "%d samples had no time delta and were dropped", lost)
		}
		chosen.asm.SetStart(chosen.start)
		chosen.asm.SetEnd(chosen.end)
		if end, ok := chosen.realEnd(); ok && end != chosen.end && chosen.end != 0 {
			// DevTools' end is the first chunk's: keep it for the
			// analyses that reproduce DevTools, and give the real end.
			chosen.asm.SetEnd(end)
			th.DevToolsEnd = profile.TimeFromMicros(chosen.end)
		}
		prefix := fmt.Sprintf("profile %s of pid %s: ", th.ProfileID, b.P.Strings[g.pid])
		if err := chosen.asm.Append(th, prefix); err != nil {
			return nil, chosen.locate(err, prefix)
		}
		chosen.asm = nil // its raw tables are no longer needed
		threadOfKey[key] = profile.ThreadID(len(prof.Threads) - 1)
	}
	// 2b. The Trace Event Format's own samples, on threads without a profile.
	if err := r.appendTopSamples(threadOfKey); err != nil {
		return nil, err
	}
	prof.Diagnostics.Add("profile-not-chosen", int64(notChosen), "%d profiles were not used because their thread has a preferred one (source Internal, then Inspector, else the first; as in DevTools)", notChosen)
	prof.Diagnostics.Add("profile-empty", int64(empty), "%d profiles have no nodes and were dropped", empty)

	// 3. Events of the sampled threads, sorted as DevTools sorts entries.
	if beside {
		keeping.Wait()
	} else {
		var err error
		if kept, err = r.keepEvents(r.modelThreads(threadOfKey), len(prof.Threads)); err != nil {
			return nil, err
		}
	}
	prof.Events, prof.EventArgs = kept.events, kept.args
	for t, rg := range kept.ranges {
		prof.Threads[t].Events = rg
	}
	switch dropped := kept.dropped; {
	case dropped > 0 && r.unsampled != nil:
		prof.Diagnostics.Add("events-other-threads", int64(dropped), "%d duration and instant events belong to threads without a CPU profile: they are not analysed, only drawn on those threads' tracks", dropped)
	case dropped > 0:
		prof.Diagnostics.Add("events-other-threads", int64(dropped), "%d duration and instant events belong to threads without a CPU profile and were not kept", dropped)
	}
	unclosed := 0
	for _, o := range r.open {
		if o.event >= 0 || o.deferred {
			unclosed++
		}
	}
	prof.Diagnostics.Add("unmatched-begin", int64(unclosed), "%d B events have no E event; they are kept with no duration (as in DevTools)", unclosed)
	if err := prof.Validate(); err != nil {
		return nil, fmt.Errorf("internal error: %w", err)
	}
	return prof, nil
}

// modelThreads maps each reader thread to its model thread by its key
// (model), or to −1.
func (r *reader) modelThreads(model map[threadKey]profile.ThreadID) []int32 {
	out := make([]int32, len(r.threads))
	for i, t := range r.threads {
		out[i] = -1
		if id, ok := model[t.key]; ok {
			out[i] = int32(id)
		}
	}
	return out
}

// keptEvents is what keepEvents makes of a trace's events.
type keptEvents struct {
	events  []profile.Event
	args    [][]byte        // Profile.EventArgs: nil, or one per event
	ranges  []profile.Range // each model thread's events
	dropped int             // events of threads without a profile
}

// keepEvents keeps the events of the model threads (evThread: reader
// thread → model thread, or −1), each thread's sorted as DevTools sorts
// entries, and lets go of the event store. With Options.Unsampled it also
// makes the threads without a profile (r.unsampled).
func (r *reader) keepEvents(evThread []int32, threads int) (keptEvents, error) {
	counts := make([]int, threads+1)
	dropped := 0
	var other [][]int32 // reader thread → indexes of its events (Options.Unsampled)
	if r.unsampled != nil {
		other = make([][]int32, len(r.threads))
	}
	for i, e := range r.events.all {
		if t := evThread[e.th()]; t >= 0 {
			counts[t+1]++
		} else {
			dropped++
			if other != nil {
				other[e.th()] = append(other[e.th()], int32(i))
			}
		}
	}
	for rt, offs := range r.deferred {
		if t := evThread[rt]; t >= 0 {
			counts[t+1] += len(offs)
		} else {
			dropped += len(offs)
		}
	}
	if other != nil {
		*r.unsampled = r.eventThreads(other)
	}
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}
	// Each model thread's events as indexes into the store, in the order of
	// the file, then sorted and made from the store where they lie: a copy
	// of them grouped by thread was 3.2 MB of nytimes-bad-mobile-viewport's
	// finish, allocated while the store was still live
	// (docs/performance.md §5z). A thread's deferred events, read again and
	// added to the store, come before all of its events kept (threads map
	// one to one), in the order of the file.
	stored := r.events.len()
	order := make([]int32, counts[len(counts)-1])
	fill := slices.Clone(counts)
	keptArgs := false // whether a kept event has raw args (KeepArgs)
	for rt, offs := range r.deferred {
		t := evThread[rt]
		if t < 0 {
			continue
		}
		given := int64(0) // the pages read again go back as they are passed
		for _, off := range offs {
			if r.drop != nil && off-given >= releaseEvery {
				r.drop(given, off)
				given = off
			}
			e, id, args, err := r.readAgain(off, int32(rt))
			if err != nil {
				return keptEvents{}, err
			}
			i := int(r.events.len())
			if args != nil {
				if r.args == nil {
					r.args = map[int][]byte{}
				}
				r.args[i] = args
				keptArgs = true
			}
			r.keep(e, id)
			order[fill[t]] = int32(i)
			fill[t]++
		}
		if r.drop != nil && len(offs) > 0 {
			r.drop(given, offs[len(offs)-1])
		}
	}
	r.deferred, r.deferredDur = nil, nil
	for i, e := range r.events.all {
		if int32(i) == stored {
			break // the deferred events just added
		}
		if t := evThread[e.th()]; t >= 0 {
			if _, ok := r.args[i]; ok {
				keptArgs = true
			}
			order[fill[t]] = int32(i)
			fill[t]++
		}
	}
	store := r.events
	out := keptEvents{events: make([]profile.Event, len(order)), ranges: make([]profile.Range, threads), dropped: dropped}
	if keptArgs {
		out.args = make([][]byte, len(order))
	}
	for t := range threads {
		idx := order[counts[t]:counts[t+1]]
		slices.SortStableFunc(idx, func(a, b int32) int { return compareEvents(*store.at(a), *store.at(b)) })
		out.ranges[t] = profile.Range{Start: int32(counts[t]), End: int32(counts[t+1])}
	}
	// The events made in order, [lo, hi) of them.
	makeRange := func(lo, hi int) {
		for t := range threads {
			for p := max(lo, counts[t]); p < min(hi, counts[t+1]); p++ {
				k := order[p]
				e := store.at(k)
				if out.args != nil {
					out.args[p] = r.args[int(k)]
				}
				pair := r.pairs[e.pair]
				out.events[p] = profile.Event{Thread: profile.ThreadID(t), Name: pair.name, Cat: pair.cat, Phase: e.ph(),
					Start: profile.TimeFromMicros(e.ts), Dur: max(profile.TimeFromMicros(e.dur), 0), SampleTraceID: r.traceIDs[int(k)]}
			}
		}
	}
	// Many in two halves at once (4.8 MB of fresh memory for the 99 k
	// events of nytimes-bad-mobile-viewport: its finish −10%).
	if n := len(order); n >= splitMakeEvents {
		var half sync.WaitGroup
		half.Go(func() { makeRange(n/2, n) })
		makeRange(0, n/2)
		half.Wait()
	} else {
		makeRange(0, n)
	}
	r.events = eventStore{}
	return out, nil
}

// besideEvents is the number of events kept from which finish keeps them
// beside the profiles' appends (a variable for tests).
var besideEvents = 32 << 10

// splitMakeEvents is the number of kept events from which keepEvents makes
// them in two halves at once (a variable for tests).
var splitMakeEvents = 32 << 10

// eventThreads returns the threads without a profile that have events, in
// order of first appearance, each with its events (indexes into r.events,
// per reader thread) sorted as a sampled thread's.
func (r *reader) eventThreads(other [][]int32) []EventThread {
	out := []EventThread{}
	for t, idx := range other {
		if len(idx) == 0 {
			continue
		}
		st := &r.threads[t]
		et := EventThread{PID: r.numericID(st.key.pid), TID: r.numericID(st.key.tid), ProcessName: r.procName[st.key.pid], URL: r.procURL[st.key.pid]}
		if st.hasName {
			et.Name = st.name
		}
		slices.SortStableFunc(idx, func(a, b int32) int { return compareEvents(*r.events.at(a), *r.events.at(b)) })
		et.Events = make([]profile.Event, len(idx))
		for k, i := range idx {
			e := r.events.at(i)
			pair := r.pairs[e.pair]
			et.Events[k] = profile.Event{Thread: profile.ThreadID(len(out)), Name: pair.name, Cat: pair.cat, Phase: e.ph(),
				Start: profile.TimeFromMicros(e.ts), Dur: max(profile.TimeFromMicros(e.dur), 0), SampleTraceID: r.traceIDs[int(i)]}
		}
		out = append(out, et)
	}
	return out
}

// compareEvents is DevTools' eventTimeComparator for trace events: by start,
// then by end, latest first.
func compareEvents(a, b rawEvent) int {
	switch {
	case a.ts < b.ts:
		return -1
	case a.ts > b.ts:
		return 1
	}
	ae, be := a.ts+a.dur, b.ts+b.dur
	switch {
	case ae > be:
		return -1
	case ae < be:
		return 1
	}
	return 0
}

// numericID turns a raw pid/tid token into a number: JSON numbers as they
// are, numeric strings parsed, anything else a stable negative id.
func (r *reader) numericID(tok profile.StringID) int64 {
	s := r.b.P.Strings[tok]
	if len(s) >= 2 && s[0] == '"' {
		if v, err := strconv.ParseInt(s[1:len(s)-1], 0, 64); err == nil {
			return v
		}
		return -int64(tok)
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return int64(f)
	}
	return -int64(tok)
}

// idString renders a raw profile id token: "0x1" for the string "0x1".
func idString(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' {
		if s, err := strconv.Unquote(raw); err == nil {
			return s
		}
	}
	return raw
}
