package proftest_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/proftest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	artifacts string
	errors    []string
	fatal     bool
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
}
func (r *recorder) Fatal(args ...any) {
	r.errors = append(r.errors, fmt.Sprint(args...))
	r.fatal = true
}
func (r *recorder) ArtifactDir() string { return r.artifacts }

// Golden passes on equal contents and, on a difference, reports the diff
// and saves the output; it fails on a missing golden file. It does not run
// in parallel: one case sets -update.
func TestGolden(t *testing.T) {
	dir := t.TempDir()
	golden := filepath.Join(dir, "x.txt")
	if err := os.WriteFile(golden, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	r := &recorder{TB: t, artifacts: t.TempDir()}
	proftest.Golden(r, golden, []byte("a\nb\n"))
	if len(r.errors) != 0 {
		t.Errorf("equal contents: got errors %q, want none", r.errors)
	}

	r = &recorder{TB: t, artifacts: t.TempDir()}
	proftest.Golden(r, golden, []byte("a\nc\n"))
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "-b\n+c\n") || !strings.Contains(r.errors[0], "go test -update") {
		t.Errorf("different contents: got errors %q, want one with the diff and the -update hint", r.errors)
	}
	if saved, err := os.ReadFile(filepath.Join(r.artifacts, "x.txt")); err != nil || string(saved) != "a\nc\n" {
		t.Errorf("saved output: got %q, %v; want %q", saved, err, "a\nc\n")
	}

	r = &recorder{TB: t, artifacts: t.TempDir()}
	proftest.Golden(r, filepath.Join(dir, "missing.txt"), []byte("a\n"))
	if !r.fatal {
		t.Errorf("missing golden file: got errors %q, want a fatal error", r.errors)
	}

	// -update writes the file, creating its directory.
	if err := flag.Set("update", "true"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("update", "false") })
	fresh := filepath.Join(dir, "sub", "y.txt")
	r = &recorder{TB: t, artifacts: t.TempDir()}
	proftest.Golden(r, fresh, []byte("new\n"))
	if got, err := os.ReadFile(fresh); err != nil || string(got) != "new\n" || len(r.errors) != 0 {
		t.Errorf("-update: got file %q, %v, errors %q; want %q written", got, err, r.errors, "new\n")
	}
	if !*update {
		t.Error("-update: the package's flag is not the one Golden reads")
	}
}
