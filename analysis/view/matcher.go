package view

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jsprof/jsprof/profile"
)

// Matcher matches functions in what people type (see ParseMatcher). The
// zero value with only Name set matches that exact name.
type Matcher struct {
	Name string // the exact function name; "" with AnyName
	// AnyName matches any name: the "file.js:16" form, for anonymous
	// functions.
	AnyName bool
	File    string // a suffix of the function's URL; "" for any
	Line    int32  // the function's 1-based line; 0 for any

	re   *regexp.Regexp // Name as a pattern (Resolve), for a Name no function has
	text string         // as typed
}

// locForm is "file:line" with a file that looks like one (a dot or a slash).
var locForm = regexp.MustCompile(`^(.*[./].*):([0-9]+)$`)

// ParseMatcher parses what people type to name a function:
//
//   - "name": a function name as jsprof prints it; if no function has that
//     exact name, Resolve takes it as a regular expression over names (as
//     pprof's -focus does);
//   - "name@file.js:16" or "name@file.js": the name in a script whose URL
//     ends with file.js (a full URL works too), declared on line 16;
//   - "file.js:16": any function declared on line 16 of that script
//     (anonymous functions have no name to type).
func ParseMatcher(s string) (Matcher, error) {
	if s == "" {
		return Matcher{}, fmt.Errorf("empty function name")
	}
	m := Matcher{text: s}
	name, loc, hasLoc := strings.Cut(s, "@")
	switch {
	case hasLoc:
		m.Name = name
		if name == "" || name == "(anonymous)" {
			m.Name, m.AnyName = "", true
		}
		m.File = loc
		if x := locForm.FindStringSubmatch(loc); x != nil {
			m.File, m.Line = x[1], int32(atoi(x[2]))
		} else if i := strings.LastIndexByte(loc, ':'); i >= 0 && atoi(loc[i+1:]) > 0 {
			m.File, m.Line = loc[:i], int32(atoi(loc[i+1:]))
		}
	case locForm.MatchString(s):
		x := locForm.FindStringSubmatch(s)
		m.AnyName, m.File, m.Line = true, x[1], int32(atoi(x[2]))
	default:
		m.Name = s
	}
	return m, nil
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<30 {
		return 0
	}
	return n
}

// String returns the matcher as typed (or its name).
func (m Matcher) String() string {
	if m.text != "" {
		return m.text
	}
	return m.Name
}

// Match reports whether frame f is a function m names.
func (m Matcher) Match(p *profile.Profile, f *profile.Frame) bool {
	name := p.Str(f.Name)
	switch {
	case m.AnyName:
	case m.re != nil:
		if !m.re.MatchString(name) {
			return false
		}
	case name != m.Name:
		return false
	}
	if m.File != "" && !strings.HasSuffix(p.Str(f.URL), m.File) {
		return false
	}
	return m.Line == 0 || f.Line+1 == m.Line
}

// NoMatchError reports a matcher that names no function of the profile,
// with the closest names it has.
type NoMatchError struct {
	Flag    string // "focus", "merge" or "drop"
	Matcher Matcher
	Closest []string
}

func (e *NoMatchError) Error() string {
	msg := fmt.Sprintf("--%s %q matches no function", e.Flag, e.Matcher.String())
	if len(e.Closest) > 0 {
		msg += "; the closest names are: " + strings.Join(e.Closest, ", ")
	}
	return msg
}

// Resolve checks every matcher of o against the frames of p: a name that
// no function has becomes a regular expression over names if it is one and
// matches; a matcher that still matches nothing is a *NoMatchError with the
// closest names.
func Resolve(p *profile.Profile, o *Options) error {
	for _, x := range []struct {
		flag string
		ms   []Matcher
	}{{"focus", o.Focus}, {"merge", o.Merge}, {"drop", o.Drop}} {
		for i := range x.ms {
			m := &x.ms[i]
			if matchesAny(p, *m) {
				continue
			}
			if !m.AnyName && m.Name != "" {
				if re, err := regexp.Compile(m.Name); err == nil {
					r := *m
					r.re = re
					if matchesAny(p, r) {
						*m = r
						continue
					}
				}
			}
			return &NoMatchError{Flag: x.flag, Matcher: *m, Closest: closest(p, m.Name, 5)}
		}
	}
	return nil
}

func matchesAny(p *profile.Profile, m Matcher) bool {
	for i := range p.Frames {
		if m.Match(p, &p.Frames[i]) {
			return true
		}
	}
	return false
}

// closest returns up to n distinct function names of p nearest to name:
// those containing it (ignoring case) first, then by edit distance.
func closest(p *profile.Profile, name string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	seen := map[profile.StringID]bool{}
	var cs []cand
	low := strings.ToLower(name)
	for i := range p.Frames {
		id := p.Frames[i].Name
		if seen[id] {
			continue
		}
		seen[id] = true
		s := p.Str(id)
		if s == "" || utf8.RuneCountInString(s) > 200 {
			continue
		}
		d := editDistance(low, strings.ToLower(s))
		if low != "" && strings.Contains(strings.ToLower(s), low) {
			d = 0
		}
		if d <= max(3, utf8.RuneCountInString(name)/2) {
			cs = append(cs, cand{s, d})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if c := cmp.Compare(a.d, b.d); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, strconv.Quote(c.name))
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
