package devtoolsstats

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

// format prints s in a stable order, times in ms.
func (s Stats) format() string {
	var b strings.Builder
	for _, c := range slices.Sorted(maps.Keys(s)) {
		fmt.Fprintf(&b, " %s=%gms", c, s[c].Millis())
	}
	return "{" + strings.TrimSpace(b.String()) + "}"
}

// ms converts milliseconds to a Time.
func ms(v float64) profile.Time { return profile.Time(v * 1e6) }

// ev builds an entry named name from start to end (ms).
func ev(name string, start, end float64) Event {
	return Event{Start: ms(start), Dur: ms(end) - ms(start), Category: Category(name, "", false)}
}

// TestStatsForTimeRangeDevTools is TimelineUIUtils.test.ts's statsForTimeRange
// case (docs/devtools-engine.md §8).
func TestStatsForTimeRangeDevTools(t *testing.T) {
	t.Parallel()
	events := []Event{
		ev("Program", 100, 103),
		ev("FunctionCall", 100.5, 102),
		ev("Layout", 101, 102),
		ev("Program", 104, 108),
		ev("FunctionCall", 104, 105),
		ev("CommitLoad", 105, 106), // no style: other
		ev("Layout", 107, 108),
	}
	tests := []struct {
		name       string
		start, end float64
		want       Stats
	}{
		{"101-103", 101, 103, Stats{Other: ms(1), Rendering: ms(1), Scripting: 0, Idle: 0}},
		{"104-109", 104, 109, Stats{Other: ms(2), Rendering: ms(1), Scripting: ms(1), Idle: ms(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := StatsForTimeRange(events, ms(tt.start), ms(tt.end))
			if !maps.Equal(got, tt.want) {
				t.Errorf("StatsForTimeRange(%vms, %vms): got %s, want %s", tt.start, tt.end, got.format(), tt.want.format())
			}
		})
	}
}

func TestStatsForTimeRange(t *testing.T) {
	t.Parallel()
	var (
		mu       sync.Mutex
		unsorted []string
	)
	tests := []struct {
		name       string
		events     []Event
		start, end float64
		want       Stats
	}{
		{
			name:  "no entries",
			start: 5, end: 3,
			want: Stats{Idle: ms(-2)}, // DevTools does not clamp this one
		},
		{
			name:   "window cuts entries: linear interpolation",
			events: []Event{ev("RunTask", 0.5, 10), ev("Layout", 2, 4), ev("Paint", 6, 8)},
			start:  3, end: 7,
			want: Stats{Other: ms(2), Rendering: ms(1), Painting: ms(1), Idle: 0},
		},
		{
			name:   "window beyond the entries: idle",
			events: []Event{ev("RunTask", 10, 20), ev("FunctionCall", 12, 14)},
			start:  0, end: 30,
			want: Stats{Other: ms(8), Scripting: ms(2), Idle: ms(20)},
		},
		{
			name: "zero-length entries and instants are skipped",
			events: []Event{
				ev("RunTask", 1, 5), ev("Layout", 2, 2), {Start: ms(3), Category: Painting}, ev("Paint", 4, 5),
			},
			start: 1, end: 5,
			want: Stats{Other: ms(3), Painting: ms(1), Idle: 0},
		},
		{
			name: "same category nested: no change point",
			events: []Event{
				ev("FunctionCall", 1, 9), ev("EvaluateScript", 2, 8), ev("TimerFire", 3, 4),
			},
			start: 0, end: 10,
			want: Stats{Scripting: ms(8), Idle: ms(2)},
		},
		{
			// RunTask[1,5] ⊃ Layout[2,8] (ends after its parent) ⊃ Paint[6,7]
			// (starts after the parent's end, so it is Layout's child). Layout
			// closes at 8 (rendering 2–6 and 7–8), then RunTask closes at 5,
			// before the previous change: nothing is credited, and the
			// previous change moves back to 5.
			name: "entry outlives its parent",
			events: []Event{
				ev("RunTask", 1, 5), ev("Layout", 2, 8), ev("Paint", 6, 7),
				ev("FunctionCall", 9, 10),
			},
			start: 0, end: 10,
			want: Stats{Other: ms(1), Rendering: ms(5), Painting: ms(1), Scripting: ms(1), Idle: ms(2)},
		},
		{
			// As above, inside a Layout: when RunTask closes at 5 (after
			// the change at 8, which moves the previous change back to 5),
			// rendering gets a point at 5 after its point at 8. Rendering's
			// points: 0 1 2 8 5 9 10 20 ms, cumulative 0 1 1 7 7 11 11 21.
			name: "a series goes back in time",
			events: []Event{
				ev("Layout", 0, 20), ev("RunTask", 1, 5), ev("Layout", 2, 8), ev("Paint", 9, 10),
			},
			start: 0, end: 30,
			want: Stats{Rendering: ms(21), Other: ms(1), Painting: ms(1), Idle: ms(7)},
		},
		{
			// The same entries as DevTools holds them after forEachFrame
			// computed B's dur as a difference of ms values times 1000:
			// B ends a rounding error after A, so it is still open when D
			// starts at A's end, and D becomes its child. When A closes
			// (at 2 ms, before the change at 3 ms) nothing is credited,
			// so D's time is lost to idle.
			name: "float rounding nests the next entry",
			events: []Event{
				{Start: ms(1), Dur: ms(1), Category: Scripting, TsUs: 1000, DurUs: 1000},             // A
				{Start: ms(1.5), Dur: ms(0.5), Category: Scripting, TsUs: 1500, DurUs: 500.00000001}, // B
				{Start: ms(2), Dur: ms(1), Category: Scripting, TsUs: 2000, DurUs: 1000},             // D
			},
			start: 0, end: 4,
			want: Stats{Scripting: ms(1), Idle: ms(3)},
		},
		{
			name:   "the same without rounding",
			events: []Event{ev("FunctionCall", 1, 2), ev("FunctionCall", 1.5, 2), ev("FunctionCall", 2, 3)},
			start:  0, end: 4,
			want: Stats{Scripting: ms(2), Idle: ms(2)},
		},
		{
			name:   "v8.parseOnBackgroundWaiting is idle, then overwritten",
			events: []Event{ev("v8.parseOnBackgroundWaiting", 1, 3), ev("RunTask", 4, 5)},
			start:  0, end: 10,
			want: Stats{Other: ms(1), Idle: ms(7)},
		},
		{
			name:   "an entry starting at its parent's end is its sibling",
			events: []Event{ev("RunTask", 1, 2), ev("Layout", 2, 3)},
			start:  0, end: 4,
			want: Stats{Other: ms(1), Rendering: ms(1), Idle: ms(2)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := StatsForTimeRange(tt.events, ms(tt.start), ms(tt.end))
			if !maps.Equal(got, tt.want) {
				t.Errorf("got %s, want %s", got.format(), tt.want.format())
			}
			if len(tt.events) == 0 {
				return
			}
			// The same window with only the points around its edges kept
			// (ThreadWholeTrace), unless a series goes back in time.
			s := buildEdges(tt.events, ms(tt.start), ms(tt.end))
			if s.unsorted {
				mu.Lock()
				unsorted = append(unsorted, tt.name)
				mu.Unlock()
			} else if got := s.Range(ms(tt.start), ms(tt.end)); !maps.Equal(got, tt.want) {
				t.Errorf("with edges: got %s, want %s", got.format(), tt.want.format())
			}
		})
	}
	t.Cleanup(func() {
		if !slices.Equal(unsorted, []string{"a series goes back in time"}) {
			t.Errorf("series found unsorted with edges: %q, want only the case whose series goes back", unsorted)
		}
	})
}

// TestEdgesRandom compares the Summary that keeps only the points around a
// window's edges with the full one, on random entries (nested, overlapping
// their parent's end, of several categories, at whole and fractional
// microseconds) and random windows, including the whole-trace window
// ThreadWholeTrace asks for. A series that goes back in time must be
// flagged, and both kinds must occur.
func TestEdgesRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	names := []string{"RunTask", "Layout", "Paint", "FunctionCall", "ParseHTML", "GCEvent"}
	sorted, unsorted := 0, 0
	for c := range 3000 {
		var events []Event
		at := profile.Time(0)
		for range 1 + r.IntN(40) {
			at += profile.Time(r.IntN(3000)) * 1000
			if r.IntN(4) == 0 {
				at += profile.Time(r.IntN(1000)) // not a whole µs
			}
			dur := profile.Time(r.IntN(8000)) * 1000
			if r.IntN(8) == 0 {
				dur = 0
			}
			events = append(events, Event{Start: at, Dur: dur, Category: Category(names[r.IntN(len(names))], "", false)})
		}
		slices.SortStableFunc(events, func(a, b Event) int {
			if a.Start != b.Start {
				return cmp.Compare(a.Start, b.Start)
			}
			return cmp.Compare(b.Start+b.Dur, a.Start+a.Dur)
		})
		lo, hi := events[0].Start, events[0].Start+events[0].Dur
		for _, e := range events {
			lo, hi = min(lo, e.Start), max(hi, e.Start+e.Dur)
		}
		windows := [][2]profile.Time{{lo, hi}, {lo - 5000, hi + 5000}}
		for range 3 {
			a, b := lo+profile.Time(r.Int64N(int64(hi-lo)+1)), lo+profile.Time(r.Int64N(int64(hi-lo)+1))
			windows = append(windows, [2]profile.Time{min(a, b), max(a, b)})
		}
		full := Build(events)
		for _, w := range windows {
			s := buildEdges(events, w[0], w[1])
			if s.unsorted {
				unsorted++
				continue
			}
			sorted++
			if got, want := s.Range(w[0], w[1]), full.Range(w[0], w[1]); !maps.Equal(got, want) {
				t.Fatalf("case %d, window %v: with edges %s, full %s", c, w, got.format(), want.format())
			}
		}
	}
	t.Logf("%d windows compared, %d left to the full form (a series went back)", sorted, unsorted)
	if sorted == 0 || unsorted == 0 {
		t.Errorf("%d sorted and %d unsorted cases: want both", sorted, unsorted)
	}
}

// buildEdges is Build keeping only the points around the window's edges.
func buildEdges(events []Event, start, end profile.Time) *Summary {
	return build(&[2]profile.Time{start, end}, eachOf(events))
}

func TestSummaryRangeReuse(t *testing.T) {
	t.Parallel()
	s := Build([]Event{ev("RunTask", 0, 10), ev("Layout", 2, 4)})
	for _, w := range [][2]float64{{0, 10}, {3, 5}, {0, 10}} {
		got := s.Range(ms(w[0]), ms(w[1]))
		want := StatsForTimeRange([]Event{ev("RunTask", 0, 10), ev("Layout", 2, 4)}, ms(w[0]), ms(w[1]))
		if !maps.Equal(got, want) {
			t.Errorf("window %v: got %s, want %s", w, got.format(), want.format())
		}
	}
}

func TestStatsSorted(t *testing.T) {
	t.Parallel()
	s := Stats{Idle: ms(9), Scripting: ms(2), Rendering: ms(2), Other: ms(5), Painting: 0, "custom": ms(2)}
	want := []CategoryTime{{Other, ms(5)}, {Scripting, ms(2)}, {Rendering, ms(2)}, {"custom", ms(2)}}
	if got := s.Sorted(); !slices.Equal(got, want) {
		t.Errorf("Sorted: got %v, want %v", got, want)
	}
	if got, want := s.Total(), ms(20); got != want {
		t.Errorf("Total: got %v, want %v", got, want)
	}
}

func TestCategory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, event, cat string
		call             bool
		want             string
	}{
		{"ProfileCall", "(idle)", "", true, Scripting},
		{"ProfileCall named like an event", "Layout", "", true, Scripting},
		{"RunTask is System", "RunTask", "disabled-by-default-devtools.timeline", false, Other},
		{"unknown", "CommitLoad", "", false, Other},
		{"user timing category is ignored", "myMark", "blink.user_timing", false, Other},
		{"console category is ignored", "console.time", "blink.console", false, Other},
		{"GC", "MinorGC", "", false, Scripting},
		{"hidden style", "BeginFrame", "", false, Rendering},
		{"idle", "v8.parseOnBackgroundWaiting", "", false, Idle},
		{"gpu", "GPUTask", "", false, GPU},
		{"messaging", "HandlePostMessage", "", false, Messaging},
		{"experience", "LayoutShift", "", false, Experience},
		{"async", "AsyncTask", "", false, Async},
		{"loading", "ParseHTML", "", false, Loading},
		{"painting", "Decode Image", "", false, Painting},
		{"UpdateLayoutTree", "UpdateLayoutTree", "", false, Rendering},
	}
	for _, tt := range tests {
		if got := Category(tt.event, tt.cat, tt.call); got != tt.want {
			t.Errorf("%s: Category(%q, %q, %t): got %q, want %q", tt.name, tt.event, tt.cat, tt.call, got, tt.want)
		}
	}
	if got, want := len(eventCategory), 111; got != want {
		t.Errorf("got %d event styles, want %d (the pinned engine's)", got, want)
	}
}
