package profile

import (
	"math"
	"math/bits"
	"sync"
)

// MedianInterval returns the median of the positive intervals between
// consecutive times of each of the given time series (the upper one of an
// even count), or 0 when there is none. It selects by radix, a few passes
// of a 65,536-bucket histogram over the intervals, in linear time and
// without copying them: sorting 35 M intervals took longer than the rest of
// a summary.
func MedianInterval(series ...Times) Time {
	// From parallelMedian intervals, each pass runs over two halves at
	// once: the longest series is cut in two (at a time both halves share,
	// so no interval is lost or counted twice).
	parts := series
	total, longest := 0, -1
	for i, times := range series {
		total += times.Len()
		if longest < 0 || times.Len() > series[longest].Len() {
			longest = i
		}
	}
	var halves [2][]Times
	split := total >= parallelMedian && longest >= 0 && series[longest].Len() >= 4
	if split {
		times := series[longest]
		mid := times.Len() / 2
		halves[0] = append(append([]Times{}, series[:longest]...), times.Slice(0, mid+1))
		halves[1] = append([]Times{times.Slice(mid, times.Len())}, series[longest+1:]...)
	}
	// both runs fn on the parts, or on each half at once.
	both := func(fn func(half int, parts []Times)) {
		if !split {
			fn(0, parts)
			return
		}
		var wg sync.WaitGroup
		wg.Go(func() { fn(1, halves[1]) })
		fn(0, halves[0])
		wg.Wait()
	}
	// The intervals of compact columns whose blocks' bases are whole µs
	// apart are whole µs: selected in µs, they span a thousand times fewer
	// values, which one pass of the histogram often covers (a
	// .cpuprofile's, sampled every 100 µs to 1 ms).
	inUs := true
	for _, times := range series {
		inUs = inUs && times.onMicroGrid()
	}
	lo, hi, count := [2]Time{math.MaxInt64, math.MaxInt64}, [2]Time{}, [2]int{}
	both(func(h int, parts []Times) { lo[h], hi[h], count[h] = intervalRange(parts, inUs) })
	lo0, hi0, n := min(lo[0], lo[1]), max(hi[0], hi[1]), count[0]+count[1]
	if n == 0 {
		return 0
	}
	k := n / 2 // the k-th smallest, from 0
	// 65,536 buckets, or about as many as intervals (at least 256): the
	// histogram is 256 KB, and a trace of thousands of small threads
	// allocated one for each (4 k threads: 4 GB when it was 1 MB, its
	// collection most of summary's time). Fewer buckets make more passes,
	// over few intervals. A count is 4 bytes (a profile has fewer than
	// 2^31 samples: Range), and the second half's histogram is made only
	// for two halves: at 8 bytes and always two, summary allocated 1 MB a
	// thread, web-dev's five threads 5 MB at its peak.
	// When one pass covers the range, a bucket for each value in it: a
	// fine sampling's intervals span a few thousand µs (samples-heavy:
	// 2,550 buckets, 20 KB for the two halves' histograms instead of
	// 512 KB, resident till the end).
	width := min(16, max(8, bits.Len(uint(n))))
	size := 1 << width
	if r := hi0 - lo0; r < Time(size) {
		size = int(r) + 1
	}
	hist := [2][]uint32{make([]uint32, size), nil}
	if split {
		hist[1] = make([]uint32, size)
	}
	for {
		shift := max(0, bits.Len64(uint64(hi0-lo0))-width)
		buckets := int((hi0-lo0)>>shift) + 1
		both(func(h int, parts []Times) { histogram(hist[h][:buckets], parts, lo0, hi0, shift, inUs) })
		h := hist[0][:buckets]
		if split {
			for i, c := range hist[1][:buckets] {
				h[i] += c
			}
		}
		b := 0
		for ; k >= int(h[b]); b++ {
			k -= int(h[b])
		}
		if shift == 0 {
			if inUs {
				return (lo0 + Time(b)) * 1000
			}
			return lo0 + Time(b)
		}
		lo0 += Time(b) << shift
		hi0 = min(hi0, lo0+(Time(1)<<shift)-1)
	}
}

// intervalRange returns the least and the greatest positive interval of
// parts, and their number (math.MaxInt64, 0, 0 without any), in µs with
// inUs (every part on a grid of whole µs: onMicroGrid), else in ns.
func intervalRange(parts []Times, inUs bool) (lo, hi Time, n int) {
	lo = math.MaxInt64
	add := func(dt Time) {
		if dt > 0 {
			lo, hi, n = min(lo, dt), max(hi, dt), n+1
		}
	}
	for _, times := range parts {
		eachRun(times, func(prev Time, wide []Time) {
			for _, t := range wide {
				add(interval(t, prev, inUs))
				prev = t
			}
		}, func(us []int32, prev int32) { rangeStored(us, prev, inUs, &lo, &hi, &n) },
			func(us []uint16, prev uint16) { rangeStored(us, prev, inUs, &lo, &hi, &n) })
	}
	return lo, hi, n
}

// rangeStored is intervalRange's loop over a run of stored µs.
func rangeStored[T int32 | uint16](us []T, prev T, inUs bool, lo, hi *Time, n *int) {
	l, h, c := *lo, *hi, *n
	for _, d := range us {
		if dt := usInterval(d, prev, inUs); dt > 0 {
			l, h, c = min(l, dt), max(h, dt), c+1
		}
		prev = d
	}
	*lo, *hi, *n = l, h, c
}

// histogram counts the positive intervals of parts (µs with inUs, else
// ns) in [lo, hi] into h, by (dt-lo)>>shift; h has a bucket for each
// value of that.
func histogram(h []uint32, parts []Times, lo, hi Time, shift int, inUs bool) {
	clear(h)
	for _, times := range parts {
		eachRun(times, func(prev Time, wide []Time) {
			for _, t := range wide {
				if dt := interval(t, prev, inUs); dt >= lo && dt <= hi {
					h[(dt-lo)>>shift]++
				}
				prev = t
			}
		}, func(us []int32, prev int32) { histogramStored(h, us, prev, lo, hi, shift, inUs) },
			func(us []uint16, prev uint16) { histogramStored(h, us, prev, lo, hi, shift, inUs) })
	}
}

// histogramStored is histogram's loop over a run of stored µs.
func histogramStored[T int32 | uint16](h []uint32, us []T, prev T, lo, hi Time, shift int, inUs bool) {
	for _, d := range us {
		if dt := usInterval(d, prev, inUs); dt >= lo && dt <= hi {
			h[(dt-lo)>>shift]++
		}
		prev = d
	}
}

// onMicroGrid reports whether every interval of the column is a whole
// number of µs: it is compact (each time whole µs from its block's base)
// and its blocks' bases are whole µs apart (checked on the whole
// column's, which a slice shares).
func (t *Times) onMicroGrid() bool {
	if t.wide != nil {
		return false
	}
	residue := func(b Time) Time { return (b%1000 + 1000) % 1000 } // b−b0 may wrap
	for _, b := range t.bases {
		if residue(b) != residue(t.bases[0]) {
			return false
		}
	}
	return true
}

// interval is t−prev, in µs with inUs (both are on one grid of µs then).
func interval(t, prev Time, inUs bool) Time {
	if inUs {
		return (t - prev) / 1000
	}
	return t - prev
}

// usInterval is the interval between two stored µs of a block, in µs with
// inUs, else in ns (widened before subtracting: two µs of a block can be
// 70 minutes apart).
func usInterval[T int32 | uint16](d, prev T, inUs bool) Time {
	if inUs {
		return Time(d) - Time(prev)
	}
	return (Time(d) - Time(prev)) * 1000
}

// eachRun calls wide, run32 or run16 with the times after the first, a run
// at a time, each with the time before it (prev): as ns (wide), or as µs
// from one base (us, and the µs from that base of the time before), so
// that an interval is a difference of two stored values. A compact
// column's block changes base: its first time comes alone, as a wide run
// of one.
func eachRun(times Times, wide func(prev Time, ts []Time), run32 func(us []int32, prev int32), run16 func(us []uint16, prev uint16)) {
	if times.Len() < 2 {
		return
	}
	if w := times.wide; w != nil {
		wide(w[0], w[1:])
		return
	}
	if times.us16 != nil {
		eachStoredRun(&times, times.us16, times.bits, run16, wide)
		return
	}
	if times.b8 != nil {
		times.lineRuns(run32, wide)
		return
	}
	eachStoredRun(&times, times.us, blockBits, run32, wide)
}

// eachStoredRun is eachRun over a compact column's stored µs us, by blocks
// of 1<<bits.
func eachStoredRun[T int32 | uint16](times *Times, us []T, bits uint8, run func(us []T, prev T), wide func(prev Time, ts []Time)) {
	n, first := 1<<bits, times.off // us[0] is index first of the whole column
	for i := 1; i < len(us); {
		if (first+i)&(n-1) == 0 {
			wide(times.At(i-1), []Time{times.At(i)})
			i++
			continue
		}
		end := min(len(us), i+n-(first+i)&(n-1))
		run(us[i:end], us[i-1])
		i = end
	}
}

// parallelMedian is the number of times from which MedianInterval passes
// over two halves at once (a variable for tests).
var parallelMedian = 1 << 20
