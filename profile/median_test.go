package profile

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestMedianInterval checks the radix selection against a sort, on
// intervals of every scale: constant, µs multiples with pauses, random ns
// over 40 bits, with zero and negative intervals left out.
func TestMedianInterval(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name string
		dt   func() Time
	}{
		{"constant", func() Time { return 1000 }},
		{"µs with pauses", func() Time {
			if r.IntN(100) == 0 {
				return Time(r.IntN(1e9)) * 1000
			}
			return Time(100+r.IntN(50)) * 1000
		}},
		{"random 40 bits", func() Time { return Time(r.Int64N(1 << 40)) }},
		{"with zero and negative", func() Time { return Time(r.IntN(7) - 2) }},
		{"two values", func() Time { return Time(1 + r.IntN(2)*(1<<50)) }},
	} {
		for _, n := range []int{0, 1, 2, 3, 10, 1001, 100_000} {
			times := make([]Time, n)
			var d []Time
			for i := 1; i < n; i++ {
				dt := tc.dt()
				times[i] = times[i-1] + dt
				if dt > 0 {
					d = append(d, dt)
				}
			}
			want := Time(0)
			if len(d) > 0 {
				slices.Sort(d)
				want = d[len(d)/2]
			}
			// The column as nanoseconds, and compact when the times allow.
			for _, col := range []Times{WideTimes(times), MakeTimes(times...)} {
				for _, split := range []int{1 << 62, 0} { // in one pass, and in halves
					parallelMedian = split
					if got := MedianInterval(col); got != want {
						t.Errorf("%s, %d times (compact %t, split from %d): median %d, want %d", tc.name, n, col.Compact(), split, got, want)
					}
					// The same intervals as two series, cut anywhere.
					if n > 2 {
						cut := 1 + r.IntN(n-1)
						if got := MedianInterval(col.Slice(0, cut), col.Slice(cut-1, n)); got != want {
							t.Errorf("%s, %d times cut at %d (compact %t, split from %d): median %d, want %d", tc.name, n, cut, col.Compact(), split, got, want)
						}
					}
				}
			}
			parallelMedian = 1 << 20
		}
	}
}

// TestMedianIntervalSeries checks that the intervals of several series are
// pooled (not the gap between one series' end and the next one's start).
func TestMedianIntervalSeries(t *testing.T) {
	a := WideTimes([]Time{0, 10, 20, 30})    // 10, 10, 10
	b := WideTimes([]Time{1000, 1005, 1007}) // 5, 2
	if got := MedianInterval(a, b); got != 10 {
		t.Errorf("median of 10,10,10,5,2 = %d, want 10", got)
	}
	if got := MedianInterval(b); got != 5 {
		t.Errorf("median of 5,2 = %d, want 5 (the upper)", got)
	}
	// In one compact block, 60 minutes between two stored µs (−30 and +30
	// minutes from the base) is more than an int32 holds.
	min30 := Time(30 * 60 * 1e9)
	if c := MakeTimes(1e18, 1e18-min30, 1e18+min30); !c.Compact() || MedianInterval(c) != 2*min30 {
		t.Errorf("−30 min then +30 min: compact %t, median %d, want %d", c.Compact(), MedianInterval(c), 2*min30)
	}
	// A compact column (whole µs) with a wide one (fractions of a µs):
	// selected in ns, not in µs.
	c, w := MakeTimes(0, 2000, 4000, 7000), WideTimes([]Time{0, 1500, 3001})
	if !c.Compact() || w.Compact() {
		t.Fatalf("compact %t, wide %t", c.Compact(), !w.Compact())
	}
	if got := MedianInterval(c, w); got != 2000 { // 2000, 2000, 3000, 1500, 1501
		t.Errorf("median of 2000,2000,3000,1500,1501 = %d, want 2000", got)
	}
	if got := MedianInterval(w, c.Slice(2, 4)); got != 1501 { // 1500, 1501, 3000
		t.Errorf("median of 1500,1501,3000 = %d, want 1501", got)
	}
	// Compact blocks whose bases are not whole µs apart: the interval
	// between two blocks is not whole µs either (here it is the median).
	var ts []Time
	for i := range blockLen {
		ts = append(ts, Time(i)*1000)
	}
	for i := range blockLen {
		ts = append(ts, ts[blockLen-1]+1500+Time(i)*3000)
	}
	if c := MakeTimes(ts...); !c.Compact() || MedianInterval(c) != 1500 {
		t.Errorf("blocks 500 ns off: compact %t, median %d, want 1500", c.Compact(), MedianInterval(c))
	} else if got, want := MedianInterval(c.Slice(1, len(ts))), MedianInterval(WideTimes(ts[1:])); got != want {
		t.Errorf("blocks 500 ns off, from time 1: median %d, want %d", got, want)
	}
	if got := MedianInterval(); got != 0 {
		t.Errorf("no series: %d", got)
	}
}

// TestMedianIntervalSmall checks that the median of a few intervals does
// not allocate the 256 KB histogram of a long recording: summary takes one
// per thread, and a trace of 4 k small threads allocated 4 GB.
func TestMedianIntervalSmall(t *testing.T) {
	times := MakeTimes(0, 1000, 2000, 3500, 4000, 6000, 6100)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		if got := MedianInterval(times); got != 1000 {
			t.Fatalf("median of 1000,1000,1500,500,2000,100 = %d, want 1000", got)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 100; per > 16<<10 {
		t.Errorf("the median of 6 intervals allocated %d bytes", per)
	}
}

// TestMedianIntervalLongAllocs checks what the median of a thread of
// 100 k samples allocates: intervals over 100 ms (more values than one pass
// counts), one histogram of 4-byte counts (256 KB), not a second one for
// halves it does not make, nor 8-byte counts (1 MB a call, 5 MB of
// web-dev's summary at its peak); intervals over 301 µs, a histogram of
// 301 buckets, not of 65,536 (256 KB resident to the end of a summary).
func TestMedianIntervalLongAllocs(t *testing.T) {
	for _, c := range []struct {
		name     string
		interval func(i int) Time // µs
		most     uint64
	}{
		{"wide", func(i int) Time { return Time(900 + i*7919%100_000) }, 300 << 10},
		{"narrow", func(i int) Time { return Time(900 + i%7*50) }, 8 << 10},
	} {
		ts := make([]Time, 100_000)
		var ds []Time
		for i := 1; i < len(ts); i++ {
			ts[i] = ts[i-1] + c.interval(i)*1000
			ds = append(ds, ts[i]-ts[i-1])
		}
		slices.Sort(ds)
		want := ds[len(ds)/2] // the upper of an even count
		times := MakeTimes(ts...)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const runs = 20
		for range runs {
			if got := MedianInterval(times); got != want {
				t.Fatalf("%s: median %d, want %d", c.name, got, want)
			}
		}
		runtime.ReadMemStats(&after)
		if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > c.most {
			t.Errorf("%s: the median of 100 k intervals allocated %d bytes a call, want at most %d", c.name, per, c.most)
		}
	}
}
