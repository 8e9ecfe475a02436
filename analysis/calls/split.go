package calls

import (
	"math"
	"sync"
)

// A long thread's calls integrated in two halves at once.
//
// The integrator's walk carries state from entry to entry (the JS stack,
// the locks, the fake-invocation flag, the open trace events), but at some
// points of a thread that state is the one a walk starting there would
// have, whatever came before:
//
//   - at the start of a top-level RunTask event (no event open): onStart
//     clears the locks, ends every call on the JS stack and clears the fake
//     flag, so the walk goes on from it as a fresh walk starting with that
//     event would;
//   - at a sample with no event open, after a sample whose stack holds no
//     call ((program), (idle)), which emptied the JS stack: a fresh walk
//     starting with that sample would set the fake flag and push a lock of
//     0, the state the walk is already in (a thread without events) or was
//     in before its first sample.
//
// integrateSplit walks the thread on two cores from such a point near the
// middle of its samples: the first half up to it, the second from it, as a
// fresh walk. Every call of the first half has ended by then, and every
// event of it before the point's time, so treify's merge of the calls with
// the events is the first half's followed by the second's, each starting
// from an empty stack: the halves' treify runs at once too. Whether the
// first half's walk did end in the state assumed is checked when it is
// done (an adversarial node named as a meta node keeps a call open, say);
// if it did not, the second half is dropped and the thread walked whole.
// TestIntegrateSplit compares both ways on every trace of the corpus, at
// many points of each.

// splitIntegrateEntries is the number of samples and events from which a
// thread's calls are integrated in two halves (a variable for tests). The
// walk's cost is both: nytimes-bad-mobile-viewport's one thread, of 50 k
// samples and 99 k events, was walked whole on one core
// (BenchmarkIntegrate: 13.1 → 10.2 ms in halves; docs/performance.md §5x).
var splitIntegrateEntries = 1 << 16

// splitAt is a point of a thread's merged walk: the entry before which the
// first half stops, sample j0 or event i0 (event), with i0 events and j0
// samples before it.
type splitAt struct {
	i0, j0 int32
	event  bool
}

// splitPoint returns a point near the middle of the thread's samples from
// which the walk may start afresh (see above), or false.
func (it *integrator) splitPoint() (splitAt, bool) {
	n := it.sHi
	if int(n)+len(it.events) < splitIntegrateEntries || it.sLo != 0 {
		return splitAt{}, false
	}
	return it.splitPointNear(n / 2)
}

// splitPointNear returns the split point with the number of samples before
// it nearest mid, within a quarter of the samples either side, or false.
// It passes over the events once or twice and over that stretch of
// samples once, and allocates nothing: a thread of a 2 GB trace holds
// millions of events.
func (it *integrator) splitPointNear(mid int32) (splitAt, bool) {
	return it.splitPointNearBy(mid, it.firstSampleFrom)
}

// splitPointNearBy is splitPointNear with first(j, ts) the first sample at
// or after ts, knowing that none before j is (a binary search of all the
// samples in a test).
func (it *integrator) splitPointNearBy(mid int32, first func(j int32, ts float64) int32) (splitAt, bool) {
	n, ne := it.sHi, int32(len(it.events))
	best, found := splitAt{}, false
	better := func(j int32) bool { return !found || max(j-mid, mid-j) < max(best.j0-mid, mid-best.j0) }
	// A top-level RunTask: every event before it ended by its start, and
	// none starts there; no sample at its start, some before and after.
	// The events are in order of start, so the first sample at or after
	// each is found onwards from the last one's (firstSampleFrom): a
	// binary search of all the samples for each top-level RunTask was 3 of
	// the 5 ms the walk waited for on nytimes-bad-mobile-viewport
	// (docs/performance.md §5y).
	maxEnd := math.Inf(-1) // the latest end of the events before i
	prev := math.Inf(-1)   // the start of event i−1
	j := int32(0)          // the first sample at or after the last RunTask looked at
	for i := range ne {
		ts := it.evStart(i)
		if ts < prev {
			return splitAt{}, false // events out of order: the walk's own order is not by start
		}
		if it.evFlags[i]&flagRunTask != 0 && it.events[i].Phase != 'I' && maxEnd <= ts && (i == 0 || prev < ts) {
			j = first(j, ts)
			if j > 0 && j < n && it.sampleTs(j) > ts && better(j) {
				best, found = splitAt{i0: i, j0: j, event: true}, true
			}
		}
		maxEnd = max(maxEnd, ts+it.evDur(i))
		prev = ts
	}
	// A sample after one whose stack holds no call ((program), (idle)),
	// with every event before it ended by its time and none starting
	// there. The samples in time order, the events alongside.
	k, maxEnd := int32(0), math.Inf(-1) // the events starting before the sample, their latest end
	for j := max(mid-n/4, 1); j < min(mid+n/4, n); j++ {
		if found && j-mid >= max(best.j0-mid, mid-best.j0) {
			break // no nearer one ahead
		}
		x := it.tl.Sample(int(j - 1))
		if !it.skip[x] || it.tl.sameID(x, it.tl.GC) || it.level[x] > 0 {
			continue
		}
		ts := it.sampleTs(j)
		if it.sampleTs(j-1) >= ts {
			continue
		}
		for k < ne && it.evStart(k) < ts {
			maxEnd = max(maxEnd, it.evStart(k)+it.evDur(k))
			k++
		}
		if maxEnd <= ts && (k == ne || it.evStart(k) > ts) && better(j) {
			best, found = splitAt{i0: k, j0: j}, true
		}
	}
	return best, found
}

// firstSampleFrom returns the first sample at or after ts (in ProfileCall
// µs), or sHi, knowing that none before j is: by steps doubling from j,
// then halving, in the time of a binary search over the distance moved.
func (it *integrator) firstSampleFrom(j int32, ts float64) int32 {
	n := it.sHi
	if j >= n || it.sampleTs(j) >= ts {
		return j
	}
	// sampleTs(lo) < ts; the answer is in (lo, hi].
	lo, hi, step := j, j+1, int32(1)
	for hi < n && it.sampleTs(hi) < ts {
		lo, step = hi, 2*step
		hi = min(lo+step, n)
	}
	for hi-lo > 1 {
		m := lo + (hi-lo)/2
		if it.sampleTs(m) < ts {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// fork returns an integrator of the same thread, with the same tables and
// a fresh walk's state, over the events [evLo, evHi) of it and the samples
// [sLo, sHi).
func (it *integrator) fork(evLo, evHi, sLo, sHi int32) *integrator {
	return &integrator{
		tl: it.tl, opts: it.opts, p: it.p,
		events: it.events[evLo:evHi], evFlags: it.evFlags[evLo:evHi],
		native: it.native, skip: it.skip, nodeKey: it.nodeKey, traceID: it.traceID,
		up: it.up, level: it.level, entries: it.entries,
		evBase: it.evBase + evLo, sLo: sLo, sHi: sHi, samples: it.tl.Cursor(int(sLo)),
	}
}

// integrateSplit integrates the thread in two halves from sp (see above),
// or returns false when the first half did not end in the state assumed
// (both halves then walked for nothing; it itself is left as it was).
func (it *integrator) integrateSplit(sp splitAt) ([]Call, []Entry, bool) {
	first := it.fork(0, sp.i0, 0, sp.j0)
	second := it.fork(sp.i0, int32(len(it.events)), sp.j0, it.sHi)
	type share struct {
		out  []Call
		base int32 // the number of its first call
	}
	walked := make(chan struct{})
	shares := make(chan share, 1)
	var entries2 []Entry
	var wg sync.WaitGroup
	wg.Go(func() {
		second.walk()
		second.settle()
		close(walked)
		if sh, ok := <-shares; ok {
			entries2 = second.finish(sh.out, sh.base, nil)
		}
	})
	first.walk()
	var ok bool
	var ts float64 // the time of the entry that starts the second half
	if sp.event {
		ts = it.evStart(sp.i0)
		ok = first.endsBeforeTask(ts)
	} else {
		ts = it.sampleTs(sp.j0)
		ok = first.endsFresh()
	}
	first.settle()
	ok = ok && first.callsEndBy(ts)
	<-walked
	if !ok {
		close(shares)
		wg.Wait()
		return nil, nil, false
	}
	n1, n2 := first.calls.len(), second.calls.len()
	// Faulted in by the halves as they write it: no core is idle to do it
	// ahead (allocCalls).
	out := make([]Call, n1+n2)
	shares <- share{out[n1:], int32(n1)}
	var entries []Entry
	if it.entries {
		// Room for both halves' entries, the second's copied in after.
		entries = make([]Entry, 0, n1+n2+len(it.events))
	}
	entries = first.finish(out[:n1], 0, entries)
	wg.Wait()
	return out, append(entries, entries2...), true
}

// callsEndBy reports whether every call of the integrator ends by ts as
// treify computes its end (ts + dur in float µs, which can pass the time of
// the cut that ended it by an ulp: DevTools then nests what starts there
// under the call, and the halves' trees would not be the whole's).
func (it *integrator) callsEndBy(ts float64) bool {
	for _, b := range it.calls.blocks {
		for i := range b {
			if b[i].ts+b[i].dur > ts {
				return false
			}
		}
	}
	return true
}

// endsBeforeTask does, at the end of the first half's walk, what the whole
// walk does at the start of a top-level RunTask at ts and a fresh walk
// from the task need not: end every call on the JS stack, there being no
// lock. It reports true: the state after the task's start is the same.
func (it *integrator) endsBeforeTask(ts float64) bool {
	it.locked = it.locked[:0]
	it.truncate(0, ts)
	return true
}

// endsFresh reports whether the first half's walk, done, left the state
// from which a fresh walk goes on as the whole walk goes on from the
// sample that starts the second half: the JS stack empty, and the fake
// flag and the locks as such a sample leaves them in a fresh walk (set,
// one lock of 0) or as a fresh walk has them before it.
func (it *integrator) endsFresh() bool {
	if len(it.jsStack) > 0 {
		return false
	}
	return it.fake && len(it.locked) == 1 && it.locked[0] == 0 || !it.fake && len(it.locked) == 0
}
