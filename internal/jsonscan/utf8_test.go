package jsonscan

import "testing"

// The WHATWG "maximal subpart" replacement (Unicode §3.9, U+FFFD substitution
// of maximal subparts), as Node's TextDecoder produces it.
func TestToValidUTF8(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"abc", "abc"},
		{"a\xffb", "a\uFFFDb"},
		{"\xff\xfe", "\uFFFD\uFFFD"},           // two invalid bytes: two replacements
		{"\xe2\x82", "\uFFFD"},                 // a truncated 3-byte sequence: one
		{"\xe2\x82x", "\uFFFDx"},               // … followed by ASCII
		{"\xe0\x80\x80", "\uFFFD\uFFFD\uFFFD"}, // overlong: E0 needs A0..BF next
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // a surrogate
		{"\xf0\x9f\x98", "\uFFFD"},             // a truncated 4-byte sequence
		{"\xf4\x90\x80\x80", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"é€😀", "é€😀"},
	} {
		if got := ToValidUTF8([]byte(tc.in)); got != tc.want {
			t.Errorf("ToValidUTF8(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
