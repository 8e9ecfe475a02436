// Package devtoolsstats computes the Chrome DevTools Performance panel's
// Summary breakdown ("pie"): how much of a time window each DevTools
// category (scripting, rendering, painting, loading, other = "System",
// idle, …) takes on one thread (docs/devtools-engine.md §8 and §9).
//
// The breakdown is DevTools' statsForTimeRange
// (panels/timeline/components/TimelineRangeSummaryView.ts) over a thread's
// entries: its trace events and its ProfileCalls, sorted as DevTools sorts
// them. The innermost open entry's category owns the time; the cumulative
// time of each category is recorded where the category changes, and read at
// the window's edges by linear interpolation; idle is the rest of the window.
// The category of an entry is that of the event style of its name
// (Category); DevTools' flame-chart colouring rules do not apply.
//
// Times are int64 nanoseconds (profile.Time), and times are summed as
// such. DevTools computes in float64 (µs for the nesting, ms for the
// category series), and its float rounding decides how entries nest: a call
// whose ts+dur exceeds its parent's by a rounding error stays open past the
// parent's end and swallows the entries that start there, which moves whole
// milliseconds between categories and idle. So every Event also carries
// DevTools' own float µs ts and dur, and the walk decides nesting and order
// on those, exactly as DevTools does; the times it credits are the
// nanosecond times of the same points. Results agree with DevTools' within
// 1e-3 µs per change point, except for the interpolation at window edges that
// fall inside an entry, which is rounded to the nearest nanosecond.
package devtoolsstats

import (
	"cmp"
	"math"
	"slices"

	"github.com/jsprof/jsprof/profile"
)

// Event is a thread entry as the Summary sees it.
type Event struct {
	Start    profile.Time
	Dur      profile.Time // 0 for instants, which the Summary skips
	Category string       // a category id, see Category; "" means "other"
	// TsUs and DurUs are the entry's ts and dur as DevTools holds them
	// (float64 µs, with its rounding; see ThreadEvents). They decide how
	// entries nest. When both are 0 they are Start and Dur in µs.
	TsUs, DurUs float64
}

// micros returns the entry's DevTools ts and dur.
func (e *Event) micros() (ts, dur float64) {
	if e.TsUs == 0 && e.DurUs == 0 {
		return micros(e.Start), micros(e.Dur)
	}
	return e.TsUs, e.DurUs
}

// micros converts a model time to µs as a trace file writes it: exact for
// whole microseconds.
func micros(t profile.Time) float64 {
	if t%1000 == 0 {
		return float64(t / 1000)
	}
	return float64(t) / 1000
}

// Stats is the Summary breakdown of a window: the time of each category.
// As in DevTools it holds every category that an entry of the thread opens,
// anywhere in the thread (possibly with 0 in the window), and always
// "idle".
type Stats map[string]profile.Time

// CategoryTime is one row of the Summary.
type CategoryTime struct {
	Category string
	Time     profile.Time
}

// Sorted returns the rows the Summary lists: every category but idle with a
// non-zero time, longest first, ties in the order of Categories (then by
// name for ids DevTools does not know).
func (s Stats) Sorted() []CategoryTime {
	rank := func(c string) int {
		if i := slices.Index(Categories, c); i >= 0 {
			return i
		}
		return len(Categories)
	}
	var rows []CategoryTime
	for c, t := range s {
		if c != Idle && t != 0 {
			rows = append(rows, CategoryTime{c, t})
		}
	}
	slices.SortFunc(rows, func(a, b CategoryTime) int {
		if a.Time != b.Time {
			return cmp.Compare(b.Time, a.Time)
		}
		if ra, rb := rank(a.Category), rank(b.Category); ra != rb {
			return cmp.Compare(ra, rb)
		}
		return cmp.Compare(a.Category, b.Category)
	})
	return rows
}

// Total returns the sum of all categories, idle included (the Summary's
// total).
func (s Stats) Total() profile.Time {
	var t profile.Time
	for _, v := range s {
		t += v
	}
	return t
}

// StatsForTimeRange returns the Summary breakdown of the window [start, end]
// of a thread whose entries are events, in DevTools' order (sorted by
// start, longer first, ProfileCalls before trace events on ties). With no
// entries the result is only idle = end − start. It is Build(events).Range
// for one window.
func StatsForTimeRange(events []Event, start, end profile.Time) Stats {
	if len(events) == 0 {
		return Stats{Idle: end - start}
	}
	return Build(events).Range(start, end)
}

// Summary is the cumulative time of each category of a thread at the points
// where the innermost category changes: the cache DevTools builds once per
// thread to answer the Summary of any window.
type Summary struct {
	names  []string // categories, in the order they first change
	index  map[string]int
	series []series
	last   point // the previous change
	prev   int   // the category last looked up, or −1
	// edges, when set, are the only window Range is asked for: each series
	// then keeps the points around them instead of all its points.
	edges    *[2]profile.Time
	unsorted bool // with edges: a series went back in time, so its points are not enough
}

// build walks the entries events yields, keeping every change point, or
// with edges only the points around them.
func build(edges *[2]profile.Time, events func(yield func(*Event))) *Summary {
	s := &Summary{index: map[string]int{}, prev: -1, edges: edges}
	s.walk(events)
	return s
}

// Build builds the Summary of a thread whose entries are events, in
// DevTools' order (see StatsForTimeRange).
//
//  1. Walk the entries as DevTools' forEachEvent does: an entry opens if it
//     has a non-zero duration (instants and zero-length entries are skipped);
//     before each entry, the open entries ending at or before its start are
//     closed, innermost first, stopping at the first that ends later. An entry
//     that ends after its parent therefore stays open past the parent's end,
//     and entries starting in between become its children.
//  2. Where the innermost open category changes (an entry opens with another
//     category than its parent's, or closes to a parent of another category,
//     or to nothing), the time since the previous change is added to the
//     category that was open, and a point (time, cumulative time) is appended
//     to the series of both categories. A change at a time earlier than the
//     previous change (an entry closing after its parent had already been
//     closed later) adds nothing to the category it leaves, but still moves
//     the "previous change" back; a category's series never gets two points
//     at the same time in a row.
func Build(events []Event) *Summary {
	return build(nil, eachOf(events))
}

// eachOf yields the elements of events in order.
func eachOf(events []Event) func(yield func(*Event)) {
	return func(yield func(*Event)) {
		for i := range events {
			yield(&events[i])
		}
	}
}

// Range returns the breakdown of the window [start, end]:
//
//  1. Each category's time in the window is its cumulative time at end minus
//     that at start, each read from its series by upper-bound binary search:
//     0 before the first point, the last value after the last, and linear
//     interpolation between the two points around the time.
//  2. idle is the window minus the sum of the categories, at least 0.
func (s *Summary) Range(start, end profile.Time) Stats {
	st := make(Stats, len(s.names)+1)
	var sum profile.Time
	if s.edges != nil && (start != s.edges[0] || end != s.edges[1]) {
		panic("devtoolsstats: Range of a window other than the Summary's edges")
	}
	for i, c := range s.names {
		se := &s.series[i]
		var v profile.Time
		if s.edges != nil {
			v = se.atEdge(1, end) - se.atEdge(0, start)
		} else {
			v = se.at(end) - se.at(start)
		}
		st[c] = v
		sum += v
	}
	// The idle category of v8.parseOnBackgroundWaiting counts in the sum,
	// and is then overwritten with the window's idle time (as in DevTools).
	st[Idle] = max(0, end-start-sum)
	return st
}

// series is the cumulative time of one category at its change points.
type series struct {
	pts     []cumulative // every point, without Summary.edges
	lastKey float64      // DevTools' time of the last point, float ms
	n       int          // the number of points
	last    cumulative   // the last point
	// With Summary.edges: for each edge the last point at or before it and
	// the first after it (valid while the series is sorted).
	near [2][2]cumulative
	seen [2][2]bool
}

// add appends pt to the series (or, with edges, keeps what atEdge needs);
// it reports false when pt goes back in time with edges set.
func (s *series) add(pt cumulative, edges *[2]profile.Time) bool {
	if edges == nil {
		s.pts = append(s.pts, pt)
	} else {
		if s.n > 0 && pt.t < s.last.t {
			return false
		}
		for k, e := range edges {
			if pt.t <= e {
				s.near[k][0], s.seen[k][0] = pt, true
			} else if !s.seen[k][1] {
				s.near[k][1], s.seen[k][1] = pt, true
			}
		}
	}
	s.n++
	s.last = pt
	return true
}

// atEdge is at(t) of a sorted series, t being edges[k]: the bisection's upper bound
// is the first point after the edge.
func (s *series) atEdge(k int, t profile.Time) profile.Time {
	switch {
	case !s.seen[k][0]:
		return 0
	case !s.seen[k][1]:
		return s.near[k][0].v
	}
	return interpolate(s.near[k][0], s.near[k][1], t)
}

// cumulative is a change point: the category's total time v up to t.
type cumulative struct{ t, v profile.Time }

// at returns the cumulative time at t (aggregatedStatsAtTime).
func (s *series) at(t profile.Time) profile.Time {
	// Platform.ArrayUtilities.upperBound: the first index whose time is
	// greater than t, by the same bisection (the series can be unsorted
	// after an entry that outlives its parent, and then only the same
	// midpoints give the same answer).
	pts := s.pts
	l, r := 0, len(pts)
	for l < r {
		m := int(uint(l+r) >> 1)
		if t >= pts[m].t {
			l = m + 1
		} else {
			r = m
		}
	}
	switch {
	case r == 0:
		return 0
	case r == len(pts):
		return pts[r-1].v
	}
	return interpolate(pts[r-1], pts[r], t)
}

// interpolate returns the cumulative time at t between the points p0 and
// p1 around it.
func interpolate(p0, p1 cumulative, t profile.Time) profile.Time {
	if p1.t == p0.t { // only in an unsorted series; DevTools divides by zero
		return p0.v
	}
	// (v1−v0)·(t−t0) can overflow int64: interpolate in float64, as
	// DevTools does, and round the increment to the nearest nanosecond.
	f := float64(p1.v-p0.v) * float64(t-p0.t) / float64(p1.t-p0.t)
	return p0.v + profile.Time(math.Round(f))
}

// point is a time of the walk: DevTools' float ms (which it compares) and
// the nanosecond time (which is credited).
type point struct {
	key float64
	t   profile.Time
}

// cat returns the index of category c.
func (s *Summary) cat(c string) int {
	if c == "" { // DevTools' `category || other`
		c = Other
	}
	if s.prev >= 0 && s.names[s.prev] == c {
		return s.prev
	}
	i, ok := s.index[c]
	s.prev = i
	if !ok {
		i = len(s.names)
		s.index[c] = i
		s.names = append(s.names, c)
		s.series = append(s.series, series{})
		s.prev = i
	}
	return i
}

const none = -1 // no open entry

// update is updateCategory: credit category c with the time since the
// previous change, up to p.
func (s *Summary) update(c int, p point) {
	se := &s.series[c]
	if se.n > 0 && se.lastKey == p.key || s.last.key > p.key {
		return
	}
	var v profile.Time
	if se.n > 0 {
		v = se.last.v
	}
	if !se.add(cumulative{p.t, v + p.t - s.last.t}, s.edges) {
		s.unsorted = true
	}
	se.lastKey = p.key
}

// change is categoryChange: the innermost category goes from one to the
// other (none for no open entry) at p.
func (s *Summary) change(from, to int, p point) {
	if from != none {
		s.update(from, p)
	}
	s.last = p
	if to != none {
		s.update(to, p)
	}
}

// walk runs forEachEvent over events with the Summary's callbacks. Every
// category of an opened entry gets a series: it either differs from its
// parent's (and is updated) or is its parent's.
func (s *Summary) walk(events func(yield func(*Event))) {
	type open struct {
		cat   int
		endUs float64 // DevTools' ts+dur
		end   point
	}
	var stack []open
	top := func() int {
		if len(stack) == 0 {
			return none
		}
		return stack[len(stack)-1].cat
	}
	closeTop := func() {
		o := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p := top(); p != o.cat {
			s.change(o.cat, p, o.end)
		}
	}
	events(func(e *Event) {
		ts, dur := e.micros()
		endUs := ts + dur
		// forEachEvent without a window starts at time 0: it skips entries
		// that end before it. (It also starts its walk at the last top-level
		// RunTask at or before time 0, which matters only for entries at
		// times ≤ 0; those are not skipped here.)
		if endUs < 0 {
			return
		}
		// DevTools tests the end time for truthiness: an entry ending at
		// exactly 0 is never closed early.
		for len(stack) > 0 && stack[len(stack)-1].endUs != 0 && stack[len(stack)-1].endUs <= ts {
			closeTop()
		}
		if dur == 0 {
			return
		}
		c := s.cat(e.Category)
		if p := top(); p != c {
			s.change(p, c, point{ts / 1000, e.Start})
		}
		stack = append(stack, open{c, endUs, point{endUs / 1000, e.Start + e.Dur}})
	})
	for len(stack) > 0 {
		closeTop()
	}
}
