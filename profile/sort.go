package profile

import (
	"cmp"
	"slices"
)

// SortByTime stably sorts the samples from index from on by time, as
// DevTools' sortSamples does, moving every column.
//
// V8's out-of-order samples are a few, each a few places early: an
// insertion sort moves them in linear time. A hostile input (samples in
// reverse) would make it quadratic, so past a budget of moves it hands over
// to a stable sort (of the partly sorted samples: insertion keeps equal
// times in their order, so the result is the same).
//
// A compact column's times are µs from their block's base, so they move as
// times (At, Set), not as stored: a time moved to another block may not
// fit it, and then the column turns to ns.
func (s *Samples) SortByTime(from int) {
	n := s.Time.Len() - from
	at := func(i int) Time { return s.Time.At(from + i) }
	budget := 4*n + 1024
	sorted := true
	for i := s.Time.nextDecrease(from+1, from+n) - from; i < n; i = s.Time.nextDecrease(from+i+1, from+n) - from {
		t := at(i)
		j := i
		for j > 0 && at(j-1) > t {
			j--
		}
		if budget -= i - j; budget < 0 {
			sorted = false
			break
		}
		for k := i; k > j; k-- {
			s.Time.Set(from+k, at(k-1))
		}
		s.Time.Set(from+j, t)
		s.eachColumn(from+j, from+i+1, rotate)
	}
	if sorted {
		return
	}
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(at(int(a)), at(int(b))) })
	moved := make([]Time, n)
	for i, j := range idx {
		moved[i] = at(int(j))
	}
	for i, t := range moved {
		s.Time.Set(from+i, t)
	}
	s.eachColumn(from, s.Node.Len(), func(c column) { c.permute(idx) })
}

// column is a stretch of one sample column, of any element type.
type column interface {
	rotate()
	permute(idx []int32)
}

type colOf[T any] []T

// rotate moves the last element to the front.
func (v colOf[T]) rotate() {
	last := v[len(v)-1]
	copy(v[1:], v[:len(v)-1])
	v[0] = last
}

// permute puts element idx[i] at i.
func (v colOf[T]) permute(idx []int32) {
	out := make([]T, len(v))
	for i, j := range idx {
		out[i] = v[j]
	}
	copy(v, out)
}

func rotate(c column) { c.rotate() }

// eachColumn calls fn with rows [lo, hi) of every column the samples have
// but the times.
func (s *Samples) eachColumn(lo, hi int, fn func(column)) {
	if n16, n32 := s.Node.Slice(lo, hi).Columns(); n32 != nil {
		fn(colOf[NodeID](n32))
	} else {
		fn(colOf[uint16](n16))
	}
	for _, c := range [][]int32{s.Line, s.Column} {
		if c != nil {
			fn(colOf[int32](c[lo:hi]))
		}
	}
	if s.Category != nil {
		fn(colOf[CategoryID](s.Category[lo:hi]))
	}
	if s.Subcategory != nil {
		fn(colOf[uint8](s.Subcategory[lo:hi]))
	}
}
