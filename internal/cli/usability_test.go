package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/report"
)

// writeFile writes data to a file of the test's temporary directory.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// topLine returns the line of top's text output for the function named
// name (the label's first field), or "".
func topLine(out, name string) string {
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) >= 5 && strings.HasPrefix(strings.Join(f[4:], " "), name) {
			return line
		}
	}
	return ""
}

// TestFocusForms requires --focus to accept what people type: a name, a
// regular expression over names, name@file:line with the file as a suffix
// of the URL, and file:line (for anonymous functions); and a matcher that
// matches nothing to fail with the closest names.
func TestFocusForms(t *testing.T) {
	t.Parallel()
	mix := profilePath("mix")
	header := func(args ...string) string {
		out := mustRun(t, nil, append([]string{"top", "-n", "1"}, args...)...)
		line, _, _ := strings.Cut(out, "\n")
		return line
	}
	allocate := header("--focus", "allocate", mix)
	if !strings.Contains(allocate, "480.850 ms") {
		t.Fatalf("--focus allocate: %q, want the 480.850 ms under allocate", allocate)
	}
	for _, form := range []string{"allocate@mix.js:97", "allocate@mix.js", "mix.js:97", "allocate@file:///jsprof/testdata/node/mix.js:97", "^alloc"} {
		if got := header("--focus", form, mix); got != allocate {
			t.Errorf("--focus %s: got %q, want %q as with --focus allocate", form, got, allocate)
		}
	}
	if got := header("--focus", "json.*Trip", mix); !strings.Contains(got, "127.327 ms") {
		t.Errorf("--focus json.*Trip (a regular expression): got %q, want jsonRoundTrip's 127.327 ms", got)
	}
	for _, c := range []struct{ arg, want string }{
		{"nosuchfn", `--focus "nosuchfn" matches no function`},
		{"alocate", `--focus "alocate" matches no function; the closest names are: "allocate"`},
		{"allocate@other.js", `--focus "allocate@other.js" matches no function`},
	} {
		r := run(t, nil, "top", "--focus", c.arg, mix)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("--focus %s: got %+v, want exit 1 and %q on stderr", c.arg, r, c.want)
		}
	}
	r := run(t, nil, "top", "--drop", "nothing", mix)
	if r.code != 1 || !strings.Contains(r.stderr, `--drop "nothing" matches no function`) {
		t.Errorf("--drop nothing: got %+v, want exit 1: a typo must not pass silently", r)
	}
}

// nameProfile is a .cpuprofile whose function names carry characters the
// old output escaped: quotes, backslashes, a regular expression, a NUL.
const nameProfile = `{"nodes":[
{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3,4]},
{"id":2,"callFrame":{"functionName":"RegExp: \\s+","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},
{"id":3,"callFrame":{"functionName":"log msg=\"hi\"","scriptId":"1","url":"file:///a.js","lineNumber":4,"columnNumber":2}},
{"id":4,"callFrame":{"functionName":"nul\u0000here","scriptId":"1","url":"file:///a.js","lineNumber":9,"columnNumber":2}}],
"startTime":0,"endTime":10000,"samples":[2,2,3,3,3,4],"timeDeltas":[1000,1000,1000,1000,1000,1000]}`

// TestNamesAsPrinted requires names printed as they are (only control
// characters made visible), so that a name pasted from the output matches.
func TestNamesAsPrinted(t *testing.T) {
	t.Parallel()
	in := writeFile(t, "names.cpuprofile", nameProfile)
	out := mustRun(t, nil, "top", in)
	for _, name := range []string{`RegExp: \s+`, `log msg="hi"`, `nul\x00here`} {
		if topLine(out, name) == "" {
			t.Errorf("top does not print %s as it is:\n%s", name, out)
		}
	}
	for _, name := range []string{`RegExp: \s+`, `log msg="hi"`} {
		r := run(t, nil, "top", "--focus", name, in)
		if r.code != 0 || topLine(r.stdout, name) == "" {
			t.Errorf("--focus %s (as printed): got %+v, want it found", name, r)
		}
	}
}

// TestEmptyResultsExplained requires an input or a question with nothing
// to show to say why, with exit 1, instead of printing nothing.
func TestEmptyResultsExplained(t *testing.T) {
	t.Parallel()
	noSamples := writeFile(t, "node_trace.json", `{"traceEvents":[
{"name":"process_name","ph":"M","pid":7,"tid":7,"args":{"name":"node"}},
{"name":"RunTimers","ph":"X","pid":7,"tid":7,"ts":100,"dur":50,"cat":"node"}]}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"top", writeFile(t, "empty.json", "[]")}, "no thread with CPU samples to show: the trace holds no events at all"},
		{[]string{"tree", noSamples}, "no thread with CPU samples to show: it has no Profile/ProfileChunk events: record Node with --cpu-prof"},
		{[]string{"convert", "--format", "folded", noSamples}, "no thread with CPU samples"},
		{[]string{"top", "--from", "5000", profilePath("mix")}, "nothing to show: the range from 5000.000 ms holds no time (the samples span 0–881.447 ms"},
		{[]string{"top", "--focus", "allocate", "--drop", "allocate", profilePath("mix")}, "nothing to show: the transforms leave no time"},
	} {
		r := run(t, nil, c.args...)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("jsprof %s: got %+v, want exit 1 and %q", strings.Join(c.args, " "), r, c.want)
		}
	}
	// summary explains it too, and succeeds: it says what the file holds.
	r := run(t, nil, "summary", noSamples)
	if r.code != 0 || !strings.Contains(r.stdout, "no thread with CPU samples to show") {
		t.Errorf("summary of a trace without samples: got %+v, want the explanation and exit 0", r)
	}
}

// TestUnitsScale requires the text tables to scale their unit to the
// largest time, so that long profiles keep their columns.
func TestUnitsScale(t *testing.T) {
	t.Parallel()
	// Three samples 100 s apart: 300 s in all.
	long := writeFile(t, "long.cpuprofile", `{"nodes":[
{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},
{"id":2,"callFrame":{"functionName":"slow","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0}}],
"startTime":0,"endTime":300000000,"samples":[2,2,2],"timeDeltas":[0,100000000,100000000]}`)
	out := mustRun(t, nil, "top", long)
	if !strings.Contains(out, "self s") || !strings.Contains(out, "300.000 100.0%") {
		t.Errorf("top of a 300 s profile: want seconds:\n%s", out)
	}
	short := writeFile(t, "short.cpuprofile", `{"nodes":[
{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},
{"id":2,"callFrame":{"functionName":"quick","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0}}],
"startTime":0,"endTime":300,"samples":[2,2,2],"timeDeltas":[0,100,100]}`)
	out = mustRun(t, nil, "tree", short)
	if !strings.Contains(out, "total µs") || !strings.Contains(out, "300.000") {
		t.Errorf("tree of a 300 µs profile: want µs:\n%s", out)
	}
}

// TestRangeAndFormatFlags requires --from/--to to mean the range in every
// command (convert included), --format or the output name to pick the
// format, the old spellings to work with a one-line note, a name that says
// another format to be refused, and the usual pprof names to be known.
func TestRangeAndFormatFlags(t *testing.T) {
	t.Parallel()
	mix := profilePath("mix")
	dir := t.TempDir()
	folded := func(args ...string) (string, string) {
		r := run(t, nil, append([]string{"convert"}, args...)...)
		if r.code != 0 {
			t.Fatalf("jsprof convert %s: %+v", strings.Join(args, " "), r)
		}
		return r.stdout, r.stderr
	}
	want, stderr := folded("--format", "folded", "--from", "100", "--to", "300", mix)
	if stderr != "" || want == "" {
		t.Fatalf("convert --format folded --from 100 --to 300: stderr %q, %d bytes", stderr, len(want))
	}
	got, stderr := folded("--to", "folded", "--from", "100", "--until", "300", mix)
	if got != want || !strings.Contains(stderr, "--until is deprecated") || !strings.Contains(stderr, "--to folded is deprecated: name the output format with --format folded") {
		t.Errorf("old spellings: same output %v, stderr %q; want the same output and two notes", got == want, stderr)
	}
	for _, name := range []string{"out.pprof", "out.prof", "out.pb.gz"} {
		r := run(t, nil, "convert", "-o", filepath.Join(dir, name), mix)
		if r.code != 0 {
			t.Errorf("convert -o %s: %+v, want pprof chosen by the name", name, r)
		}
	}
	r := run(t, nil, "convert", "--format", "pprof", "-o", filepath.Join(dir, "out.svg"), mix)
	if r.code != 2 || !strings.Contains(r.stderr, "names the svg format, but --format pprof writes pprof") {
		t.Errorf("--format pprof -o out.svg: got %+v, want a usage error", r)
	}
	if r := run(t, nil, "top", "--to", "folded", mix); r.code != 2 || !strings.Contains(r.stderr, "ms") {
		t.Errorf("top --to folded: got %+v, want a usage error: --to ends the range", r)
	}
}

// TestVersion requires jsprof version and --version to name the build.
func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out := mustRun(t, nil, args...)
		if !strings.HasPrefix(out, "jsprof ") || !strings.Contains(out, "go1.") {
			t.Errorf("jsprof %s: got %q, want \"jsprof VERSION … goX\"", args[0], out)
		}
	}
}

// TestDiagnosticsInPlainWords requires V8's usual hitCount mismatch to be a
// note in plain words, apart from diagnostics of real losses or repairs.
func TestDiagnosticsInPlainWords(t *testing.T) {
	t.Parallel()
	out := mustRun(t, nil, "summary", profilePath("mix"))
	_, notes, ok := strings.Cut(out, "\nnotes\n")
	if !ok || !strings.Contains(notes, "as is usual in Node and Chrome profiles; nothing is lost") {
		t.Errorf("summary: want the hitCount mismatch as a note:\n%s", out)
	}
	if strings.Contains(out, "\ndiagnostics\n") {
		t.Errorf("summary of a normal Node profile lists diagnostics:\n%s", out)
	}
	out = mustRun(t, nil, "summary", profilePath("deep-stack"))
	if !strings.Contains(out, "\ndiagnostics\n  6 samples were out of time order") {
		t.Errorf("summary: a repair must stay under diagnostics:\n%s", out)
	}
}

// TestLinesFollowTransforms requires top --lines to list, under a
// transform, only the lines of the functions shown, with no more self time
// than they have; --by total to be refused with --lines; and a trace's
// per-sample lines to give line costs.
func TestLinesFollowTransforms(t *testing.T) {
	t.Parallel()
	mix := profilePath("mix")
	var lines report.Lines
	if err := json.Unmarshal([]byte(mustRun(t, nil, "top", "--lines", "--json", "-n", "0", "--focus", "jsonRoundTrip", mix)), &lines); err != nil {
		t.Fatal(err)
	}
	var top report.Top
	if err := json.Unmarshal([]byte(mustRun(t, nil, "top", "--json", "-n", "0", "--focus", "jsonRoundTrip", mix)), &top); err != nil {
		t.Fatal(err)
	}
	self := map[string]report.Millis{}
	for _, f := range top.Threads[0].Functions {
		self[f.Name] = f.SelfMs
	}
	sum := map[string]report.Millis{}
	for _, l := range lines.Threads[0].Lines {
		if _, ok := self[l.Name]; !ok {
			t.Errorf("--lines --focus jsonRoundTrip lists %s line %d, which is not under the focus", l.Name, l.SourceLine)
		}
		sum[l.Name] += l.SelfMs
	}
	for name, s := range sum {
		if s > self[name]+1000 {
			t.Errorf("%s: its lines add up to %d ns, more than its self time %d ns", name, s, self[name])
		}
	}
	if s, want := sum["jsonRoundTrip"], self["jsonRoundTrip"]; s < want*99/100 {
		t.Errorf("jsonRoundTrip: lines add up to %d ns of its %d ns self time", s, want)
	}
	if r := run(t, nil, "top", "--lines", "--by", "total", mix); r.code != 2 {
		t.Errorf("top --lines --by total: got %+v, want a usage error", r)
	}
	trace := filepath.Join("..", "..", "..", "shared", "corpus", "devtools", "simple-js-program.json.gz")
	if _, err := os.Stat(trace); err != nil {
		t.Skip("../shared/corpus is absent: no trace with per-sample lines")
	}
	out := mustRun(t, nil, "top", "--lines", "-n", "1", trace)
	if !strings.Contains(out, "gen.js:1:173") || strings.Contains(out, "no line costs") {
		t.Errorf("top --lines of a trace: want the hot line of e from the samples' lines:\n%s", out)
	}
}

// TestThreadsByPage requires trace renderers to show their page's URL and
// --thread to take part of it (issue: several CrRendererMain threads with
// no page left the user guessing pids).
func TestThreadsByPage(t *testing.T) {
	t.Parallel()
	trace := writeFile(t, "pages.json", `{"traceEvents":[
{"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":1,"cat":"disabled-by-default-devtools.timeline","args":{"data":{"frames":[
  {"frame":"A","url":"https://shop.example/cart","processId":10},
  {"frame":"B","url":"https://ads.example/frame","processId":20,"parent":"A"}]}}},
{"name":"FrameCommittedInBrowser","ph":"I","pid":1,"tid":1,"ts":2,"cat":"disabled-by-default-devtools.timeline","args":{"data":{"frame":"A","url":"https://shop.example/checkout","processId":10}}},
`+renderer(10)+`,`+renderer(20)+`]}`)
	out := mustRun(t, nil, "summary", trace)
	for _, want := range []string{"page      https://shop.example/checkout", "page      https://ads.example/frame"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary: want %q:\n%s", want, out)
		}
	}
	out = mustRun(t, nil, "top", "--thread", "ads.example", trace)
	if !strings.Contains(out, "thread pid 20 tid 1") || strings.Contains(out, "pid 10") {
		t.Errorf("top --thread ads.example: want only pid 20:\n%s", out)
	}
	r := run(t, nil, "top", "--thread", "nosuch", trace)
	if r.code != 2 || !strings.Contains(r.stderr, `10:1 "CrRendererMain" (https://shop.example/checkout)`) {
		t.Errorf("top --thread nosuch: got %+v, want the threads listed with their pages", r)
	}
}

// renderer returns the events of a renderer process pid: its main thread's
// name and a one-function CPU profile.
func renderer(pid int) string {
	return strings.ReplaceAll(`{"name":"thread_name","ph":"M","pid":PID,"tid":1,"args":{"name":"CrRendererMain"}},
{"name":"Profile","ph":"P","id":"0x1","pid":PID,"tid":1,"ts":100,"cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"startTime":100}}},
{"name":"ProfileChunk","ph":"P","id":"0x1","pid":PID,"tid":1,"ts":100,"cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"cpuProfile":{"nodes":[
 {"id":1,"callFrame":{"functionName":"(root)","scriptId":0}},
 {"id":2,"parent":1,"callFrame":{"functionName":"work","scriptId":3,"url":"a.js","lineNumber":1,"columnNumber":1}}],
 "samples":[2,2,2]},"timeDeltas":[10,100,100]}}},
{"name":"RunTask","ph":"X","pid":PID,"tid":1,"ts":105,"dur":300,"cat":"disabled-by-default-devtools.timeline"}`, "PID", strconv.Itoa(pid))
}

// TestTraceProfileEnd requires a Node trace's profile end to be its real
// end: the endTime Node writes in the last ProfileChunk (else the start plus
// every chunk's time deltas), not DevTools' sum of the first chunk's deltas,
// in summary and in a converted .cpuprofile.
func TestTraceProfileEnd(t *testing.T) {
	t.Parallel()
	chunk := func(samples, deltas, extra string) string {
		return `{"name":"ProfileChunk","ph":"P","id":"0x1","pid":5,"tid":5,"ts":1000,"cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"cpuProfile":{` +
			samples + `},"timeDeltas":[` + deltas + `]` + extra + `}}}`
	}
	trace := writeFile(t, "node_trace.json", `{"traceEvents":[
{"name":"thread_name","ph":"M","pid":5,"tid":5,"args":{"name":"JavaScriptMainThread"}},
{"name":"Profile","ph":"P","id":"0x1","pid":5,"tid":5,"ts":1000,"cat":"disabled-by-default-v8.cpu_profiler","args":{"data":{"startTime":1000}}},
`+chunk(`"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":0}},{"id":2,"parent":1,"callFrame":{"functionName":"work","scriptId":3,"url":"a.js"}}],"samples":[2,2]`, "10,10", "")+`,
`+chunk(`"samples":[2,2,2]`, "1000,1000,1000", "")+`,
`+chunk(`"samples":[]`, "", `,"endTime":5000`)+`]}`)
	var sum report.Summary
	if err := json.Unmarshal([]byte(mustRun(t, nil, "summary", "--json", trace)), &sum); err != nil {
		t.Fatal(err)
	}
	if th := sum.Threads[0]; th.StartUs != 1000_000 || th.EndUs != 5000_000 {
		t.Errorf("summary: start %d end %d ns, want 1000 µs and Node's endTime 5000 µs (DevTools' first-chunk end is 1020 µs)", th.StartUs, th.EndUs)
	}
	var cp struct{ StartTime, EndTime float64 }
	if err := json.Unmarshal([]byte(mustRun(t, nil, "convert", "--format", "cpuprofile", trace)), &cp); err != nil {
		t.Fatal(err)
	}
	if cp.EndTime != 5000 {
		t.Errorf("convert --format cpuprofile: endTime %v, want 5000", cp.EndTime)
	}
}
