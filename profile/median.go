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
func MedianInterval(series ...[]Time) Time {
	// From parallelMedian intervals, each pass runs over two halves at
	// once: the longest series is cut in two (at a time both halves share,
	// so no interval is lost or counted twice).
	parts := series
	total, longest := 0, -1
	for i, times := range series {
		total += len(times)
		if longest < 0 || len(times) > len(series[longest]) {
			longest = i
		}
	}
	var halves [2][][]Time
	split := total >= parallelMedian && longest >= 0 && len(series[longest]) >= 4
	if split {
		times := series[longest]
		mid := len(times) / 2
		halves[0] = append(append([][]Time{}, series[:longest]...), times[:mid+1])
		halves[1] = append([][]Time{times[mid:]}, series[longest+1:]...)
	}
	// both runs fn on the parts, or on each half at once.
	both := func(fn func(half int, parts [][]Time)) {
		if !split {
			fn(0, parts)
			return
		}
		var wg sync.WaitGroup
		wg.Go(func() { fn(1, halves[1]) })
		fn(0, halves[0])
		wg.Wait()
	}
	lo, hi, count := [2]Time{math.MaxInt64, math.MaxInt64}, [2]Time{}, [2]int{}
	both(func(h int, parts [][]Time) { lo[h], hi[h], count[h] = intervalRange(parts) })
	lo0, hi0, n := min(lo[0], lo[1]), max(hi[0], hi[1]), count[0]+count[1]
	if n == 0 {
		return 0
	}
	k := n / 2 // the k-th smallest, from 0
	hist := new([2][1 << 16]int)
	for {
		shift := max(0, bits.Len64(uint64(hi0-lo0))-16)
		both(func(h int, parts [][]Time) { histogram(&hist[h], parts, lo0, hi0, shift) })
		b := 0
		for ; k >= hist[0][b]+hist[1][b]; b++ {
			k -= hist[0][b] + hist[1][b]
		}
		if shift == 0 {
			return lo0 + Time(b)
		}
		lo0 += Time(b) << shift
		hi0 = min(hi0, lo0+(Time(1)<<shift)-1)
	}
}

// intervalRange returns the least and the greatest positive interval of
// parts, and their number (math.MaxInt64, 0, 0 without any).
func intervalRange(parts [][]Time) (lo, hi Time, n int) {
	lo = math.MaxInt64
	for _, times := range parts {
		for i := 1; i < len(times); i++ {
			if dt := times[i] - times[i-1]; dt > 0 {
				lo, hi, n = min(lo, dt), max(hi, dt), n+1
			}
		}
	}
	return lo, hi, n
}

// histogram counts the positive intervals of parts in [lo, hi] into h,
// by (dt-lo)>>shift.
func histogram(h *[1 << 16]int, parts [][]Time, lo, hi Time, shift int) {
	clear(h[:])
	for _, times := range parts {
		for i := 1; i < len(times); i++ {
			if dt := times[i] - times[i-1]; dt >= lo && dt <= hi {
				h[(dt-lo)>>shift]++
			}
		}
	}
}

// parallelMedian is the number of times from which MedianInterval passes
// over two halves at once (a variable for tests).
var parallelMedian = 1 << 20
