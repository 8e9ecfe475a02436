package proftest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/profile"
)

// GoldenDumps reads every file in dir/inputs, parses it, checks that the
// profile is valid, and compares its Profile.String dump with
// dir/golden/<name>.txt (Golden; -update rewrites them), where name is the
// input's file name up to its first dot. Each input is a parallel subtest.
// A golden file without an input is an error, so that none goes stale.
func GoldenDumps(t *testing.T, dir string, parse func([]byte) (*profile.Profile, error)) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "inputs"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no inputs in %s: %v", filepath.Join(dir, "inputs"), err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		name, _, _ := strings.Cut(e.Name(), ".")
		if names[name] {
			t.Fatalf("two inputs named %s in %s", name, dir)
		}
		names[name] = true
		path := filepath.Join(dir, "inputs", e.Name())
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p, err := parseCatching(parse, data)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if err := p.Validate(); err != nil {
				t.Fatalf("%s: the profile fails Validate: %v", path, err)
			}
			Golden(t, filepath.Join(dir, "golden", name+".txt"), []byte(p.String()))
		})
	}
	goldens, _ := filepath.Glob(filepath.Join(dir, "golden", "*.txt"))
	for _, g := range goldens {
		if name := strings.TrimSuffix(filepath.Base(g), ".txt"); !names[name] {
			t.Errorf("%s has no input in %s", g, filepath.Join(dir, "inputs"))
		}
	}
}
