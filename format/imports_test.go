package format_test

import (
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// analysisPrefix is the import path of the analyses: no format package may
// depend on them. Readers build the model; the writers of analysed views
// take the stacks the session computed (profile.ThreadStacks), so that
// every export has the numbers of `jsprof top/tree`.
const analysisPrefix = "github.com/jsprof/jsprof/analysis"

func isAnalysis(path string) bool {
	return path == analysisPrefix || strings.HasPrefix(path, analysisPrefix+"/")
}

// No package under format/ imports an analysis package in its non-test
// files, directly (read with go/parser) or through another package
// (go list -deps). Every offender is reported.
func TestNoAnalysisImports(t *testing.T) {
	t.Parallel()
	direct := map[string][]string{} // file → analysis imports
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if isAnalysis(p) {
				file := filepath.ToSlash(filepath.Join("format", path))
				direct[file] = append(direct[file], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range slices.Sorted(maps.Keys(direct)) {
		t.Errorf("%s imports %s", file, strings.Join(direct[file], ", "))
	}

	// Through other packages: the non-test dependencies of each package.
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Logf("no go command in PATH: direct imports checked only")
		return
	}
	cmd := exec.Command(goBin, "list", "-e", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", "./...")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	pkgs, offenders := 0, 0
	for line := range strings.Lines(string(out)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		pkgs++
		var bad []string
		for _, dep := range fields[1:] {
			if isAnalysis(dep) {
				bad = append(bad, dep)
			}
		}
		if len(bad) > 0 {
			offenders++
			t.Errorf("%s depends on %s", fields[0], strings.Join(bad, ", "))
		}
	}
	if pkgs < 5 {
		t.Errorf("go list found %d packages under format/, want the format packages\n%s", pkgs, out)
	}
	t.Logf("%d packages under format/ checked: %d depend on an analysis package; %d files import one", pkgs, offenders, len(direct))
}
