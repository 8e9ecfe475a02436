// Package jsonw appends JSON values to byte slices: strings escaped for any
// input (hostile names and URLs included) and exact decimal times from
// integer nanoseconds.
package jsonw

import (
	"strconv"
	"unicode/utf8"
)

const hex = "0123456789abcdef"

// String appends s as a JSON string. Invalid UTF-8 becomes U+FFFD; control
// characters, '<', '>' and '&' are escaped so the output is also safe to embed
// in HTML.
func String(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Fixed appends v/10^digits as an exact decimal with trailing zeros trimmed:
// Fixed(dst, 1234567, 3) appends 1234.567.
func Fixed(dst []byte, v int64, digits int) []byte {
	if v < 0 {
		dst = append(dst, '-')
		if v == -v { // math.MinInt64
			return strconv.AppendFloat(dst[:len(dst)-1], float64(v), 'f', -1, 64)
		}
		v = -v
	}
	pow := int64(1)
	for range digits {
		pow *= 10
	}
	dst = strconv.AppendInt(dst, v/pow, 10)
	frac := v % pow
	if frac == 0 {
		return dst
	}
	dst = append(dst, '.')
	var buf [20]byte
	n := digits
	for k := n - 1; k >= 0; k-- {
		buf[k] = byte('0' + frac%10)
		frac /= 10
	}
	for n > 0 && buf[n-1] == '0' {
		n--
	}
	return append(dst, buf[:n]...)
}

// Micros appends nanoseconds ns as microseconds.
func Micros(dst []byte, ns int64) []byte { return Fixed(dst, ns, 3) }

// Millis appends nanoseconds ns as milliseconds.
func Millis(dst []byte, ns int64) []byte { return Fixed(dst, ns, 6) }
