package pprof

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// apportion's shares are never negative, never exceed a sample's value,
// and give each line ⌊W·self_i/den⌋ in all, with a line table adding up to
// less than, exactly or more than the flat time, and huge values.
func TestApportion(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 2000 {
		w := make([]int64, 1+r.IntN(8))
		var total int64
		scale := int64(1) << r.IntN(50)
		for k := range w {
			w[k] = r.Int64N(1000) * scale
			if r.IntN(5) == 0 {
				w[k] = 0
			}
			total += w[k]
		}
		self := make([]int64, 1+r.IntN(6))
		var sum int64
		for i := range self {
			self[i] = 1 + r.Int64N(max(1, total/int64(len(self))+3))
			sum += self[i]
		}
		den := max(total, sum)
		if r.IntN(3) == 0 {
			den += r.Int64N(100) // a table short of the flat time
		}
		shares := apportion(w, self, den)
		lineSum := make([]int64, len(self))
		for k, sh := range shares {
			var s int64
			for i, x := range sh {
				if x < 0 {
					t.Fatalf("%d: sample %d line %d: share %d < 0", iter, k, i, x)
				}
				s += x
				lineSum[i] += x
			}
			if s > w[k] {
				t.Fatalf("%d: sample %d: shares %d > its value %d (w %v self %v den %d)", iter, k, s, w[k], w, self, den)
			}
		}
		for i := range self {
			want := new(big.Int).Mul(big.NewInt(total), big.NewInt(self[i]))
			want.Quo(want, big.NewInt(den))
			if lineSum[i] != want.Int64() {
				t.Fatalf("%d: line %d: %d in all, want %d (w %v self %v den %d)", iter, i, lineSum[i], want.Int64(), w, self, den)
			}
		}
	}
}
