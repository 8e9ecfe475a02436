package profile_test

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

// TestSortByTime checks the insertion sort of out-of-order samples, and its
// hand-over to a stable sort past its budget, against a stable sort by time:
// nearly sorted samples (V8's), samples in reverse, random ones, with ties,
// with lines and a base, in a column of nanoseconds and a compact one.
func TestSortByTime(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		time func(i, n int) profile.Time
	}{
		{"nearly sorted", func(i, n int) profile.Time { return profile.Time(i*10 - r.IntN(3)*25) }},
		{"reverse", func(i, n int) profile.Time { return profile.Time(n - i) }},
		{"random with ties", func(i, n int) profile.Time { return profile.Time(r.IntN(50)) }},
		{"one far back", func(i, n int) profile.Time {
			if i == n-1 {
				return -1
			}
			return profile.Time(i)
		}},
	} {
		for _, c := range []struct {
			n     int
			scale profile.Time
		}{{2, 1}, {10, 1}, {5000, 1}, {10, 1000}, {5000, 1000}} {
			n := c.n
			base := 3
			s := &profile.Samples{}
			for i := range n + base {
				s.Node.Append(profile.NodeID(i))
				s.Time.Append(tc.time(i, n+base) * c.scale)
				s.Line = append(s.Line, int32(i))
				s.Column = append(s.Column, int32(-i))
			}
			for i := range base {
				s.Time.Set(i, 1<<30*c.scale) // not part of the sorted range
			}
			type row struct {
				node profile.NodeID
				t    profile.Time
			}
			var want []row
			for i := base; i < s.Node.Len(); i++ {
				want = append(want, row{s.Node.At(i), s.Time.At(i)})
			}
			slices.SortStableFunc(want, func(a, b row) int { return cmp.Compare(a.t, b.t) })
			if s.Time.Compact() != (c.scale == 1000) {
				t.Fatalf("%s n=%d: column compact %t with times in steps of %d ns", tc.name, n, s.Time.Compact(), c.scale)
			}
			s.SortByTime(base)
			for i, w := range want {
				k := base + i
				if s.Node.At(k) != w.node || s.Time.At(k) != w.t || s.Line[k] != int32(w.node) || s.Column[k] != -int32(w.node) {
					t.Fatalf("%s n=%d ×%d: sample %d = node %d time %d line %d, want node %d time %d", tc.name, n, c.scale, i, s.Node.At(k), s.Time.At(k), s.Line[k], w.node, w.t)
				}
			}
			for i := range base {
				if s.Node.At(i) != profile.NodeID(i) {
					t.Fatalf("%s: sample %d before base moved", tc.name, i)
				}
			}
		}
	}
}
