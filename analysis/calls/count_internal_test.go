package calls

import (
	"math/rand/v2"
	"testing"
)

// TestCount compares count with a loop, on 2- and 4-byte samples of every
// length up to 40 and values near the lanes' edges (0, 0x7fff, 0x8000,
// 0xffff).
func TestCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edge := []uint16{0, 1, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff}
	for n := range 41 {
		for range 50 {
			s := make([]uint16, n)
			v := edge[rng.IntN(len(edge))]
			for i := range s {
				if rng.IntN(3) == 0 {
					s[i] = v
				} else {
					s[i] = edge[rng.IntN(len(edge))] ^ uint16(rng.IntN(2))<<uint(rng.IntN(16))
				}
			}
			want := 0
			s32 := make([]int32, n)
			for i, x := range s {
				if x == v {
					want++
				}
				s32[i] = int32(x)
			}
			if got := count(s, v); got != want {
				t.Fatalf("count(%v, %#x) = %d, want %d", s, v, got, want)
			}
			if got := count(s32, int32(v)); got != want {
				t.Fatalf("count of 4-byte %v, %#x = %d, want %d", s32, v, got, want)
			}
		}
	}
}
