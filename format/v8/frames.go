package v8

import (
	"math/bits"
	"math/rand/v2"

	"github.com/jsprof/jsprof/profile"
)

// callFrame is a node's call frame, its strings interned in the parser's
// string table.
type callFrame struct {
	name, url, script profile.StringID
	line, col         int32
	codeType          profile.StringID
}

// frameTable holds distinct call frames in the order they are first looked
// up, by index. appendThread fills one with the raw nodes' frames, on a
// core of its own while it orders the nodes, so that the profile's frames
// are then made once a frame instead of once a node (Builder.Frame hashes
// and compares each; on the many-nodes shape 40 k frames for 350 k
// nodes).
//
// It is an open-addressing table rather than a map: a frame's fields are
// six small integers, which hash in a few multiplications (a map hashes
// its 24 bytes as memory). The hash is vector multiply-shift
// (Dietzfelbinger's) with multipliers drawn when the table is made, a
// universal family: frames cannot be crafted to collide without knowing
// them (TestFrameTable measures the probe lengths).
type frameTable struct {
	frames []callFrame
	slots  []int32 // index+1 of the frame hashed there; 0 empty
	shift  uint    // 64 − log2(len(slots))
	mul    [6]uint64
	// byName is, by name id, the index+1 of the last frame of that name
	// looked up. Most names are one function's, so that frame is the one
	// asked for, and this small dense array spares a probe of the slots,
	// which a table of many frames misses the cache for.
	byName []int32
}

// index returns the index of f, adding it if new.
func (t *frameTable) index(f callFrame) int32 {
	t.byName = reach(t.byName, int(f.name))
	if k := t.byName[f.name]; k > 0 && t.frames[k-1] == f {
		return k - 1
	}
	if 2*(len(t.frames)+1) > len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	for i := t.hash(&f); ; i = (i + 1) & mask {
		k := t.slots[i]
		if k == 0 {
			t.frames = append(t.frames, f)
			k = int32(len(t.frames))
			t.slots[i] = k
			t.byName[f.name] = k
			return k - 1
		}
		if t.frames[k-1] == f {
			t.byName[f.name] = k
			return k - 1
		}
	}
}

func (t *frameTable) hash(f *callFrame) int {
	h := t.mul[0]*uint64(uint32(f.name)) + t.mul[1]*uint64(uint32(f.url)) +
		t.mul[2]*uint64(uint32(f.script)) + t.mul[3]*uint64(uint32(f.line)) +
		t.mul[4]*uint64(uint32(f.col)) + t.mul[5]*uint64(uint32(f.codeType))
	// The sum is linear in the fields: frames in arithmetic runs (ids and
	// lines counting up together) can land in runs of slots for some
	// multipliers, and linear probing then walks them (TestFrameTable saw
	// a mean probe of 3.5 once in CI). Its high bits folded into its low
	// ones and multiplied again spread them.
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return int(h >> t.shift)
}

// grow doubles the slots (at least 1,024) and hashes the frames again.
func (t *frameTable) grow() {
	if t.slots == nil {
		for i := range t.mul {
			t.mul[i] = rand.Uint64() | 1
		}
	}
	n := max(1024, 2*len(t.slots))
	t.slots = make([]int32, n)
	t.shift = uint(64 - bits.TrailingZeros(uint(n)))
	mask := n - 1
	for k := range t.frames {
		i := t.hash(&t.frames[k])
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = int32(k + 1)
	}
}

// reach returns s, lengthened with zeros if needed so that it has an
// element i: by half its length more, so that ids met in increasing order
// grow it a few times only.
func reach[T any](s []T, i int) []T {
	if i < len(s) {
		return s
	}
	return append(s, make([]T, i+1-len(s)+len(s)/2)...)
}
