// Package jsonscan is a small, allocation-free pull scanner over a JSON
// document held in memory (RFC 8259). Readers use it to fill columnar tables
// directly, skipping what they do not need without materialising it.
//
// Strings returned by the scanner alias the input or an internal buffer and are
// valid until the next call. Errors are *SyntaxError values with the byte
// offset of the problem; callers add the JSON path they know.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/jsprof/jsprof/internal/pages"
	"github.com/jsprof/jsprof/profile"
)

// DefaultMaxDepth bounds the nesting of arrays and objects that Skip accepts.
const DefaultMaxDepth = 10000

// SyntaxError is a malformed or unexpected JSON value at Offset.
type SyntaxError struct {
	Offset int64
	Msg    string
	Err    error // optional sentinel, e.g. ErrEOF
}

func (e *SyntaxError) Error() string { return e.Msg }
func (e *SyntaxError) Unwrap() error { return e.Err }

// ErrEOF is wrapped by errors caused by the end of the input.
var ErrEOF = errors.New("unexpected end of input")

// Scanner reads one JSON document from a byte slice.
type Scanner struct {
	data     []byte
	pos      int
	buf      []byte
	MaxDepth int

	// Release, if not nil, is called as the scanner moves through arrays
	// with each stretch of at least ReleaseStep bytes (ReleaseEvery if 0)
	// it has passed since the last call (or since SetReleaseFrom): a
	// reader of a mapped file gives the pages back. An error it returns
	// stops the scan (a cancelled context).
	Release     func(lo, hi int64) error
	ReleaseStep int
	relAt       int
	// Drop, if not nil, gives back the pages of input the scanner has
	// looked at ahead and will read again (CountElems), without counting
	// them as read.
	Drop func(lo, hi int64)
	// countedAt and counted are a count of an array's elements made
	// ahead (SetCount): CountElems at countedAt, just after that array's
	// '[', returns counted.
	countedAt, counted int
}

// ReleaseEvery is the stretch of input after which Release is called. A
// .cpuprofile is read by up to four scanners at once (the node table's two
// halves, and the samples and deltas read ahead), each holding up to this
// much of a mapped file: at 4 MB, a 20 MB profile of 3 M samples peaked
// 2.5 MB higher (6%) for the same time.
const ReleaseEvery = 1 << 20

// releaseStep returns the stretch after which Release is called.
func (s *Scanner) releaseStep() int {
	if s.ReleaseStep > 0 {
		return s.ReleaseStep
	}
	return ReleaseEvery
}

// SetReleaseFrom sets where the next stretch given to Release starts.
func (s *Scanner) SetReleaseFrom(off int64) { s.relAt = int(off) }

// ReleaseRest gives Release what the scanner has passed since the last
// stretch it gave, shorter than a step: a reader done with its part of
// the input (an array read ahead) would otherwise hold it until the whole
// input is let go.
func (s *Scanner) ReleaseRest() {
	if s.Release != nil && s.pos > s.relAt {
		_ = s.Release(int64(s.relAt), int64(s.pos))
		s.relAt = s.pos
	}
}

// SetCount tells the scanner that the array whose '[' is at offset open
// has n elements, as CountElems would count them (ArrayOpenBack counted
// them ahead): CountElems then returns n without scanning the array again.
func (s *Scanner) SetCount(open int64, n int) { s.countedAt, s.counted = int(open)+1, n }

// New returns a scanner over data.
func New(data []byte) *Scanner { return &Scanner{data: data, MaxDepth: DefaultMaxDepth} }

// Offset returns the current byte offset.
func (s *Scanner) Offset() int64 { return int64(s.pos) }

// Len returns the input length.
func (s *Scanner) Len() int { return len(s.data) }

func (s *Scanner) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: int64(s.pos), Msg: fmt.Sprintf(format, args...)}
}

func (s *Scanner) eof(what string) error {
	return &SyntaxError{Offset: int64(s.pos), Msg: "unexpected end of input in " + what, Err: ErrEOF}
}

func (s *Scanner) skipWS() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\n', '\r', '\t':
			s.pos++
		default:
			return
		}
	}
}

// Peek skips white space and returns the next byte, or 0 at the end.
func (s *Scanner) Peek() byte {
	s.skipWS()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// Kind describes the next value: one of '{', '[', '"', 'n' (null), 't', 'f',
// '0' (number) or 0 (end of input or invalid).
func (s *Scanner) Kind() byte {
	switch c := s.Peek(); c {
	case '{', '[', '"', 'n', 't', 'f':
		return c
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return '0'
	}
	return 0
}

// AtEnd reports whether only white space remains.
func (s *Scanner) AtEnd() bool { return s.Peek() == 0 && s.pos >= len(s.data) }

func (s *Scanner) describe() string {
	switch s.Kind() {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	case '0':
		return "number"
	}
	if s.pos >= len(s.data) {
		return "end of input"
	}
	return strconv.QuoteRune(rune(s.data[s.pos]))
}

// TypeError returns an error saying that want was expected at the current
// value. A literal or number cut off by the end of the input is reported as
// the end of input (ErrEOF), so that streaming readers can retry with more.
func (s *Scanner) TypeError(want string) error {
	s.skipWS()
	if s.pos >= len(s.data) || s.truncatedLiteral() {
		s.pos = len(s.data) // the input ends here
		return s.eof(want)
	}
	return s.errorf("want %s, got %s", want, s.describe())
}

// literalError reports a malformed literal where want was expected: the end
// of input if the input ends inside a literal, else a syntax error.
func (s *Scanner) literalError(want string) error {
	if c := s.Peek(); (c == 'n' || c == 't' || c == 'f') && !s.truncatedLiteral() {
		return s.errorf("invalid literal")
	}
	return s.TypeError(want)
}

// truncatedLiteral reports whether the input ends inside a literal (null,
// true, false) that starts at the current position.
func (s *Scanner) truncatedLiteral() bool {
	rest := s.data[s.pos:]
	for _, lit := range [...]string{"null", "true", "false"} {
		if len(rest) < len(lit) && string(rest) == lit[:len(rest)] {
			return true
		}
	}
	return false
}

// badNumber reports an invalid number at the current position: the end of
// input if the input ends inside it (a stream may hold the rest), else a
// syntax error.
func (s *Scanner) badNumber() error {
	for _, c := range s.data[s.pos:] {
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			return s.errorf("invalid number")
		}
	}
	s.pos = len(s.data)
	return s.eof("number")
}

// BeginObject consumes '{'.
func (s *Scanner) BeginObject() error {
	if s.Peek() != '{' {
		return s.TypeError("object")
	}
	s.pos++
	return nil
}

// NextKey reads the next member name of an object opened by BeginObject and
// the colon after it. At '}' it consumes it and returns ok=false. The key is
// valid until the next call.
func (s *Scanner) NextKey(first bool) (key []byte, ok bool, err error) {
	if key, ok := s.compactKey(first); ok {
		return key, true, nil
	}
	return s.nextKey(first)
}

// nextKey is NextKey for any member.
func (s *Scanner) nextKey(first bool) (key []byte, ok bool, err error) {
	c := s.Peek()
	if c == '}' {
		s.pos++
		return nil, false, nil
	}
	if !first {
		if c != ',' {
			if s.pos >= len(s.data) {
				return nil, false, s.eof("object")
			}
			return nil, false, s.errorf("want ',' or '}' in object, got %s", s.describe())
		}
		s.pos++
		c = s.Peek()
	}
	if c != '"' {
		if s.pos >= len(s.data) {
			return nil, false, s.eof("object")
		}
		return nil, false, s.errorf("want object member name, got %s", s.describe())
	}
	key, err = s.String()
	if err != nil {
		return nil, false, err
	}
	if s.Peek() != ':' {
		if s.pos >= len(s.data) {
			return nil, false, s.eof("object")
		}
		return nil, false, s.errorf("want ':' after object member name, got %s", s.describe())
	}
	s.pos++
	return key, true, nil
}

// compactKey is NextKey for a member written compactly, as trace writers
// and V8 write them: [,]"key": with a key of at most seven plain bytes,
// found in one word (plainStops), and no white space but before the
// ',' and the key (a pretty-printed trace's lines). It returns what
// NextKey would, or ok false, having moved nothing, for NextKey to read
// the member. A Chrome trace's events are ten such members each: the
// member loop's calls and tests were a fifth of reading one
// (docs/performance.md §5u).
func (s *Scanner) compactKey(first bool) (key []byte, ok bool) {
	d, i := s.data, SkipSpace(s.data, s.pos)
	if !first {
		if i >= len(d) || d[i] != ',' {
			return nil, false
		}
		i = SkipSpace(d, i+1)
	}
	if i+10 > len(d) || d[i] != '"' {
		return nil, false
	}
	t := plainStops(binary.LittleEndian.Uint64(d[i+1:]))
	if t == 0 {
		return nil, false
	}
	k := i + 1 + bits.TrailingZeros64(t)/8 // the first '"', '\\' or control byte
	if d[k] != '"' || d[k+1] != ':' {
		return nil, false
	}
	s.pos = k + 2
	return d[i+1 : k], true
}

// BeginArray consumes '['.
func (s *Scanner) BeginArray() error {
	if s.Peek() != '[' {
		return s.TypeError("array")
	}
	s.pos++
	return nil
}

// NextElem advances to the next element of an array opened by BeginArray. At
// ']' it consumes it and returns false.
func (s *Scanner) NextElem(first bool) (bool, error) {
	c := s.Peek()
	if c == ']' {
		s.pos++
		return false, nil
	}
	if !first {
		if c != ',' {
			if s.pos >= len(s.data) {
				return false, s.eof("array")
			}
			return false, s.errorf("want ',' or ']' in array, got %s", s.describe())
		}
		s.pos++
		if s.AtEnd() {
			return false, s.eof("array")
		}
	} else if s.pos >= len(s.data) {
		return false, s.eof("array")
	}
	if s.Release != nil && s.pos-s.relAt >= s.releaseStep() {
		if err := s.Release(int64(s.relAt), int64(s.pos)); err != nil {
			return false, err
		}
		s.relAt = s.pos
	}
	return true, nil
}

// Null consumes a null if one is next and reports whether it did.
func (s *Scanner) Null() bool {
	if s.Peek() == 'n' && s.pos+4 <= len(s.data) && string(s.data[s.pos:s.pos+4]) == "null" {
		s.pos += 4
		return true
	}
	return false
}

// Bool reads true or false.
func (s *Scanner) Bool() (bool, error) {
	c := s.Peek()
	if c == 't' && s.pos+4 <= len(s.data) && string(s.data[s.pos:s.pos+4]) == "true" {
		s.pos += 4
		return true, nil
	}
	if c == 'f' && s.pos+5 <= len(s.data) && string(s.data[s.pos:s.pos+5]) == "false" {
		s.pos += 5
		return false, nil
	}
	return false, s.literalError("boolean")
}

// String reads a string and returns its unescaped bytes, valid until the next
// call. Invalid UTF-8 is passed through; see ValidUTF8.
func (s *Scanner) String() ([]byte, error) {
	if s.Peek() != '"' {
		return nil, s.TypeError("string")
	}
	start := s.pos + 1
	d := s.data
	i := plainRun(d, start)
	for i < len(d) {
		c := d[i]
		if c == '"' {
			s.pos = i + 1
			return d[start:i], nil
		}
		if c == '\\' || c < 0x20 {
			return s.slowString(start, i)
		}
		i++
	}
	s.pos = len(d)
	return nil, s.eof("string")
}

// PlainString returns the offset of the '"' that ends the string whose
// contents start at d[i], when they are plain (no escape, no control
// character: the string is d[i:end] as it is), or −1.
func PlainString(d []byte, i int) int {
	for i = plainRun(d, i); i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			return i
		case c == '\\' || c < 0x20:
			return -1
		}
	}
	return -1
}

// PlainInt reads the integer at d[i] when it is written plainly, as
// IntRun takes them (an optional '-', 1 to 18 digits without a leading
// zero) and followed by a byte that ends it (not a digit, '.', 'e' or
// 'E'): its value and the offset after it, or ok false.
func PlainInt(d []byte, i int) (v int64, end int, ok bool) {
	j := i
	if j < len(d) && d[j] == '-' {
		j++
	}
	v, k := digitRun(d, j)
	if k == j || k-j > 1 && d[j] == '0' || k >= len(d) {
		return 0, i, false
	}
	if c := d[k]; c-'0' <= 9 || c == '.' || c == 'e' || c == 'E' {
		return 0, i, false
	}
	if j > i {
		v = -v
	}
	return v, k, true
}

// plainRun returns the offset of the first byte from i that may end a
// string's plain run ('"', '\\' or a control character), or one of the
// last 7 bytes of d: it tests eight bytes at a time, as words (the SWAR
// tests for a zero byte and for a byte below n: the lowest flagged byte
// of a word is always a true one).
func plainRun(d []byte, i int) int {
	for i+8 <= len(d) {
		if t := plainStops(binary.LittleEndian.Uint64(d[i:])); t != 0 {
			return i + bits.TrailingZeros64(t)/8
		}
		i += 8
	}
	return i
}

// plainStops flags the bytes of x that may end a string's plain run: '"',
// '\\' and control characters (the lowest flagged byte is always a true
// one).
func plainStops(x uint64) uint64 {
	return below(x^('"'*ones), 1) | below(x^('\\'*ones), 1) | below(x, 0x20)
}

// digitRun returns the value of the run of digits at d[j:], at most 18 of
// them, and the offset after it: what the loop at its end computes, but
// for a run of under eight digits with eight bytes to read, in a handful
// of word operations and no branch on the run's length. A long
// recording's samples are millions of numbers of one to five digits at
// random, and the loop's exit, mispredicted at every other number, was
// most of the time of reading them (docs/performance.md §5q). IntRun has
// it inlined by hand.
func digitRun(d []byte, j int) (v int64, k int) {
	if j+8 <= len(d) {
		x := binary.LittleEndian.Uint64(d[j:])
		if nd := nonDigits(x); nd != 0 {
			n := bits.TrailingZeros64(nd) &^ 7 // 8 × the digits before it
			return digitsValue(x, n), j + n/8
		}
	}
	return digitLoop(d, j)
}

const nibbles, threes = 0xF0F0F0F0F0F0F0F0, 0x3030303030303030

// nonDigits flags the bytes of x that are not digits (0 if all eight
// are): a digit's high nibble is 3, and still is with 6 added. The lowest
// flagged byte is always a true one (only a byte that is not a digit
// carries into the next).
func nonDigits(x uint64) uint64 { return (x&nibbles ^ threes) | ((x+6*ones)&nibbles ^ threes) }

// digitsValue returns the number written by the first n/8 bytes of x,
// which are digits: their values moved to the word's top, zeros below
// them as leading digits, then the eight digits' number (pairs, then the
// two halves' pairs of pairs). No digit's byte borrows in the subtraction.
func digitsValue(x uint64, n int) int64 {
	y := (x - threes) << (64 - n) // 0 for no digits
	y = y*10 + y>>8
	return int64(((y&0x000000FF000000FF)*(100+1000000<<32) + (y>>16&0x000000FF000000FF)*(1+10000<<32)) >> 32)
}

// digitLoop is digitRun a byte at a time.
func digitLoop(d []byte, j int) (v int64, k int) {
	for k = j; k < len(d) && k-j < 18 && d[k]-'0' <= 9; k++ {
		v = v*10 + int64(d[k]-'0')
	}
	return v, k
}

// The word-at-a-time tests of plainRun and LastIndexByte.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// below flags (high bit set) the bytes of x below n (n ≤ 128); the lowest
// flagged byte is always a true one, bytes above it may be flagged falsely.
func below(x uint64, n byte) uint64 { return (x - uint64(n)*ones) &^ x & highs }

// LastIndexByte is bytes.LastIndexByte, eight bytes at a time: Go's is a
// byte loop, and finding the '[' of a 120 MB array of numbers from its end
// took it 90 ms. A word with a candidate is checked a byte at a time (the
// zero-byte test can flag bytes above a true match).
func LastIndexByte(d []byte, c byte) int {
	i := len(d)
	for i >= 8 {
		if below(binary.LittleEndian.Uint64(d[i-8:])^(uint64(c)*ones), 1) != 0 {
			for k := i - 1; k >= i-8; k-- {
				if d[k] == c {
					return k
				}
			}
		}
		i -= 8
	}
	for i--; i >= 0; i-- {
		if d[i] == c {
			return i
		}
	}
	return -1
}

// ArrayOpenBack finds the '[' that opens the array whose ']' is at
// data[end] (the last '[' before it) and counts the array's elements as
// CountElems does, its commas plus one; −1 and 0 when there is no '['.
// A reader finds the arrays a file ends with so, scanning back from its
// end (format/v8's samples and timeDeltas): it goes back by stretches of
// ReleaseEvery bytes, and gives each stretch without the '[' to drop (when
// not nil) once scanned. Kept, the stretches scanned held the whole of a
// long recording's last two arrays in memory before their readers had
// started (a 100 MB recording: 60 MB of its file resident 35 ms in, where
// its peak is otherwise 55 MB); the readers read them again from the '[',
// whose stretch is kept.
func ArrayOpenBack(data []byte, end int, drop func(lo, hi int64)) (open, elems int) {
	commas := 0
	for hi := end; hi > 0; {
		lo := (hi - 1) &^ (ReleaseEvery - 1) // stretches on whole pages of a mapped file
		part := data[lo:hi]
		// An array of numbers holds no '[' but its own: the stretches
		// before it are told so by the vectorised forward search, at
		// several times LastIndexByte's speed (its word-at-a-time loop
		// over a 24 MB pair of arrays was 8 ms before their readers could
		// start, docs/performance.md §5q).
		if bytes.IndexByte(part, '[') >= 0 {
			i := LastIndexByte(part, '[')
			return lo + i, commas + bytes.Count(part[i+1:], []byte{','}) + 1
		}
		commas += bytes.Count(part, []byte{','})
		if drop != nil {
			drop(int64(lo), int64(hi))
		}
		hi = lo
	}
	return -1, 0
}

func (s *Scanner) slowString(start, i int) ([]byte, error) {
	d := s.data
	s.buf = append(s.buf[:0], d[start:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return s.buf, nil
		case c < 0x20:
			s.pos = i
			return nil, s.errorf("control character %#x in string", c)
		case c != '\\':
			s.buf = append(s.buf, c)
			i++
			continue
		}
		if i+1 >= len(d) {
			s.pos = len(d)
			return nil, s.eof("string")
		}
		e := d[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			s.buf = append(s.buf, e)
		case 'b':
			s.buf = append(s.buf, '\b')
		case 'f':
			s.buf = append(s.buf, '\f')
		case 'n':
			s.buf = append(s.buf, '\n')
		case 'r':
			s.buf = append(s.buf, '\r')
		case 't':
			s.buf = append(s.buf, '\t')
		case 'u':
			r, ok := hex4(d, i)
			if !ok {
				if cutHex(d[i:]) {
					s.pos = len(d)
					return nil, s.eof("string")
				}
				s.pos = i - 2
				return nil, s.errorf("invalid \\u escape in string")
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(-1), false
				if i+6 <= len(d) && d[i] == '\\' && d[i+1] == 'u' {
					r2, ok2 = hex4(d, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			s.buf = utf8.AppendRune(s.buf, r)
		default:
			s.pos = i - 2
			return nil, s.errorf("invalid escape '\\%c' in string", e)
		}
	}
	s.pos = len(d)
	return nil, s.eof("string")
}

// cutHex reports whether b, the rest of the input after \u, is fewer than
// four hex digits: an escape cut by the end of the input.
func cutHex(b []byte) bool {
	if len(b) >= 4 {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// numberEnd returns the end of the JSON number starting at i, and whether it
// has a fraction or exponent; end == i means no valid number.
func numberEnd(d []byte, i int) (end int, frac bool) {
	j := i
	if j < len(d) && d[j] == '-' {
		j++
	}
	if j >= len(d) {
		return i, false
	}
	if d[j] == '0' {
		j++
		if j < len(d) && d[j] >= '0' && d[j] <= '9' {
			return i, false // leading zero
		}
	} else if d[j] >= '1' && d[j] <= '9' {
		j = digitsEnd(d, j+1)
	} else {
		return i, false
	}
	if j < len(d) && d[j] == '.' {
		frac = true
		j++
		k := j
		if j = digitsEnd(d, j); j == k {
			return i, false
		}
	}
	if j < len(d) && (d[j] == 'e' || d[j] == 'E') {
		frac = true
		j++
		if j < len(d) && (d[j] == '+' || d[j] == '-') {
			j++
		}
		k := j
		if j = digitsEnd(d, j); j == k {
			return i, false
		}
	}
	return j, frac
}

// digitsEnd returns the offset of the first byte from j that is not a
// digit (or len(d)): eight bytes at a time (nonDigits), a trace's
// timestamps and ids being numbers of 7 to 16 digits.
func digitsEnd(d []byte, j int) int {
	for j+8 <= len(d) {
		if nd := nonDigits(binary.LittleEndian.Uint64(d[j:])); nd != 0 {
			return j + bits.TrailingZeros64(nd)/8
		}
		j += 8
	}
	for j < len(d) && d[j] >= '0' && d[j] <= '9' {
		j++
	}
	return j
}

// Float reads a number as a float64.
func (s *Scanner) Float() (float64, error) {
	if i := s.pos; i < len(s.data) && (s.data[i] == '-' || s.data[i]-'0' <= 9) {
		if f, end, ok := exactNumber(s.data, i); ok {
			s.pos = end
			return f, nil
		}
	}
	if s.Kind() != '0' {
		return 0, s.TypeError("number")
	}
	end, _ := numberEnd(s.data, s.pos)
	if end == s.pos {
		return 0, s.badNumber()
	}
	f, err := strconv.ParseFloat(string(s.data[s.pos:end]), 64)
	if err != nil {
		return 0, s.errorf("number %s out of range", s.data[s.pos:end])
	}
	s.pos = end
	return f, nil
}

// pow10 holds the powers of ten that a float64 holds exactly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// exactNumber reads the JSON number at d[i:] when it has no exponent and at
// most 15 digits (a trace's timestamps), as ParseFloat does: its digits
// make an integer below 2^53, exact as a float64, and dividing it by an
// exact power of ten rounds once, correctly (the fast path of strconv's
// own reader). It returns the number and where it ends; ok is false for
// any other number or anything not a number, which Float then reads the
// long way, with its errors.
func exactNumber(d []byte, i int) (f float64, end int, ok bool) {
	neg := i < len(d) && d[i] == '-'
	if neg {
		i++
	}
	start := i
	var m uint64
	for ; i < len(d) && d[i]-'0' <= 9; i++ {
		m = m*10 + uint64(d[i]-'0')
	}
	n := i - start
	if n == 0 || n > 1 && d[start] == '0' {
		return 0, 0, false
	}
	frac := 0
	if i < len(d) && d[i] == '.' {
		i++
		fs := i
		for ; i < len(d) && d[i]-'0' <= 9; i++ {
			m = m*10 + uint64(d[i]-'0')
		}
		if frac = i - fs; frac == 0 {
			return 0, 0, false
		}
	}
	if n+frac > 15 || i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		return 0, 0, false
	}
	f = float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, i, true
}

// Int reads an integer. A number with a fraction or exponent is accepted if
// its value is integral and fits in int64.
func (s *Scanner) Int() (int64, error) {
	d := s.data
	i := s.pos
	// Fast path: no white space, plain digits.
	if i < len(d) && (d[i] < '0' || d[i] > '9') && d[i] != '-' {
		if s.Kind() != '0' {
			return 0, s.TypeError("integer")
		}
		i = s.pos
	}
	neg := false
	j := i
	if j < len(d) && d[j] == '-' {
		neg = true
		j++
	}
	run, k := digitRun(d, j)
	v := uint64(run)
	if k-j > 1 && d[j] == '0' {
		s.pos = i
		return 0, s.errorf("invalid number (leading zero)")
	}
	if k > j && k < len(d) {
		if c := d[k]; c != '.' && c != 'e' && c != 'E' && (c < '0' || c > '9') {
			s.pos = k
			if neg {
				return -int64(v), nil
			}
			return int64(v), nil
		}
	} else if k > j && k == len(d) {
		s.pos = k
		if neg {
			return -int64(v), nil
		}
		return int64(v), nil
	}
	// Slow path: long, fractional or exponent forms.
	s.pos = i
	end, frac := numberEnd(d, i)
	if end == i {
		if s.Kind() == '0' {
			return 0, s.badNumber()
		}
		return 0, s.TypeError("integer")
	}
	if !frac {
		n, err := strconv.ParseInt(string(d[i:end]), 10, 64)
		if err != nil {
			return 0, s.errorf("integer %s out of range", d[i:end])
		}
		s.pos = end
		return n, nil
	}
	f, err := strconv.ParseFloat(string(d[i:end]), 64)
	if err != nil || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, s.errorf("want integer, got %s", d[i:end])
	}
	s.pos = end
	return int64(f), nil
}

// Ints appends the integers of an array to dst.
func (s *Scanner) Ints(dst []int64) ([]int64, error) {
	if err := s.BeginArray(); err != nil {
		return dst, err
	}
	dst = Room(dst, s.CountElems())
	for first := true; ; first = false {
		ok, err := s.NextElem(first)
		if err != nil || !ok {
			return dst, err
		}
		v, err := s.Int()
		if err != nil {
			return dst, err
		}
		dst = append(dst, v)
		dst = IntRun(s, dst, math.MaxInt64)
	}
}

// IntRun appends to dst the integers that follow the one just read, as
// long as the array is written plainly: a ',' right after a number and a
// plain integer right after it (an optional '-', 1 to 18 digits without a
// leading zero, then ',' or ']') whose magnitude is at most max. It stops
// after the last number it takes, where a loop of NextElem and Int would
// be after reading it, and before the input that Release (every
// ReleaseStep bytes) would be given: what it leaves, the caller reads
// as before, with the same values and errors. On the arrays of a long
// recording it reads a number in a third of the time. An unsigned T takes
// no negative number.
func IntRun[T int16 | uint16 | int32 | int64](s *Scanner, dst []T, max int64) []T {
	return intRun(s, dst, max, len(s.data))
}

// IntRunWithin is IntRun over at most n bytes of input: it appends at most
// n/2 integers, so that a caller reading an array in chunks of its own
// can keep them in a buffer that never grows.
func IntRunWithin[T int16 | uint16 | int32 | int64](s *Scanner, dst []T, max int64, n int) []T {
	return intRun(s, dst, max, min(len(s.data), s.pos+n))
}

func intRun[T int16 | uint16 | int32 | int64](s *Scanner, dst []T, max int64, stop int) []T {
	var zero T
	unsigned := ^zero > zero
	d := s.data
	i := s.pos
	if s.Release != nil {
		stop = min(stop, s.relAt+s.releaseStep())
	}
	for i < stop && d[i] == ',' {
		j := i + 1
		neg := j < len(d) && d[j] == '-'
		if neg {
			j++
		}
		// digitRun, inlined by hand (the call took a sixth of the time).
		var v int64
		var k int
		if j+8 <= len(d) {
			x := binary.LittleEndian.Uint64(d[j:])
			if nd := nonDigits(x); nd != 0 {
				n := bits.TrailingZeros64(nd) &^ 7
				v, k = digitsValue(x, n), j+n/8
			} else {
				v, k = digitLoop(d, j)
			}
		} else {
			v, k = digitLoop(d, j)
		}
		if k == j || k-j > 1 && d[j] == '0' || k >= len(d) || d[k] != ',' && d[k] != ']' || v > max || neg && unsigned {
			break
		}
		if neg {
			v = -v
		}
		dst = append(dst, T(v))
		i = k
	}
	s.pos = i
	return dst
}

// Ints32 is Ints for values that fit in an int32 (node ids, the bulk of a
// long recording: half the memory). fits is false, and the scanner's
// position undefined, when a value does not fit: read the array again with
// Ints.
func (s *Scanner) Ints32(dst []int32) (out []int32, fits bool, err error) {
	if err := s.BeginArray(); err != nil {
		return dst, true, err
	}
	dst = Room(dst, s.CountElems())
	ok, err := s.NextElem(true)
	if err != nil || !ok {
		return dst, true, err
	}
	v, err := s.Int()
	if err != nil {
		return dst, true, err
	}
	return s.ints32From(dst, v)
}

// ints32From reads into dst the element v just read and the rest of its
// array.
func (s *Scanner) ints32From(dst []int32, v int64) (out []int32, fits bool, err error) {
	for {
		if v != int64(int32(v)) {
			return dst, false, nil
		}
		dst = append(dst, int32(v))
		dst = IntRun(s, dst, math.MaxInt32)
		ok, err := s.NextElem(false)
		if err != nil || !ok {
			return dst, true, err
		}
		if v, err = s.Int(); err != nil {
			return dst, true, err
		}
	}
}

// Ints16 is Ints32 kept in 2 bytes each while the values allow it (node
// ids of a profile of fewer than 65,536 nodes, as uint16; time deltas of
// less than 32 ms, as int16): the values go to v16 as long as each fits a
// T, and from the first that does not, all go to v32, sized for the whole
// array (v16 nil). fits is false, and the scanner's position undefined,
// when a value does not fit an int32: read the array again with Ints.
func Ints16[T int16 | uint16](s *Scanner, dst []T) (v16 []T, v32 []int32, fits bool, err error) {
	if err := s.BeginArray(); err != nil {
		return dst, nil, true, err
	}
	n := s.CountElems()
	dst = Room(dst, n)
	var zero T
	most := int64(math.MaxInt16) // magnitude IntRun takes
	if ^zero > zero {
		most = math.MaxUint16
	}
	for first := true; ; first = false {
		ok, err := s.NextElem(first)
		if err != nil || !ok {
			return dst, nil, true, err
		}
		v, err := s.Int()
		if err != nil {
			return dst, nil, true, err
		}
		if int64(T(v)) != v {
			// Widened once, and read on in 4 bytes.
			w := Grow([]int32(nil), max(n, len(dst)+1))
			for _, x := range dst {
				w = append(w, int32(x))
			}
			v32, fits, err = s.ints32From(w, v)
			return nil, v32, fits, err
		}
		dst = append(dst, T(v))
		dst = IntRun(s, dst, most)
	}
}

// AppendScaled appends each of v times scale to w: values read with
// Ints32 (µs, say) widened to the int64 that Ints would have given (ns).
func AppendScaled(w []int64, v []int32, scale int64) []int64 {
	for _, x := range v {
		w = append(w, int64(x)*scale)
	}
	return w
}

// Grow is slices.Grow for the large arrays of numbers a reader fills. It
// allocates with make, whose memory the runtime clears in preemptible
// chunks (or not at all when it comes fresh from the OS); slices.Grow
// clears the new capacity in one call that cannot be preempted, and on a
// 220 MB array of times that kept the garbage collector's stack scan
// spinning for 0.6 s, with a core, while the pages were faulted in.
//
// The copy's pages are faulted in first, at once (pages.Populate): a copy
// is one call to memmove, which cannot be preempted either, and when it
// faulted the new array in page by page the collector spun for its whole
// length, signalling the copying thread at every fault (the typescript
// shape as a trace: 7% of the process in the collector's spin and 6% in
// the signals' delivery, its raw nodes' growths 58 ms a run;
// docs/performance.md §5s).
func Grow[S ~[]E, E any](s S, n int) S {
	// Room for n more: a capacity of len(s)+n. (It subtracted the room
	// already there from n first, and so gave a slice with some room but
	// less than n too little: a trace's second profile sliced its node
	// table past the capacity Room gave it and panicked; found by
	// FuzzWriters, testdata/fuzz/FuzzWriters/2f2ee660ea68d829.)
	if cap(s)-len(s) < n {
		grown := make(S, len(s), len(s)+n)
		pages.Populate(pages.Bytes(grown))
		copy(grown, s)
		return grown
	}
	return s
}

// Room returns dst with room for n more elements: exactly n when dst is
// empty (a whole array, sized from its count), else at least doubled, as
// append grows. Many small arrays appended one by one to one slice (the
// children of a trace's nodes, chunk after chunk) otherwise copy it
// whole at each array.
func Room[S ~[]E, E any](dst S, n int) S {
	if len(dst) > 0 && cap(dst)-len(dst) < n {
		n = max(n, cap(dst))
	}
	return Grow(dst, n)
}

// CountElems estimates the number of elements of the array of numbers the
// scanner is in (just after its '['): the commas before the next ']', plus
// one. It sizes the slice the elements go to, so that a million numbers are
// not appended through growths that allocate five times their size; for an
// array of anything else it is only a guess. Go's bytes functions scan at
// memory speed.
//
// The array is counted by stretches of ReleaseEvery bytes and, with Drop
// set, each stretch after the first is dropped once counted: counting the
// samples of a 246 MB recording otherwise brings the whole file into
// memory ahead of the reader, which gives it back only as it goes.
func (s *Scanner) CountElems() int {
	if s.counted > 0 && s.pos == s.countedAt {
		return s.counted
	}
	rest := s.data[s.pos:]
	n := 0
	for off := 0; off < len(rest); off += ReleaseEvery {
		part := rest[off:min(off+ReleaseEvery, len(rest))]
		if end := bytes.IndexByte(part, ']'); end >= 0 {
			return n + bytes.Count(part[:end], []byte{','}) + 1
		}
		n += bytes.Count(part, []byte{','})
		if off > 0 && s.Drop != nil {
			s.Drop(int64(s.pos+off), int64(s.pos+off+len(part)))
		}
	}
	return 0
}

// CountByte counts c in the input's bytes [lo, hi), by stretches of
// ReleaseEvery bytes and, with Drop set, dropping each stretch after the
// first once counted, as CountElems does: a count of a 48 MB node table
// ahead of its reading otherwise holds all of it in memory at once.
func (s *Scanner) CountByte(c byte, lo, hi int64) int {
	n := 0
	for off := lo; off < hi; off += ReleaseEvery {
		end := min(off+ReleaseEvery, hi)
		n += bytes.Count(s.data[off:end], []byte{c})
		if off > lo && s.Drop != nil {
			s.Drop(off, end)
		}
	}
	return n
}

// Skip skips one value of any kind, checking its syntax.
func (s *Scanner) Skip() error {
	// A valid value is passed over in one loop (skipValid); an invalid
	// one, or one it does not take, is scanned again below, which finds
	// the error and says where.
	if end, ok := skipValid(s.data, s.pos, s.MaxDepth); ok {
		s.pos = end
		return nil
	}
	return s.skipChecked()
}

// skipValid returns the end of the JSON value at d[i] (after white space)
// and true, when the value is valid and nested at most maxDepth and 64
// deep: what skipChecked accepts, ending at the same byte. Otherwise it
// returns false, and skipChecked finds what is wrong. It is Skip's loop
// without its calls: a trace's event arguments are mostly skipped (10% of
// web-dev's reading, 19% of a trace of a large profile's, whose chunks'
// nodes go by here before they are read).
func skipValid(d []byte, i, maxDepth int) (int, bool) {
	var objs uint64 // bit k: the container at depth k is an object
	depth := 0
	for {
		i = SkipSpace(d, i)
		if i >= len(d) {
			return i, false
		}
		switch c := d[i]; c {
		case '{', '[':
			if depth >= maxDepth || depth >= 64 {
				return i, false
			}
			i++
			i = SkipSpace(d, i)
			if i < len(d) && d[i] == c+2 { // '}' or ']': empty
				i++
				break
			}
			if c == '[' {
				objs &^= 1 << depth
				depth++
				continue
			}
			objs |= 1 << depth
			depth++
			var ok bool
			if i, ok = skipKeyValid(d, i); !ok {
				return i, false
			}
			continue
		case '"':
			var ok bool
			if i, ok = skipStringValid(d, i); !ok {
				return i, false
			}
		case 'n', 't', 'f':
			lit := "null"
			if c == 't' {
				lit = "true"
			} else if c == 'f' {
				lit = "false"
			}
			if i+len(lit) > len(d) || string(d[i:i+len(lit)]) != lit {
				return i, false
			}
			i += len(lit)
		default:
			end, _ := numberEnd(d, i)
			if end == i {
				return i, false
			}
			i = end
		}
		// A value ended: close containers, or move to the next member.
		for {
			if depth == 0 {
				return i, true
			}
			i = SkipSpace(d, i)
			if i >= len(d) {
				return i, false
			}
			obj := objs>>(depth-1)&1 != 0
			if c := d[i]; obj && c == '}' || !obj && c == ']' {
				i++
				depth--
				continue
			} else if c != ',' {
				return i, false
			}
			i++
			if obj {
				i = SkipSpace(d, i)
				var ok bool
				if i, ok = skipKeyValid(d, i); !ok {
					return i, false
				}
			}
			break
		}
	}
}

// skipKeyValid is skipValid for a member name and its ':' at d[i].
func skipKeyValid(d []byte, i int) (int, bool) {
	if i >= len(d) || d[i] != '"' {
		return i, false
	}
	i, ok := skipStringValid(d, i)
	if !ok {
		return i, false
	}
	i = SkipSpace(d, i)
	if i >= len(d) || d[i] != ':' {
		return i, false
	}
	return i + 1, true
}

// skipStringValid is skipValid for the string at d[i] ('"'): the checks of
// skipString (and String's, which are the same), without its errors.
func skipStringValid(d []byte, i int) (int, bool) {
	i++
	for i < len(d) {
		if i = plainRun(d, i); i >= len(d) {
			break
		}
		switch c := d[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			if i+1 >= len(d) {
				return i, false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(d, i+2); !ok {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		case c < 0x20:
			return i, false
		default:
			i++
		}
	}
	return i, false
}

// skipChecked is Skip's checked form, which says where a value is wrong.
func (s *Scanner) skipChecked() error {
	var stack []byte // expected closers
	for {
		switch s.Kind() {
		case '{':
			if len(stack) >= s.MaxDepth {
				return s.errorf("nesting deeper than %d", s.MaxDepth)
			}
			s.pos++
			stack = append(stack, '}')
			if s.Peek() == '}' {
				s.pos++
				stack = stack[:len(stack)-1]
				break
			}
			if _, _, err := s.NextKey(true); err != nil {
				return err
			}
			continue
		case '[':
			if len(stack) >= s.MaxDepth {
				return s.errorf("nesting deeper than %d", s.MaxDepth)
			}
			s.pos++
			stack = append(stack, ']')
			if s.Peek() == ']' {
				s.pos++
				stack = stack[:len(stack)-1]
				break
			}
			continue
		case '"':
			if err := s.skipString(); err != nil {
				return err
			}
		case 'n':
			if !s.Null() {
				return s.literalError("null")
			}
		case 't', 'f':
			if _, err := s.Bool(); err != nil {
				return err
			}
		case '0':
			end, _ := numberEnd(s.data, s.pos)
			if end == s.pos {
				return s.badNumber()
			}
			s.pos = end
		default:
			return s.TypeError("value")
		}
		// A value ended: close containers or move to the next member.
		for len(stack) > 0 {
			closer := stack[len(stack)-1]
			c := s.Peek()
			if c == closer {
				s.pos++
				stack = stack[:len(stack)-1]
				continue
			}
			if c != ',' {
				if s.pos >= len(s.data) {
					return s.eof("value")
				}
				return s.errorf("want ',' or '%c', got %s", closer, s.describe())
			}
			s.pos++
			if closer == '}' {
				// After a comma a member must follow: NextKey would take a
				// '}' as the end of the object (a trailing comma).
				if c := s.Peek(); c != '"' {
					if c == 0 && s.pos >= len(s.data) {
						return s.eof("object")
					}
					return s.errorf("want object member name after ',', got %s", s.describe())
				}
				if _, _, err := s.NextKey(true); err != nil {
					return err
				}
			}
			break
		}
		if len(stack) == 0 {
			return nil
		}
	}
}

func (s *Scanner) skipString() error {
	d := s.data
	i := s.pos + 1
	for i < len(d) {
		if i = plainRun(d, i); i >= len(d) {
			break
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			return nil
		case c == '\\':
			if i+1 >= len(d) {
				s.pos = len(d)
				return s.eof("string")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if _, ok := hex4(d, i+2); !ok {
					if cutHex(d[i+2:]) {
						s.pos = len(d)
						return s.eof("string")
					}
					s.pos = i
					return s.errorf("invalid \\u escape in string")
				}
				i += 6
			default:
				s.pos = i
				return s.errorf("invalid escape '\\%c' in string", d[i+1])
			}
		case c < 0x20:
			s.pos = i
			return s.errorf("control character %#x in string", c)
		default:
			i++
		}
	}
	s.pos = len(d)
	return s.eof("string")
}

// SetOffset moves the scanner to byte offset off.
func (s *Scanner) SetOffset(off int64) { s.pos = int(off) }

// Raw returns the input bytes [start, end).
func (s *Scanner) Raw(start, end int64) []byte { return s.data[start:end] }

// Reset makes s scan data from its start, keeping MaxDepth and buffers.
func (s *Scanner) Reset(data []byte) {
	s.data, s.pos = data, 0
}

// Locate turns an error met while scanning into a *profile.ParseError at
// path: a SyntaxError gives its own offset (else off is used), and the end
// of input is reported as profile.ErrTruncated.
func Locate(err error, off int64, path string) *profile.ParseError {
	var se *SyntaxError
	if errors.As(err, &se) {
		off = se.Offset
		if errors.Is(err, ErrEOF) {
			err = fmt.Errorf("%w%s", profile.ErrTruncated, strings.TrimPrefix(se.Msg, ErrEOF.Error()))
		}
	}
	return &profile.ParseError{Offset: off, Path: path, Err: err}
}

// SkipSpace returns the index of the first byte at or after i that is not
// JSON white space (len(data) if none).
func SkipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// SkipSpaceBack returns the index of the last byte at or before i that is
// not JSON white space (−1 if none).
func SkipSpaceBack(data []byte, i int) int {
	for i >= 0 && isSpace(data[i]) {
		i--
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// ElementStart guesses where an element of an array of objects starts, to
// read a large array in parts: the offset of the first '{' at or after
// from, within a megabyte, that follows '}' and ',' (white space between)
// and whose first member is one of keys; −1 if there is none. Those bytes
// cannot sit inside a string: a '"' right after the '{' would end it, and
// a member name cannot follow the end of a string in valid JSON. Which
// array the element is in, the reader must check.
func ElementStart(data []byte, from int, keys ...string) int {
	end := min(len(data), from+1<<20)
	for i := from; i < end; {
		k := bytes.IndexByte(data[i:end], '{')
		if k < 0 {
			return -1
		}
		at := i + k
		i = at + 1
		b := SkipSpaceBack(data, at-1)
		if b < 0 || data[b] != ',' {
			continue
		}
		if b = SkipSpaceBack(data, b-1); b < 0 || data[b] != '}' {
			continue
		}
		f := SkipSpace(data, at+1)
		for _, key := range keys {
			if e := f + 1 + len(key); e < len(data) && data[f] == '"' && data[e] == '"' && string(data[f+1:e]) == key {
				return at
			}
		}
	}
	return -1
}
