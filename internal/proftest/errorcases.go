package proftest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

// ErrorCase is a bad (or odd) input and what a reader must answer. In a
// testdata/errors/<name>.txtar file, the comment (before the first section)
// says what the case is about, and the sections are
//
//	-- input --        the input, without the section's final newline
//	-- error --        a regexp that the whole error message must match; for
//	                   a JSON format it starts with the literal offset
//	                   ("offset N: ") and then the JSON path
//	-- diagnostics --  instead of error: the input is accepted, and its
//	                   Diagnostics.String() (trimmed) must match this regexp
//	-- is --           optional, with error: the sentinel the error wraps:
//	                   empty, truncated or unrecognized
//	-- bug --          optional: a known bug, reported but not fixed yet,
//	                   that makes the case fail; such a case is skipped
//	                   while it fails and checked as soon as it passes
type ErrorCase struct {
	Name, Comment string
	Path          string // the txtar file, if any
	Input         []byte
	Error         string
	Diagnostics   string
	Is            string
	Bug           string
}

// sentinels are the errors an "is" section names.
var sentinels = map[string]error{
	"empty":        profile.ErrEmpty,
	"truncated":    profile.ErrTruncated,
	"unrecognized": profile.ErrUnrecognized,
}

// ErrorOptions says what ErrorCases requires besides the sections.
type ErrorOptions struct {
	// JSON: the format is JSON, so every error is a *profile.ParseError
	// with an offset inside the input and a JSON path, and its message
	// starts "offset N: path: ". The error regexps must pin the offset.
	JSON bool
	// Check, if set, returns further problems with the reader's answer.
	Check func(c ErrorCase, p *profile.Profile, err error) []string
}

// ParseTxtar reads the subset of the txtar format that the cases use:
// "-- name --" lines start sections; what comes before the first one is
// the comment. A section named twice is an error.
func ParseTxtar(data []byte) (comment string, sections map[string]string, err error) {
	sections = map[string]string{}
	var name string
	var text strings.Builder
	flush := func() error {
		if name == "" {
			comment = text.String()
		} else if _, dup := sections[name]; dup {
			return fmt.Errorf("section %q twice", name)
		} else {
			sections[name] = text.String()
		}
		text.Reset()
		return nil
	}
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimRight(line, "\r\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			if err := flush(); err != nil {
				return "", nil, err
			}
			name = strings.TrimSpace(trimmed[3 : len(trimmed)-3])
			continue
		}
		text.WriteString(line)
	}
	return comment, sections, flush()
}

// ReadErrorCase reads one txtar case file.
func ReadErrorCase(path string) (ErrorCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ErrorCase{}, err
	}
	comment, sec, err := ParseTxtar(data)
	if err != nil {
		return ErrorCase{}, fmt.Errorf("%s: %v", path, err)
	}
	for name := range sec {
		switch name {
		case "input", "error", "diagnostics", "is", "bug":
		default:
			return ErrorCase{}, fmt.Errorf("%s: unknown section %q", path, name)
		}
	}
	input, ok := sec["input"]
	if !ok {
		return ErrorCase{}, fmt.Errorf("%s: no input section", path)
	}
	c := ErrorCase{
		Name:        strings.TrimSuffix(filepath.Base(path), ".txtar"),
		Path:        path,
		Comment:     strings.TrimSpace(comment),
		Input:       []byte(strings.TrimSuffix(input, "\n")),
		Error:       strings.TrimSpace(sec["error"]),
		Diagnostics: strings.TrimSpace(sec["diagnostics"]),
		Is:          strings.TrimSpace(sec["is"]),
		Bug:         strings.TrimSpace(sec["bug"]),
	}
	if c.Comment == "" {
		return ErrorCase{}, fmt.Errorf("%s: no comment saying what the case is about", path)
	}
	if (c.Error == "") == (c.Diagnostics == "") {
		return ErrorCase{}, fmt.Errorf("%s: want exactly one of the error and diagnostics sections", path)
	}
	if c.Is != "" && (c.Error == "" || sentinels[c.Is] == nil) {
		return ErrorCase{}, fmt.Errorf("%s: the is section needs an error section and one of empty, truncated, unrecognized; got %q", path, c.Is)
	}
	for _, re := range []string{c.Error, c.Diagnostics} {
		if _, err := regexp.Compile(re); err != nil {
			return ErrorCase{}, fmt.Errorf("%s: %v", path, err)
		}
	}
	return c, nil
}

// ReadErrorCases reads dir/*.txtar, failing the test if there are none.
func ReadErrorCases(t testing.TB, dir string) []ErrorCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases in %s: %v", dir, err)
	}
	var cases []ErrorCase
	for _, path := range paths {
		c, err := ReadErrorCase(path)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	return cases
}

// ErrorCases runs parse on every case in dir/*.txtar, each in a parallel
// subtest named after its file, and reports what is wrong with the answers
// (see CheckErrorCase).
func ErrorCases(t *testing.T, dir string, parse func([]byte) (*profile.Profile, error), opts ErrorOptions) {
	t.Helper()
	RunErrorCases(t, ReadErrorCases(t, dir), parse, opts)
}

// RunErrorCases is ErrorCases for cases built in code (binary inputs).
func RunErrorCases(t *testing.T, cases []ErrorCase, parse func([]byte) (*profile.Profile, error), opts ErrorOptions) {
	t.Helper()
	if opts.JSON {
		for _, c := range cases {
			if c.Error != "" && !regexp.MustCompile(`^offset [0-9]+: \S`).MatchString(c.Error) {
				t.Fatalf("%s: the error regexp of a JSON format must start with a literal offset and a path: %q", c.Name, c.Error)
			}
		}
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			p, err := parseCatching(parse, c.Input)
			problems := CheckErrorCase(c, p, err, opts)
			if len(problems) == 0 {
				return
			}
			msg := fmt.Sprintf("%s\n%s", c.Comment, strings.Join(problems, "\n"))
			if c.Path != "" {
				msg = c.Path + ": " + msg
			}
			if c.Bug != "" {
				t.Skipf("known bug, not fixed yet: %s\n%s", c.Bug, msg)
			}
			t.Error(msg)
		})
	}
}

// parseCatching runs parse, turning a panic into an error.
func parseCatching(parse func([]byte) (*profile.Profile, error), data []byte) (p *profile.Profile, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return parse(slices.Clone(data))
}

// CheckErrorCase returns what is wrong with a reader's answer (p, err) to c:
// for an error case, the message must match the regexp (and wrap the
// sentinel of the is section); for a JSON format it must be a
// *profile.ParseError with an offset in [0, len(input)] and a JSON path, its
// message starting "offset N: path: ". For a diagnostics case, the input must
// be accepted, its profile valid, and its diagnostics must match.
func CheckErrorCase(c ErrorCase, p *profile.Profile, err error, opts ErrorOptions) []string {
	problems := checkAnswer(c, p, err, opts.JSON)
	if opts.Check != nil {
		problems = append(problems, opts.Check(c, p, err)...)
	}
	return problems
}

func checkAnswer(c ErrorCase, p *profile.Profile, err error, json bool) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if c.Diagnostics != "" {
		if err != nil {
			add("got error %v, want the input accepted", err)
			return problems
		}
		if p == nil {
			add("got no profile and no error")
			return problems
		}
		got := strings.TrimSpace(p.Diagnostics.String())
		if !regexp.MustCompile(`^(?:` + c.Diagnostics + `)$`).MatchString(got) {
			add("got diagnostics\n%s\nwant match for\n%s", got, c.Diagnostics)
		}
		if err := p.Validate(); err != nil {
			add("accepted a profile that fails Validate: %v", err)
		}
		return problems
	}
	if err == nil {
		add("got no error, want %q", c.Error)
		return problems
	}
	msg := err.Error()
	if !regexp.MustCompile(`^(?:` + c.Error + `)$`).MatchString(msg) {
		add("got error  %q\nwant match %q", msg, c.Error)
	}
	if c.Is != "" && !errors.Is(err, sentinels[c.Is]) {
		add("error %q does not wrap profile.Err%s", msg, c.Is)
	}
	if !json {
		return problems
	}
	var pe *profile.ParseError
	if !errors.As(err, &pe) {
		add("got %T, want a *profile.ParseError", err)
		return problems
	}
	if pe.Offset < 0 || pe.Offset > int64(len(c.Input)) {
		add("offset %d outside the input [0, %d]", pe.Offset, len(c.Input))
	}
	if pe.Path == "" {
		add("no JSON path in %q", msg)
	}
	if want := fmt.Sprintf("offset %d: %s: ", pe.Offset, pe.Path); !strings.HasPrefix(msg, want) {
		add("message %q does not start with %q", msg, want)
	}
	return problems
}
