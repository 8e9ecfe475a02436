package profile_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

// sweepEvents are a thread's events sorted as Profile.Events are (by
// start, longest first), named by letter in Cat.
var sweepEvents = []profile.Event{
	{Cat: 'A', Phase: 'X', Start: 0, Dur: 100},  // 0: outermost
	{Cat: 'B', Phase: 'X', Start: 10, Dur: 20},  // 1: nested, ends at 30
	{Cat: 'C', Phase: 'X', Start: 10, Dur: 5},   // 2: same start as B, shorter, ends at 15
	{Cat: 'D', Phase: 'I', Start: 40},           // 3: an instant encloses nothing
	{Cat: 'E', Phase: 'X', Start: 50, Dur: 0},   // 4: nor does an empty X
	{Cat: 'F', Phase: 'X', Start: 60, Dur: 40},  // 5: ends with A, at 100
	{Cat: 'G', Phase: 'X', Start: 90, Dur: 30},  // 6: overlaps A's end without nesting
	{Cat: 'H', Phase: 'X', Start: 125, Dur: 10}, // 7: after a gap
	{Cat: 'Z', Phase: 'X', Start: 126, Dur: 50}, // 8: left out by keep
}

func names(events []profile.Event, idx []int) string {
	b := make([]byte, 0, len(idx))
	for _, i := range idx {
		b = append(b, byte(events[i].Cat))
	}
	return string(b)
}

func TestEventSweep(t *testing.T) {
	t.Parallel()
	noZ := func(e *profile.Event) bool { return e.Cat != 'Z' }
	tests := []struct {
		t    profile.Time
		want string // the enclosing events, outermost first
	}{
		{-1, ""},
		{0, "A"},
		{9, "A"},
		{10, "ABC"},
		{14, "ABC"},
		{15, "AB"}, // C ends exactly at 15: [start, end) does not enclose it
		{15, "AB"}, // the same time again
		{29, "AB"},
		{30, "A"},
		{40, "A"}, // the instant at 40 is not enclosing
		{50, "A"}, // nor the empty X at 50
		{60, "AF"},
		{90, "AFG"},
		{99, "AFG"},
		{100, "G"}, // A and F end together
		{119, "G"},
		{120, ""},
		{125, "H"},
		{126, "H"}, // Z is not kept
		{134, "H"},
		{135, ""},
		{1000, ""},
	}
	sw := profile.NewEventSweep(sweepEvents, noZ)
	for _, tt := range tests {
		if got := names(sweepEvents, sw.At(tt.t)); got != tt.want {
			t.Errorf("At(%d) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

// A sweep can start late: events that ended before its first time are
// passed over; with a nil keep, every event counts.
func TestEventSweepStartLate(t *testing.T) {
	t.Parallel()
	sw := profile.NewEventSweep(sweepEvents, nil)
	for _, tt := range []struct {
		t    profile.Time
		want string
	}{{35, "A"}, {130, "HZ"}, {170, "Z"}, {176, ""}} {
		if got := names(sweepEvents, sw.At(tt.t)); got != tt.want {
			t.Errorf("At(%d) = %q, want %q", tt.t, got, tt.want)
		}
	}
	if got := profile.NewEventSweep(nil, nil).At(5); len(got) != 0 {
		t.Errorf("no events: At(5) = %v, want none", got)
	}
}

// keep sees each event once, when the sweep reaches its start, and only
// events that reach past the time asked.
func TestEventSweepKeepCalls(t *testing.T) {
	t.Parallel()
	var seen []byte
	sw := profile.NewEventSweep(sweepEvents, func(e *profile.Event) bool {
		seen = append(seen, byte(e.Cat))
		return true
	})
	for _, at := range []profile.Time{12, 12, 45, 95, 200} {
		sw.At(at)
	}
	// At 12: A B C; at 45: D (instant) is past, so not asked; at 95: F G;
	// at 200: H and Z ended before it.
	if got, want := string(seen), "ABCFG"; got != want {
		t.Errorf("keep called for %q, want %q", got, want)
	}
}

// The sweep agrees with a direct filter on random nested and overlapping
// events, at random increasing times.
func TestEventSweepRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		n := r.IntN(40)
		events := make([]profile.Event, n)
		for i := range events {
			e := &events[i]
			e.Cat = profile.StringID(i)
			e.Phase = 'X'
			e.Start = profile.Time(r.IntN(200))
			switch r.IntN(4) {
			case 0:
				e.Phase = 'I'
			case 1:
				e.Dur = profile.Time(r.IntN(5))
			default:
				e.Dur = profile.Time(r.IntN(100))
			}
		}
		slices.SortStableFunc(events, func(a, b profile.Event) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.Dur, a.Dur))
		})
		keep := func(e *profile.Event) bool { return e.Cat%3 != 0 }
		sw := profile.NewEventSweep(events, keep)
		for at := profile.Time(-5); at < 320; at += profile.Time(r.IntN(8)) {
			var want []int
			for i := range events {
				if e := &events[i]; keep(e) && e.Start <= at && at < e.End() {
					want = append(want, i)
				}
			}
			if got := sw.At(at); !slices.Equal(got, want) {
				t.Fatalf("round %d, At(%d) = %v, want %v\nevents %s", round, at, got, want, fmt.Sprint(events))
			}
		}
	}
}
