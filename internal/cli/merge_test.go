package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// jsprof merge writes every format it offers; the .cpuprofile of a file
// merged with itself reads back with twice its time; inputs that do not
// belong together and unknown formats are clear errors.
func TestMerge(t *testing.T) {
	t.Parallel()
	mix := profilePath("mix")
	dir := t.TempDir()
	for _, out := range []string{"m.pb.gz", "m.folded", "m.speedscope.json", "m.firefox.json", "m.svg", "m.cpuprofile"} {
		mustRun(t, nil, "merge", "-o", filepath.Join(dir, out), mix, profilePath("recursion"), mix)
		if st, err := os.Stat(filepath.Join(dir, out)); err != nil || st.Size() == 0 {
			t.Errorf("merge -o %s wrote nothing (%v)", out, err)
		}
	}
	twice := filepath.Join(dir, "twice.cpuprofile")
	mustRun(t, nil, "merge", "--format", "cpuprofile", "-o", twice, mix, mix)
	one := mustRun(t, nil, "top", "-n", "3", mix)
	two := mustRun(t, nil, "top", "-n", "3", twice)
	if !strings.Contains(one, "881.383 ms sampled") || !strings.Contains(two, "1762.766 ms sampled") {
		t.Errorf("top of the input:\n%s\ntop of it merged with itself:\n%s", one, two)
	}
	// The same code in two places merges with --strip.
	moved := movedProfile(t, mix, 1)
	apart := mustRun(t, nil, "merge", "--format", "folded", mix, moved)
	together := mustRun(t, nil, "merge", "--format", "folded", "--strip", "file:///jsprof/testdata/node/", "--strip", "file:///srv/app/", mix, moved)
	if !strings.Contains(apart, "file:///srv/app/mix.js") || strings.Contains(together, "file:///") ||
		strings.Count(together, "\n") >= strings.Count(apart, "\n") {
		t.Errorf("merge --strip: %d lines apart, %d together:\n%.600s", strings.Count(apart, "\n"), strings.Count(together, "\n"), together)
	}
	xs := filepath.Join(dir, "xs.cpuprofile")
	os.WriteFile(xs, []byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(host)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3]},`+
		`{"id":2,"callFrame":{"functionName":"f","scriptId":"1","url":"app.js","lineNumber":1,"columnNumber":0},"children":[3]},`+
		`{"id":3,"callFrame":{"functionName":"g","scriptId":"1","url":"app.js","lineNumber":5,"columnNumber":0}}],`+
		`"startTime":0,"endTime":4000,"samples":[2,3,3,2],"timeDeltas":[0,1000,1000,1000]}`), 0o644)
	if r := run(t, nil, "merge", "--format", "folded", mix, xs); r.code != 1 || !strings.Contains(r.stderr, "do not belong together") {
		t.Errorf("merging an XS call graph with a V8 profile: %v", r)
	}
	if r := run(t, nil, "merge", "--format", "trace", mix); r.code != 2 || !strings.Contains(r.stderr, "merge writes") {
		t.Errorf("merge --format trace: %v", r)
	}
	if r := run(t, nil, "merge", "--format", "pprof"); r.code != 2 {
		t.Errorf("merge with no input: %v", r)
	}
}
