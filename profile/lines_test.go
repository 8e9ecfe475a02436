package profile

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// lineDeltas returns n deltas of a sampling every interval µs with the
// given jitter, and now and then a pause, a sample out of order or a run of
// equal times.
func lineDeltas(rng *rand.Rand, n int, interval, jitter int, odd int) []int32 {
	d := make([]int32, n)
	for i := range d {
		v := interval + rng.IntN(2*jitter+1) - jitter
		if odd > 0 && rng.IntN(odd) == 0 {
			switch rng.IntN(4) {
			case 0:
				v = 5000 + rng.IntN(20000) // a pause
			case 1:
				v = -rng.IntN(3 * interval) // out of order
			case 2:
				v = 0
			default:
				v = 1 << (15 + rng.IntN(16)) // up to 35 minutes
			}
		}
		d[i] = int32(v)
	}
	return d
}

// wantFromDeltas is the times start + the sums of deltas, in ns.
func wantFromDeltas(start Time, d []int32) []Time {
	w := make([]Time, len(d))
	now := start
	for i, x := range d {
		now += Time(x) * 1000
		w[i] = now
	}
	return w
}

// buildLined adds d to a LineBuilder in chunks of random sizes.
func buildLined(rng *rand.Rand, d []int32, start Time) (Times, bool) {
	b := NewLineBuilder(len(d))
	for len(d) > 0 {
		k := min(len(d), 1+rng.IntN(3000))
		if !b.Add(d[:k]) {
			return Times{}, false
		}
		d = d[k:]
	}
	return b.Times(start, maxTestTime)
}

const maxTestTime = 1 << 62

// TestLineTimes builds lined columns from random samplings (every 20 µs to
// 2 ms, with jitter, pauses, samples out of order, equal times, partial
// last groups) and checks every time, slices, decreases, medians and
// searches against the times themselves.
func TestLineTimes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	lined := 0
	for c := range 300 {
		n := 1 + rng.IntN(20000)
		interval := []int{20, 50, 100, 250, 1000, 2000}[c%6]
		jitter := rng.IntN(interval/4 + 1)
		odd := []int{0, 50, 500, 5000}[c%4]
		d := lineDeltas(rng, n, interval, jitter, odd)
		start := Time(rng.Int64N(1<<40)) * 1000
		want := wantFromDeltas(start, d)
		col, ok := buildLined(rng, d, start)
		if !ok {
			continue
		}
		lined++
		if !col.Lined() || !col.Compact() || col.Narrow() {
			t.Fatalf("case %d: Lined %t Compact %t Narrow %t", c, col.Lined(), col.Compact(), col.Narrow())
		}
		checkTimes(t, &col, want, "lined")
		lo := rng.IntN(n)
		hi := lo + rng.IntN(n-lo+1)
		s := col.Slice(lo, hi)
		checkTimes(t, &s, want[lo:hi], "slice")
		for range 3 {
			a := rng.IntN(n)
			b := a + rng.IntN(n-a+1)
			checkDecreases(t, &col, want, a, b, fmt.Sprintf("case %d", c))
		}
		wideCol := WideTimes(slices.Clone(want))
		if g, w := MedianInterval(col), MedianInterval(wideCol); g != w {
			t.Fatalf("case %d: MedianInterval %d, want %d", c, g, w)
		}
		if g, w := MedianInterval(s), MedianInterval(wideCol.Slice(lo, hi)); g != w {
			t.Fatalf("case %d: MedianInterval of [%d, %d) %d, want %d", c, lo, hi, g, w)
		}
		if odd == 0 {
			sorted := slices.Clone(want)
			slices.Sort(sorted)
			if slices.Equal(sorted, want) {
				v := want[rng.IntN(n)] + Time(rng.IntN(3)-1)
				if g, w := col.Search(v), sort0(want, v); g != w {
					t.Fatalf("case %d: Search(%d) = %d, want %d", c, v, g, w)
				}
			}
		}
	}
	if lined < 100 || lined == 300 {
		t.Errorf("%d of 300 columns lined: the test should make both", lined)
	}
}

// sort0 is the index of the first of want at or after v.
func sort0(want []Time, v Time) int {
	i, _ := slices.BinarySearch(want, v)
	return i
}

// TestLineTimesSet sets times of a lined column: in its group's line
// (kept in a byte), off it (the group becomes an exception, which other
// slices of the column see too), and out of reach (the column turns to
// the 4-byte form).
func TestLineTimesSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for c := range 100 {
		n := 100 + rng.IntN(5000)
		d := lineDeltas(rng, n, 100, 10, 0)
		want := wantFromDeltas(0, d)
		col, ok := buildLined(rng, d, 0)
		if !ok {
			t.Fatalf("case %d: a regular sampling is not lined", c)
		}
		whole := col
		lo := rng.IntN(n / 2)
		s := col.Slice(lo, n)
		for range 20 {
			i := rng.IntN(n - lo)
			var v Time
			switch rng.IntN(3) {
			case 0:
				v = want[lo+i] + Time(rng.IntN(3)-1)*1000 // in the line, mostly
			case 1:
				v = want[lo+i] + Time(rng.IntN(100_000)-50_000)*1000 // off it
			default:
				v = want[lo+i] - Time(rng.IntN(100))*1000
			}
			want[lo+i] = v
			s.Set(i, v)
			checkTimes(t, &s, want[lo:], "set slice")
			if s.Lined() {
				checkTimes(t, &whole, want, "whole, after a slice's Set")
			}
		}
		if !s.Lined() {
			t.Fatalf("case %d: times within ±50 ms turned the column from the line form", c)
		}
		// Out of reach of a block's base: not a whole µs.
		i := rng.IntN(n - lo)
		want[lo+i] += 1
		s.Set(i, want[lo+i])
		if s.Lined() {
			t.Fatalf("case %d: a time off the µs grid kept in the line form", c)
		}
		checkTimes(t, &s, want[lo:], "set off the grid")
		s.Append(want[n-1] + 5000)
		checkTimes(t, &s, append(want[lo:], want[n-1]+5000), "append")
	}
}

// TestLineBuilderGivesUp checks that a column with too many exceptions, or
// beyond the limit, is refused, and a coarse sampling with big jitter is
// not lined.
func TestLineBuilderGivesUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	d := lineDeltas(rng, 100_000, 1000, 400, 0)
	if _, ok := buildLined(rng, d, 0); ok {
		t.Errorf("a 1 ms sampling with ±400 µs jitter was lined")
	}
	d = lineDeltas(rng, 100_000, 100, 5, 0)
	if _, ok := buildLined(rng, d, 0); !ok {
		t.Errorf("a 100 µs sampling with ±5 µs jitter was not lined")
	}
	b := NewLineBuilder(len(d))
	b.Add(d)
	if _, ok := b.Times(maxTestTime-5_000_000, maxTestTime); ok {
		t.Errorf("times beyond the limit were taken")
	}
	// Pauses in every other group.
	for i := range d {
		if i%64 == 5 { // within a group
			d[i] = 30000
		}
	}
	if _, ok := buildLined(rng, d, 0); ok {
		t.Errorf("a column with half its groups exceptions was lined")
	}
}

// TestLineTimesSize checks what a lined column of a fine sampling costs:
// about a byte and an eighth a time.
func TestLineTimesSize(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 1 << 20
	col, ok := buildLined(rng, lineDeltas(rng, n, 50, 6, 10000), 0)
	if !ok {
		t.Fatal("not lined")
	}
	size := cap(col.b8) + 4*cap(col.heads) + 4*cap(*col.exc) + 8*cap(col.bases)
	if per := float64(size) / n; per > 1.2 {
		t.Errorf("%.2f bytes a time, want at most 1.2", per)
	}
}

// TestTimeCursor reads columns of every form (ns, 4 bytes, 2 bytes, lined)
// and slices of them with a cursor, from random indices, against At.
func TestTimeCursor(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	forms := map[string]int{}
	for c := range 200 {
		n := 1 + rng.IntN(5000)
		d := lineDeltas(rng, n, []int{50, 100, 1000}[c%3], 5, []int{0, 300}[c%2])
		want := wantFromDeltas(Time(rng.Int64N(1<<40))*1000, d)
		var cols []Times
		if col, ok := buildLined(rng, d, want[0]-Time(d[0])*1000); ok {
			cols = append(cols, col)
		}
		cols = append(cols, MakeTimes(want...), WideTimes(slices.Clone(want)))
		if d16 := to16(d); d16 != nil {
			if col, ok := TimesFromDeltas16(want[0]-Time(d[0])*1000, d16, maxTestTime); ok {
				cols = append(cols, col)
			}
		}
		for _, col := range cols {
			switch {
			case col.Lined():
				forms["lined"]++
			case col.Narrow():
				forms["2 bytes"]++
			case col.Compact():
				forms["4 bytes"]++
			default:
				forms["ns"]++
			}
			lo := rng.IntN(n)
			s := col.Slice(lo, n)
			for _, x := range []*Times{&col, &s} {
				// In order from a random index, then back and forth.
				from := rng.IntN(x.Len())
				cur := x.Cursor()
				for i := from; i < x.Len(); i++ {
					if g, w := cur.At(i), x.At(i); g != w {
						t.Fatalf("case %d: cursor's At(%d) = %d, At %d", c, i, g, w)
					}
				}
				for range 100 {
					i := rng.IntN(x.Len())
					if g, w := cur.At(i), x.At(i); g != w {
						t.Fatalf("case %d: cursor's At(%d) = %d, At %d", c, i, g, w)
					}
				}
			}
		}
	}
	for _, f := range []string{"lined", "2 bytes", "4 bytes", "ns"} {
		if forms[f] == 0 {
			t.Errorf("no column of %s a time: %v", f, forms)
		}
	}
}

// to16 returns d in 2 bytes each, or nil when one does not fit.
func to16(d []int32) []int16 {
	out := make([]int16, len(d))
	for i, x := range d {
		if x != int32(int16(x)) {
			return nil
		}
		out[i] = int16(x)
	}
	return out
}

// BenchmarkTimeCursor reads a million times of each form in order, by
// cursor and by At.
func BenchmarkTimeCursor(b *testing.B) {
	rng := rand.New(rand.NewPCG(15, 16))
	const n = 1 << 20
	d := lineDeltas(rng, n, 50, 6, 0)
	want := wantFromDeltas(0, d)
	lined, _ := buildLined(rng, d, 0)
	narrow, _ := TimesFromDeltas16(0, to16(d), maxTestTime)
	for _, c := range []struct {
		name string
		t    Times
	}{{"lined", lined}, {"2 bytes", narrow}, {"4 bytes", MakeTimes(want...)}} {
		b.Run(c.name+"/cursor", func(b *testing.B) {
			var sum Time
			for b.Loop() {
				cur := c.t.Cursor()
				for i := range n {
					sum += cur.At(i)
				}
			}
			_ = sum
		})
		b.Run(c.name+"/At", func(b *testing.B) {
			var sum Time
			for b.Loop() {
				for i := range n {
					sum += c.t.At(i)
				}
			}
			_ = sum
		})
	}
}

// TestSearchFrom compares SearchFrom with Search over [from, Len()) on
// columns of every form and slices of them, for times present (with
// repeats), between two and past either end, from every kind of start.
func TestSearchFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for c := range 100 {
		n := 1 + rng.IntN(3000)
		d := lineDeltas(rng, n, []int{50, 1000}[c%2], 5, []int{0, 300}[c%2])
		for i := range d {
			if d[i] < 0 || c%3 == 0 && rng.IntN(4) == 0 {
				d[i] = 0 // sorted, some repeated
			}
		}
		want := wantFromDeltas(Time(rng.Int64N(1<<40))*1000, d)
		cols := []Times{MakeTimes(want...), WideTimes(slices.Clone(want))}
		if col, ok := buildLined(rng, d, want[0]-Time(d[0])*1000); ok {
			cols = append(cols, col)
		}
		for _, col := range cols {
			lo := rng.IntN(n)
			s := col.Slice(lo, n)
			for _, x := range []Times{col, s} {
				for range 200 {
					from := rng.IntN(x.Len() + 1)
					var v Time
					switch rng.IntN(4) {
					case 0:
						v = x.At(rng.IntN(x.Len()))
					case 1:
						v = x.At(rng.IntN(x.Len())) + 1
					case 2:
						v = x.At(0) - 1
					default:
						v = x.At(x.Len()-1) + 1
					}
					w := from + x.Slice(from, x.Len()).Search(v)
					if g := x.SearchFrom(v, from); g != w {
						t.Fatalf("case %d: SearchFrom(%d, %d) = %d, want %d", c, v, from, g, w)
					}
				}
			}
		}
	}
}
