package proftest

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Golden compares got with the golden file at path.
//
// With the -update flag it writes got to path instead (creating the
// directory). The flag is the test package's own, declared as STYLE.md §6
// asks:
//
//	var update = flag.Bool("update", false, "rewrite golden files")
//
// Golden looks it up by name, so that packages that declare it for other
// goldens too keep one flag; a test binary without it never updates.
//
// On a mismatch Golden reports a unified diff (want → got) and saves got
// under t.ArtifactDir() with the golden file's base name.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s)", err, updateHint())
		return
	}
	if string(want) == string(got) {
		return
	}
	saved := filepath.Join(t.ArtifactDir(), filepath.Base(path))
	if err := os.WriteFile(saved, got, 0o644); err != nil {
		saved = "not saved: " + err.Error()
	}
	t.Errorf("got output different from %s (%s; got saved as %s):\n%s",
		path, updateHint(), saved, Diff(path, "got", want, got))
}

// updating reports whether the test binary's -update flag is set.
func updating() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	on, _ := g.Get().(bool)
	return on
}

func updateHint() string {
	if flag.Lookup("update") == nil {
		return `this test package declares no -update flag: add var update = flag.Bool("update", false, "rewrite golden files")`
	}
	return "go test -update rewrites it"
}
