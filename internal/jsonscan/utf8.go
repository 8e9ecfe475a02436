package jsonscan

import "unicode/utf8"

// ToValidUTF8 returns b as a string with each maximal subpart of an invalid
// UTF-8 sequence replaced by one U+FFFD, as the WHATWG decoder (and so
// DevTools and Node reading a file) does; bytes.ToValidUTF8 would replace a
// whole run of invalid bytes by one.
func ToValidUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out := make([]byte, 0, len(b)+8)
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			out = append(out, b[i])
			i++
			continue
		}
		if r, size := utf8.DecodeRune(b[i:]); r != utf8.RuneError || size > 1 {
			out = append(out, b[i:i+size]...)
			i += size
			continue
		}
		out = append(out, "\uFFFD"...)
		i += maximalSubpart(b[i:])
	}
	return string(out)
}

// maximalSubpart returns the length of the longest prefix of b that starts a
// well-formed sequence (at least 1).
func maximalSubpart(b []byte) int {
	c := b[0]
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for k := 0; k < need && n < len(b); k++ {
		x := b[n]
		if k == 0 && (x < lo || x > hi) || k > 0 && (x < 0x80 || x > 0xBF) {
			return n
		}
		n++
	}
	return n
}
