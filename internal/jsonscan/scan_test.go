package jsonscan_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/jsonscan"
)

// problems collects what a case got wrong.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// report fails t with the problems. bug names the bug a case was written
// for, now fixed: it is reported with the problems, so that a regression
// says what came back.
func (p problems) report(t *testing.T, bug string) {
	t.Helper()
	if len(p) == 0 {
		return
	}
	if bug != "" {
		t.Errorf("a bug fixed before is back: %s\n%s", bug, strings.Join(p, "\n"))
		return
	}
	t.Error(strings.Join(p, "\n"))
}

// catch runs f and records a panic as a problem.
func (p *problems) catch(f func()) {
	defer func() {
		if r := recover(); r != nil {
			p.add("panic: %v", r)
		}
	}()
	f()
}

// checkErr records a problem unless err is a *jsonscan.SyntaxError at offset
// off whose message matches the regexp msg in full, and wraps ErrEOF exactly
// when eof is set.
func (p *problems) checkErr(err error, off int64, msg string, eof bool) {
	var se *jsonscan.SyntaxError
	if !errors.As(err, &se) {
		p.add("got error %v (%T), want a *jsonscan.SyntaxError %q", err, err, msg)
		return
	}
	if se.Offset != off {
		p.add("got offset %d, want %d (error %q)", se.Offset, off, se.Msg)
	}
	if !regexp.MustCompile("^(?:" + msg + ")$").MatchString(se.Error()) {
		p.add("got error %q, want match for %q", se.Error(), msg)
	}
	if errors.Is(err, jsonscan.ErrEOF) != eof {
		p.add("got errors.Is(err, ErrEOF) = %t, want %t (error %q)", !eof, eof, se.Msg)
	}
}

// Bugs the scanner had, each fixed; the cases that name them guard against
// their return.
const (
	bugSkipEscapes = "Skip (skipString) does not check escapes: it accepts \"\\q\" and \"\\u12\", which json.Valid rejects"
	bugNULIsEOF    = "a NUL byte in the input is taken for the end of the input (Peek returns 0 for both)"
	bugLeadingZero = "numberEnd accepts the 0 of \"01\" as a whole number, so Float and Skip read \"01\" as 0 (leaving the 1), and Int reads \"01\" at the end of the input as 1"
	bugCutEscape   = "a \\u escape cut by the end of the input is an invalid escape, not the end of input (ErrEOF), which streaming readers need to read on"
	bugBadLiteral  = "a malformed literal is described by its first byte: \"tru]\" gives \"want boolean, got boolean\", \"nul]\" \"want null, got null\""
)

func TestString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    string // the unescaped value, when wantErr is ""
		end     int64  // offset after the value, or of the error
		wantErr string // regexp for the whole message
		bug     string
	}{
		{name: "plain", in: `"abc" `, want: "abc", end: 5},
		{name: "empty", in: `""`, want: "", end: 2},
		{name: "leading space", in: " \t\r\n\"x\"", want: "x", end: 7},
		{name: "simple escapes", in: `"\"\\\/\b\f\n\r\t"`, want: "\"\\/\b\f\n\r\t", end: 18},
		{name: "escape after plain", in: `"ab\ncd"`, want: "ab\ncd", end: 8},
		{name: "u escape", in: `"\u00e9\u20AC"`, want: "é€", end: 14},
		{name: "u escape nul", in: `"a\u0000b"`, want: "a\x00b", end: 10},
		{name: "surrogate pair", in: `"\ud83d\ude00"`, want: "😀", end: 14},
		{name: "lone high surrogate", in: `"\ud83dx"`, want: "\uFFFDx", end: 9},
		{name: "lone low surrogate", in: `"\ude00"`, want: "\uFFFD", end: 8},
		{name: "high surrogate then other escape", in: `"\ud83d\u0041"`, want: "\uFFFDA", end: 14},
		{name: "two high surrogates then low", in: `"\ud83d\ud83d\ude00"`, want: "\uFFFD😀", end: 20},
		{name: "high surrogate at end", in: `"\ud83d"`, want: "\uFFFD", end: 8},
		{name: "raw utf8", in: `"héllo"`, want: "héllo", end: 8},
		{name: "invalid utf8 passed through", in: "\"a\xffb\"", want: "a\xffb", end: 5},
		{name: "DEL is not a control character", in: "\"\x7f\"", want: "\x7f", end: 3},
		{name: "invalid escape", in: `"ab\qc"`, end: 3, wantErr: `invalid escape '\\q' in string`},
		{name: "invalid escape after escape", in: `"\n\x"`, end: 3, wantErr: `invalid escape '\\x' in string`},
		{name: "short u escape", in: `"\u12"`, end: 1, wantErr: `invalid \\u escape in string`},
		{name: "non-hex u escape", in: `"\u12g4"`, end: 1, wantErr: `invalid \\u escape in string`},
		{name: "upper-case U escape", in: `"\U0041"`, end: 1, wantErr: `invalid escape '\\U' in string`},
		{name: "newline", in: "\"a\nb\"", end: 2, wantErr: `control character 0xa in string`},
		{name: "control character after escape", in: "\"\\t\x01\"", end: 3, wantErr: `control character 0x1 in string`},
		{name: "tab", in: "\"\t\"", end: 1, wantErr: `control character 0x9 in string`},
		{name: "unterminated", in: `"abc`, end: 4, wantErr: `unexpected end of input in string`},
		{name: "unterminated after escape", in: `"a\n`, end: 4, wantErr: `unexpected end of input in string`},
		{name: "backslash at end", in: `"a\`, end: 3, wantErr: `unexpected end of input in string`},
		{name: "u escape cut by the end", in: `"a\u12`, end: 6, wantErr: `unexpected end of input in string`, bug: bugCutEscape},
		{name: "u escape cut after u", in: `"\u`, end: 3, wantErr: `unexpected end of input in string`, bug: bugCutEscape},
		{name: "low surrogate cut by the end", in: `"\ud83d\ude0`, end: 12, wantErr: `unexpected end of input in string`, bug: bugCutEscape},
		{name: "not a string", in: ` 12`, end: 1, wantErr: `want string, got number`},
		{name: "empty input", in: ``, end: 0, wantErr: `unexpected end of input in string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var p problems
			s := jsonscan.New([]byte(tt.in))
			got, err := s.String()
			switch {
			case tt.wantErr != "":
				p.checkErr(err, tt.end, tt.wantErr, strings.Contains(tt.wantErr, "end of input"))
			case err != nil:
				p.add("got error %v, want %q", err, tt.want)
			default:
				if string(got) != tt.want {
					p.add("got %q, want %q", got, tt.want)
				}
				if s.Offset() != tt.end {
					p.add("got offset %d after the string, want %d", s.Offset(), tt.end)
				}
				var std string
				if utf8.ValidString(tt.in) && json.Unmarshal([]byte(tt.in), &std) == nil && std != string(got) {
					p.add("encoding/json decodes %q, the scanner %q", std, got)
				}
			}
			p.report(t, tt.bug)
		})
	}
}

func TestInt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    int64
		end     int64 // offset after the value, or of the error
		wantErr string
		bug     string
	}{
		{name: "fast path at end", in: `123`, want: 123, end: 3},
		{name: "fast path before comma", in: `123,`, want: 123, end: 3},
		{name: "white space first", in: " \n42 ", want: 42, end: 4},
		{name: "negative", in: `-7]`, want: -7, end: 2},
		{name: "zero", in: `0`, want: 0, end: 1},
		{name: "minus zero", in: `-0,`, want: 0, end: 2},
		{name: "stops at a non-number byte", in: `1x`, want: 1, end: 1},
		{name: "18 digits", in: `999999999999999999,`, want: 999999999999999999, end: 18},
		{name: "19 digits", in: `1234567890123456789,`, want: 1234567890123456789, end: 19},
		{name: "max int64", in: `9223372036854775807`, want: math.MaxInt64, end: 19},
		{name: "min int64", in: `-9223372036854775808]`, want: math.MinInt64, end: 20},
		{name: "exponent", in: `1e3,`, want: 1000, end: 3},
		{name: "signed exponent", in: `1E+3`, want: 1000, end: 4},
		{name: "integral fraction", in: `2.0 `, want: 2, end: 3},
		{name: "negative exponent integral", in: `-1.5e1`, want: -15, end: 6},
		{name: "fraction", in: `1.5`, end: 0, wantErr: `want integer, got 1\.5`},
		{name: "negative exponent", in: `1e-1`, end: 0, wantErr: `want integer, got 1e-1`},
		{name: "leading zero", in: `01,`, end: 0, wantErr: `invalid number \(leading zero\)`},
		{name: "negative leading zero", in: `-01,`, end: 0, wantErr: `invalid number \(leading zero\)`},
		{name: "double zero", in: `00]`, end: 0, wantErr: `invalid number \(leading zero\)`},
		{name: "leading zero at end", in: `01`, end: 0, wantErr: `invalid number \(leading zero\)`, bug: bugLeadingZero},
		{name: "overflow", in: `9223372036854775808`, end: 0, wantErr: `integer 9223372036854775808 out of range`},
		{name: "negative overflow", in: `-9223372036854775809`, end: 0, wantErr: `integer -9223372036854775809 out of range`},
		{name: "long overflow", in: `123456789012345678901234567890,`, end: 0, wantErr: `integer 123456789012345678901234567890 out of range`},
		{name: "exponent overflow", in: `1e19`, end: 0, wantErr: `want integer, got 1e19`},
		{name: "exponent 2^63", in: `9.223372036854775808e18`, end: 0, wantErr: `want integer, got 9\.223372036854775808e18`},
		{name: "huge exponent", in: `1e400`, end: 0, wantErr: `want integer, got 1e400`},
		{name: "string", in: ` "1"`, end: 1, wantErr: `want integer, got string`},
		{name: "boolean", in: `true`, end: 0, wantErr: `want integer, got boolean`},
		{name: "array", in: `[1]`, end: 0, wantErr: `want integer, got array`},
		{name: "stray byte", in: `x`, end: 0, wantErr: `want integer, got 'x'`},
		{name: "end of input", in: ` `, end: 1, wantErr: `unexpected end of input in integer`},
		{name: "lone minus", in: `-,`, end: 0, wantErr: `invalid number`},
		{name: "bare point", in: `1.,`, end: 0, wantErr: `invalid number`},
		{name: "cut after point", in: `1.`, end: 2, wantErr: `unexpected end of input in number`},
		{name: "cut literal", in: `tr`, end: 2, wantErr: `unexpected end of input in integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var p problems
			p.catch(func() {
				s := jsonscan.New([]byte(tt.in))
				got, err := s.Int()
				switch {
				case tt.wantErr != "":
					if err == nil {
						p.add("got %d, want error %q", got, tt.wantErr)
						return
					}
					p.checkErr(err, tt.end, tt.wantErr, strings.Contains(tt.wantErr, "end of input"))
				case err != nil:
					p.add("got error %v, want %d", err, tt.want)
				default:
					if got != tt.want {
						p.add("got %d, want %d", got, tt.want)
					}
					if s.Offset() != tt.end {
						p.add("got offset %d after the integer, want %d", s.Offset(), tt.end)
					}
				}
			})
			p.report(t, tt.bug)
		})
	}
}

func TestFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    float64
		end     int64
		wantErr string
		bug     string
	}{
		{name: "integer", in: `12`, want: 12, end: 2},
		{name: "fraction", in: `1.5,`, want: 1.5, end: 3},
		{name: "negative zero", in: `-0.0`, want: math.Copysign(0, -1), end: 4},
		{name: "exponent", in: `2.5e-3]`, want: 0.0025, end: 6},
		{name: "white space first", in: "\t7E2", want: 700, end: 4},
		{name: "largest", in: `1.7976931348623157e308`, want: math.MaxFloat64, end: 22},
		{name: "smallest", in: `5e-324`, want: 5e-324, end: 6},
		{name: "underflow to zero", in: `1e-400`, want: 0, end: 6},
		{name: "epoch microseconds", in: `1700000000123456.5`, want: 1700000000123456.5, end: 18},
		{name: "overflow", in: `1e309`, end: 0, wantErr: `number 1e309 out of range`},
		{name: "lone minus", in: `-x`, end: 0, wantErr: `invalid number`},
		{name: "bare point", in: `1.,`, end: 0, wantErr: `invalid number`},
		{name: "bare exponent", in: `1e+]`, end: 0, wantErr: `invalid number`},
		{name: "cut after minus", in: `-`, end: 1, wantErr: `unexpected end of input in number`},
		{name: "cut after point", in: ` 1.`, end: 3, wantErr: `unexpected end of input in number`},
		{name: "cut after exponent sign", in: `1e+`, end: 3, wantErr: `unexpected end of input in number`},
		{name: "leading point", in: `.5`, end: 0, wantErr: `want number, got '\.'`},
		{name: "plus sign", in: `+1`, end: 0, wantErr: `want number, got '\+'`},
		{name: "string", in: `"1"`, end: 0, wantErr: `want number, got string`},
		{name: "null", in: `null`, end: 0, wantErr: `want number, got null`},
		{name: "end of input", in: ``, end: 0, wantErr: `unexpected end of input in number`},
		{name: "leading zero", in: `01,`, end: 0, wantErr: `invalid number`, bug: bugLeadingZero},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var p problems
			s := jsonscan.New([]byte(tt.in))
			got, err := s.Float()
			switch {
			case tt.wantErr != "":
				if err == nil {
					p.add("got %v, want error %q", got, tt.wantErr)
					break
				}
				p.checkErr(err, tt.end, tt.wantErr, strings.Contains(tt.wantErr, "end of input"))
			case err != nil:
				p.add("got error %v, want %v", err, tt.want)
			default:
				if got != tt.want || math.Signbit(got) != math.Signbit(tt.want) {
					p.add("got %v, want %v", got, tt.want)
				}
				if s.Offset() != tt.end {
					p.add("got offset %d after the number, want %d", s.Offset(), tt.end)
				}
			}
			p.report(t, tt.bug)
		})
	}
}

func TestInts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		dst     []int64
		want    []int64
		end     int64
		wantErr string
	}{
		{name: "plain", in: `[1,2,3]`, want: []int64{1, 2, 3}, end: 7},
		{name: "spaced", in: " [ 1 , -2 ,\n3 ] ", want: []int64{1, -2, 3}, end: 15},
		{name: "empty", in: `[]`, want: nil, end: 2},
		{name: "empty spaced", in: `[ ]`, want: nil, end: 3},
		{name: "appends", in: `[5]`, dst: []int64{9}, want: []int64{9, 5}, end: 3},
		{name: "integral forms", in: `[1e2,3.0]`, want: []int64{100, 3}, end: 9},
		{name: "trailing comma", in: `[1,]`, want: []int64{1}, end: 3, wantErr: `want integer, got '\]'`},
		{name: "missing comma", in: `[1 2]`, want: []int64{1}, end: 3, wantErr: `want ',' or '\]' in array, got number`},
		{name: "fraction", in: `[1,1.5]`, want: []int64{1}, end: 3, wantErr: `want integer, got 1\.5`},
		{name: "string element", in: `[1,"2"]`, want: []int64{1}, end: 3, wantErr: `want integer, got string`},
		{name: "nested array", in: `[[1]]`, want: nil, end: 1, wantErr: `want integer, got array`},
		{name: "truncated after comma", in: `[1,`, want: []int64{1}, end: 3, wantErr: `unexpected end of input in array`},
		{name: "truncated after element", in: `[1`, want: []int64{1}, end: 2, wantErr: `unexpected end of input in array`},
		{name: "truncated after bracket", in: `[`, want: nil, end: 1, wantErr: `unexpected end of input in array`},
		{name: "object", in: `{}`, want: nil, end: 0, wantErr: `want array, got object`},
		{name: "null", in: `null`, want: nil, end: 0, wantErr: `want array, got null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var p problems
			s := jsonscan.New([]byte(tt.in))
			got, err := s.Ints(tt.dst)
			if tt.wantErr != "" {
				p.checkErr(err, tt.end, tt.wantErr, strings.Contains(tt.wantErr, "end of input"))
			} else if err != nil {
				p.add("got error %v, want %v", err, tt.want)
			} else if s.Offset() != tt.end {
				p.add("got offset %d after the array, want %d", s.Offset(), tt.end)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				p.add("got %v, want %v", got, tt.want)
			}
			p.report(t, "")
		})
	}
}

// TestIntsAppendGrowth checks that arrays read one after another into one
// slice grow it as append does (a trace's node children, chunk after
// chunk), not to the exact size at each array, which copied the whole
// slice every time; and that an array read into an empty slice gets
// exactly its size.
func TestIntsAppendGrowth(t *testing.T) {
	t.Parallel()
	var dst []int64
	var dst32 []int32
	grew, grew32 := 0, 0
	const arrays = 10_000
	for range arrays {
		c, c32 := cap(dst), cap(dst32)
		var err error
		var fits bool
		if dst, err = jsonscan.New([]byte(`[1,2,3]`)).Ints(dst); err != nil {
			t.Fatal(err)
		}
		if dst32, fits, err = jsonscan.New([]byte(`[1,2,3]`)).Ints32(dst32); err != nil || !fits {
			t.Fatal(err, fits)
		}
		if cap(dst) != c {
			grew++
		}
		if cap(dst32) != c32 {
			grew32++
		}
	}
	if len(dst) != 3*arrays || len(dst32) != 3*arrays {
		t.Fatalf("got %d and %d values, want %d", len(dst), len(dst32), 3*arrays)
	}
	if grew > 20 || grew32 > 20 {
		t.Errorf("%d arrays of 3 read into one slice grew it %d times ([]int64) and %d times ([]int32), want at most 20", arrays, grew, grew32)
	}
	if got, err := jsonscan.New([]byte(`[1,2,3,4,5]`)).Ints(nil); err != nil || cap(got) != 5 {
		t.Errorf("an array of 5 read into nil: capacity %d (error %v), want 5", cap(got), err)
	}
}

// TestObjectWalk reads a whole document with BeginObject, NextKey and Skip.
func TestObjectWalk(t *testing.T) {
	t.Parallel()
	s := jsonscan.New([]byte(` { "a" : 1 , "b\u00e9":[true,null,{"c":"d"}], "e":{} } `))
	if err := s.BeginObject(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for first := true; ; first = false {
		key, ok, err := s.NextKey(first)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		keys = append(keys, string(key))
		if err := s.Skip(); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := strings.Join(keys, ","), "a,bé,e"; got != want {
		t.Errorf("got keys %s, want %s", got, want)
	}
	if !s.AtEnd() {
		t.Errorf("got offset %d after the object, want the end (%d)", s.Offset(), s.Len())
	}
}

// TestStructureErrors checks the messages and offsets of NextKey and NextElem
// errors. Each input is walked as far as it goes: objects with NextKey and
// Skip, arrays with NextElem and Skip.
func TestStructureErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		off     int64
		wantErr string
		bug     string
	}{
		{name: "missing colon", in: `{"a" 1}`, off: 5, wantErr: `want ':' after object member name, got number`},
		{name: "missing comma in object", in: `{"a":1 "b":2}`, off: 7, wantErr: `want ',' or '\}' in object, got string`},
		{name: "number as key", in: `{1:2}`, off: 1, wantErr: `want object member name, got number`},
		{name: "trailing comma in object", in: `{"a":1,}`, off: 7, wantErr: `want object member name, got '\}'`},
		{name: "comma first in object", in: `{,"a":1}`, off: 1, wantErr: `want object member name, got ','`},
		{name: "object truncated after brace", in: `{`, off: 1, wantErr: `unexpected end of input in object`},
		{name: "object truncated after comma", in: `{"a":1, `, off: 8, wantErr: `unexpected end of input in object`},
		{name: "object truncated in key", in: `{"ab`, off: 4, wantErr: `unexpected end of input in string`},
		{name: "object truncated after key", in: `{"a" `, off: 5, wantErr: `unexpected end of input in object`},
		{name: "object truncated after value", in: `{"a":1`, off: 6, wantErr: `unexpected end of input in object`},
		{name: "invalid escape in key", in: `{"a\q":1}`, off: 3, wantErr: `invalid escape '\\q' in string`},
		{name: "missing comma in array", in: `[1 2]`, off: 3, wantErr: `want ',' or '\]' in array, got number`},
		{name: "colon in array", in: `[1:2]`, off: 2, wantErr: `want ',' or '\]' in array, got ':'`},
		{name: "array truncated after bracket", in: `[`, off: 1, wantErr: `unexpected end of input in array`},
		{name: "array truncated after comma", in: "[1,\n", off: 4, wantErr: `unexpected end of input in array`},
		{name: "array truncated after value", in: `[1`, off: 2, wantErr: `unexpected end of input in array`},
		{name: "NUL byte in array", in: "[1\x00]", off: 2, wantErr: `want ',' or '\]' in array, got '\\x00'`, bug: bugNULIsEOF},
		{name: "NUL byte in object", in: "{\"a\":1\x00}", off: 6, wantErr: `want ',' or '\}' in object, got '\\x00'`, bug: bugNULIsEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var p problems
			p.catch(func() {
				s := jsonscan.New([]byte(tt.in))
				err := walkTop(s)
				if err == nil {
					p.add("got no error, want %q", tt.wantErr)
					return
				}
				p.checkErr(err, tt.off, tt.wantErr, strings.Contains(tt.wantErr, "end of input"))
			})
			p.report(t, tt.bug)
		})
	}
}

// walkTop reads the object or array that starts data with the structural
// calls, skipping the members or elements.
func walkTop(s *jsonscan.Scanner) error {
	if s.Kind() == '{' {
		if err := s.BeginObject(); err != nil {
			return err
		}
		for first := true; ; first = false {
			_, ok, err := s.NextKey(first)
			if err != nil || !ok {
				return err
			}
			if err := s.Skip(); err != nil {
				return err
			}
		}
	}
	if err := s.BeginArray(); err != nil {
		return err
	}
	for first := true; ; first = false {
		ok, err := s.NextElem(first)
		if err != nil || !ok {
			return err
		}
		if err := s.Skip(); err != nil {
			return err
		}
	}
}

func TestSkip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		end     int64 // offset after the value, or of the error
		wantErr string
		bug     string
	}{
		{name: "object", in: `{"a":[1,{"b":null}],"c":"\u00e9"} x`, end: 33},
		{name: "empty containers", in: ` [{},[],{"a":[]}]`, end: 17},
		{name: "string", in: `"a\"b" `, end: 6},
		{name: "number", in: `-1.5e+3,`, end: 7},
		{name: "literals", in: `[true,false,null]`, end: 17},
		{name: "zero then digit", in: `01,`, end: 0, wantErr: `invalid number`, bug: bugLeadingZero},
		{name: "trailing comma", in: `[1,]`, end: 3, wantErr: `want value, got '\]'`},
		{name: "missing value", in: `{"a":}`, end: 5, wantErr: `want value, got '\}'`},
		{name: "missing comma", in: `[1 2]`, end: 3, wantErr: `want ',' or '\]', got number`},
		{name: "wrong closer", in: `[1}`, end: 2, wantErr: `want ',' or '\]', got '\}'`},
		{name: "truncated array", in: `[1,[2`, end: 5, wantErr: `unexpected end of input in value`},
		{name: "truncated object", in: `{"a":{"b":1}`, end: 12, wantErr: `unexpected end of input in value`},
		{name: "truncated string", in: `["ab`, end: 4, wantErr: `unexpected end of input in string`},
		{name: "cut null", in: `nul`, end: 3, wantErr: `unexpected end of input in null`},
		{name: "cut false", in: `[fa`, end: 3, wantErr: `unexpected end of input in boolean`},
		{name: "cut number", in: `[1,-`, end: 4, wantErr: `unexpected end of input in number`},
		{name: "bad null", in: `[nul]`, end: 1, wantErr: `invalid literal`, bug: bugBadLiteral},
		{name: "bad number", in: `-x`, end: 0, wantErr: `invalid number`},
		{name: "control character", in: "\"a\x01\"", end: 2, wantErr: `control character 0x1 in string`},
		{name: "end of input", in: "  ", end: 2, wantErr: `unexpected end of input in value`},
		{name: "bad true", in: `[tru]`, end: 1, wantErr: `invalid literal`, bug: bugBadLiteral},
		{name: "invalid escape", in: `"\q"`, end: 1, wantErr: `invalid escape '\\q' in string`, bug: bugSkipEscapes},
		{name: "short u escape", in: `["\u12"]`, end: 2, wantErr: `invalid \\u escape in string`, bug: bugSkipEscapes},
		{name: "u escape cut by the end", in: `["\u12`, end: 6, wantErr: `unexpected end of input in string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var p problems
			s := jsonscan.New([]byte(tt.in))
			err := s.Skip()
			switch {
			case tt.wantErr != "":
				if err == nil {
					p.add("got no error, want %q", tt.wantErr)
					break
				}
				p.checkErr(err, tt.end, tt.wantErr, strings.Contains(tt.wantErr, "end of input"))
			case err != nil:
				p.add("got error %v", err)
			case s.Offset() != tt.end:
				p.add("got offset %d after the value, want %d", s.Offset(), tt.end)
			}
			p.report(t, tt.bug)
		})
	}
}

// TestSkipMaxDepth checks that deep nesting is an error, not a stack overflow,
// and that the default limit agrees with encoding/json's.
func TestSkipMaxDepth(t *testing.T) {
	t.Parallel()
	nested := func(open, close string, n int) []byte {
		return []byte(strings.Repeat(open, n) + "1" + strings.Repeat(close, n))
	}
	t.Run("1e5 arrays", func(t *testing.T) {
		t.Parallel()
		data := nested("[", "]", 100_000)
		s := jsonscan.New(data)
		var p problems
		p.checkErr(s.Skip(), jsonscan.DefaultMaxDepth, `nesting deeper than 10000`, false)
		p.report(t, "")
	})
	t.Run("1e5 unclosed arrays", func(t *testing.T) {
		t.Parallel()
		s := jsonscan.New(bytes.Repeat([]byte{'['}, 100_000))
		var p problems
		p.checkErr(s.Skip(), jsonscan.DefaultMaxDepth, `nesting deeper than 10000`, false)
		p.report(t, "")
	})
	t.Run("1e5 objects", func(t *testing.T) {
		t.Parallel()
		data := nested(`{"a":`, "}", 100_000)
		s := jsonscan.New(data)
		var p problems
		p.checkErr(s.Skip(), 5*jsonscan.DefaultMaxDepth, `nesting deeper than 10000`, false)
		p.report(t, "")
	})
	t.Run("custom limit", func(t *testing.T) {
		t.Parallel()
		s := jsonscan.New([]byte(`[[[1]]]`))
		s.MaxDepth = 3
		if err := s.Skip(); err != nil {
			t.Errorf("depth 3 with MaxDepth 3: got %v, want no error", err)
		}
		s = jsonscan.New([]byte(`[{"a":[[1]]}]`))
		s.MaxDepth = 3
		var p problems
		p.checkErr(s.Skip(), 7, `nesting deeper than 3`, false)
		p.report(t, "")
	})
	for _, depth := range []int{jsonscan.DefaultMaxDepth, jsonscan.DefaultMaxDepth + 1} {
		t.Run(fmt.Sprintf("agrees with json.Valid at depth %d", depth), func(t *testing.T) {
			t.Parallel()
			data := nested("[", "]", depth)
			s := jsonscan.New(data)
			err := s.Skip()
			if got, want := err == nil && s.AtEnd(), json.Valid(data); got != want {
				t.Errorf("got Skip error %v, json.Valid %t", err, want)
			}
		})
	}
}

func TestLiterals(t *testing.T) {
	t.Parallel()
	s := jsonscan.New([]byte(` null true false nul tru`))
	if !s.Null() {
		t.Error("Null: got false, want true")
	}
	if s.Null() {
		t.Error("Null before true: got true, want false")
	}
	for _, want := range []bool{true, false} {
		if got, err := s.Bool(); err != nil || got != want {
			t.Errorf("Bool: got %t, %v; want %t", got, err, want)
		}
	}
	if s.Null() {
		t.Error("Null on nul: got true, want false")
	}
	if off := s.Offset(); off != 17 {
		t.Errorf("got offset %d, want 17", off)
	}
}

// hasInvalidEscape reports whether data holds a backslash escape that JSON
// does not allow; see bugSkipEscapes.
func hasInvalidEscape(data []byte) bool {
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		if i+1 >= len(data) {
			return false
		}
		switch data[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i++
		case 'u':
			for k := i + 2; k < i+6; k++ {
				if k >= len(data) || !strings.ContainsRune("0123456789abcdefABCDEF", rune(data[k])) {
					return true
				}
			}
			i += 5
		default:
			return true
		}
	}
	return false
}

// walk reads one value of any kind with the typed calls (String for strings,
// so that escapes are checked) and Skip for numbers and literals.
func walk(s *jsonscan.Scanner, depth int) error {
	if depth > jsonscan.DefaultMaxDepth {
		return errors.New("too deep")
	}
	switch s.Kind() {
	case '{':
		if err := s.BeginObject(); err != nil {
			return err
		}
		for first := true; ; first = false {
			_, ok, err := s.NextKey(first)
			if err != nil || !ok {
				return err
			}
			if err := walk(s, depth+1); err != nil {
				return err
			}
		}
	case '[':
		if err := s.BeginArray(); err != nil {
			return err
		}
		for first := true; ; first = false {
			ok, err := s.NextElem(first)
			if err != nil || !ok {
				return err
			}
			if err := walk(s, depth+1); err != nil {
				return err
			}
		}
	case '"':
		_, err := s.String()
		return err
	}
	return s.Skip()
}

func FuzzScanner(f *testing.F) {
	for _, seed := range []string{
		``, ` `, `null`, `true`, `false`, `0`, `-0`, `-1.5e+3`, `1e400`, `01`, `1.`, `-`,
		`""`, `"a\"b\\c\/\b\f\n\r\t"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, "\"\xff\"", `"\q"`, `"\u12"`,
		`[]`, `[1,2,3]`, `[1,]`, `[1 2]`, `{}`, `{"a":1}`, `{"a":[1,{"b":null}],"c":"d"}`, `{"a" 1}`,
		`{"a":1,}`, `[[[[[[[[[[]]]]]]]]]]`, `{"a":{"b":{"c":{}}}}`, "[1\x00]", `nul`, `tru`, `[1]x`,
		`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]}],"samples":[1],"timeDeltas":[12.5]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)

		// Skip and the typed walk must agree with encoding/json on whether
		// data is one complete value with only white space after it.
		var s *jsonscan.Scanner
		var err error
		fuzzcheck.Speed(t, data, func() { s = jsonscan.New(data); err = s.Skip() })
		checkScanError(t, data, s, err, "Skip")
		if got := err == nil && s.AtEnd(); got != valid && !(got && hasInvalidEscape(data)) { // bugSkipEscapes
			t.Fatalf("Skip: got error %v, at end %t; json.Valid says %t", err, s.AtEnd(), valid)
		}
		fuzzcheck.Speed(t, data, func() { s = jsonscan.New(data); err = walk(s, 0) })
		checkScanError(t, data, s, err, "walk")
		if got := err == nil && s.AtEnd(); got != valid {
			t.Fatalf("walk: got error %v, at end %t; json.Valid says %t", err, s.AtEnd(), valid)
		}

		// The typed readers must not panic on anything, and must agree with
		// encoding/json on a single valid value.
		compareScalar(t, data, valid)
		s = jsonscan.New(data)
		ints, err := s.Ints(nil)
		checkScanError(t, data, s, err, "Ints")
		if valid && bytes.TrimSpace(data)[0] == '[' {
			var fs []float64
			jerr := json.Unmarshal(data, &fs)
			switch {
			case err == nil && jerr != nil:
				t.Fatalf("Ints: got %v, encoding/json fails: %v", ints, jerr)
			case err == nil:
				if !s.AtEnd() || len(ints) != len(fs) {
					t.Fatalf("Ints: got %v ending at offset %d, encoding/json %v", ints, s.Offset(), fs)
				}
				for i, v := range ints {
					if float64(v) != fs[i] {
						t.Fatalf("Ints: element %d: got %d, encoding/json %v", i, v, fs[i])
					}
				}
			case jerr == nil && len(ints) < len(fs):
				if f := fs[len(ints)]; f == math.Trunc(f) && math.Abs(f) < 1<<62 {
					t.Fatalf("Ints: element %d (%v): got %v", len(ints), f, err)
				}
			}
		}
	})
}

// checkScanError checks an error of a scanner call: a *SyntaxError with an
// offset inside the input, at its end when it says the input ended.
func checkScanError(t *testing.T, data []byte, s *jsonscan.Scanner, err error, what string) {
	t.Helper()
	if off := s.Offset(); off < 0 || off > int64(len(data)) {
		t.Fatalf("%s: scanner offset %d outside [0, %d]", what, off, len(data))
	}
	if err == nil {
		return
	}
	var se *jsonscan.SyntaxError
	if !errors.As(err, &se) {
		if what == "walk" && err.Error() == "too deep" {
			return
		}
		t.Fatalf("%s: got %v (%T), want a *jsonscan.SyntaxError", what, err, err)
	}
	if se.Offset < 0 || se.Offset > int64(len(data)) {
		t.Fatalf("%s: error offset %d outside [0, %d]: %v", what, se.Offset, len(data), err)
	}
	if errors.Is(err, jsonscan.ErrEOF) && se.Offset != int64(len(data)) && !bytes.Contains(data, []byte{0}) { // bugNULIsEOF
		t.Fatalf("%s: end-of-input error at offset %d of %d: %v", what, se.Offset, len(data), err)
	}
}

// compareScalar reads data with each typed reader, and when data is a single
// valid string, number or literal compares the result with encoding/json.
func compareScalar(t *testing.T, data []byte, valid bool) {
	t.Helper()
	str, serr := jsonscan.New(data).String()
	fl, ferr := jsonscan.New(data).Float()
	in, ierr := jsonscan.New(data).Int()
	bo, berr := jsonscan.New(data).Bool()
	null := jsonscan.New(data).Null()
	if !valid {
		return
	}
	switch trimmed := bytes.TrimSpace(data); trimmed[0] {
	case '"':
		var want string
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("json.Valid but Unmarshal: %v", err)
		}
		if serr != nil {
			t.Fatalf("String: got %v, encoding/json %q", serr, want)
		}
		if utf8.Valid(trimmed) && string(str) != want {
			t.Fatalf("String: got %q, encoding/json %q", str, want)
		}
	case 't', 'f':
		if berr != nil || bo != (trimmed[0] == 't') {
			t.Fatalf("Bool: got %t, %v", bo, berr)
		}
	case 'n':
		if !null {
			t.Fatal("Null: got false on null")
		}
	default:
		var want float64
		if err := json.Unmarshal(data, &want); err != nil {
			if ferr == nil {
				t.Fatalf("Float: got %v, encoding/json fails: %v", fl, err)
			}
			return
		}
		if ferr != nil || fl != want {
			t.Fatalf("Float: got %v, %v; encoding/json %v", fl, ferr, want)
		}
		// Int accepts exactly the numbers whose float value is integral and
		// in range; near ±2^63 it may refuse, as the exact value decides.
		if ierr == nil && float64(in) != want {
			t.Fatalf("Int: got %d, encoding/json %v", in, want)
		}
		if ierr != nil && want == math.Trunc(want) && math.Abs(want) < 1<<62 {
			t.Fatalf("Int: got %v on integral %v", ierr, want)
		}
	}
}

// TestCountElemsDrop checks that counting with Drop set gives the count
// without it, and gives back every whole stretch it looked at past the
// first, and nothing at or after the array's end.
func TestCountElemsDrop(t *testing.T) {
	var b strings.Builder
	b.WriteString(`  [`)
	const n = 2_000_000 // "1234567," is 8 bytes: about 4 stretches
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("1234567")
	}
	b.WriteString(`],"rest":[1,2,3]`)
	data := []byte(b.String())
	end := int64(bytes.IndexByte(data, ']'))

	for _, tc := range []struct {
		name string
		data []byte
		want int
	}{
		{"closed", data, n},
		{"unterminated", data[:end], 0},
	} {
		s := jsonscan.New(tc.data)
		if err := s.BeginArray(); err != nil {
			t.Fatal(err)
		}
		plain := s.CountElems()
		var dropped [][2]int64
		s.Drop = func(lo, hi int64) { dropped = append(dropped, [2]int64{lo, hi}) }
		got := s.CountElems()
		if got != tc.want || plain != tc.want {
			t.Errorf("%s: CountElems = %d with Drop, %d without; want %d", tc.name, got, plain, tc.want)
		}
		from := s.Offset() + jsonscan.ReleaseEvery
		for _, d := range dropped {
			if d[0] != from || d[1]-d[0] > jsonscan.ReleaseEvery || d[1] > end {
				t.Errorf("%s: dropped [%d, %d), want a stretch from %d ending by %d", tc.name, d[0], d[1], from, end)
			}
			from = d[1]
		}
		if len(dropped) < 2 || from < end-jsonscan.ReleaseEvery {
			t.Errorf("%s: dropped %v, want every whole stretch from %d up to the one holding %d", tc.name, dropped, s.Offset()+jsonscan.ReleaseEvery, end)
		}
	}
}

// TestArrayOpenBack finds arrays' '[' back from their ']' and counts them
// as CountElems does, on small arrays of every form and on one of several
// stretches, which it gives back from its end down to, not including, the
// stretch holding the '['; and SetCount hands that count to CountElems at
// that array only.
func TestArrayOpenBack(t *testing.T) {
	for _, doc := range []string{`[]`, `[1]`, `[ 1 , 2 ]`, `{"a":[3,-4,5e2,6]}`, `[[1,2],[3]]`, `x]`, `[1,[2,3]`, "[\n 7,\n8\n]"} {
		end := strings.LastIndexByte(doc, ']')
		open, elems := jsonscan.ArrayOpenBack([]byte(doc), end, nil)
		want := strings.LastIndexByte(doc[:end], '[')
		if open != want {
			t.Errorf("%s: '[' at %d, want %d", doc, open, want)
			continue
		}
		if open < 0 {
			if elems != 0 {
				t.Errorf("%s: %d elements without a '['", doc, elems)
			}
			continue
		}
		s := jsonscan.New([]byte(doc))
		s.SetOffset(int64(open))
		if err := s.BeginArray(); err != nil {
			t.Fatal(err)
		}
		if n := s.CountElems(); elems != n && !strings.Contains(doc[open:end], "]") {
			t.Errorf("%s: %d elements, CountElems %d", doc, elems, n)
		}
	}

	var b strings.Builder
	b.WriteString(`{"nodes":[],"samples":[`)
	const n = 600_000 // "1234567," is 8 bytes: about 4.6 stretches
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("1234567")
	}
	b.WriteString(`]}`)
	data := []byte(b.String())
	end := bytes.LastIndexByte(data, ']')
	var dropped [][2]int64
	open, elems := jsonscan.ArrayOpenBack(data, end, func(lo, hi int64) { dropped = append(dropped, [2]int64{lo, hi}) })
	if want := bytes.IndexByte(data, '[') + len(`[],"samples":[`) - 1; open != want || elems != n {
		t.Fatalf("'[' at %d with %d elements, want %d with %d", open, elems, want, n)
	}
	to := int64(end)
	for _, d := range dropped {
		if d[1] != to || d[0]%jsonscan.ReleaseEvery != 0 || d[1]-d[0] > jsonscan.ReleaseEvery || d[0] <= int64(open) {
			t.Errorf("dropped [%d, %d), want a stretch ending at %d, from a multiple of %d above %d", d[0], d[1], to, jsonscan.ReleaseEvery, open)
		}
		to = d[0]
	}
	if len(dropped) < 4 || to != int64(open)&^(jsonscan.ReleaseEvery-1)+jsonscan.ReleaseEvery {
		t.Errorf("dropped %v, want every stretch down to the one holding %d", dropped, open)
	}

	s := jsonscan.New(data)
	s.SetCount(int64(open), 12345)
	s.SetOffset(int64(open))
	if err := s.BeginArray(); err != nil {
		t.Fatal(err)
	}
	if got := s.CountElems(); got != 12345 {
		t.Errorf("CountElems after SetCount = %d, want the count set, 12345", got)
	}
	s.SetOffset(int64(bytes.IndexByte(data, '[')))
	if err := s.BeginArray(); err != nil {
		t.Fatal(err)
	}
	if got := s.CountElems(); got != 1 {
		t.Errorf("CountElems of another array = %d, want its own count, 1", got)
	}
}

// TestCountByteDrop checks CountByte against bytes.Count on ranges of
// random data across stretches, and that with Drop set it gives back each
// stretch after the first, whole and in order, and nothing outside the
// range.
func TestCountByteDrop(t *testing.T) {
	data := make([]byte, 3*jsonscan.ReleaseEvery+12345)
	for i := range data {
		data[i] = "{}ab,"[i*7919%5]
	}
	for _, r := range [][2]int64{{0, 0}, {5, 100}, {0, int64(len(data))}, {1000, 2*jsonscan.ReleaseEvery + 3}, {jsonscan.ReleaseEvery, int64(len(data)) - 1}} {
		lo, hi := r[0], r[1]
		want := bytes.Count(data[lo:hi], []byte{'{'})
		s := jsonscan.New(data)
		var dropped [][2]int64
		s.Drop = func(a, b int64) { dropped = append(dropped, [2]int64{a, b}) }
		if got := s.CountByte('{', lo, hi); got != want {
			t.Errorf("[%d, %d): %d, want %d", lo, hi, got, want)
		}
		from := lo + jsonscan.ReleaseEvery
		for _, d := range dropped {
			if d[0] != from || d[1]-d[0] > jsonscan.ReleaseEvery || d[1] > hi {
				t.Errorf("[%d, %d): dropped [%d, %d), want a stretch from %d ending by %d", lo, hi, d[0], d[1], from, hi)
			}
			from = d[1]
		}
		if hi-lo > jsonscan.ReleaseEvery && from != hi {
			t.Errorf("[%d, %d): dropped %v, not up to the end", lo, hi, dropped)
		}
	}
}

// AppendScaled widens 32-bit values, scaled, after what w holds.
func TestAppendScaled(t *testing.T) {
	got := jsonscan.AppendScaled([]int64{7}, []int32{1, -2, math.MaxInt32}, 1000)
	want := []int64{7, 1000, -2000, math.MaxInt32 * 1000}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestGrowRoom checks the room Grow and Room give: at least n more
// elements beyond the length, the elements kept; Room exactly n for an
// empty slice and at least doubled otherwise. Grow once gave a slice with
// some room less than n too little (2f2ee660ea68d829 in
// internal/hostile's FuzzWriters corpus).
func TestGrowRoom(t *testing.T) {
	for l := range 6 {
		for c := l; c <= l+4; c++ {
			for n := range 8 {
				s := make([]int32, l, c)
				for i := range s {
					s[i] = int32(i + 1)
				}
				g := jsonscan.Grow(s, n)
				if len(g) != l || cap(g) < l+n {
					t.Errorf("Grow(len %d cap %d, %d): len %d cap %d", l, c, n, len(g), cap(g))
				}
				r := jsonscan.Room(s, n)
				if len(r) != l || cap(r) < l+n {
					t.Errorf("Room(len %d cap %d, %d): len %d cap %d", l, c, n, len(r), cap(r))
				}
				if c-l < n && l > 0 && cap(r) < 2*l {
					t.Errorf("Room(len %d cap %d, %d): cap %d, not doubled", l, c, n, cap(r))
				}
				if l == 0 && c < n && cap(r) != n {
					t.Errorf("Room(empty cap %d, %d): cap %d, want %d", c, n, cap(r), n)
				}
				for i := range l {
					if g[i] != int32(i+1) || r[i] != int32(i+1) {
						t.Fatalf("Grow or Room lost element %d", i)
					}
				}
			}
		}
	}
}

// TestReleaseRest checks that ReleaseRest gives what the scanner passed
// since the last stretch Release was given, once, and nothing without a
// Release or with nothing passed.
func TestReleaseRest(t *testing.T) {
	data := []byte(`[1,2,3,4,5,6,7,8,9,10] `)
	var given [][2]int64
	s := jsonscan.New(data)
	s.ReleaseRest() // no Release: nothing
	s.Release = func(lo, hi int64) error { given = append(given, [2]int64{lo, hi}); return nil }
	s.ReleaseStep = 6
	if _, err := s.Ints(nil); err != nil {
		t.Fatal(err)
	}
	end := s.Offset()
	s.ReleaseRest()
	s.ReleaseRest() // nothing passed since
	if len(given) < 2 || given[len(given)-1][1] != end {
		t.Fatalf("given %v, want stretches of about 6 bytes, the last ending at %d", given, end)
	}
	for i, g := range given {
		if i > 0 && g[0] != given[i-1][1] || g[1] <= g[0] {
			t.Errorf("given %v: not one stretch after another from 0", given)
		}
	}
	if given[0][0] != 0 {
		t.Errorf("given %v, want the first from 0", given)
	}
}
