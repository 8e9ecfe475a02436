package chunked

import (
	"slices"
	"testing"
)

// TestSlice appends across block boundaries and checks every way of
// reading the values back against a plain slice.
func TestSlice(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 65, blockLen - 1, blockLen, blockLen + 1, 3*blockLen + 17} {
		var s Slice[int64]
		var want []int64
		for i := range n {
			v := int64(i)*7 - 3
			s.Append(v)
			want = append(want, v)
		}
		if s.Len() != n {
			t.Fatalf("n=%d: Len() = %d", n, s.Len())
		}
		var got []int64
		for _, b := range s.Blocks() {
			if len(b) > blockLen {
				t.Fatalf("n=%d: a block of %d values", n, len(b))
			}
			got = append(got, b...)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("n=%d: Blocks() hold other values", n)
		}
		for i := range n {
			if s.At(i) != want[i] {
				t.Fatalf("n=%d: At(%d) = %d, want %d", n, i, s.At(i), want[i])
			}
		}
		if n > 0 {
			*s.Ptr(n - 1) += 100
			if got := s.At(n - 1); got != want[n-1]+100 {
				t.Fatalf("n=%d: after *Ptr(%d) += 100, At = %d, want %d", n, n-1, got, want[n-1]+100)
			}
		}
	}
}

// TestAppendDoesNotCopy: values already appended stay where they are, as
// a block once full is never reallocated.
func TestAppendDoesNotCopy(t *testing.T) {
	var s Slice[int32]
	for i := range blockLen {
		s.Append(int32(i))
	}
	first := s.Ptr(0)
	for i := range 2 * blockLen {
		s.Append(int32(i))
	}
	if s.Ptr(0) != first {
		t.Error("the first block moved when later values were appended")
	}
}
