package profile

import (
	"math"
	"math/bits"
	"unsafe"
)

// Times in about a byte each (the line form).
//
// A recording sampled finely is mostly its samples: 3 M of them in a 21 MB
// .cpuprofile, each a node and a time in 2 bytes (Narrow), 11.4 MiB of the
// process's 22 MiB. Its times are near a straight line: V8 samples every
// interval, give or take a few µs. So by groups of 32 samples, a time is
// kept as its µs above the group's line (one byte), the line as its
// anchor and step (2 bytes each a group) and the groups by blocks of 32 to
// 4,096 samples as the base the anchors are counted from:
//
//	time i = base[block] + anchor[group] + step[group]·(i mod 32) + above[i]  (µs)
//
// 1.13 bytes a time, any time found with four loads. A group whose times
// do not fit its line in 0..255 µs (a pause, a sample far out of order)
// keeps its 32 times in 4 bytes each, µs from its block's base (an
// exception; its head says where). A column with more than one group in
// 64 such is read in 2 or 4 bytes a time instead (LineBuilder.Add reports
// it): an exception costs 164 bytes, and a time found in one a branch
// mispredicted (long100, a real profile's samples repeated, has one group
// in nine so: lined, its summary took 40% longer, at 14% more memory).
//
// Of the real profiles, those sampled every 100–200 µs have 0.2–7% of
// their groups as exceptions; those sampled every millisecond far more
// (their jitter is hundreds of µs), and are small.

const (
	lineBits = 5
	lineLen  = 1 << lineBits
	// lineExc marks a group's head as an exception's: the rest is its
	// index in exc, by groups.
	lineExc = 1 << 31
	// maxStep is the largest step a head holds (15 bits).
	maxStep = 1<<15 - 1
	// lineSlack is how far below its first time a block's base lies, so
	// that a group whose times go back a little still has an anchor ≥ 0.
	lineSlack = 2048
	// lineMinBits and lineMaxBits bound a block: whole groups, and no more
	// than the compact column's blocks.
	lineMinBits = lineBits
	lineMaxBits = blockBits
	// maxLineMicros bounds the times of a lined column, from its first.
	maxLineMicros = 1 << 52
)

// Lined tells whether the times are kept in the line form.
func (t *Times) Lined() bool { return t.b8 != nil }

// lineAt returns time i of a lined column.
func (t *Times) lineAt(i int) Time {
	j := t.off + i
	base := t.bases[j>>t.bits]
	h := t.heads[j>>lineBits]
	if h&lineExc != 0 {
		return base + Time((*t.exc)[int(h&^lineExc)<<lineBits|j&(lineLen-1)])*1000
	}
	return base + Time(h&0xffff+(h>>16)*uint32(j&(lineLen-1))+uint32(t.b8[i]))*1000
}

// lineSet sets time i of a lined column to v, keeping the form: in its
// group's line when it fits there, else with the group turned into an
// exception. It reports false when v is not a whole µs from the block's
// base within ±2^31 µs (the caller then turns the column to another form).
func (t *Times) lineSet(i int, v Time) bool {
	j := t.off + i
	base := t.bases[j>>t.bits]
	us, ok := micros(v, base)
	if !ok {
		return false
	}
	g := j >> lineBits
	h := t.heads[g]
	if h&lineExc == 0 {
		if d := int64(us) - int64(h&0xffff) - int64(h>>16)*int64(j&(lineLen-1)); d >= 0 && d <= math.MaxUint8 {
			t.b8[i] = uint8(d)
			return true
		}
		// The group's times, then the group as an exception (in the
		// storage every slice of the column shares: the heads, and exc
		// through its pointer). Its times beyond this slice's ends are
		// read from the whole column's storage, of which b8 is [off:].
		e := len(*t.exc) >> lineBits
		whole := unsafe.Slice((*uint8)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(t.b8)), -t.off)), t.off+cap(t.b8))
		for k := range lineLen {
			x := int64(h&0xffff) + int64(h>>16)*int64(k)
			if at := g<<lineBits + k; at < len(whole) {
				x += int64(whole[at])
			}
			*t.exc = append(*t.exc, int32(x)) // < 2^16 + 2^15·31 + 2^8
		}
		t.heads[g] = lineExc | uint32(e)
		h = t.heads[g]
	}
	(*t.exc)[int(h&^lineExc)<<lineBits|j&(lineLen-1)] = us
	return true
}

// lineDecrease is nextDecrease for a lined column.
func (t *Times) lineDecrease(from, hi int) int {
	for i := from; i < hi; {
		j := t.off + i
		k := j & (lineLen - 1)
		h := t.heads[j>>lineBits]
		if k == 0 || h&lineExc != 0 {
			// A group's first, or an exception's: by time.
			if t.lineAt(i) < t.lineAt(i-1) {
				return i
			}
			i++
			continue
		}
		// Within a group, time i is before time i−1 when its µs above
		// the line fall by more than the step.
		step := int(h >> 16)
		end := min(hi, i+lineLen-k)
		prev := int(t.b8[i-1])
		for x, b := range t.b8[i:end] {
			if prev-int(b) > step {
				return i + x
			}
			prev = int(b)
		}
		i = end
	}
	return hi
}

// lineRuns is eachStoredRun for a lined column: its times as µs from
// their block's base, decoded into a buffer by runs within a block (a
// block's first time alone, as wide).
func (t *Times) lineRuns(run func(us []int32, prev int32), wide func(prev Time, ts []Time)) {
	buf := make([]int32, 8*lineLen)
	one := make([]Time, 1) // a block's first, each in turn
	n := len(t.b8)
	blockLen := 1 << t.bits
	for i := 1; i < n; {
		j := t.off + i
		if j&(blockLen-1) == 0 {
			one[0] = t.lineAt(i)
			wide(t.lineAt(i-1), one)
			i++
			continue
		}
		end := min(n, i+blockLen-j&(blockLen-1), i+len(buf))
		t.lineDecodeUs(buf[:end-i], i)
		run(buf[:end-i], t.lineUs(i-1))
		i = end
	}
}

// lineDecodeUs writes times lo, lo+1, … of a lined column into dst, as µs
// from their block's base (they must be of one block). It is lineDecode's
// twin in µs, as lineUs is lineAt's: one generic decoder for both made the
// cursor's lined times 17% slower (BenchmarkTimeCursor), and lineAt made of
// lineUs, Times.At's 14%.
func (t *Times) lineDecodeUs(dst []int32, lo int) {
	for k := 0; k < len(dst); {
		i := lo + k
		j := t.off + i
		g := j & (lineLen - 1)
		end := min(len(dst), k+lineLen-g)
		if h := t.heads[j>>lineBits]; h&lineExc != 0 {
			copy(dst[k:end], (*t.exc)[int(h&^lineExc)<<lineBits+g:])
		} else {
			step := int32(h >> 16)
			at := int32(h&0xffff) + int32(g)*step
			for x, b := range t.b8[i : i+end-k] {
				dst[k+x] = at + int32(b)
				at += step
			}
		}
		k = end
	}
}

// lineUs returns time i of a lined column as µs from its block's base.
func (t *Times) lineUs(i int) int32 {
	j := t.off + i
	h := t.heads[j>>lineBits]
	if h&lineExc != 0 {
		return (*t.exc)[int(h&^lineExc)<<lineBits|j&(lineLen-1)]
	}
	return int32(h&0xffff + (h>>16)*uint32(j&(lineLen-1)) + uint32(t.b8[i]))
}

// LineBuilder makes a lined column from µs deltas given in order
// (a .cpuprofile's timeDeltas, as they are read), the times counted from
// 0 until Times adds the start.
type LineBuilder struct {
	t      Times
	n      int            // the times expected (NewLineBuilder)
	pend   [lineLen]int64 // the group being filled, µs
	np     int
	now    int64 // µs
	least  int64
	most   int64
	blocks []int64 // bases in µs
	dead   bool
}

// NewLineBuilder returns a builder with room for n times, which it takes
// once its first 4,096 times are lined (a column given up at once, a
// coarse sampling's, has not allocated them).
func NewLineBuilder(n int) *LineBuilder {
	b := &LineBuilder{n: n}
	b.t.exc = new([]int32)
	b.t.b8 = make([]uint8, 0, min(n, lineFirst))
	b.t.heads = make([]uint32, 0, min(n, lineFirst)>>lineBits+1)
	return b
}

// lineFirst is the room a LineBuilder starts with.
const lineFirst = 4096

// Add adds the times of deltas (µs each after the one before), and reports
// whether the column is still worth the line form: false from the first
// call that finds more than one group in 64 an exception (from 64 on), or
// times out of reach of a block's base, or more than 2^52 µs from the
// first; the builder then takes no more.
func (b *LineBuilder) Add(deltas []int32) bool {
	if b.dead {
		return false
	}
	if b.t.bits == 0 && len(deltas) > 0 {
		b.t.bits = lineBlockBits(deltas)
	}
	for len(deltas) > 0 {
		k := min(len(deltas), lineLen-b.np)
		now, pend := b.now, b.pend[b.np:b.np+k]
		for x, d := range deltas[:k] {
			now += int64(d)
			pend[x] = now
		}
		b.now, b.np, deltas = now, b.np+k, deltas[k:]
		if b.np == lineLen && !b.flush() {
			return false
		}
	}
	if exc := len(*b.t.exc) >> lineBits; exc > 64 && exc > len(b.t.heads)/64 {
		b.dead = true
	}
	return !b.dead
}

// lineBlockBits chooses a block's length from the first deltas: a block
// spanning about 32 ms at their mean interval, so that its anchors, up to
// 65 ms from its base, fit with room for the jitter.
func lineBlockBits(deltas []int32) uint8 {
	var sum int64
	k := min(len(deltas), 4096)
	for _, d := range deltas[:k] {
		sum += int64(min(max(d, 1), 1<<20))
	}
	mean := max(sum/int64(k), 1)
	n := bits.Len64(uint64(32768/mean)) - 1
	return uint8(min(max(n, lineMinBits), lineMaxBits))
}

// flush encodes the pending group (np times, the last group's maybe
// fewer than 32).
func (b *LineBuilder) flush() bool {
	t := &b.t
	g := len(t.heads)
	if g<<lineBits&(1<<t.bits-1) == 0 {
		b.blocks = append(b.blocks, b.pend[0]-lineSlack)
	}
	base := b.blocks[len(b.blocks)-1]
	ts := b.pend[:b.np]
	b.np = 0
	step := int64(0)
	if len(ts) > 1 {
		step = (ts[len(ts)-1] - ts[0]) / int64(len(ts)-1)
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	least, most := ts[0], ts[0]
	line := ts[0]
	for _, x := range ts {
		r := x - line
		lo, hi = min(lo, r), max(hi, r)
		least, most = min(least, x), max(most, x)
		line += step
	}
	if least < -maxLineMicros || most > maxLineMicros {
		b.dead = true
		return false
	}
	b.least, b.most = min(b.least, least), max(b.most, most)
	if len(t.b8)+lineLen > cap(t.b8) {
		b.grow()
	}
	out := t.b8[len(t.b8) : len(t.b8)+len(ts)]
	t.b8 = t.b8[:len(t.b8)+len(ts)]
	if anchor := ts[0] + lo - base; step >= 0 && step <= maxStep && hi-lo <= math.MaxUint8 && anchor >= 0 && anchor <= math.MaxUint16 {
		t.heads = append(t.heads, uint32(anchor)|uint32(step)<<16)
		line := ts[0] + lo
		for k, x := range ts {
			out[k] = uint8(x - line)
			line += step
		}
		return true
	}
	e := len(*t.exc) >> lineBits
	for _, x := range ts {
		if x-base != int64(int32(x-base)) {
			b.dead = true
			return false
		}
		*t.exc = append(*t.exc, int32(x-base))
	}
	for range lineLen - len(ts) {
		*t.exc = append(*t.exc, 0)
	}
	t.heads = append(t.heads, lineExc|uint32(e))
	clear(out)
	return true
}

// grow makes room for the times expected, once the first have been lined,
// or for twice as many as there are (more than NewLineBuilder was told).
func (b *LineBuilder) grow() {
	t := &b.t
	n := max(b.n, 2*cap(t.b8)) + lineLen
	t.b8 = append(make([]uint8, 0, n), t.b8...)
	t.heads = append(make([]uint32, 0, n>>lineBits+1), t.heads...)
}

// Len returns the number of times added (0 for a nil builder).
func (b *LineBuilder) Len() int {
	if b == nil {
		return 0
	}
	return len(b.t.b8) + b.np
}

// Times returns the column, its times counted from start (ns), or false
// when there is none: the builder gave up (Add), or a time is beyond
// ±limit (then Times can be asked again, with another start: from 0, the
// times are all in range).
func (b *LineBuilder) Times(start, limit Time) (Times, bool) {
	if b.dead || start > limit || start < -limit {
		return Times{}, false
	}
	if b.np > 0 && !b.flush() {
		return Times{}, false
	}
	// |least|, |most| ≤ 2^52 µs: ×1000 fits, and start (±limit, at most
	// 2^62) plus it cannot overflow.
	if start+Time(b.least)*1000 < -limit || start+Time(b.most)*1000 > limit {
		return Times{}, false
	}
	t := b.t
	if t.b8 == nil {
		return Times{}, false
	}
	t.bases = make([]Time, len(b.blocks))
	for k, x := range b.blocks {
		t.bases[k] = start + Time(x)*1000
	}
	b.dead = true // the column owns the storage now
	return t, true
}

// lineDecode writes times lo, lo+1, … of a lined column into dst.
func (t *Times) lineDecode(dst []Time, lo int) {
	for k := 0; k < len(dst); {
		i := lo + k
		j := t.off + i
		g := j & (lineLen - 1)
		end := min(len(dst), k+lineLen-g)
		h := t.heads[j>>lineBits]
		base := t.bases[j>>t.bits]
		if h&lineExc != 0 {
			exc := (*t.exc)[int(h&^lineExc)<<lineBits:]
			for x := k; x < end; x++ {
				dst[x] = base + Time(exc[g+x-k])*1000
			}
		} else {
			line := base + Time(h&0xffff)*1000
			step := Time(h>>16) * 1000
			at := line + Time(g)*step
			for x, b := range t.b8[i : i+end-k] {
				dst[k+x] = at + Time(b)*1000
				at += step
			}
		}
		k = end
	}
}
