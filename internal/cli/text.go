package cli

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jsprof/jsprof/profile"
)

// visible returns s as people should see it and can type it back: as it
// is, but with control characters, invalid UTF-8 and the bidi controls that
// reorder text made visible as Go escapes (\x00, \u202e, \xff).
func visible(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unit is a time unit for a table of times.
type unit struct {
	name string
	ns   float64
}

var (
	unitUs = unit{"µs", 1e3}
	unitMs = unit{"ms", 1e6}
	unitS  = unit{"s", 1e9}
)

// unitFor picks the unit of a table whose largest time is max: seconds
// from 100 s up (so that columns keep their width), µs under 1 ms, else ms.
func unitFor(max profile.Time) unit {
	switch {
	case max >= 100e9:
		return unitS
	case max < 1e6 && max > 0:
		return unitUs
	}
	return unitMs
}

// fmt formats t in u with three decimals.
func (u unit) fmt(t profile.Time) string { return fmt.Sprintf("%.3f", float64(t)/u.ns) }

// appendPadded appends u.fmt(t) padded on the left to width bytes, as
// fmt's %*s does.
func (u unit) appendPadded(b []byte, t profile.Time, width int) []byte {
	var num [32]byte
	return appendPadded(b, strconv.AppendFloat(num[:0], float64(t)/u.ns, 'f', 3, 64), width)
}

// appendPadded appends s padded on the left with spaces to width bytes.
func appendPadded(b, s []byte, width int) []byte {
	for i := len(s); i < width; i++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}

// header returns a column header such as "self ms" for u.
func (u unit) header(what string) string { return what + " " + u.name }

// duration formats a single duration with a unit that suits it.
func duration(t profile.Time) string {
	u := unitFor(t)
	return u.fmt(t) + " " + u.name
}
