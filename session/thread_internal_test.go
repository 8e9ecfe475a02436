package session

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

// TestMedianInterval checks the radix selection against a sort, on
// intervals of every scale: constant, µs multiples with pauses, random ns
// over 40 bits, with zero and negative intervals left out.
func TestMedianInterval(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		name string
		dt   func() profile.Time
	}{
		{"constant", func() profile.Time { return 1000 }},
		{"µs with pauses", func() profile.Time {
			if r.IntN(100) == 0 {
				return profile.Time(r.IntN(1e9)) * 1000
			}
			return profile.Time(100+r.IntN(50)) * 1000
		}},
		{"random 40 bits", func() profile.Time { return profile.Time(r.Int64N(1 << 40)) }},
		{"with zero and negative", func() profile.Time { return profile.Time(r.IntN(7) - 2) }},
		{"two values", func() profile.Time { return profile.Time(1 + r.IntN(2)*(1<<50)) }},
	} {
		for _, n := range []int{0, 1, 2, 3, 10, 1001, 100_000} {
			times := make([]profile.Time, n)
			var d []profile.Time
			for i := 1; i < n; i++ {
				dt := tc.dt()
				times[i] = times[i-1] + dt
				if dt > 0 {
					d = append(d, dt)
				}
			}
			want := profile.Time(0)
			if len(d) > 0 {
				slices.Sort(d)
				want = d[len(d)/2]
			}
			if got := medianInterval(times); got != want {
				t.Errorf("%s, %d times: median %d, want %d", tc.name, n, got, want)
			}
		}
	}
}
