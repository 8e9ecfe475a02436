package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/report"
)

// serverJS is the workload recorded by TestPprofExportRecorded: a named
// function with two hot lines that calls an anonymous callback, two
// anonymous functions called from another anonymous callback, all under
// the script's anonymous top level. Before pprof export named anonymous
// functions apart, they were all one "(anonymous)" node, which -peek showed
// calling and called by itself.
const serverJS = `'use strict';
function handleRequest(req) {
  let acc = 0;
  for (let i = 0; i < 20000; i++) {
    acc += Math.sqrt(i * req) % 3;
  }
  const parts = [];
  for (let i = 0; i < 400; i++) {
    parts.push(String(i * req));
  }
  return acc + parts.map((p) => { let h = 0; for (let i = 0; i < 200; i++) h += p.charCodeAt(i % p.length); return h; }).length;
}
const square = (x) => { let s = 0; for (let i = 0; i < 30000; i++) s += (x * i) % 7; return s; };
const cube = (x) => { let s = 0; for (let i = 0; i < 30000; i++) s += (x * i * i) % 11; return s; };
const end = Date.now() + 400;
let n = 0, total = 0;
while (Date.now() < end) {
  total += handleRequest(n++);
  total += [1, 2, 3].map((x) => square(x) + cube(x)).length;
}
console.log(total > 0);
`

// The pprof export of a profile recorded with `node --cpu-prof`, with its
// source beside it, is read by the real `go tool pprof` (no flags needed:
// the file:// URL is written as a local path): see checkPprofExport.
func TestPprofExportRecorded(t *testing.T) {
	t.Parallel()
	goBin, nodeBin := lookPath(t, "go"), lookPath(t, "node")
	dir := t.TempDir()
	script := filepath.Join(dir, "server.js")
	if err := os.WriteFile(script, []byte(serverJS), 0o644); err != nil {
		t.Fatal(err)
	}
	// --no-turbo-inlining: the call paths checked below must not depend on
	// what the JIT inlines (a callback of map is inlined into it, and then
	// V8 gives its lines to the caller). mix.cpuprofile has inlined code.
	cmd := exec.Command(nodeBin, "--no-turbo-inlining", "--cpu-prof", "--cpu-prof-interval=100", "--cpu-prof-dir="+dir, "--cpu-prof-name=server.cpuprofile", script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	got := checkPprofExport(t, goBin, filepath.Join(dir, "server.cpuprofile"), "server.js")
	// The symptom of the issue: handleRequest is called by the top level
	// and calls its callback, two different anonymous functions.
	peek := got.peek["handleRequest"]
	if !slices.Contains(peek.callers, "(anonymous) server.js:1") || !slices.Contains(peek.callees, "(anonymous) server.js:11") {
		t.Errorf("-peek handleRequest: callers %q, callees %q; want (anonymous) server.js:1 among the callers and (anonymous) server.js:11 among the callees", peek.callers, peek.callees)
	}
}

// The same checks on the committed mix.cpuprofile, whose recorded URLs
// (file:///jsprof/testdata/node/mix.js) are mapped to the source with
// pprof's -trim_path and -source_path.
func TestPprofExportTrimPath(t *testing.T) {
	t.Parallel()
	goBin := lookPath(t, "go")
	src, err := filepath.Abs("../../testdata/node")
	if err != nil {
		t.Fatal(err)
	}
	checkPprofExport(t, goBin, "../../testdata/node/mix.cpuprofile", "mix.js", "-trim_path=/jsprof/testdata/node", "-source_path="+src)
}

// http(s) URLs are written as host and path, which pprof finds with
// -trim_path (a host without a port) or under a -source_path directory
// named like a directory of the URL (any host). mix.cpuprofile is served
// here from two made-up addresses.
func TestPprofExportHTTP(t *testing.T) {
	t.Parallel()
	goBin := lookPath(t, "go")
	src, err := filepath.Abs("../../testdata/node")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../testdata/node/mix.cpuprofile")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, prefix string
		flags        []string
	}{
		{"trim", "https://example.com/static/", []string{"-trim_path=example.com/static", "-source_path=" + src}},
		{"port", "http://localhost:8080/node/", []string{"-source_path=" + src}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "mix.cpuprofile")
			served := bytes.ReplaceAll(data, []byte("file:///jsprof/testdata/node/"), []byte(c.prefix))
			if err := os.WriteFile(file, served, 0o644); err != nil {
				t.Fatal(err)
			}
			checkPprofExport(t, goBin, file, "mix.js", c.flags...)
		})
	}
}

func lookPath(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("no %s command in PATH", name)
	}
	return p
}

// peekRow is a function of `go tool pprof -peek` with its callers and
// callees.
type peekRow struct{ callers, callees []string }

// pprofFigures is what `go tool pprof` showed of an export.
type pprofFigures struct {
	peek map[string]peekRow
}

// checkPprofExport writes profile as pprof with `jsprof convert` and
// checks what `go tool pprof` (with flags) shows of it against `jsprof
// top --json` and `top --lines --json`, in integer ns (-unit=ns):
//
//   - -list of every function of script: the source is found, and each line
//     has as flat time the self time `top --lines` gives it, except the
//     function's first line, which also holds the self time the lines
//     leave (their split of each node's self time is rounded down, a few
//     ns); the routine's flat is the function's self time;
//   - -top: every function's flat time is its self time summed over the
//     jsprof functions pprof names alike (pprof merges by name), and its
//     cum the total where the name is one jsprof function;
//   - -peek of every function of script: anonymous functions are distinct
//     ("(anonymous) FILE:LINE"), and no non-recursive function of script
//     is among its own callers or callees.
func checkPprofExport(t *testing.T, goBin, profilePath, script string, flags ...string) pprofFigures {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out.pb.gz")
	if r := run(t, nil, "convert", "-o", out, profilePath); r.code != 0 {
		t.Fatalf("jsprof convert: %v", r)
	}
	var top report.Top
	var lines report.Lines
	for _, c := range []struct {
		args []string
		v    any
	}{{[]string{"top", "-n", "0", "--json", profilePath}, &top}, {[]string{"top", "--lines", "-n", "0", "--json", profilePath}, &lines}} {
		r := run(t, nil, c.args...)
		if r.code != 0 {
			t.Fatalf("jsprof %s: %v", strings.Join(c.args, " "), r)
		}
		if err := json.Unmarshal([]byte(r.stdout), c.v); err != nil {
			t.Fatalf("jsprof %s: %v", strings.Join(c.args, " "), err)
		}
	}
	if len(top.Threads) != 1 || len(lines.Threads) != 1 {
		t.Fatalf("%d and %d threads, want one", len(top.Threads), len(lines.Threads))
	}
	pprofName := func(f report.Function) string {
		if f.Name != "" {
			return f.Name
		}
		switch {
		case f.URL != "" && f.Line >= 0:
			return fmt.Sprintf("(anonymous) %s:%d", path.Base(pprof.FileName(f.URL)), f.Line+1)
		case f.URL != "":
			return "(anonymous) " + path.Base(pprof.FileName(f.URL))
		}
		return "" // named after its script id (pprof.FuncName): see noURL
	}
	inScript := func(f report.Function) bool { return strings.HasSuffix(f.URL, "/"+script) }

	// What pprof should show, by pprof name.
	flat, cum := map[string]int64{}, map[string]int64{}
	count := map[string]int{}
	var noURL int64              // self ns of anonymous functions without a URL
	inFile := map[string]int64{} // script's functions: self ns by name
	first := map[string]int64{}  // script's functions: 1-based first line
	var names []string           // of script's functions with self time
	for _, f := range top.Threads[0].Functions {
		name := pprofName(f.Function)
		if name == "" {
			noURL += int64(f.SelfMs)
			continue
		}
		flat[name] += int64(f.SelfMs)
		cum[name] = int64(f.TotalMs)
		count[name]++
		if inScript(f.Function) {
			inFile[name] += int64(f.SelfMs)
			first[name] = int64(f.Line) + 1
			if f.TotalMs > 0 && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	wantLines := map[string]map[int64]int64{} // name → line → ns
	var anonymous int
	for _, name := range names {
		wantLines[name] = map[int64]int64{}
		if strings.HasPrefix(name, "(anonymous) ") {
			anonymous++
		}
	}
	for _, l := range lines.Threads[0].Lines {
		name := pprofName(l.Function)
		if !inScript(l.Function) || wantLines[name] == nil || l.SelfMs == 0 {
			continue
		}
		wantLines[name][int64(l.SourceLine)] += int64(l.SelfMs)
	}
	// The self time the lines leave is at the function's first line.
	for _, f := range top.Threads[0].Functions {
		name := pprofName(f.Function)
		if !inScript(f.Function) || wantLines[name] == nil {
			continue
		}
		var sum int64
		for _, ns := range wantLines[name] {
			sum += ns
		}
		if rest := inFile[name] - sum; rest > 0 {
			wantLines[name][int64(f.Line)+1] += rest
		}
	}
	if len(names) < 3 || anonymous < 2 {
		t.Fatalf("%s: functions with time %q; want at least three, two of them anonymous", script, names)
	}

	pp := func(args ...string) string {
		t.Helper()
		args = append(append([]string{"tool", "pprof", "-unit=ns", "-nodefraction=0", "-edgefraction=0", "-nodecount=100000"}, flags...), args...)
		cmd := exec.Command(goBin, append(args, out)...)
		cmd.Dir = t.TempDir() // not beside the source: only the paths find it
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return string(stdout)
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	only := "^(" + strings.Join(quoted, "|") + ")$"

	// -list.
	listed := parseList(t, pp("-list", only))
	checked := 0
	for _, name := range names {
		r, ok := listed[name+" in "+script]
		switch {
		case !ok:
			t.Errorf("-list: no routine %q", name)
			continue
		case r.err != "":
			t.Errorf("-list %s: %s", name, r.err)
			continue
		case r.flat != inFile[name]:
			t.Errorf("-list %s: flat %d ns, want top's self %d", name, r.flat, inFile[name])
		}
		want := wantLines[name]
		for line, ns := range r.lines {
			if ns != want[line] {
				t.Errorf("-list %s: line %d flat %d ns, want %d (top --lines)", name, line, ns, want[line])
			}
		}
		for line, ns := range want {
			if line < first[name] {
				// pprof lists a function from its first line: ticks V8
				// gives lines above it (code inlined from a function
				// defined earlier in the file) are in the flat only.
				continue
			}
			if _, ok := r.lines[line]; !ok {
				t.Errorf("-list %s: line %d not listed, want %d ns (top --lines)", name, line, ns)
			}
			checked++
		}
	}

	// -top.
	rows := 0
	var anonNoURL int64
	for line := range strings.Lines(pp("-top")) {
		m := pprofTopRow.FindStringSubmatch(strings.TrimRight(line, "\n"))
		if m == nil {
			continue
		}
		rows++
		f, _ := strconv.ParseInt(m[1], 10, 64)
		c, _ := strconv.ParseInt(m[2], 10, 64)
		name := m[3]
		want, ok := flat[name]
		switch {
		case !ok && strings.HasPrefix(name, "(anonymous)"):
			anonNoURL += f
		case !ok:
			t.Errorf("-top lists %q, unknown to jsprof top", name)
		case f != want:
			t.Errorf("-top %s: flat %d ns, want top's self %d", name, f, want)
		case count[name] == 1 && c != cum[name]:
			t.Errorf("-top %s: cum %d ns, want top's total %d", name, c, cum[name])
		}
	}
	if rows == 0 {
		t.Errorf("-top lists no functions")
	}
	if anonNoURL != noURL {
		t.Errorf("-top: anonymous functions without a URL have flat %d ns, want top's self %d", anonNoURL, noURL)
	}

	// -peek.
	fig := pprofFigures{peek: parsePeek(pp("-peek", only))}
	for _, name := range names {
		r, ok := fig.peek[name]
		if !ok {
			t.Errorf("-peek: no entry for %q", name)
			continue
		}
		if slices.Contains(r.callers, name) || slices.Contains(r.callees, name) {
			t.Errorf("-peek %s: its own caller or callee (callers %q, callees %q)", name, r.callers, r.callees)
		}
	}
	t.Logf("%s: -list, -top and -peek of %d functions (%d anonymous); %d hot lines checked against top --lines", script, len(names), anonymous, checked)
	return fig
}

// pprofTopRow matches a row of `go tool pprof -top -unit=ns`: flat, cum,
// name.
var pprofTopRow = regexp.MustCompile(`^\s*(\d+)ns\s+\S+%\s+\S+%\s+(\d+)ns\s+\S+%\s+(.*)$`)

// routine is a function of `go tool pprof -list`: its flat ns, the flat
// ns of each line that has some, or the error pprof gave for its source.
type routine struct {
	flat  int64
	lines map[int64]int64
	err   string
}

var (
	listHead = regexp.MustCompile(`^ROUTINE =+ (.*) in (.*)$`)
	listSum  = regexp.MustCompile(`^\s*(\d+|\.)(?:ns)?\s+(\d+|\.)(?:ns)?\s+\(flat, cum\)`)
	listLine = regexp.MustCompile(`^\s*(\d+|\.)(?:ns)?\s+(\d+|\.)(?:ns)?\s+(\d+):`)
)

// parseList parses the output of `go tool pprof -list -unit=ns`, keyed by
// "NAME in FILE" (the file's base name).
func parseList(t *testing.T, out string) map[string]*routine {
	t.Helper()
	got := map[string]*routine{}
	var cur *routine
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\n")
		if m := listHead.FindStringSubmatch(line); m != nil {
			key := m[1] + " in " + path.Base(m[2])
			if got[key] != nil {
				t.Errorf("-list: %q twice", key)
			}
			cur = &routine{lines: map[int64]int64{}}
			got[key] = cur
			continue
		}
		if cur == nil {
			continue
		}
		if m := listSum.FindStringSubmatch(line); m != nil {
			cur.flat, _ = strconv.ParseInt(m[1], 10, 64)
		} else if m := listLine.FindStringSubmatch(line); m != nil {
			if m[1] != "." {
				ns, _ := strconv.ParseInt(m[1], 10, 64)
				n, _ := strconv.ParseInt(m[3], 10, 64)
				cur.lines[n] = ns
			}
		} else if strings.Contains(line, "Error:") {
			cur.err = strings.TrimSpace(line)
		}
	}
	return got
}

// parsePeek parses the output of `go tool pprof -peek`: blocks of callers,
// the function (with flat and cum), then callees.
func parsePeek(out string) map[string]peekRow {
	got := map[string]peekRow{}
	var callers, callees []string
	focus := ""
	flush := func() {
		if focus != "" {
			got[focus] = peekRow{callers, callees}
		}
		focus, callers, callees = "", nil, nil
	}
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\n")
		if strings.HasPrefix(line, "-----") {
			flush()
			continue
		}
		left, right, ok := strings.Cut(line, "|")
		if !ok || strings.Contains(left, "calls%") {
			continue
		}
		switch {
		case strings.HasPrefix(right, "   "):
			if focus == "" {
				callers = append(callers, strings.TrimSpace(right))
			} else {
				callees = append(callees, strings.TrimSpace(right))
			}
		case len(strings.Fields(left)) >= 4:
			focus = strings.TrimSpace(right)
		}
	}
	flush()
	return got
}
