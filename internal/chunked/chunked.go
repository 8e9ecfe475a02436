// Package chunked provides a slice for the large tables writers build row
// by row, kept in blocks of 64 k values so that it grows without copying
// itself.
//
// A slice grown by append to millions of rows is copied again and again,
// and each copy of a large one is a single memmove the collector cannot
// preempt: while it runs, the collector's workers spin waiting to stop the
// goroutine (runtime.suspendG). Writing the speedscope and Firefox tables
// of a 3 M-sample profile, that was half of the CPU time.
package chunked

// blockBits sets the block length: 64 k values, 512 KB of int64.
const blockBits = 16

const blockLen = 1 << blockBits

// Slice is a growable sequence of T in blocks. The zero value is empty.
type Slice[T any] struct {
	blocks [][]T
	n      int
}

// Append appends v.
func (s *Slice[T]) Append(v T) {
	if s.n&(blockLen-1) == 0 {
		// The first block grows by append from 64 values, so that a small
		// table does not take a whole block; the others are made whole.
		s.blocks = append(s.blocks, make([]T, 0, min(blockLen, max(s.n, 64))))
	}
	b := &s.blocks[len(s.blocks)-1]
	*b = append(*b, v)
	s.n++
}

// Len returns the number of values.
func (s *Slice[T]) Len() int { return s.n }

// At returns value i.
func (s *Slice[T]) At(i int) T { return s.blocks[i>>blockBits][i&(blockLen-1)] }

// Ptr returns a pointer to value i, valid until the next Append.
func (s *Slice[T]) Ptr(i int) *T { return &s.blocks[i>>blockBits][i&(blockLen-1)] }

// Blocks returns the values as consecutive slices, in order.
func (s *Slice[T]) Blocks() [][]T { return s.blocks }
