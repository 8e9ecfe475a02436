package jsonscan

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
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

// TestIntRun reads arrays of numbers of every form with Ints and Ints32
// (which take plain runs with IntRun) and with a plain NextElem/Int loop:
// the values, the errors and where the scanner stops must be the same.
func TestIntRun(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	elems := []string{"0", "7", "42", "-3", "-0", "2147483647", "2147483648", "-2147483648", "-2147483649",
		"123456789012345678", "1234567890123456789", "99999999999999999999", "01", "-", "1.5", "1e3", " 5", "5 ", "x", `"5"`, "", "-01",
		"65535", "65536", "-1", "32767", "32768", "-32768", "-32769"}
	ref := func(data []byte) ([]int64, error, int64) {
		s := New(data)
		if err := s.BeginArray(); err != nil {
			return nil, err, s.Offset()
		}
		var out []int64
		for first := true; ; first = false {
			ok, err := s.NextElem(first)
			if err != nil || !ok {
				return out, err, s.Offset()
			}
			v, err := s.Int()
			if err != nil {
				return out, err, s.Offset()
			}
			out = append(out, v)
		}
	}
	for range 5000 {
		var b []byte
		b = append(b, '[')
		n := r.IntN(12)
		for k := range n {
			if k > 0 {
				b = append(b, ',')
			}
			if r.IntN(3) == 0 {
				b = append(b, elems[r.IntN(len(elems))]...)
			} else {
				b = append(b, elems[r.IntN(6)]...)
			}
		}
		if r.IntN(10) > 0 {
			b = append(b, ']')
		}
		want, werr, woff := ref(b)
		s := New(b)
		got, gerr := s.Ints(nil)
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() || s.Offset() != woff || !slices.Equal(got, want) {
			t.Fatalf("Ints(%s) = %v, %v at %d; a plain loop: %v, %v at %d", b, got, gerr, s.Offset(), want, werr, woff)
		}
		s = New(b)
		got32, fits, gerr := s.Ints32(nil)
		if !fits {
			continue
		}
		want32 := make([]int32, len(want))
		for k, v := range want {
			want32[k] = int32(v)
		}
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() || s.Offset() != woff || !slices.Equal(got32, want32) {
			t.Fatalf("Ints32(%s) = %v, %v at %d; a plain loop: %v, %v at %d", b, got32, gerr, s.Offset(), want, werr, woff)
		}
		checkInts16[uint16](t, b, want32, werr, woff)
		checkInts16[int16](t, b, want32, werr, woff)
	}
}

// checkInts16 checks Ints16 on array b against a plain loop's values
// (want, error werr at offset woff): 2 bytes when every value fits a T,
// else 4.
func checkInts16[T int16 | uint16](t *testing.T, b []byte, want []int32, werr error, woff int64) {
	t.Helper()
	s := New(b)
	v16, v32, fits, gerr := Ints16[T](s, nil)
	if !fits {
		t.Fatalf("Ints16(%s): does not fit, where Ints32 fits", b)
	}
	narrow := true
	for _, v := range want {
		narrow = narrow && int32(T(v)) == v
	}
	var ids []int32
	for _, v := range v16 {
		ids = append(ids, int32(v))
	}
	if v32 != nil {
		ids = v32
	}
	if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() || s.Offset() != woff || !slices.Equal(ids, want) {
		t.Fatalf("Ints16[%T](%s) = %v %v, %v at %d; a plain loop: %v, %v at %d", *new(T), b, v16, v32, gerr, s.Offset(), want, werr, woff)
	}
	if (v32 == nil) != narrow {
		t.Fatalf("Ints16[%T](%s) = %v %v: narrow %v, want %v", *new(T), b, v16, v32, v32 == nil, narrow)
	}
}

// TestLastIndexByte compares LastIndexByte with bytes.LastIndexByte on
// random inputs dense and sparse in the byte, at every length.
func TestLastIndexByte(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		d := make([]byte, r.IntN(70))
		dense := r.IntN(4)
		for k := range d {
			switch {
			case r.IntN(8) < dense:
				d[k] = '['
			case r.IntN(2) == 0:
				d[k] = '[' ^ byte(1<<r.IntN(8)) // one bit off
			default:
				d[k] = byte(r.IntN(256))
			}
		}
		if got, want := LastIndexByte(d, '['), bytes.LastIndexByte(d, '['); got != want {
			t.Fatalf("LastIndexByte(%q) = %d, want %d", d, got, want)
		}
	}
}

// BenchmarkLastIndexByte finds the '[' of a 16 MB array of numbers from its
// end, with LastIndexByte and with bytes.LastIndexByte.
func BenchmarkLastIndexByte(b *testing.B) {
	d := append([]byte{'['}, bytes.Repeat([]byte("1234,"), 16<<20/5)...)
	for _, f := range []struct {
		name string
		fn   func([]byte, byte) int
	}{{"swar", LastIndexByte}, {"bytes", bytes.LastIndexByte}} {
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(d)))
			for b.Loop() {
				if f.fn(d, '[') != 0 {
					b.Fatal("not found")
				}
			}
		})
	}
}

// TestElementStart checks the guess of an array element's start: after
// '}' ',' with white space allowed, on a named first key only, never inside
// a string, and not beyond a megabyte.
func TestElementStart(t *testing.T) {
	far := `[{"a":1},` + string(bytes.Repeat([]byte(" "), 1<<20)) + `{"id":2}]`
	for _, c := range []struct {
		data string
		from int
		want int
	}{
		{`[{"id":1},{"id":2}]`, 0, 10},
		{`[{"id":1},{"id":2}]`, 11, -1},
		{"[{\"id\":1} ,\n\t{\"id\":2}]", 0, 13},
		{`[{"id":1},{"other":2},{"callFrame":{}}]`, 0, 22},
		{`[{"id":1},{ "id":2}]`, 0, 10},
		{`[{"s":"},{\"id\":1"},{"x":1}]`, 0, -1},
		{`[{"s":"},{"},{"x":1}]`, 0, -1},
		{`[{"id":1},{"id`, 0, -1},
		{far, 0, -1},
		{far, 1 << 19, len(far) - 9},
	} {
		if got := ElementStart([]byte(c.data), c.from, "id", "callFrame"); got != c.want {
			t.Errorf("ElementStart(%.40q, %d) = %d, want %d", c.data, c.from, got, c.want)
		}
	}
}

// TestDigitRun checks the word-at-a-time digits against the byte loop
// (digitLoop, the readers' loop before): every run length from 0 to 20,
// at every offset of a word, before every byte value; and random bytes
// biased to digits.
func TestDigitRun(t *testing.T) {
	check := func(d []byte, j int) {
		t.Helper()
		v, k := digitRun(d, j)
		wv, wk := digitLoop(d, j)
		if v != wv || k != wk {
			t.Fatalf("digitRun(%q, %d) = %d, %d; want %d, %d", d, j, v, k, wv, wk)
		}
	}
	for n := 0; n <= 20; n++ {
		for c := 0; c < 256; c++ {
			for pad := 0; pad < 10; pad++ {
				d := []byte(strings.Repeat("x", pad))
				for i := range n {
					d = append(d, byte('0'+(i*7+n)%10))
				}
				d = append(d, byte(c))
				d = append(d, "9876543210"[:pad]...)
				check(d, pad)
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	d := make([]byte, 64)
	for range 200000 {
		for i := range d {
			if r.IntN(4) == 0 {
				d[i] = byte(r.IntN(256))
			} else {
				d[i] = byte('0' + r.IntN(10))
			}
		}
		check(d[:r.IntN(len(d)+1)], 0)
		j := r.IntN(len(d))
		check(d, j)
	}
}

// BenchmarkIntRun reads a long recording's arrays: its samples (node ids
// of one to four digits at random) and its time deltas (two digits, an
// occasional three).
func BenchmarkIntRun(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		name string
		num  func() int
	}{
		{"samples", func() int { return 1 + r.IntN(3000) }},
		{"deltas", func() int { return 44 + r.IntN(13) }},
	} {
		d := []byte{'['}
		for i := range 1 << 20 {
			if i > 0 {
				d = append(d, ',')
			}
			d = strconv.AppendInt(d, int64(c.num()), 10)
		}
		d = append(d, ']')
		b.Run(c.name, func(b *testing.B) {
			dst := make([]uint16, 0, 1<<20)
			b.SetBytes(int64(len(d)))
			for b.Loop() {
				s := New(d)
				s.pos = bytes.IndexByte(d, ',')
				if got := IntRun(s, dst[:1], 1<<16-1); len(got) != 1<<20 {
					b.Fatalf("read %d numbers", len(got))
				}
			}
		})
	}
}

// BenchmarkArrayOpenBack finds the '[' of a 16 MB array of numbers from
// its end, counting its elements.
func BenchmarkArrayOpenBack(b *testing.B) {
	d := append([]byte(`{"samples":[1`), bytes.Repeat([]byte(",1234"), 16<<20/5)...)
	d = append(d, ']')
	b.SetBytes(int64(len(d)))
	for b.Loop() {
		if open, n := ArrayOpenBack(d, len(d)-1, nil); open != 11 || n != 16<<20/5+1 {
			b.Fatalf("open %d, %d elements", open, n)
		}
	}
}
