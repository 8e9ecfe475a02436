package profile

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkTimes compares a column with the times it should hold.
func checkTimes(t *testing.T, got *Times, want []Time, what string) {
	t.Helper()
	if got.Len() != len(want) {
		t.Fatalf("%s: Len %d, want %d", what, got.Len(), len(want))
	}
	for i, w := range want {
		if g := got.At(i); g != w {
			t.Fatalf("%s: At(%d) = %d, want %d", what, i, g, w)
		}
	}
	if w := got.Wide(); !slices.Equal(w, want) && len(want) > 0 {
		t.Fatalf("%s: Wide() = %v, want %v", what, w, want)
	}
}

// checkDecreases compares col.Decreases(lo, hi) with the decreases of the
// times col should hold.
func checkDecreases(t *testing.T, col *Times, want []Time, lo, hi int, what string) {
	t.Helper()
	wn, wfirst := 0, -1
	for i := lo + 1; i < hi; i++ {
		if want[i] < want[i-1] {
			if wn++; wfirst < 0 {
				wfirst = i
			}
		}
	}
	if n, first := col.Decreases(lo, hi); n != wn || first != wfirst {
		t.Fatalf("%s: Decreases(%d, %d) = %d, %d; want %d, %d", what, lo, hi, n, first, wn, wfirst)
	}
}

// TestTimes builds columns by Append, Set and MakeTimes from random times
// (whole microseconds near each other, some not, some far, some near the
// ends of int64) and compares each with a []Time.
func TestTimes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(prev Time) Time {
		switch rng.IntN(20) {
		case 0:
			return prev + Time(rng.Int64N(2000)) // not whole µs
		case 1:
			return prev + Time(rng.Int64N(1<<40))*1000 // beyond ±35 min
		case 2:
			return Time(math.MaxInt64 - rng.Int64N(5000))
		case 3:
			return Time(math.MinInt64 + rng.Int64N(5000))
		default:
			return prev + Time(rng.Int64N(2_000_001)-1000)*1000
		}
	}
	compact := 0
	for n := range 400 {
		var want []Time
		var col Times
		prev := Time(rng.Int64N(1<<50)) * 1000
		for range n % 37 {
			v := prev + Time(rng.Int64N(500))*1000
			if n%4 == 0 {
				v = pick(prev)
			}
			want = append(want, v)
			col.Append(v)
			prev = v
		}
		checkTimes(t, &col, want, "Append")
		if col.Compact() {
			compact++
		}
		if len(want) > 0 {
			i := rng.IntN(len(want))
			v := pick(want[i])
			want[i] = v
			col.Set(i, v)
			checkTimes(t, &col, want, "Set")
			lo := rng.IntN(len(want))
			hi := lo + rng.IntN(len(want)-lo+1)
			s := col.Slice(lo, hi)
			checkTimes(t, &s, want[lo:hi], "Slice")
		}
		m := MakeTimes(want...)
		checkTimes(t, &m, want, "MakeTimes")
		if len(want) > 0 {
			lo := rng.IntN(len(want))
			hi := lo + rng.IntN(len(want)-lo+1)
			for _, c := range []*Times{&col, &m} {
				checkDecreases(t, c, want, lo, hi, fmt.Sprintf("compact %t", c.Compact()))
			}
		}
		col.Grow(rng.IntN(10))
		checkTimes(t, &col, want, "Grow")
	}
	if compact < 100 || compact > 390 {
		t.Errorf("%d of 400 columns compact: the test should make both kinds", compact)
	}
}

func TestTimesCompact(t *testing.T) {
	base := Time(1_700_000_000_000_000_000)
	col := MakeTimes(base, base+1000, base+2_000_000_000_000, base-2_000_000_000_000)
	if !col.Compact() {
		t.Errorf("times within ±35 min in whole µs: not compact")
	}
	col.Append(base + 2_200_000_000_000) // 36.7 min after the base
	if col.Compact() {
		t.Errorf("a time 36.7 min after the base: still compact")
	}
	col = MakeTimes(base, base+1500)
	if col.Compact() {
		t.Errorf("a time 1.5 µs after the base: compact")
	}
	var empty Times
	if empty.Len() != 0 || !empty.Compact() || empty.Search(0) != 0 {
		t.Errorf("zero Times: Len %d, Compact %t, Search %d", empty.Len(), empty.Compact(), empty.Search(0))
	}
}

func TestTimesSearch(t *testing.T) {
	for _, ts := range [][]Time{
		{}, {5000}, {1000, 2000, 2000, 3000}, {1000, 1500, 2500, 1 << 50},
	} {
		col := MakeTimes(ts...)
		for _, v := range []Time{0, 1000, 1500, 1999, 2000, 2001, 3000, 5000, 1 << 50, 1<<50 + 1} {
			want, _ := slices.BinarySearch(ts, v)
			if got := col.Search(v); got != want {
				t.Errorf("%v: Search(%d) = %d, want %d", ts, v, got, want)
			}
		}
	}
}

// TestTimesBlocks checks columns of several blocks: times 0.1–2 ms apart
// with some going back, over 75 minutes, so that only blocks keep them
// compact; and slices that start inside a block.
func TestTimesBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{blockLen - 1, blockLen, blockLen + 1, 3*blockLen + 17, 9000} {
		want := make([]Time, n)
		now := Time(1_700_000_000_000_000_000)
		for i := range want {
			now += Time(100+rng.IntN(1900)) * 1000
			if rng.IntN(50) == 0 {
				now -= Time(rng.IntN(5000)) * 1000
			}
			if i == blockLen {
				now -= 3000 * 1000 // back, at a block's first time
			}
			if n == 9000 && i == 2*blockLen {
				now += 40 * 60 * 1e9 // a 40-minute pause: a block of its own base
			}
			want[i] = now
		}
		columns := []Times{MakeTimes(want...)}
		if !columns[0].Compact() {
			t.Fatalf("n=%d: not compact", n)
		}
		// The same times in 2 bytes, where they fit.
		deltas := make([]int16, n)
		prev, narrow := want[0]-1000, true
		for i, w := range want {
			d := (w - prev) / 1000
			narrow = narrow && d == Time(int16(d))
			deltas[i], prev = int16(d), w
		}
		if c, ok := TimesFromDeltas16(want[0]-1000, deltas, math.MaxInt64/2); narrow && ok {
			columns = append(columns, c)
		} else if n < 9000 {
			t.Fatalf("n=%d: no narrow column", n)
		}
		for _, col := range columns {
			checkTimes(t, &col, want, "blocks")
			for range 50 {
				lo := rng.IntN(n)
				hi := lo + rng.IntN(n-lo+1)
				s := col.Slice(lo, hi)
				checkTimes(t, &s, want[lo:hi], "slice of blocks")
				checkDecreases(t, &col, want, lo, hi, fmt.Sprintf("n=%d", n))
				var got []Time
				eachRun(s, func(prev Time, wide []Time) {
					for _, t := range wide {
						got = append(got, t-prev)
						prev = t
					}
				}, func(us []int32, prev int32) {
					for _, d := range us {
						got = append(got, (Time(d)-Time(prev))*1000)
						prev = d
					}
				}, func(us []uint16, prev uint16) {
					for _, d := range us {
						got = append(got, (Time(d)-Time(prev))*1000)
						prev = d
					}
				})
				for i := 1; i < hi-lo; i++ {
					if got[i-1] != want[lo+i]-want[lo+i-1] {
						t.Fatalf("n=%d: interval %d of [%d, %d) = %d, want %d", n, i, lo, hi, got[i-1], want[lo+i]-want[lo+i-1])
					}
				}
				if len(got) != max(hi-lo-1, 0) {
					t.Fatalf("n=%d: %d intervals of [%d, %d)", n, len(got), lo, hi)
				}
			}
			// Set a time into another block's range: it still fits, or the
			// column turns to ns; either way it reads back.
			i := rng.IntN(n)
			orig := want[i]
			want[i] = want[n-1-i]
			col.Set(i, want[n-1-i])
			checkTimes(t, &col, want, "Set across blocks")
			want[i] = orig
		}
	}
}

// TestTimesFromDeltas compares the column made over the deltas with
// MakeTimes of their sums: in one block and several, with a jump beyond
// 35 minutes (to ns from there), and with a time beyond the limit.
func TestTimesFromDeltas(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	start := Time(1_700_000_000_000_000_000)
	for _, c := range []struct {
		n, jumpAt int
		limit     Time
		wantBad   int
	}{
		{10, -1, math.MaxInt64 / 2, -1},
		{3*blockLen + 5, -1, math.MaxInt64 / 2, -1},
		{3*blockLen + 5, blockLen + 3, math.MaxInt64 / 2, -1},
		{100, -1, start + 200_000_000, 31},
	} {
		deltas := make([]int32, c.n)
		var want []Time
		now := start
		bad := -1
		for i := range deltas {
			deltas[i] = int32(500 + rng.IntN(1500))
			if i == 31 && c.wantBad >= 0 {
				deltas[i] = 1_000_000
			}
			if i == c.jumpAt {
				deltas[i] = math.MaxInt32 // 35.8 minutes
			}
			now += Time(deltas[i]) * 1000
			if bad < 0 && now > c.limit {
				bad = i
			}
			want = append(want, now)
		}
		col, gotBad := TimesFromDeltas(start, deltas, c.limit)
		if gotBad != c.wantBad || bad != c.wantBad {
			t.Fatalf("n=%d: beyond the limit at %d (sums: %d), want %d", c.n, gotBad, bad, c.wantBad)
		}
		if gotBad >= 0 {
			want = want[:gotBad]
		}
		checkTimes(t, &col, want, fmt.Sprintf("TimesFromDeltas n=%d jump %d", c.n, c.jumpAt))
		if col.Compact() != (c.jumpAt < 0) {
			t.Errorf("n=%d jump %d: compact %t", c.n, c.jumpAt, col.Compact())
		}
	}
}

// TestTimesFromDeltas16 makes narrow columns from deltas of several
// samplings: the times are the deltas' sums, in the largest blocks that fit
// 65,535 µs, and a sampling too coarse for blocks of 64 or a time beyond the
// limit gives none, with the deltas untouched.
func TestTimesFromDeltas16(t *testing.T) {
	start := Time(1_700_000_000_000_000_000)
	cases := []struct {
		name  string
		delta func(i int) int16
		n     int
		bits  int // 0: no narrow column
		limit Time
	}{
		{"every 10 µs", func(i int) int16 { return 10 + int16(i%3) }, 20_000, 12, math.MaxInt64 / 2},
		{"every 50 µs, some out of order", func(i int) int16 {
			if i%1000 == 999 {
				return -20
			}
			return 44 + int16(i%13)
		}, 20_000, 10, math.MaxInt64 / 2},
		{"every 1 ms", func(i int) int16 { return 1000 }, 5000, 6, math.MaxInt64 / 2},
		{"every 1.3 ms", func(i int) int16 { return 1300 }, 5000, 5, math.MaxInt64 / 2},
		{"every 4 ms", func(i int) int16 { return 4000 }, 5000, 4, math.MaxInt64 / 2},
		{"every 1 ms, a 30 ms gap", func(i int) int16 {
			if i == 3000 {
				return 30_000
			}
			return 1000
		}, 5000, 5, math.MaxInt64 / 2},
		{"every 3 ms, a 30 ms gap", func(i int) int16 {
			if i == 3000 {
				return 30_000
			}
			return 3000
		}, 5000, 0, math.MaxInt64 / 2},
		{"every 5 ms", func(i int) int16 { return 5000 }, 5000, 0, math.MaxInt64 / 2},
		{"one delta", func(i int) int16 { return -5 }, 1, 12, math.MaxInt64 / 2},
		{"beyond the limit", func(i int) int16 { return 10 }, 100, 0, start + 500_000},
	}
	for _, c := range cases {
		deltas := make([]int16, c.n)
		var want []Time
		now := start
		for i := range deltas {
			deltas[i] = c.delta(i)
			now += Time(deltas[i]) * 1000
			want = append(want, now)
		}
		orig := slices.Clone(deltas)
		col, ok := TimesFromDeltas16(start, deltas, c.limit)
		if ok != (c.bits > 0) {
			t.Fatalf("%s: narrow column %v, want %v", c.name, ok, c.bits > 0)
		}
		if !ok {
			if !slices.Equal(deltas, orig) {
				t.Fatalf("%s: no column, but the deltas were changed", c.name)
			}
			continue
		}
		if int(col.bits) != c.bits || !col.Narrow() {
			t.Errorf("%s: blocks of 1<<%d (narrow %v), want 1<<%d", c.name, col.bits, col.Narrow(), c.bits)
		}
		checkTimes(t, &col, want, c.name)
		if got, w := MedianInterval(col), MedianInterval(WideTimes(want)); got != w {
			t.Errorf("%s: median interval %d, want %d", c.name, got, w)
		}
		if n, _ := col.Decreases(0, c.n); n != c.n/1000*boolInt(c.name == "every 50 µs, some out of order") {
			t.Errorf("%s: %d decreases", c.name, n)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FuzzTimes runs a sequence of operations read from the input on a column
// and on a plain []Time, and compares them after each: appends of times
// in whole µs or not, near or far, sets, sorts of samples by time, and
// slices, with Decreases and the median interval on the way.
func FuzzTimes(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("\x00\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0"))
	f.Add([]byte{2, 7, 50, 6, 3, 7, 9, 6, 200, 5, 10, 0, 99}) // lined: sorted, Set, appended
	f.Fuzz(func(t *testing.T, ops []byte) {
		var col Times
		var want []Time
		s := Samples{}
		now := Time(1_700_000_000_000_000_000)
		if len(ops) > 2 && ops[0]%2 == 0 {
			// Start narrow: a fine sampling, a few samples out of order.
			n, step := 64*int(ops[1]%50+1), int16(ops[2])
			deltas := make([]int16, n)
			for i := range deltas {
				deltas[i] = step + int16(i%7)
				if i%97 == 5 {
					deltas[i] = -int16(i % 31)
				}
			}
			c, ok := TimesFromDeltas16(now, slices.Clone(deltas), math.MaxInt64/2)
			if !ok {
				t.Fatalf("TimesFromDeltas16: no narrow column of %d deltas of about %d µs", n, step)
			}
			col = c
			if ops[0]%4 == 2 {
				// Lined instead (a fine sampling's, read so by v8).
				b := NewLineBuilder(n)
				d32 := make([]int32, n)
				for i, d := range deltas {
					d32[i] = int32(d)
				}
				b.Add(d32)
				if col, ok = b.Times(now, math.MaxInt64/2); !ok {
					t.Fatalf("LineBuilder: no lined column of %d deltas of about %d µs", n, step)
				}
			}
			for _, d := range deltas {
				now += Time(d) * 1000
				want = append(want, now)
			}
			checkTimes(t, &col, want, "narrow")
		}
		// At most 16 k times: enough for four blocks, and fast.
		for k := 0; k+1 < len(ops) && len(want) < 4*blockLen; k += 2 {
			op, arg := ops[k], Time(ops[k+1])
			switch op % 8 {
			case 0, 1, 2: // a time a few hundred µs on, or back
				now += (arg - 64) * 10_000
			case 3: // not whole µs
				now += arg*1000 + 1
			case 4: // a jump of about 17·arg seconds
				now += arg << 34
			case 5: // half a block's worth of samples
				for range blockLen/2 + int(arg) {
					now += 1000 * (arg + 1)
					col.Append(now)
					want = append(want, now)
				}
				continue
			case 6: // set a time
				if len(want) > 0 {
					i := int(arg) * 7919 % len(want)
					v := want[(i+1)%len(want)]
					col.Set(i, v)
					want[i] = v
				}
				continue
			case 7: // sort as samples
				s.Node = Nodes{}
				for i := range want {
					s.Node.Append(NodeID(i))
				}
				s.Time = col
				s.SortByTime(0)
				col = s.Time
				slices.SortStableFunc(want, func(a, b Time) int { return cmp.Compare(a, b) })
				continue
			}
			col.Append(now)
			want = append(want, now)
		}
		checkTimes(t, &col, want, "fuzz")
		if len(want) > 0 {
			lo := int(ops[0]) % len(want)
			sl := col.Slice(lo, len(want))
			checkTimes(t, &sl, want[lo:], "fuzz slice")
			wn := 0
			for i := lo + 1; i < len(want); i++ {
				if want[i] < want[i-1] {
					wn++
				}
			}
			if n, _ := col.Decreases(lo, len(want)); n != wn {
				t.Fatalf("Decreases: %d, want %d", n, wn)
			}
			if got, w := MedianInterval(sl), MedianInterval(WideTimes(want[lo:])); got != w {
				t.Fatalf("median interval %d, want %d (of the same times as ns)", got, w)
			}
		}
	})
}

// TestFirstDecrease16 compares firstDecrease16 with a loop, on every length
// up to 40 and values near the lanes' edges.
func TestFirstDecrease16(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	edge := []uint16{0, 1, 2, 0x7ffe, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff}
	for n := range 41 {
		for range 300 {
			us := make([]uint16, n)
			v := edge[rng.IntN(len(edge))]
			for i := range us {
				switch rng.IntN(4) {
				case 0:
					v = edge[rng.IntN(len(edge))]
				case 1:
					v++
				}
				us[i] = v
			}
			prev := edge[rng.IntN(len(edge))]
			want, p := n, prev
			for k, x := range us {
				if x < p {
					want = k
					break
				}
				p = x
			}
			if got := firstDecrease16(us, prev); got != want {
				t.Fatalf("firstDecrease16(%#x, %#x) = %d, want %d", us, prev, got, want)
			}
		}
	}
}
