package profile

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"unsafe"
)

// Times is the column of sample times (Samples.Time).
//
// On a long recording the sample table is most of the memory: a 246 MB
// .cpuprofile holds 27 M samples over 83 minutes. V8 and Chrome write a
// sample's time as a whole number of microseconds after the previous one,
// so a column keeps its times in 4 bytes each when it can: by blocks of
// 4,096 samples, each time as int32 microseconds from its block's base (the
// block's first time), which reaches ±35 minutes around it. A time that is
// not a whole number of microseconds from its base (Firefox's fractional
// milliseconds, a legacy profile's evenly spread samples) or out of that
// range turns the whole column into int64 nanoseconds, once.
//
// A recording sampled finely (every 50 µs, say) is kept in 2 bytes a time
// when it can (TimesFromDeltas16): by blocks of 16 to 4,096 samples, the
// most that each span at most 65,535 µs, each time as uint16 µs from its
// block's base (here the block's earliest time, so that V8's few samples
// out of order fit too). A time that does not fit its block turns the
// column into the 4-byte form, once.
//
// A recording sampled more finely still is kept in about a byte a time
// when its times lie near a line (lines.go, LineBuilder).
//
// The zero value is an empty column. Slice shares the storage; Append and
// Set may replace it (like append), so a slice taken before either does
// not see the change.
type Times struct {
	bases []Time  // bases[k]: the base of indices [k·blockLen, (k+1)·blockLen) of the whole column (1<<bits when narrow)
	us    []int32 // us[i]: index off+i of the whole column, in µs from its block's base
	// us16 is us in 2 bytes (nil unless narrow), by blocks of 1<<bits.
	us16 []uint16
	bits uint8
	off  int
	wide []Time // the times, when not compact
	// The line form (lines.go; nil unless Lined): b8[i] is index off+i's
	// µs above its group's line, heads the whole column's groups, exc
	// their exceptions' times (shared by the slices of the column).
	b8    []uint8
	heads []uint32
	exc   *[]int32
}

const (
	blockBits = 12
	blockLen  = 1 << blockBits
)

// WideTimes returns a column of the times ts in nanoseconds, keeping ts as
// its storage.
func WideTimes(ts []Time) Times {
	if ts == nil {
		ts = []Time{}
	}
	return Times{wide: ts}
}

// MakeTimes returns a column of the times ts, compact when they allow it.
func MakeTimes(ts ...Time) Times {
	var t Times
	t.Grow(len(ts))
	for _, v := range ts {
		t.Append(v)
	}
	return t
}

// TimesOver returns an empty compact column that appends into buf's
// storage, as long as it has room: time i appended after buf[i] was read
// leaves the rest of buf to read (TimesFromDeltas).
func TimesOver(buf []int32) Times { return Times{us: buf[:0]} }

// Len returns the number of times.
func (t *Times) Len() int {
	if t.wide != nil {
		return len(t.wide)
	}
	return max(len(t.us), len(t.us16), len(t.b8))
}

// At returns time i.
func (t *Times) At(i int) Time {
	if t.wide != nil {
		return t.wide[i]
	}
	if t.us16 != nil {
		return t.bases[(t.off+i)>>t.bits] + Time(t.us16[i])*1000
	}
	if t.b8 != nil {
		return t.lineAt(i)
	}
	return t.bases[(t.off+i)>>blockBits] + Time(t.us[i])*1000
}

// Narrow tells whether the times are kept in 2 bytes each.
func (t *Times) Narrow() bool { return t.us16 != nil }

// Compact tells whether the times are kept in 4 bytes each, or 2 (Narrow),
// or about 1 (Lined), rather than as ns.
func (t *Times) Compact() bool { return t.wide == nil }

// Slice returns times [lo, hi), sharing the storage.
func (t Times) Slice(lo, hi int) Times {
	if t.wide != nil {
		return Times{wide: t.wide[lo:hi]}
	}
	if t.us16 != nil {
		return Times{bases: t.bases, us16: t.us16[lo:hi], bits: t.bits, off: t.off + lo}
	}
	if t.b8 != nil {
		return Times{bases: t.bases, b8: t.b8[lo:hi], heads: t.heads, exc: t.exc, bits: t.bits, off: t.off + lo}
	}
	return Times{bases: t.bases, us: t.us[lo:hi], off: t.off + lo}
}

// micros returns v as microseconds from base, and whether that fits.
func micros(v, base Time) (int32, bool) {
	// v−base may wrap around; base + d·1000 wraps back to v all the same.
	d := v - base
	if d%1000 != 0 {
		return 0, false
	}
	d /= 1000
	if d < math.MinInt32 || d > math.MaxInt32 {
		return 0, false
	}
	return int32(d), true
}

// Append appends v.
func (t *Times) Append(v Time) {
	if t.b8 != nil {
		t.unnarrow(1)
	}
	if t.us16 != nil {
		i := t.off + len(t.us16)
		if i&(1<<t.bits-1) == 0 && i>>t.bits == len(t.bases) {
			t.bases = append(t.bases, v)
		}
		if d, ok := micros16(v, t.bases[i>>t.bits]); ok {
			t.us16 = append(t.us16, d)
			return
		}
		t.unnarrow(1)
	}
	if t.wide == nil {
		i := t.off + len(t.us)
		if i&(blockLen-1) == 0 && i>>blockBits == len(t.bases) {
			t.bases = append(t.bases, v)
		}
		if d, ok := micros(v, t.bases[i>>blockBits]); ok {
			t.us = append(t.us, d)
			return
		}
		t.widen(1)
	}
	t.wide = append(t.wide, v)
}

// Set sets time i to v.
func (t *Times) Set(i int, v Time) {
	if t.b8 != nil {
		if t.lineSet(i, v) {
			return
		}
		t.unnarrow(0)
	}
	if t.us16 != nil {
		if d, ok := micros16(v, t.bases[(t.off+i)>>t.bits]); ok {
			t.us16[i] = d
			return
		}
		t.unnarrow(0)
	}
	if t.wide == nil {
		if d, ok := micros(v, t.bases[(t.off+i)>>blockBits]); ok {
			t.us[i] = d
			return
		}
		t.widen(0)
	}
	t.wide[i] = v
}

// Grow makes room for n more times without another allocation.
func (t *Times) Grow(n int) {
	if t.wide != nil {
		if cap(t.wide)-len(t.wide) < n {
			t.wide = append(make([]Time, 0, len(t.wide)+n), t.wide...)
		}
		return
	}
	if t.b8 != nil {
		if cap(t.b8)-len(t.b8) < n {
			t.unnarrow(n)
		}
		return
	}
	bits := uint8(blockBits)
	if t.us16 != nil {
		if cap(t.us16)-len(t.us16) < n {
			t.us16 = append(make([]uint16, 0, len(t.us16)+n), t.us16...)
		}
		bits = t.bits
	} else if cap(t.us)-len(t.us) < n {
		t.us = append(make([]int32, 0, len(t.us)+n), t.us...)
	}
	if k := (t.off+t.Len()+n)>>bits + 1; cap(t.bases) < k {
		t.bases = append(make([]Time, 0, k), t.bases...)
	}
}

// micros16 returns v as microseconds from base, and whether that fits a
// uint16 (see micros on wrapping).
func micros16(v, base Time) (uint16, bool) {
	d := v - base
	if d%1000 != 0 || d < 0 || d/1000 > math.MaxUint16 {
		return 0, false
	}
	return uint16(d / 1000), true
}

// unnarrow turns a narrow or lined column into the 4-byte form, with room
// for extra more.
func (t *Times) unnarrow(extra int) {
	var c Times
	c.Grow(t.Len() + extra)
	for i := range t.Len() {
		c.Append(t.At(i))
	}
	*t = c
}

// widen turns the column into nanoseconds, with room for extra more.
func (t *Times) widen(extra int) {
	n := t.Len()
	w := make([]Time, n, n+max(extra, t.Cap()-n))
	for i := range w {
		w[i] = t.At(i)
	}
	*t = Times{wide: w}
}

// Search returns the smallest index i in [0, Len()) at which At(i) ≥ v,
// or Len(); the times must be sorted.
func (t Times) Search(v Time) int { return t.searchIn(v, 0, t.Len()) }

// searchIn is Search within [lo, hi).
func (t Times) searchIn(v Time, lo, hi int) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.At(m) < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// SearchFrom is Search over [from, Len()): the smallest i ≥ from with
// At(i) ≥ v, or Len() if there is none. It doubles its steps from from
// before it halves them, so that a time near from costs a few loads (the
// log of the distance, not of Len). It is Search(v) when from is 0 or
// At(from−1) < v.
func (t Times) SearchFrom(v Time, from int) int {
	n := t.Len()
	lo, hi := from, n
	for step := 1; lo < n; step *= 2 {
		at := min(lo+step-1, n-1)
		if t.At(at) >= v {
			hi = at
			break
		}
		lo = at + 1
	}
	return t.searchIn(v, lo, hi)
}

// Wide returns the times as a new slice of nanoseconds.
func (t Times) Wide() []Time {
	w := make([]Time, t.Len())
	for i := range w {
		w[i] = t.At(i)
	}
	return w
}

// Cap returns the number of times the column has room for.
func (t Times) Cap() int {
	if t.wide != nil {
		return cap(t.wide)
	}
	if t.us16 != nil {
		return cap(t.us16)
	}
	if t.b8 != nil {
		return cap(t.b8)
	}
	return cap(t.us)
}

// String formats the times as a slice of them would be.
func (t Times) String() string { return fmt.Sprint(t.Wide()) }

// TimesFromDeltas returns the column of the times start + the sum of
// deltas[:i+1] µs, made over the storage of deltas (time i written over
// delta i), and −1; or, at the first time beyond ±limit ns, the column so
// far and that time's index. It is Append in a loop without the checks a
// sum of whole µs never fails (|limit| + 2^31 µs must fit an int64).
func TimesFromDeltas(start Time, deltas []int32, limit Time) (Times, int) {
	t := TimesOver(deltas)
	t.bases = make([]Time, 0, len(deltas)>>blockBits+1)
	now, base := start, start
	for i, d := range deltas {
		now += Time(d) * 1000
		if now > limit || now < -limit {
			t.us = deltas[:i]
			return t, i
		}
		if i&(blockLen-1) == 0 {
			base = now
			t.bases = append(t.bases, now)
		}
		off := (now - base) / 1000
		if off != Time(int32(off)) {
			// More than 35 minutes from its block's base: the rest the
			// slow way, which turns the column to ns.
			t.us = deltas[:i]
			for k := i; k < len(deltas); k++ {
				if k > i {
					now += Time(deltas[k]) * 1000
					if now > limit || now < -limit {
						return t, k
					}
				}
				t.Append(now)
			}
			return t, -1
		}
		deltas[i] = int32(off)
	}
	t.us = deltas
	return t, -1
}

// Decreases counts the indices i in (lo, hi) at which time i is before
// time i−1, and returns the first (−1 if none).
func (t *Times) Decreases(lo, hi int) (n, first int) {
	first = -1
	for i := t.nextDecrease(lo+1, hi); i < hi; i = t.nextDecrease(i+1, hi) {
		if n++; first < 0 {
			first = i
		}
	}
	return n, first
}

// nextDecrease returns the first index i in [from, hi) at which time i is
// before time i−1 (from ≥ 1), or hi. Within a block the stored µs compare
// as the times do, so a pass over sorted times reads no base.
func (t *Times) nextDecrease(from, hi int) int {
	if t.wide != nil {
		for i := from; i < hi; i++ {
			if t.wide[i] < t.wide[i-1] {
				return i
			}
		}
		return hi
	}
	if t.us16 != nil {
		return nextDecreaseStored(t, t.us16, t.bits, from, hi)
	}
	if t.b8 != nil {
		return t.lineDecrease(from, hi)
	}
	return nextDecreaseStored(t, t.us, blockBits, from, hi)
}

func nextDecreaseStored[T int32 | uint16](t *Times, us []T, bits uint8, from, hi int) int {
	n := 1 << bits
	for i := from; i < hi; {
		if (t.off+i)&(n-1) == 0 { // a block's first: its own base
			if t.At(i) < t.At(i-1) {
				return i
			}
			i++
			continue
		}
		end := min(hi, i+n-(t.off+i)&(n-1))
		if us16, ok := any(us).([]uint16); ok {
			if k := firstDecrease16(us16[i:end], us16[i-1]); k < end-i {
				return i + k
			}
			i = end
			continue
		}
		prev := us[i-1]
		for k, d := range us[i:end] {
			if d < prev {
				return i + k
			}
			prev = d
		}
		i = end
	}
	return hi
}

// firstDecrease16 returns the first k at which us[k] is below the value
// before it (prev for us[0]), or len(us): four values a step, compared
// with the four before them as lanes of a word (a 27 M-sample recording's
// times are passed over twice so while read, 16 ms a pass one by one:
// memory-bound either way, but the byte loop's speed depended on where the
// linker put it, 1.7 times slower across a 64-byte line).
func firstDecrease16(us []uint16, prev uint16) int {
	const high = 0x8000_8000_8000_8000
	k := 0
	// The values' bytes read as little-endian words (any alignment):
	// lane j is us[k+j] where the machine is little-endian.
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(us))), 2*len(us))
	for ; littleEndian && k+4 <= len(us); k += 4 {
		y := binary.LittleEndian.Uint64(b[2*k:]) // the four
		x := y<<16 | uint64(prev)                // the four before them
		// Lane by lane, y < x is the borrow out of y − x: the lanes'
		// low 15 bits subtracted without a borrow between lanes, then the
		// top bit's borrow from theirs (Hacker's Delight, 2-18).
		d := (y | high) - (x &^ high)
		if lt := (^y&x | ^(y^x)&^d) & high; lt != 0 {
			return k + bits.TrailingZeros64(lt)/16
		}
		prev = us[k+3]
	}
	for ; k < len(us); k++ {
		if us[k] < prev {
			return k
		}
		prev = us[k]
	}
	return len(us)
}

// littleEndian tells whether the machine stores a uint16's low byte first.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// narrowMinBits is the smallest block of a narrow column: 16 samples, whose
// base costs half a byte a sample (a sampling every 4 ms fits).
const narrowMinBits = 4

// TimesFromDeltas16 is TimesFromDeltas for deltas read in 2 bytes: it
// returns a narrow column made over their storage, or false (and deltas
// untouched) when there is none: a time beyond ±limit, or a sampling too
// coarse for even blocks of 16 samples to span at most 65,535 µs each.
func TimesFromDeltas16(start Time, deltas []int16, limit Time) (Times, bool) {
	n := len(deltas)
	if n == 0 || start > limit || start < -limit {
		return Times{}, false
	}
	// The largest blocks that all fit; a block too large fails at once,
	// so this is about one pass. Times are µs from start: at most 2^31
	// deltas of 2^15 µs, 2^56 ns, which start (within ±limit, at most
	// 2^62) plus it cannot overflow.
	var bases []Time
	bits := 0
	var least, most int64
	for b := blockBits; b >= narrowMinBits && bits == 0; b-- {
		bases = slices.Grow(bases[:0], n>>b+1)
		var ok bool
		if bases, least, most, ok = blocksFit(bases, deltas, b); ok {
			bits = b
		}
	}
	if bits == 0 || start+Time(least)*1000 < -limit || start+Time(most)*1000 > limit {
		return Times{}, false
	}
	us := unsafe.Slice((*uint16)(unsafe.Pointer(unsafe.SliceData(deltas))), n)
	var now int64
	for i, d := range deltas {
		now += int64(d)
		us[i] = uint16(now - int64(bases[i>>bits])) // over delta i, read
	}
	for k, b := range bases {
		bases[k] = start + b*1000
	}
	return Times{bits: uint8(bits), bases: bases, us16: us}, true
}

// blocksFit reports whether the sums of deltas (times, in µs from the
// start) span at most 65,535 µs in every block of 1<<bits, and if so
// appends each block's earliest to bases and returns their least and
// greatest.
func blocksFit(bases []Time, deltas []int16, bits int) (_ []Time, least, most int64, ok bool) {
	var now int64
	for k := 0; k < len(deltas); k += 1 << bits {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, d := range deltas[k:min(len(deltas), k+1<<bits)] {
			now += int64(d)
			lo, hi = min(lo, now), max(hi, now)
		}
		if hi-lo > math.MaxUint16 {
			return bases, 0, 0, false
		}
		bases = append(bases, Time(lo))
		least, most = min(least, lo), max(most, hi)
	}
	return bases, least, most, true
}

// TimeCursor reads a column's times, a chunk at a time: its At is inlined
// where it is called, and the column's form is looked at once a chunk,
// where Times.At (not inlined: four forms) looks at it for every time.
// The passes over every sample of a long recording (the trees, the
// categories' sums, the writers) read their times so, 1.44–1.5 ns a time
// in every form (BenchmarkTimeCursor), as fast as At inlined on 2-byte
// times was. The index is the caller's, and may go back (a chunk is then
// decoded from it).
type TimeCursor struct {
	t     *Times
	lo, n int // buf holds times [lo, lo+n)
	buf   [512]Time
}

// Cursor returns a cursor over the column.
func (t *Times) Cursor() TimeCursor { return TimeCursor{t: t} }

// At returns time i: from the chunk decoded last when it holds it, else
// from a chunk decoded from i on.
func (c *TimeCursor) At(i int) Time {
	if uint(i-c.lo) >= uint(c.n) {
		c.fill(i)
	}
	return c.buf[(i-c.lo)&(len(c.buf)-1)]
}

// fill decodes the times from lo on into c.buf.
func (c *TimeCursor) fill(lo int) {
	t := c.t
	n := min(len(c.buf), t.Len()-lo)
	buf := c.buf[:n]
	switch {
	case t.wide != nil:
		copy(buf, t.wide[lo:])
	case t.us16 != nil:
		decodeStored(buf, t.bases, t.us16[lo:lo+n], t.off+lo, t.bits)
	case t.b8 != nil:
		t.lineDecode(buf, lo)
	default:
		decodeStored(buf, t.bases, t.us[lo:lo+n], t.off+lo, blockBits)
	}
	c.lo, c.n = lo, n
}

// decodeStored writes the times of stored µs us, the first index j of the
// whole column, into dst, by blocks of 1<<bits.
func decodeStored[T int32 | uint16](dst []Time, bases []Time, us []T, j int, bits uint8) {
	for k := 0; k < len(us); {
		base := bases[(j+k)>>bits]
		end := min(len(us), k+(1<<bits)-(j+k)&(1<<bits-1))
		out := dst[k:end]
		for x, d := range us[k:end] {
			out[x] = base + Time(d)*1000
		}
		k = end
	}
}
