package profile_test

import (
	"math"
	"testing"
	"time"

	"github.com/jsprof/jsprof/profile"
)

func TestTimeFromMicros(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		us   float64
		want profile.Time
	}{
		{"zero", 0, 0},
		{"negative zero", math.Copysign(0, -1), 0},
		{"one", 1, 1000},
		{"half", 1.5, 1500},
		{"one ns", 0.001, 1},
		{"below half a ns", 0.0004, 0},
		{"above half a ns", 0.0006, 1},
		{"rounds up across µs", 2.9996, 3000},
		{"sub-ns fraction", 123.4564, 123456},
		{"negative", -1, -1000},
		{"negative half", -1.5, -1500},
		{"negative below half a ns", -0.0004, 0},
		{"negative above half a ns", -0.0006, -1},
		{"negative rounds to nearest", -1.0006, -1001},
		{"negative with fraction", -123.4564, -123456},
		// V8 TimeTicks (µs since boot) and XS epoch µs: their ns exceed
		// 2^53, where float64 has no room for every ns. The integer part
		// is converted exactly; the float's own fraction (steps of 1/4 µs
		// or 1/8 µs here) gives the rest.
		{"epoch µs", 1795297897967764, 1795297897967764000},
		{"epoch µs and a quarter", 1795297897967764.25, 1795297897967764250},
		{"epoch µs negative", -1795297897967764.75, -1795297897967764750},
		{"2^52 µs", 1 << 52, 4503599627370496000},
		{"2^51 µs and a half", 1<<51 + 0.5, 2251799813685248500},
		{"2^53 µs", 1 << 53, 9007199254740992000},
		{"largest exact", 9223372036854774, 9223372036854774000},
		{"most negative exact", -9223372036854774, -9223372036854774000},
		// Beyond int64 ns: saturated.
		{"just too big", 9223372036854776, math.MaxInt64},
		{"too big", 1e16, math.MaxInt64},
		{"huge", 1e300, math.MaxInt64},
		{"infinite", math.Inf(1), math.MaxInt64},
		{"just too small", -9223372036854776, -math.MaxInt64},
		{"too small", -1e16, -math.MaxInt64},
		{"huge negative", -1e300, -math.MaxInt64},
		{"negative infinite", math.Inf(-1), -math.MaxInt64},
	}
	for _, tt := range tests {
		if got := profile.TimeFromMicros(tt.us); got != tt.want {
			t.Errorf("%s: TimeFromMicros(%v) = %d, want %d", tt.name, tt.us, got, tt.want)
		}
	}
}

// Scaling the float first would lose up to 128 ns at epoch-µs values: the
// test above would not catch a regression to the naive formula otherwise.
func TestTimeFromMicrosBeatsScaling(t *testing.T) {
	t.Parallel()
	us := 1795297897967764.25 // a variable: constant arithmetic would be exact
	naive := profile.Time(us * 1000)
	if want := profile.Time(1795297897967764250); naive == want || profile.TimeFromMicros(us) != want {
		t.Errorf("got naive %d, TimeFromMicros %d; want the naive one off and TimeFromMicros exact (%d)", naive, profile.TimeFromMicros(us), want)
	}
}

// NaN has no sign to saturate to, but it must land outside every time a
// reader accepts (readers bound times by ±2^61 ns or less), the same on
// every platform.
func TestTimeFromMicrosNaN(t *testing.T) {
	t.Parallel()
	for _, nan := range []float64{math.NaN(), -math.NaN(), math.Inf(1) - math.Inf(1)} {
		if got := profile.TimeFromMicros(nan); got != math.MaxInt64 && got != -math.MaxInt64 {
			t.Errorf("TimeFromMicros(%v with sign bit %t) = %d, want ±%d", nan, math.Signbit(nan), got, int64(math.MaxInt64))
		}
	}
}

// Every whole ns in a range of µs values survives Micros → TimeFromMicros.
func TestTimeMicrosRoundTrip(t *testing.T) {
	t.Parallel()
	for _, base := range []profile.Time{0, -5_000_000, 123_456_789_000, 1 << 50} {
		for d := range profile.Time(2001) {
			tm := base + d
			if got := profile.TimeFromMicros(tm.Micros()); got != tm {
				t.Fatalf("TimeFromMicros(%d.Micros() = %v) = %d, want %d", tm, tm.Micros(), got, tm)
			}
		}
	}
}

func TestTimeUnits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t              profile.Time
		micros, millis float64
	}{
		{0, 0, 0},
		{1, 0.001, 0.000001},
		{1500, 1.5, 0.0015},
		{-2_500_000, -2500, -2.5},
		{1_000_000_000, 1e6, 1000},
		{1795297897967764000, 1795297897967764, 1795297897967.764},
	}
	for _, tt := range tests {
		if got := tt.t.Micros(); got != tt.micros {
			t.Errorf("Time(%d).Micros() = %v, want %v", tt.t, got, tt.micros)
		}
		if got := tt.t.Millis(); got != tt.millis {
			t.Errorf("Time(%d).Millis() = %v, want %v", tt.t, got, tt.millis)
		}
	}
	subs := []struct {
		t, u profile.Time
		want time.Duration
	}{
		{5, 3, 2 * time.Nanosecond},
		{3, 5, -2 * time.Nanosecond},
		{1_500_000_000, 500_000_000, time.Second},
		{1795297897967764250, 1795297897967764000, 250},
		{-1000, -3000, 2 * time.Microsecond},
	}
	for _, tt := range subs {
		if got := tt.t.Sub(tt.u); got != tt.want {
			t.Errorf("Time(%d).Sub(%d) = %v, want %v", tt.t, tt.u, got, tt.want)
		}
	}
	if got := (&profile.Event{Start: 100, Dur: 50}).End(); got != 150 {
		t.Errorf("Event{Start: 100, Dur: 50}.End() = %d, want 150", got)
	}
	if got := (profile.Range{Start: 3, End: 7}).Len(); got != 4 {
		t.Errorf("Range{3, 7}.Len() = %d, want 4", got)
	}
}
