package jsonscan

import (
	"math/rand/v2"
	"testing"
)

// TestPlainRun compares the word-at-a-time search for a string's end with
// a byte loop, on random bytes dense in the bytes it looks for and at every
// start offset.
func TestPlainRun(t *testing.T) {
	special := func(c byte) bool { return c == '"' || c == '\\' || c < 0x20 }
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'a', '"', '\\', 0, 0x1f, 0x20, 0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	for range 2000 {
		d := make([]byte, r.IntN(40))
		for k := range d {
			if r.IntN(4) == 0 {
				d[k] = alphabet[r.IntN(len(alphabet))]
			} else {
				d[k] = byte(r.IntN(256))
			}
		}
		for i := 0; i <= len(d); i++ {
			want := i
			for want < len(d) && !special(d[want]) {
				want++
			}
			got := plainRun(d, i)
			// plainRun may stop early only in the last 7 bytes, which the
			// caller reads a byte at a time.
			if got > want || got < want && got+8 <= len(d) {
				t.Fatalf("plainRun(%q, %d) = %d, want %d", d, i, got, want)
			}
			for k := i; k < got; k++ {
				if special(d[k]) {
					t.Fatalf("plainRun(%q, %d) = %d passes %q at %d", d, i, got, d[k], k)
				}
			}
		}
	}
}
