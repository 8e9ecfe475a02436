package profile_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

// TestNodes checks a node column against a slice of NodeIDs under random
// appends, sets and growth: the same nodes, narrow until a node of 1<<16 or
// more (or a negative one) is stored, and wide from then on.
func TestNodes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	values := []profile.NodeID{0, 1, 65535, 65536, 1 << 20, profile.NoNode}
	for round := range 300 {
		var c profile.Nodes
		var want []profile.NodeID
		wide := false
		for range r.IntN(200) {
			v := profile.NodeID(r.IntN(1000))
			if r.IntN(40) == 0 {
				v = values[r.IntN(len(values))]
			}
			switch k := r.IntN(10); {
			case k < 6 || len(want) == 0:
				c.Append(v)
				want = append(want, v)
			case k < 8:
				i := r.IntN(len(want))
				c.Set(i, v)
				want[i] = v
			case k < 9:
				c.Grow(r.IntN(50))
				continue
			default:
				c.Widen(r.IntN(5))
				wide = true
				continue
			}
			wide = wide || v < 0 || v >= profile.NarrowLimit
		}
		if c.Len() != len(want) || !slices.Equal(c.Wide(), want) {
			t.Fatalf("round %d: got %v, want %v", round, c, want)
		}
		if c.Narrow() == wide {
			t.Fatalf("round %d: narrow %v, want %v (%v)", round, c.Narrow(), !wide, want)
		}
		n16, n32 := c.Columns()
		if (n16 != nil && n32 != nil) || (n32 != nil) != wide && len(want) > 0 {
			t.Fatalf("round %d: columns %v and %v for a column narrow %v", round, n16, n32, c.Narrow())
		}
		if len(want) > 2 {
			lo, hi := 1, len(want)-1
			s := c.Slice(lo, hi)
			var got []profile.NodeID
			for i, n := range s.All() {
				if s.At(i) != n {
					t.Fatalf("round %d: All yields %d at %d, At gives %d", round, n, i, s.At(i))
				}
				got = append(got, n)
			}
			if !slices.Equal(got, want[lo:hi]) {
				t.Fatalf("round %d: slice [%d,%d) = %v, want %v", round, lo, hi, got, want[lo:hi])
			}
		}
	}
}
