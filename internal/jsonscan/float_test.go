package jsonscan

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestExactFloat compares the fast reader of short numbers (exactNumber) with
// strconv.ParseFloat, bit for bit (−0 included), on random numbers of every
// length and point position, and checks that it declines what it cannot
// read exactly.
func TestExactFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(num string) {
		t.Helper()
		want, err := strconv.ParseFloat(num, 64)
		if err != nil {
			t.Fatalf("%s: %v", num, err)
		}
		got, end, ok := exactNumber([]byte(num), 0)
		if !ok || end != len(num) {
			t.Fatalf("%s: declined", num)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s: %v, want %v", num, got, want)
		}
		s := New([]byte(num))
		if f, err := s.Float(); err != nil || math.Float64bits(f) != math.Float64bits(want) {
			t.Fatalf("Float(%s) = %v, %v; want %v", num, f, err, want)
		}
	}
	for _, num := range []string{"0", "-0", "0.0", "-0.0", "1", "-1", "0.1", "0.3", "123456789012345", "99999999999999.9", "0.00000000000001", "1.5", "1773421046.123"} {
		check(num)
	}
	for range 200000 {
		n := 1 + r.IntN(15)
		var b []byte
		if r.IntN(4) == 0 {
			b = append(b, '-')
		}
		digits := make([]byte, n)
		for i := range digits {
			digits[i] = byte('0' + r.IntN(10))
		}
		point := r.IntN(n + 1) // n: no point
		if point == 0 {
			point = 1
		}
		if digits[0] == '0' && point > 1 {
			digits[0] = '1' // no leading zero
		}
		b = append(b, digits[:point]...)
		if point < n {
			b = append(b, '.')
			b = append(b, digits[point:]...)
		}
		check(string(b))
	}
	for _, num := range []string{"1e5", "1.5E-3", "1234567890123456", "0.1234567890123456", "", "-", "01", "1.", "-.5", ".5", "1.e3"} {
		if _, _, ok := exactNumber([]byte(num), 0); ok {
			t.Errorf("%q: read, want declined", num)
		}
	}
}
