package proftest_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

func TestParseTxtar(t *testing.T) {
	t.Parallel()
	comment, sec, err := proftest.ParseTxtar([]byte("about\nit\n-- input --\n{\"a\":1}\n\n-- error --\noffset 1: a: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if comment != "about\nit\n" || sec["input"] != "{\"a\":1}\n\n" || sec["error"] != "offset 1: a: x\n" || len(sec) != 2 {
		t.Errorf("got comment %q, sections %q", comment, sec)
	}
	if _, _, err := proftest.ParseTxtar([]byte("c\n-- input --\nx\n-- input --\ny\n")); err == nil {
		t.Error("a section twice: got no error")
	}
}

func TestReadErrorCase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name, file, err string // err: a substring of the error; "" for none
	}{
		{"ok", "What.\n-- input --\nx\n\n-- error --\nline 1: .*\n-- is --\nempty\n", ""},
		{"diagnostics", "What.\n-- input --\nx\n-- diagnostics --\nd ×1: .*\n", ""},
		{"no comment", "-- input --\nx\n-- error --\ne\n", "no comment"},
		{"no input", "What.\n-- error --\ne\n", "no input section"},
		{"neither", "What.\n-- input --\nx\n", "exactly one"},
		{"both", "What.\n-- input --\nx\n-- error --\ne\n-- diagnostics --\nd\n", "exactly one"},
		{"unknown section", "What.\n-- input --\nx\n-- eror --\ne\n", `unknown section "eror"`},
		{"bad sentinel", "What.\n-- input --\nx\n-- error --\ne\n-- is --\nempt\n", "the is section"},
		{"bad regexp", "What.\n-- input --\nx\n-- error --\n(\n", "missing closing )"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".txtar")
		if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := proftest.ReadErrorCase(path)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: got error %v, want none", tt.name, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: got error %v, want one containing %q", tt.name, err, tt.err)
		}
		if tt.name == "ok" && (string(c.Input) != "x\n" || c.Error != "line 1: .*" || c.Is != "empty" || c.Comment != "What." || c.Name != "ok") {
			t.Errorf("ok: got %+v", c)
		}
	}
}

// CheckErrorCase finds each kind of wrong answer.
func TestCheckErrorCase(t *testing.T) {
	t.Parallel()
	input := []byte(`{"a":[1,2]}`)
	valid := profile.NewBuilder("x").P
	valid.Diagnostics.Add("odd", 2, "two odd things")
	located := func(off int64, path string, err error) error {
		return &profile.ParseError{Offset: off, Path: path, Err: err}
	}
	json := proftest.ErrorOptions{JSON: true}
	tests := []struct {
		name string
		c    proftest.ErrorCase
		p    *profile.Profile
		err  error
		opts proftest.ErrorOptions
		want string // a substring of the problems; "" for none
	}{
		{"match", proftest.ErrorCase{Error: `offset 6: a\[1\]: bad`}, nil, located(6, "a[1]", errors.New("bad")), json, ""},
		{"no error", proftest.ErrorCase{Error: `x`}, valid, nil, json, "got no error"},
		{"message differs", proftest.ErrorCase{Error: `offset 6: a\[1\]: good`}, nil, located(6, "a[1]", errors.New("bad")), json, "want match"},
		{"regexp is anchored", proftest.ErrorCase{Error: `bad`}, nil, errors.New("very bad"), proftest.ErrorOptions{}, "want match"},
		{"not a ParseError", proftest.ErrorCase{Error: `offset 6: a: bad`}, nil, errors.New("offset 6: a: bad"), json, "want a *profile.ParseError"},
		{"offset beyond the input", proftest.ErrorCase{Error: `offset 99: a: bad`}, nil, located(99, "a", errors.New("bad")), json, "outside the input"},
		{"unknown offset", proftest.ErrorCase{Error: `a: bad`}, nil, located(-1, "a", errors.New("bad")), json, "outside the input"},
		{"no path", proftest.ErrorCase{Error: `offset 6: bad`}, nil, located(6, "", errors.New("bad")), json, "no JSON path"},
		{"plain error for a text format", proftest.ErrorCase{Error: `line 2: bad`}, nil, errors.New("line 2: bad"), proftest.ErrorOptions{}, ""},
		{"sentinel", proftest.ErrorCase{Error: `offset 0: \$: empty input`, Is: "empty"}, nil, located(0, "$", profile.ErrEmpty), json, ""},
		{"sentinel missing", proftest.ErrorCase{Error: `offset 0: \$: empty input`, Is: "truncated"}, nil, located(0, "$", profile.ErrEmpty), json, "does not wrap profile.Errtruncated"},
		{"diagnostics", proftest.ErrorCase{Diagnostics: `odd ×2: two odd things`}, valid, nil, json, ""},
		{"diagnostics differ", proftest.ErrorCase{Diagnostics: `odd ×1: .*`}, valid, nil, json, "want match for"},
		{"diagnostics but an error", proftest.ErrorCase{Diagnostics: `odd ×2: .*`}, nil, errors.New("no"), json, "want the input accepted"},
		{"diagnostics of an invalid profile", proftest.ErrorCase{Diagnostics: `.*`}, &profile.Profile{}, nil, json, "fails Validate"},
		{
			"extra check", proftest.ErrorCase{Error: `offset 6: a\[1\]: bad`}, nil, located(6, "a[1]", errors.New("bad")),
			proftest.ErrorOptions{JSON: true, Check: func(proftest.ErrorCase, *profile.Profile, error) []string { return []string{"extra problem"} }},
			"extra problem",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.c.Input = input
			problems := strings.Join(proftest.CheckErrorCase(tt.c, tt.p, tt.err, tt.opts), "\n")
			if tt.want == "" && problems != "" {
				t.Errorf("got problems\n%s\nwant none", problems)
			}
			if tt.want != "" && !strings.Contains(problems, tt.want) {
				t.Errorf("got problems %q, want one containing %q", problems, tt.want)
			}
		})
	}
}

// A panicking reader is a failed case, not a crashed test binary.
func TestErrorCasesPanic(t *testing.T) {
	t.Parallel()
	var got []string
	c := proftest.ErrorCase{Name: "p", Comment: "c", Input: []byte("x"), Error: "panic: boom"}
	proftest.RunErrorCases(t, []proftest.ErrorCase{c}, func([]byte) (*profile.Profile, error) {
		got = append(got, "called")
		panic("boom")
	}, proftest.ErrorOptions{})
	t.Cleanup(func() {
		if len(got) != 1 {
			t.Errorf("parse called %d times, want 1", len(got))
		}
	})
}
