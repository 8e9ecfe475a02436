package devtoolsstats

import (
	"slices"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/profile"
)

// ThreadEvents returns the entries of thread t as the Summary walks them:
// the thread's trace events (already in DevTools' order) merged with its
// calls, as DevTools' mergeEventsInOrder merges a thread's entries with its
// ProfileCalls (by ts, then later end first, calls first on ties). cs are
// the thread's calls in DevTools' order: those of Timeline.Integrate for a
// trace thread, of Timeline.Calls for a bare .cpuprofile. Every call counts
// as scripting.
//
// Each entry carries DevTools' float µs ts and dur. A trace event's are
// those of the file (exactly, for whole microseconds). A call's are rebuilt
// from its nanosecond times as the engine computes them (see callMicros).
func ThreadEvents(p *profile.Profile, t profile.ThreadID, cs []calls.Call) []Event {
	r := p.Threads[t].Events
	out := make([]Event, 0, r.Len()+len(cs))
	eachThreadEvent(p, t, cs, func(e *Event) { out = append(out, *e) })
	return out
}

// eachThreadEvent calls yield with each entry ThreadEvents returns, in
// order, without holding them; yield must not keep the pointer it gets.
func eachThreadEvent(p *profile.Profile, t profile.ThreadID, cs []calls.Call, yield func(*Event)) {
	r := p.Threads[t].Events
	evs := p.Events[r.Start:r.End]
	// The category of each event name, found once per name and kept in a
	// byte per string of the profile (1 + its index in cats, which holds
	// at most the 13 of Categories): a map lookup per event was an eighth
	// of nytimes-bad-mobile-viewport's Summary (docs/performance.md §5x).
	catOf := make([]uint8, len(p.Strings))
	var cats []string
	event := func(e *profile.Event) Event {
		k := catOf[e.Name]
		if k == 0 {
			c := Category(p.Str(e.Name), p.Str(e.Cat), false)
			k = uint8(slices.Index(cats, c) + 1)
			if k == 0 {
				cats = append(cats, c)
				k = uint8(len(cats))
			}
			catOf[e.Name] = k
		}
		return Event{Start: e.Start, Dur: e.Dur, Category: cats[k-1], TsUs: micros(e.Start), DurUs: micros(e.Dur)}
	}
	cm := callMicros{trace: p.Format == "chrome-trace", samples: p.ThreadSamples(t).Time}
	call := func(c *calls.Call) Event {
		ts, dur := cm.of(c)
		return Event{Start: c.Start, Dur: c.Dur, Category: Scripting, TsUs: ts, DurUs: dur}
	}
	// One event and one call, overwritten: yield must not keep the pointer
	// (an entry each escaped to the heap: 216 MB on the 2 GB trace).
	i, j := 0, 0
	var e, next Event
	haveEvent, haveCall := false, false // e is event i, next is call j
	for i < len(evs) && j < len(cs) {
		if !haveCall {
			next, haveCall = call(&cs[j]), true
		}
		if !haveEvent {
			e, haveEvent = event(&evs[i]), true
		}
		// eventTimeComparator(event, call) ≤ 0 takes the event: it starts
		// earlier, or at the same time and ends later.
		if e.TsUs < next.TsUs || e.TsUs == next.TsUs && e.TsUs+e.DurUs > next.TsUs+next.DurUs {
			yield(&e)
			haveEvent = false
			i++
		} else {
			yield(&next)
			haveCall = false
			j++
		}
	}
	for ; i < len(evs); i++ {
		e = event(&evs[i])
		yield(&e)
	}
	for ; j < len(cs); j++ {
		next = call(&cs[j])
		yield(&next)
	}
}

// callMicros rebuilds the float µs ts and dur DevTools holds for a call
// from the call's nanosecond times (which the calls package rounds them
// to). Whole-µs times are rebuilt exactly; others within float rounding.
//
//   - .cpuprofile (forEachFrame): ts = startMs·1000 and dur =
//     (endMs − startMs)·1000, where a sample time in ms is µs/1000. This dur
//     is where ts+dur can exceed the parent's by a rounding error.
//   - trace (SamplesIntegrator): ts is a sample's ms·1000 for a call opened
//     by a sample, or a trace event's ts for one opened by a trace-id stack;
//     dur is X − ts, where X is the time that ended it: a sample's ms·1000 if
//     the end is a sample time of the thread, else a trace event's start or
//     end. (X − ts is exact, so ts+dur is X.)
//
// TODO(jsprof): take the values from the calls package, which computes
// them and rounds them away, instead of rebuilding them.
type callMicros struct {
	trace   bool
	samples profile.Times // the thread's sample times, sorted
}

func (m *callMicros) of(c *calls.Call) (ts, dur float64) {
	end := c.Start + c.Dur
	if !m.trace {
		s, e := devtoolsMillis(c.Start), devtoolsMillis(end)
		return s * 1000, (e - s) * 1000
	}
	if c.SampleIndex >= 0 {
		ts = devtoolsMillis(c.Start) * 1000
	} else {
		ts = micros(c.Start)
	}
	x := micros(end)
	if m.isSampleTime(end, c.SampleIndex) {
		x = devtoolsMillis(end) * 1000
	}
	return ts, max(x-ts, 0)
}

// isSampleTime reports whether t is the time of one of the thread's
// samples, looked for from sample si when the call has one (−1 if not):
// a search of all the samples took 60 ms of the 623 k calls of the
// typescript shape as a trace (docs/performance.md §5s). Most calls end
// at or before the sample after their own (a leaf's), which is looked at
// before searching further (§5x): the times are sorted.
func (m *callMicros) isSampleTime(t profile.Time, si int32) bool {
	n, from := m.samples.Len(), 0
	if k := int(si); k >= 0 && k < n {
		if own := m.samples.At(k); own == t {
			return true
		} else if own < t {
			if k+1 < n {
				if next := m.samples.At(k + 1); next >= t {
					return next == t
				}
			}
			from = min(k+2, n)
		}
	}
	i := m.samples.SearchFrom(t, from)
	return i < n && m.samples.At(i) == t
}

// devtoolsMillis converts a sample time as DevTools does: µs (a JS number)
// divided by 1000 (as the calls package does).
func devtoolsMillis(t profile.Time) float64 {
	if t%1000 == 0 {
		return float64(t/1000) / 1000
	}
	return float64(t) / 1e6
}

// ThreadStats returns the Summary breakdown of thread t over the window
// bounds (usually TraceBounds(p), the whole trace, which is what the
// Summary shows with no selection). cs are the thread's calls, as for
// ThreadEvents.
func ThreadStats(p *profile.Profile, t profile.ThreadID, cs []calls.Call, bounds [2]profile.Time) Stats {
	return StatsForTimeRange(ThreadEvents(p, t, cs), bounds[0], bounds[1])
}

// TraceBounds returns the time span of the whole profile as DevTools
// computes it (MetaHandler traceBounds): for a trace, over every B, E, X and
// I event of every process and thread with a non-zero ts and a name not
// ending in "::UMA", the minimum ts and the maximum ts+dur, the minimum then
// replaced by the ts of the last TracingStartedInBrowser event if there is
// one — the trace reader records it in Profile.Bounds; for a bare
// .cpuprofile, which DevTools wraps in one event from startTime to endTime,
// the profile's startTime and endTime.
func TraceBounds(p *profile.Profile) [2]profile.Time {
	if p.Format == "chrome-trace" {
		return [2]profile.Time{p.Bounds.Start, p.Bounds.End}
	}
	if len(p.Threads) == 0 {
		return [2]profile.Time{}
	}
	return [2]profile.Time{p.Threads[0].Start, p.Threads[0].End}
}

// WholeTrace is the breakdown of every entry of the thread, including those
// outside bounds, with idle the rest of bounds: what the pinned engine's
// oracle (dump-trees.mjs categoryMs) reports. The panel's Summary of the
// whole trace (StatsForTimeRange over bounds) differs only by the entries
// that start before bounds (a TracingStartedInBrowser after them).
func WholeTrace(evs []Event, bounds [2]profile.Time) Stats {
	lo, hi := bounds[0], bounds[1]
	for _, e := range evs {
		lo, hi = min(lo, e.Start), max(hi, e.Start+e.Dur)
	}
	return wholeTrace(Build(evs).Range(lo, hi), bounds)
}

func wholeTrace(st Stats, bounds [2]profile.Time) Stats {
	delete(st, Idle)
	st[Idle] = max(0, bounds[1]-bounds[0]-st.Total())
	return st
}

// ThreadWholeTrace is WholeTrace(ThreadEvents(p, t, cs), bounds) without
// holding the entries or every change point: the walk keeps, of each
// category's series, only the points around the window's two edges
// (Summary.edges). That gives the bisection's answer as long as every
// series is sorted; when one is not (an entry outliving its parent), the
// breakdown is computed again in full. On a 2 GB trace the full form held
// 4.6 M entries (212 MB) and allocated 403 MB of change points.
func ThreadWholeTrace(p *profile.Profile, t profile.ThreadID, cs []calls.Call, bounds [2]profile.Time) Stats {
	lo, hi := bounds[0], bounds[1]
	r := p.Threads[t].Events
	evs := p.Events[r.Start:r.End]
	for i := range evs {
		lo, hi = min(lo, evs[i].Start), max(hi, evs[i].End())
	}
	for i := range cs {
		lo, hi = min(lo, cs[i].Start), max(hi, cs[i].Start+cs[i].Dur)
	}
	s := build(&[2]profile.Time{lo, hi}, func(yield func(*Event)) { eachThreadEvent(p, t, cs, yield) })
	if s.unsorted {
		return WholeTrace(ThreadEvents(p, t, cs), bounds)
	}
	return wholeTrace(s.Range(lo, hi), bounds)
}
