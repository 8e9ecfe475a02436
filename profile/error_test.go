package profile_test

import (
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

func TestParseError(t *testing.T) {
	t.Parallel()
	inner := errors.New("want integer, got 1.5")
	tests := []struct {
		name string
		err  *profile.ParseError
		want string
	}{
		{"all", &profile.ParseError{File: "a.cpuprofile", Offset: 29, Path: "nodes[0].hitCount", Err: inner}, "a.cpuprofile: offset 29: nodes[0].hitCount: want integer, got 1.5"},
		{"offset zero", &profile.ParseError{Offset: 0, Path: "$", Err: profile.ErrEmpty}, "offset 0: $: empty input"},
		{"unknown offset", &profile.ParseError{Offset: -1, Path: "sample[3]", Err: inner}, "sample[3]: want integer, got 1.5"},
		{"no path", &profile.ParseError{File: "-", Offset: 7, Err: profile.ErrTruncated}, "-: offset 7: unexpected end of input"},
		{"error only", &profile.ParseError{Offset: -1, Err: profile.ErrUnrecognized}, "unrecognized format"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
		if !errors.Is(tt.err, tt.err.Err) {
			t.Errorf("%s: does not unwrap to its Err", tt.name)
		}
	}
}

func TestWithFile(t *testing.T) {
	t.Parallel()
	if profile.WithFile(nil, "x") != nil {
		t.Error("WithFile(nil) is not nil")
	}
	// A ParseError gets the file name, as a copy.
	pe := &profile.ParseError{Offset: 3, Path: "a", Err: profile.ErrTruncated}
	err := profile.WithFile(pe, "in.json")
	if got, want := err.Error(), "in.json: offset 3: a: unexpected end of input"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if pe.File != "" {
		t.Error("WithFile changed the original ParseError")
	}
	if !errors.Is(err, profile.ErrTruncated) {
		t.Error("the sentinel is lost")
	}
	// One that names a file already keeps it.
	named := &profile.ParseError{File: "first", Offset: 1, Err: profile.ErrEmpty}
	if got := profile.WithFile(named, "second"); got != error(named) {
		t.Errorf("got %v, want the error unchanged", got)
	}
	// A wrapped ParseError is found.
	wrapped := profile.WithFile(errors.Join(pe), "w.json")
	var got *profile.ParseError
	if !errors.As(wrapped, &got) || got.File != "w.json" {
		t.Errorf("wrapped ParseError: got %v", wrapped)
	}
	// A PathError for the same file does not repeat the name.
	_, perr := os.Open("/nonexistent/jsprof-test")
	if got, want := profile.WithFile(perr, "/nonexistent/jsprof-test").Error(), "/nonexistent/jsprof-test: open: no such file or directory"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !errors.Is(profile.WithFile(perr, "/nonexistent/jsprof-test"), fs.ErrNotExist) {
		t.Error("the PathError's cause is lost")
	}
	// Other errors are prefixed.
	other := errors.New("boom")
	if got := profile.WithFile(other, "f"); got.Error() != "f: boom" || !errors.Is(got, other) {
		t.Errorf("got %v, want f: boom wrapping the error", got)
	}
}

func TestDiagnostics(t *testing.T) {
	t.Parallel()
	var ds profile.Diagnostics
	ds.Add("a", 0, "never")
	ds.Add("a", -3, "never")
	if len(ds) != 0 {
		t.Fatalf("n ≤ 0 recorded: %v", ds)
	}
	ds.Add("a", 2, "%d things", 2)
	ds.Add("b", 1, "one b")
	ds.Add("a", 3, "%d things", 5)
	if got := ds.Count("a"); got != 5 {
		t.Errorf("Count(a) = %d, want 5", got)
	}
	if got := ds.Count("b"); got != 1 {
		t.Errorf("Count(b) = %d, want 1", got)
	}
	if got := ds.Count("c"); got != 0 {
		t.Errorf("Count(c) = %d, want 0", got)
	}
	if got, want := ds.String(), "a ×5: 2 things\nb ×1: one b\n"; got != want {
		t.Errorf("got %q, want %q (first message kept, first-report order)", got, want)
	}
	if got := ds[1].String(); got != "one b" {
		t.Errorf("Diagnostic.String() = %q, want the message", got)
	}
}
