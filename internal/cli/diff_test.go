package cli_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/report"
)

// movedProfile writes a copy of a .cpuprofile as another machine and a
// slower run give it: URLs under file:///srv/app/ instead of the fixtures'
// directory, and every time delta multiplied by k.
func movedProfile(t *testing.T, src string, k int64) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.ReplaceAll(string(data), "file:///jsprof/testdata/node/", "file:///srv/app/"))
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	num := func(v any) int64 { x, _ := v.(json.Number).Int64(); return x }
	ds := doc["timeDeltas"].([]any)
	for i, d := range ds {
		ds[i] = json.Number(strconv.FormatInt(num(d)*k, 10))
	}
	start, end := num(doc["startTime"]), num(doc["endTime"])
	doc["endTime"] = json.Number(strconv.FormatInt(start+(end-start)*k, 10))
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "moved-"+filepath.Base(src))
	if err := os.WriteFile(name, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func generatedProfile(t *testing.T, seed uint64) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "gen"+strconv.FormatUint(seed, 10)+".cpuprofile")
	if err := os.WriteFile(name, proftest.LargeCPUProfile(seed, 300, 4000), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func diffJSON(t *testing.T, args ...string) report.Diff {
	t.Helper()
	out := mustRun(t, nil, append([]string{"diff", "--json"}, args...)...)
	var d report.Diff
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("jsprof diff --json: %v", err)
	}
	return d
}

// pprofDiffRow matches a row of `go tool pprof -top -unit=ns` with
// -diff_base (flat values may be negative).
var pprofSuffix = regexp.MustCompile(` \S+:\d+$`)

var pprofDiffRow = regexp.MustCompile(`^\s*(-?\d+)(?:ns)?\s+\S+%\s+\S+%\s+(-?\d+)(?:ns)?\s+\S+%\s+(.*)$`)

// `go tool pprof -diff_base` on the pair `jsprof diff --format pprof`
// writes gives every function the self-time delta of `jsprof diff --json`
// (pprof merges functions by name, so the deltas are summed by name):
// two different programs, the same program moved to another directory
// and three times slower (matched by the automatic prefix, and by
// --strip), and two generated profiles; plain and with --normalize (pprof
// scales NEW to BASE's total where jsprof scales BASE to NEW's, so its
// deltas are jsprof's divided by the scale).
func TestDiffMatchesGoToolPprof(t *testing.T) {
	t.Parallel()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	mix := profilePath("mix")
	moved := movedProfile(t, mix, 3)
	cases := []struct {
		name       string
		base, new  string
		extra      []string
		wantStrips bool
	}{
		{name: "mix-recursion", base: mix, new: profilePath("recursion")},
		{name: "moved-slower-auto", base: mix, new: moved, wantStrips: true},
		{name: "moved-slower-strip", base: mix, new: moved, extra: []string{"--strip", "file:///jsprof/testdata/node/", "--strip", "file:///srv/app/"}},
		{name: "generated", base: generatedProfile(t, 7), new: generatedProfile(t, 8)},
	}
	for _, tc := range cases {
		for _, norm := range []bool{false, true} {
			name := tc.name
			args := append([]string{}, tc.extra...)
			if norm {
				name += "-normalize"
				args = append(args, "--normalize")
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				d := diffJSON(t, append(args, tc.base, tc.new)...)
				if tc.wantStrips && (d.Base.StripPrefix == "" || d.New.StripPrefix == "") {
					t.Errorf("strip prefixes %q and %q, want both set", d.Base.StripPrefix, d.New.StripPrefix)
				}
				want := map[string]int64{}
				for _, f := range d.Functions {
					n := f.Name
					if n == "" {
						n = "(anonymous)"
					}
					want[n] += int64(f.DeltaSelfMs)
				}
				dir := t.TempDir()
				r := run(t, nil, append(append([]string{"diff", "--format", "pprof", "-o", filepath.Join(dir, "d.pb.gz")}, args...), tc.base, tc.new)...)
				if r.code != 0 || !strings.Contains(r.stderr, "go tool pprof") {
					t.Fatalf("diff --format pprof: %v", r)
				}
				pargs := []string{"tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0", "-unit=ns"}
				if norm {
					pargs = append(pargs, "-normalize")
				}
				pargs = append(pargs, "-diff_base="+filepath.Join(dir, "d.base.pb.gz"), filepath.Join(dir, "d.new.pb.gz"))
				cmd := exec.Command(goBin, pargs...)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("go tool pprof: %v\n%s", err, stderr.String())
				}
				got := map[string]int64{}
				header := false
				for line := range strings.Lines(string(out)) {
					line = strings.TrimRight(line, "\n")
					if strings.Contains(line, "flat%") {
						header = true
						continue
					}
					if m := pprofDiffRow.FindStringSubmatch(line); header && m != nil {
						v, _ := strconv.ParseInt(m[1], 10, 64)
						// pprof tells functions of one name apart by
						// "name file:line" where it must.
						n := m[3]
						if _, ok := want[n]; !ok {
							n = pprofSuffix.ReplaceAllString(n, "")
						}
						got[n] += v
					}
				}
				checked := 0
				for n, w := range want {
					g := float64(got[n])
					if norm {
						g *= d.Scale
					}
					// Rounding: jsprof rounds the scaled base per function,
					// pprof its scaled values per sample.
					tol := 0.5
					if norm {
						tol = 2 + 1e-6*math.Abs(float64(w))
					}
					if math.Abs(g-float64(w)) > tol {
						t.Errorf("%s: pprof delta %.0f ns, jsprof %d ns", n, g, w)
					} else {
						checked++
					}
				}
				for n, g := range got {
					if _, ok := want[n]; !ok && g != 0 {
						t.Errorf("pprof lists %s (%d ns), unknown to jsprof diff", n, g)
					}
				}
				if checked == 0 {
					t.Errorf("no function compared")
				}
				t.Logf("%d functions (by name): go tool pprof -diff_base gives jsprof's deltas (scale %.4g)", checked, d.Scale)
			})
		}
	}
}

// A profile against its own pprof export (as jsprof, or Pyroscope, writes
// it: files as paths, anonymous functions named by place, columns only
// where a sample is at the function's first line) matches function for
// function and path for path, with the same self times.
func TestDiffPprofExport(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"mix", "recursion", "async"} {
		src := profilePath(name)
		pb := filepath.Join(t.TempDir(), name+".pb.gz")
		mustRun(t, nil, "convert", "--format", "pprof", "-o", pb, src)
		d := diffJSON(t, "--tree", pb, src)
		// Self times survive the round trip exactly; the total of a
		// recursive function can move (the reader rebuilds call paths from
		// pprof's aggregated samples), so totals are not compared here.
		bad, totals := 0, 0
		for _, f := range d.Functions {
			if f.DeltaTotalMs != 0 {
				totals++
			}
			if f.Status == "added" || f.Status == "removed" || f.DeltaSelfMs != 0 {
				bad++
				if bad < 5 {
					t.Errorf("%s: %s %s:%d: %s, Δ self %d ns", name, f.Name, f.URL, f.Line, f.Status, f.DeltaSelfMs)
				}
			}
		}
		for _, p := range d.Paths {
			if p.Status == "added" || p.Status == "removed" {
				bad++
				if bad < 5 {
					t.Errorf("%s: path %v %s", name, p.Path, p.Status)
				}
			}
		}
		// The differential flame graph matches every path too.
		svgOut := filepath.Join(t.TempDir(), name+".svg")
		mustRun(t, nil, "diff", "--format", "svg", "-o", svgOut, pb, src)
		if data, _ := os.ReadFile(svgOut); strings.Contains(string(data), "not drawn") || strings.Contains(string(data), "(added)") {
			t.Errorf("%s: the differential flame graph of the export and the file has unmatched paths", name)
		}
		t.Logf("%s: %d functions and %d paths matched between the .cpuprofile and its pprof export, self times equal (%d totals differ)",
			name, len(d.Functions), len(d.Paths), totals)
	}
}

// The text table, a moved and three times slower profile: every function
// matched, the deltas twice the base; normalized, no change.
func TestDiffText(t *testing.T) {
	t.Parallel()
	mix := profilePath("mix")
	moved := movedProfile(t, mix, 3)
	out := mustRun(t, nil, "diff", "-n", "3", mix, moved)
	if !strings.Contains(out, "(+200.0%)") || !strings.Contains(out, "0 added, 0 removed") || !strings.Contains(out, "+633.692") {
		t.Errorf("diff text:\n%s", out)
	}
	out = mustRun(t, nil, "diff", "--normalize", "-n", "3", mix, moved)
	if !strings.Contains(out, "normalized: base times ×3") || !strings.Contains(out, "+0.000") {
		t.Errorf("diff --normalize text:\n%s", out)
	}
	// A usage error names what is missing.
	if r := run(t, nil, "diff", mix); r.code != 2 || !strings.Contains(r.stderr, "want BASE and NEW") {
		t.Errorf("diff with one file: %v", r)
	}
}

// The differential flame graph: well-formed, one frame per drawn path, the
// colour scale and the change in the tooltips.
func TestDiffSVG(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "d.svg")
	mustRun(t, nil, "diff", "--format", "svg", "-o", out, profilePath("mix"), movedProfile(t, profilePath("mix"), 2))
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !strings.HasPrefix(s, "<?xml") || !strings.Contains(s, "widths: new profile") || !strings.Contains(s, "self: new") {
		t.Errorf("svg: %.500s", s)
	}
	if strings.Contains(s, "paths not drawn") {
		t.Errorf("a moved profile matches every path, but the svg says some are not drawn")
	}
	mustRun(t, nil, "diff", "--format", "svg", "--reverse", "-o", out, profilePath("mix"), profilePath("recursion"))
	data, _ = os.ReadFile(out)
	if !strings.Contains(string(data), "widths: base profile") || !strings.Contains(string(data), "(removed)") {
		t.Errorf("reverse svg lacks the base widths or removed paths")
	}
}

// The streamed --json --tree output is the encoding of the report it
// decodes to, paths and all, as writeJSON gives it.
func TestDiffJSONStreamed(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--tree", profilePath("mix"), profilePath("recursion")},
		{"--tree", "--normalize", profilePath("recursion"), movedProfile(t, profilePath("recursion"), 3)},
		{profilePath("mix"), profilePath("async")},
	} {
		out := mustRun(t, nil, append([]string{"diff", "--json"}, args...)...)
		d := diffJSON(t, args...)
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(d); err != nil {
			t.Fatal(err)
		}
		if out != want.String() {
			t.Errorf("diff --json %s: %d bytes, not the %d of its report encoded", strings.Join(args, " "), len(out), want.Len())
		}
		if (args[0] == "--tree") != (len(d.Paths) > 0) {
			t.Errorf("diff --json %s: %d paths", strings.Join(args, " "), len(d.Paths))
		}
	}
}

// TestDiffByTotalLinear checks that --by total orders the rows in time
// linear in them (n log n): an insertion sort took the square of the rows
// when the order by self time is the reverse of the order by total time,
// as on a chain of 20 k frames whose deeper frames have more self time
// (1.4 s against itself two times slower).
func TestDiffByTotalLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("two profiles of 20 k frames")
	}
	const n = 20_000
	ramp := func(k int) []byte {
		var b strings.Builder
		b.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]}`)
		for i := 2; i <= n+1; i++ {
			b.WriteString(`,{"id":` + strconv.Itoa(i) + `,"callFrame":{"functionName":"f` + strconv.Itoa(i) + `","scriptId":"1","url":"a.js","lineNumber":` + strconv.Itoa(i) + `,"columnNumber":0}`)
			if i <= n {
				b.WriteString(`,"children":[` + strconv.Itoa(i+1) + `]`)
			}
			b.WriteString(`}`)
		}
		var samples, deltas []string
		end := 0
		for i := range n {
			samples = append(samples, strconv.Itoa(i+2))
			deltas = append(deltas, strconv.Itoa(k*(i+1)))
			end += k * (i + 1)
		}
		b.WriteString(`],"startTime":0,"endTime":` + strconv.Itoa(end) + `,"samples":[` + strings.Join(samples, ",") + `],"timeDeltas":[` + strings.Join(deltas, ",") + `]}`)
		return []byte(b.String())
	}
	dir := t.TempDir()
	base, slow := filepath.Join(dir, "base.cpuprofile"), filepath.Join(dir, "slow.cpuprofile")
	b, s := ramp(1), ramp(2)
	for name, data := range map[string][]byte{base: b, slow: s} {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out string
	fuzzcheck.Speed(t, append(b, s...), func() { out = mustRun(t, nil, "diff", "--tree", "--by", "total", "-n", "3", base, slow) })
	// The outermost function and path first: the largest change of total
	// time.
	if !strings.Contains(out, "+200009.999  f2  a.js:3:1\n") || !strings.Contains(out, "+200009.999  f2\n") {
		t.Errorf("diff --by total: f2 is not first:\n%s", out)
	}
}
