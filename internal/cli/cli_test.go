package cli_test

// The tests of the command line, all through cli.Run with buffers:
//
//   - TestGolden compares the output of each subcommand on the profiles in
//     ../../testdata/node with testdata/golden/<profile>.<case>.txt. JSON
//     documents are stored indented (json.Indent keeps key order, number
//     literals and string escapes byte for byte) so that diffs are readable;
//     JSON lines (calls --json) are stored as printed, first 20 lines only.
//     Run "go test ./internal/cli -run TestGolden -update" to rewrite them.
//   - TestSummaryJSONContract, TestCallsJSONContract, TestTopJSONContract and
//     TestTreeJSONContract check the documented JSON shapes and the
//     invariants that tie the outputs together (times are compared in integer
//     nanoseconds, parsed from the exact decimals the CLI prints).
//   - TestExitStatus, TestStdin and TestGzipByContent cover errors, usage
//     and inputs.
//   - TestHostileStrings feeds names and URLs with markup, quotes, control
//     characters, U+2028 and invalid UTF-8 through every output.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/report"
)

var update = flag.Bool("update", false, "rewrite golden files")

const nodeDir = "../../testdata/node/"

// profiles are the fixtures the contract tests run on.
var profiles = []string{"mix", "recursion", "async", "deep-stack"}

func profilePath(name string) string { return nodeDir + name + ".cpuprofile" }

// result is the outcome of one cli.Run.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, clip(r.stdout), r.stderr)
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "…"
	}
	return s
}

// run runs the command line with stdin (may be nil) and args.
func run(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(t.Context(), args, bytes.NewReader(stdin), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

// mustRun runs the command line and fails the test unless it exits 0 with
// nothing on stderr.
func mustRun(t *testing.T, stdin []byte, args ...string) string {
	t.Helper()
	r := run(t, stdin, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("jsprof %s: got %v, want exit 0 and no stderr", strings.Join(args, " "), r)
	}
	return r.stdout
}

// ---------------------------------------------------------------------------
// Goldens

type goldenCase struct {
	name  string
	args  []string // before the file
	lines int      // > 0: golden only the first lines plus the line count (JSON lines)
	deep  bool     // also run on deep-stack.cpuprofile
}

var goldenCases = []goldenCase{
	{name: "summary", args: []string{"summary"}, deep: true},
	{name: "summary-json", args: []string{"summary", "--json"}, deep: true},
	{name: "top-n10", args: []string{"top", "-n", "10"}},
	{name: "top-json-n5", args: []string{"top", "--json", "-n", "5"}},
	{name: "top-by-total-n10", args: []string{"top", "--by", "total", "-n", "10"}},
	{name: "top-lines-n5", args: []string{"top", "--lines", "-n", "5"}},
	{name: "tree-depth3-min5", args: []string{"tree", "--depth", "3", "--min", "5"}},
	{name: "tree-bottom-up-depth2-min5", args: []string{"tree", "--bottom-up", "--depth", "2", "--min", "5"}},
	{name: "tree-json-depth2-min10", args: []string{"tree", "--json", "--depth", "2", "--min", "10"}},
	{name: "calls-json", args: []string{"calls", "--json"}, lines: 20},
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, prof := range []string{"mix", "recursion", "async", "deep-stack"} {
		for _, tc := range goldenCases {
			if prof == "deep-stack" && !tc.deep {
				continue
			}
			name := prof + "." + tc.name
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				args := append(slices.Clone(tc.args), profilePath(prof))
				out := mustRun(t, nil, args...)
				got := goldenForm(t, out, tc.lines)
				checkGolden(t, filepath.Join("testdata", "golden", name+".txt"), got,
					"jsprof "+strings.Join(args, " "))
			})
		}
	}
}

// goldenForm is what the golden file holds for an output: JSON lines cut to
// their first lines plus the count, a single JSON document indented, text as
// is.
func goldenForm(t *testing.T, out string, lines int) []byte {
	t.Helper()
	if !strings.HasSuffix(out, "\n") {
		t.Fatalf("output does not end in a newline: %q", clip(out))
	}
	if lines > 0 {
		all := strings.SplitAfter(out, "\n")
		all = all[:len(all)-1] // after the final newline
		head := all[:min(lines, len(all))]
		return fmt.Appendf([]byte(strings.Join(head, "")), "… %d lines in all\n", len(all))
	}
	if strings.HasPrefix(out, "{") {
		if strings.Count(out, "\n") != 1 {
			t.Fatalf("JSON output is not one line:\n%s", clip(out))
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, []byte(out), "", "  "); err != nil {
			t.Fatalf("output is not valid JSON: %v\n%s", err, clip(out))
		}
		return buf.Bytes()
	}
	return []byte(out)
}

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, path string, got []byte, cmd string) {
	t.Helper()
	if *update {
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
		t.Fatalf("%v (run \"go test ./internal/cli -run TestGolden -update\" to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	actual := filepath.Join(t.ArtifactDir(), filepath.Base(path))
	if err := os.WriteFile(actual, got, 0o644); err != nil {
		t.Errorf("saving the actual output: %v", err)
	}
	t.Errorf("%s: output differs from %s (- want, + got; actual output in %s, kept with go test -artifacts);\n"+
		"if the change is intended, run \"go test ./internal/cli -run TestGolden -update\" and review the diff:\n%s",
		cmd, path, actual, lineDiff(string(want), string(got)))
}

// lineDiff returns a unified-style diff of two texts, with 3 lines of
// context, from a longest common subsequence of their lines.
func lineDiff(a, b string) string {
	x := strings.SplitAfter(a, "\n")
	y := strings.SplitAfter(b, "\n")
	if x[len(x)-1] == "" {
		x = x[:len(x)-1]
	}
	if y[len(y)-1] == "" {
		y = y[:len(y)-1]
	}
	// Trim the common prefix and suffix, and bound the quadratic table.
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	xs, ys := x[pre:len(x)-suf], y[pre:len(y)-suf]
	if len(xs)*len(ys) > 4<<20 {
		return fmt.Sprintf("(too large to diff: first difference at line %d)\n- %q\n+ %q\n", pre+1, at(x, pre), at(y, pre))
	}
	// lcs[i][j] is the LCS length of xs[i:] and ys[j:].
	lcs := make([][]int32, len(xs)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(ys)+1)
	}
	for i := len(xs) - 1; i >= 0; i-- {
		for j := len(ys) - 1; j >= 0; j-- {
			if xs[i] == ys[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		text string
		ai   int // line number in a (1-based) of ' ' and '-'
	}
	var ops []op
	for _, s := range x[:pre] {
		ops = append(ops, op{' ', s, len(ops) + 1})
	}
	i, j := 0, 0
	for i < len(xs) || j < len(ys) {
		switch {
		case i < len(xs) && j < len(ys) && xs[i] == ys[j]:
			ops = append(ops, op{' ', xs[i], pre + i + 1})
			i, j = i+1, j+1
		case i < len(xs) && (j == len(ys) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', xs[i], pre + i + 1})
			i++
		default:
			ops = append(ops, op{'+', ys[j], 0})
			j++
		}
	}
	for k, s := range x[len(x)-suf:] {
		ops = append(ops, op{' ', s, len(x) - suf + k + 1})
	}
	// Print the changed ops with 3 lines of context, "@@ line N" per hunk.
	const ctx = 3
	var out strings.Builder
	last := -2
	for k, o := range ops {
		near := false
		for d := max(0, k-ctx); d <= min(len(ops)-1, k+ctx); d++ {
			if ops[d].kind != ' ' {
				near = true
				break
			}
		}
		if !near {
			continue
		}
		if k != last+1 {
			n := o.ai
			if n == 0 {
				n = pre + 1
			}
			fmt.Fprintf(&out, "@@ line %d @@\n", n)
		}
		last = k
		text := o.text
		if !strings.HasSuffix(text, "\n") {
			text += "\n\\ no newline at end\n"
		}
		out.WriteByte(o.kind)
		out.WriteString(text)
	}
	return out.String()
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end)"
}

func TestLineDiff(t *testing.T) {
	t.Parallel()
	got := lineDiff("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n")
	want := "@@ line 1 @@\n a\n-b\n+B\n c\n d\n+e\n"
	if got != want {
		t.Errorf("lineDiff: got\n%s\nwant\n%s", got, want)
	}
	if got := lineDiff("x\n", "x\n"); got != "" {
		t.Errorf("lineDiff of equal texts: got %q, want \"\"", got)
	}
}

// ---------------------------------------------------------------------------
// JSON helpers

// decodeJSON decodes one JSON document with numbers as json.Number, failing
// on trailing data.
func decodeJSON(t *testing.T, data string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding JSON: %v\n%s", err, clip(data))
	}
	if dec.More() {
		t.Fatalf("trailing data after the JSON document:\n%s", clip(data))
	}
	return v
}

// object asserts that v is a JSON object with exactly the keys want.
func object(t *testing.T, what string, v any, want ...string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: got %T, want an object", what, v)
	}
	var got []string
	for k := range m {
		got = append(got, k)
	}
	slices.Sort(got)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		t.Fatalf("%s: got keys %q, want %q", what, got, want)
	}
	return m
}

func array(t *testing.T, what string, v any) []any {
	t.Helper()
	a, ok := v.([]any)
	if !ok {
		t.Fatalf("%s: got %T (%v), want an array", what, v, v)
	}
	return a
}

func str(t *testing.T, what string, v any) string {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("%s: got %T (%v), want a string", what, v, v)
	}
	return s
}

// integer asserts that v is a JSON number without fraction or exponent.
func integer(t *testing.T, what string, v any) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%s: got %T (%v), want an integer", what, v, v)
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		t.Fatalf("%s: got %s, want an integer", what, n)
	}
	return i
}

// fixed asserts that v is a JSON number written as a plain decimal with at
// most digits fractional digits and returns v·10^digits exactly: with 3 for
// µs and 6 for ms, the result is in ns.
func fixed(t *testing.T, what string, v any, digits int) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%s: got %T (%v), want a number", what, v, v)
	}
	s := string(n)
	ip, fp, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(ip, "-")
	ip = strings.TrimPrefix(ip, "-")
	if ip == "" || strings.Trim(ip, "0123456789") != "" || strings.Trim(fp, "0123456789") != "" || len(fp) > digits ||
		(strings.Contains(s, ".") && fp == "") {
		t.Fatalf("%s: got %s, want a decimal with at most %d fractional digits", what, s, digits)
	}
	fp += strings.Repeat("0", digits-len(fp))
	x, err := strconv.ParseInt(ip+fp, 10, 64)
	if err != nil {
		t.Fatalf("%s: %s: %v", what, s, err)
	}
	if neg {
		x = -x
	}
	return x
}

func TestFixed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in     string
		digits int
		want   int64
	}{
		{"0", 3, 0}, {"12", 3, 12000}, {"1.5", 3, 1500}, {"881.446725", 6, 881446725}, {"-0.001", 3, -1},
	} {
		if got := fixed(t, tc.in, json.Number(tc.in), tc.digits); got != tc.want {
			t.Errorf("fixed(%s, %d): got %d, want %d", tc.in, tc.digits, got, tc.want)
		}
	}
}

// ---------------------------------------------------------------------------
// Contracts

// summaryThread is a thread of summary --json, times in ns.
type summaryThread struct {
	pid, tid              int64
	name                  string
	start, end            int64
	samples, profileCalls int64
	sampled               int64
}

func summaryJSON(t *testing.T, args ...string) (map[string]any, []summaryThread) {
	t.Helper()
	out := mustRun(t, nil, append([]string{"summary", "--json"}, args...)...)
	top := object(t, "summary", decodeJSON(t, out), "format", "file", "threads", "diagnostics")
	str(t, "format", top["format"])
	str(t, "file", top["file"])
	var threads []summaryThread
	for i, v := range array(t, "threads", top["threads"]) {
		w := fmt.Sprintf("threads[%d]", i)
		m := object(t, w, v, "pid", "tid", "name", "startUs", "endUs", "samples", "profileCalls", "sampledMs",
			"nodes", "shape", "events", "processName", "url", "meanIntervalUs", "medianIntervalUs", "categories")
		th := summaryThread{
			pid:          integer(t, w+".pid", m["pid"]),
			tid:          integer(t, w+".tid", m["tid"]),
			name:         str(t, w+".name", m["name"]),
			start:        fixed(t, w+".startUs", m["startUs"], 3),
			end:          fixed(t, w+".endUs", m["endUs"], 3),
			samples:      integer(t, w+".samples", m["samples"]),
			profileCalls: integer(t, w+".profileCalls", m["profileCalls"]),
			sampled:      fixed(t, w+".sampledMs", m["sampledMs"], 6),
		}
		integer(t, w+".nodes", m["nodes"])
		str(t, w+".shape", m["shape"])
		fixed(t, w+".meanIntervalUs", m["meanIntervalUs"], 3)
		fixed(t, w+".medianIntervalUs", m["medianIntervalUs"], 3)
		cats := object(t, w+".categories", m["categories"], "samples")
		perCat := object(t, w+".categories.samples", cats["samples"],
			"Idle", "Other", "JavaScript", "Layout", "Graphics", "DOM", "GC / CC", "Network", "HTML Parsing")
		var catSum int64
		for name, v := range perCat {
			catSum += fixed(t, w+".categories.samples."+name, v, 6)
		}
		// For a bare .cpuprofile every sample's time is in a call, so the
		// categories add up to the sampled time.
		if d := catSum - fixed(t, w+".sampledMs", m["sampledMs"], 6); d < -1000 || d > 1000 {
			t.Errorf("%s: categories add up to %d ns, sampledMs differs by %d ns", w, catSum, d)
		}
		if th.end < th.start {
			t.Errorf("%s: endUs %d ns < startUs %d ns", w, th.end, th.start)
		}
		if th.sampled < 0 || th.sampled > th.end-th.start {
			t.Errorf("%s: sampledMs %d ns, want within [0, endUs−startUs = %d ns]", w, th.sampled, th.end-th.start)
		}
		threads = append(threads, th)
	}
	if len(threads) == 0 {
		t.Fatalf("summary: no threads")
	}
	for i, v := range array(t, "diagnostics", top["diagnostics"]) {
		w := fmt.Sprintf("diagnostics[%d]", i)
		m := object(t, w, v, "code", "count", "message")
		str(t, w+".code", m["code"])
		integer(t, w+".count", m["count"])
		str(t, w+".message", m["message"])
	}
	return top, threads
}

func TestSummaryJSONContract(t *testing.T) {
	t.Parallel()
	for _, prof := range profiles {
		t.Run(prof, func(t *testing.T) {
			t.Parallel()
			top, threads := summaryJSON(t, profilePath(prof))
			if got := top["format"]; got != "cpuprofile" {
				t.Errorf("format: got %v, want cpuprofile", got)
			}
			if got, want := top["file"], profilePath(prof); got != want {
				t.Errorf("file: got %v, want %s", got, want)
			}
			// A bare .cpuprofile is one thread, pid 1 tid 1, as in DevTools.
			if len(threads) != 1 || threads[0].pid != 1 || threads[0].tid != 1 {
				t.Errorf("threads: got %+v, want one with pid 1, tid 1", threads)
			}
		})
	}
}

// call is one line of calls --json, times in ns.
type call struct {
	pid, tid       int64
	ts, dur, self  int64
	name, url      string
	line, col      int64
	scriptID       string
	nodeID         int64
	depth          int   // reconstructed from nesting
	childrenDurSum int64 // Σ dur of the direct children
	// cdur and cself are dur and self clipped to the thread's window (the
	// profile's startTime to endTime), as DevTools' trees clip them.
	cdur, cself int64
}

// clipToWindow sets each call's cdur and cself from its thread's window in threads
// (summary's startUs and endUs). nest must have run.
func clipToWindow(calls []call, threads []summaryThread) {
	for _, th := range threads {
		var stack []*call
		for i := range calls {
			c := &calls[i]
			if c.pid != th.pid || c.tid != th.tid {
				continue
			}
			stack = stack[:min(len(stack), c.depth)]
			c.cdur = max(0, min(c.ts+c.dur, th.end)-max(c.ts, th.start))
			c.cself += c.cdur
			if len(stack) > 0 {
				stack[len(stack)-1].cself -= c.cdur
			}
			stack = append(stack, c)
		}
	}
}

var callKeys = []string{"pid", "tid", "ts", "dur", "self", "name", "url", "line", "col", "scriptId", "nodeId"}

// parseCalls parses calls --json output, checking the shape of every line.
func parseCalls(t *testing.T, out string) []call {
	t.Helper()
	if out != "" && !strings.HasSuffix(out, "\n") {
		t.Fatalf("calls --json output does not end in a newline")
	}
	var calls []call
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if out == "" {
			break
		}
		w := fmt.Sprintf("calls line %d", i+1)
		if !json.Valid([]byte(line)) {
			t.Fatalf("%s: invalid JSON: %q", w, line)
		}
		keys, m := decodeObjectLine(t, w, line)
		if !slices.Equal(keys, callKeys) {
			t.Fatalf("%s: got keys %q, want %q", w, keys, callKeys)
		}
		calls = append(calls, call{
			pid:      integer(t, w+": pid", m["pid"]),
			tid:      integer(t, w+": tid", m["tid"]),
			ts:       fixed(t, w+": ts", m["ts"], 3),
			dur:      fixed(t, w+": dur", m["dur"], 3),
			self:     fixed(t, w+": self", m["self"], 3),
			name:     str(t, w+": name", m["name"]),
			url:      str(t, w+": url", m["url"]),
			line:     integer(t, w+": line", m["line"]),
			col:      integer(t, w+": col", m["col"]),
			scriptID: str(t, w+": scriptId", m["scriptId"]),
			nodeID:   integer(t, w+": nodeId", m["nodeId"]),
		})
	}
	return calls
}

// decodeObjectLine decodes a JSON object in one pass, returning its keys in
// order (duplicates included) and its members, numbers as json.Number.
func decodeObjectLine(t *testing.T, what, line string) ([]string, map[string]any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s: want an object: %q", what, line)
	}
	var keys []string
	m := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("%s: %v: %q", what, err, line)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v: %q", what, err, line)
		}
		keys = append(keys, tok.(string))
		m[tok.(string)] = v
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		t.Fatalf("%s: want the end of the object: %q", what, line)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("%s: trailing data: %q", what, line)
	}
	return keys, m
}

// nest reconstructs the call depths: a call nests in the previous open call
// of its thread if it starts before that call ends. It checks that calls
// are in start order, that children end within their parent and that each
// call's self time is its duration minus its children's.
func nest(t *testing.T, calls []call) {
	t.Helper()
	type tk struct{ pid, tid int64 }
	stacks := map[tk][]int{}
	for i := range calls {
		c := &calls[i]
		if c.dur < 0 || c.self < 0 || c.self > c.dur {
			t.Fatalf("call %d (%s): dur %d ns, self %d ns: want 0 ≤ self ≤ dur", i+1, c.name, c.dur, c.self)
		}
		k := tk{c.pid, c.tid}
		st := stacks[k]
		if n := len(st); n > 0 && c.ts < calls[st[n-1]].ts {
			t.Fatalf("call %d (%s) starts at %d ns, before the previous call of its thread (%d ns)", i+1, c.name, c.ts, calls[st[n-1]].ts)
		}
		for len(st) > 0 && c.ts >= calls[st[len(st)-1]].ts+calls[st[len(st)-1]].dur {
			st = st[:len(st)-1]
		}
		if n := len(st); n > 0 {
			p := &calls[st[n-1]]
			if c.ts+c.dur > p.ts+p.dur {
				t.Fatalf("call %d (%s, %d+%d ns) ends after its parent (%s, %d+%d ns)", i+1, c.name, c.ts, c.dur, p.name, p.ts, p.dur)
			}
			p.childrenDurSum += c.dur
			c.depth = p.depth + 1
		}
		stacks[k] = append(st, i)
	}
	for i, c := range calls {
		if c.self != c.dur-c.childrenDurSum {
			t.Errorf("call %d (%s): self %d ns, want dur − Σ children dur = %d − %d", i+1, c.name, c.self, c.dur, c.childrenDurSum)
		}
	}
}

func TestCallsJSONContract(t *testing.T) {
	t.Parallel()
	for _, prof := range profiles {
		t.Run(prof, func(t *testing.T) {
			t.Parallel()
			_, threads := summaryJSON(t, profilePath(prof))
			out := mustRun(t, nil, "calls", "--json", profilePath(prof))
			calls := parseCalls(t, out)
			nest(t, calls)
			clipToWindow(calls, threads)
			for _, th := range threads {
				var n, topLevel int64
				for _, c := range calls {
					if c.pid != th.pid || c.tid != th.tid {
						continue
					}
					n++
					if c.depth == 0 {
						topLevel += c.cdur
					}
				}
				if n != th.profileCalls {
					t.Errorf("thread %d/%d: got %d lines of calls --json, want profileCalls = %d", th.pid, th.tid, n, th.profileCalls)
				}
				// 1 ns = 1e-6 ms.
				if d := topLevel - th.sampled; d < -1 || d > 1 {
					t.Errorf("thread %d/%d: Σ top-level call dur (within startUs–endUs) = %d ns, want sampledMs = %d ns", th.pid, th.tid, topLevel, th.sampled)
				}
			}
			if int64(len(calls)) != sumProfileCalls(threads) {
				t.Errorf("got %d lines, want Σ profileCalls = %d", len(calls), sumProfileCalls(threads))
			}
		})
	}
}

func sumProfileCalls(threads []summaryThread) int64 {
	var n int64
	for _, th := range threads {
		n += th.profileCalls
	}
	return n
}

// fn is a function of top --json, times in ns.
type fn struct {
	name, url   string
	line, col   int64
	self, total int64
}

func (f fn) key() string { return fmt.Sprintf("%q %q %d %d", f.name, f.url, f.line, f.col) }

type topThread struct {
	pid, tid  int64
	name      string
	functions []fn
}

func topJSON(t *testing.T, args ...string) []topThread {
	t.Helper()
	out := mustRun(t, nil, append([]string{"top", "--json"}, args...)...)
	top := object(t, "top", decodeJSON(t, out), "threads")
	var threads []topThread
	for i, v := range array(t, "threads", top["threads"]) {
		w := fmt.Sprintf("threads[%d]", i)
		m := object(t, w, v, "pid", "tid", "name", "totalSemantics", "functions")
		th := topThread{pid: integer(t, w+".pid", m["pid"]), tid: integer(t, w+".tid", m["tid"]), name: str(t, w+".name", m["name"])}
		for j, v := range array(t, w+".functions", m["functions"]) {
			w := fmt.Sprintf("%s.functions[%d]", w, j)
			m := object(t, w, v, "name", "url", "line", "col", "selfMs", "totalMs")
			th.functions = append(th.functions, fn{
				name:  str(t, w+".name", m["name"]),
				url:   str(t, w+".url", m["url"]),
				line:  integer(t, w+".line", m["line"]),
				col:   integer(t, w+".col", m["col"]),
				self:  fixed(t, w+".selfMs", m["selfMs"], 6),
				total: fixed(t, w+".totalMs", m["totalMs"], 6),
			})
		}
		threads = append(threads, th)
	}
	return threads
}

func TestTopJSONContract(t *testing.T) {
	t.Parallel()
	for _, prof := range profiles {
		t.Run(prof, func(t *testing.T) {
			t.Parallel()
			path := profilePath(prof)
			_, sum := summaryJSON(t, path)
			calls := parseCalls(t, mustRun(t, nil, "calls", "--json", path))
			nest(t, calls)
			clipToWindow(calls, sum)
			all := topJSON(t, "-n", "0", path)
			byTotal := topJSON(t, "--by", "total", "-n", "0", path)
			first := topJSON(t, "-n", "5", path)
			if len(all) != len(sum) || len(byTotal) != len(sum) || len(first) != len(sum) {
				t.Fatalf("got %d, %d and %d threads, want %d as in summary", len(all), len(byTotal), len(first), len(sum))
			}
			for i, th := range all {
				s := sum[i]
				if th.pid != s.pid || th.tid != s.tid || th.name != s.name {
					t.Errorf("thread %d: got %d/%d %q, want %d/%d %q as in summary", i, th.pid, th.tid, th.name, s.pid, s.tid, s.name)
				}
				// Every function of the calls, once, with the self time
				// of its calls within the window.
				wantSelf := map[string]int64{}
				for _, c := range calls {
					if c.pid == th.pid && c.tid == th.tid {
						wantSelf[fn{name: c.name, url: c.url, line: c.line, col: c.col}.key()] += c.cself
					}
				}
				var selfSum int64
				seen := map[string]bool{}
				for j, f := range th.functions {
					k := f.key()
					if seen[k] {
						t.Errorf("function %s listed twice", k)
					}
					seen[k] = true
					if ws, ok := wantSelf[k]; !ok {
						t.Errorf("function %s is not in calls --json", k)
					} else if f.self != ws {
						t.Errorf("function %s: selfMs %d ns, want Σ self of its calls %d ns", k, f.self, ws)
					}
					if !(0 <= f.self && f.self <= f.total && f.total <= s.sampled) {
						t.Errorf("function %s: want 0 ≤ selfMs (%d ns) ≤ totalMs (%d ns) ≤ sampledMs (%d ns)", k, f.self, f.total, s.sampled)
					}
					if j > 0 && f.self > th.functions[j-1].self {
						t.Errorf("functions[%d] %s: selfMs %d ns > the previous one's %d ns; want sorted by selfMs, descending", j, k, f.self, th.functions[j-1].self)
					}
					selfSum += f.self
				}
				if len(seen) != len(wantSelf) {
					t.Errorf("got %d functions, want %d (the distinct functions of calls --json)", len(seen), len(wantSelf))
				}
				if d := selfSum - s.sampled; d < -1000 || d > 1000 { // 1e-3 ms
					t.Errorf("Σ selfMs = %d ns, want sampledMs = %d ns", selfSum, s.sampled)
				}

				// --by total: the same functions, sorted by totalMs.
				bt := byTotal[i].functions
				if len(bt) != len(th.functions) {
					t.Errorf("--by total: got %d functions, want %d", len(bt), len(th.functions))
				}
				for j := 1; j < len(bt); j++ {
					if bt[j].total > bt[j-1].total {
						t.Errorf("--by total: functions[%d] %s: totalMs %d ns > the previous one's %d ns", j, bt[j].key(), bt[j].total, bt[j-1].total)
					}
				}
				if !sameFuncs(bt, th.functions) {
					t.Errorf("--by total lists other functions or times than --by self")
				}

				// -n 5 is the head of -n 0.
				if want := th.functions[:min(5, len(th.functions))]; !reflect.DeepEqual(first[i].functions, want) {
					t.Errorf("-n 5: got %v, want the first 5 of -n 0: %v", first[i].functions, want)
				}
			}
		})
	}
}

func sameFuncs(a, b []fn) bool {
	cmp := func(x, y fn) int { return strings.Compare(x.key(), y.key()) }
	return slices.Equal(slices.SortedFunc(slices.Values(a), cmp), slices.SortedFunc(slices.Values(b), cmp))
}

func TestTreeJSONContract(t *testing.T) {
	t.Parallel()
	for _, prof := range profiles {
		t.Run(prof, func(t *testing.T) {
			t.Parallel()
			path := profilePath(prof)
			_, sum := summaryJSON(t, path)
			out := mustRun(t, nil, "tree", "--json", path)
			top := object(t, "tree", decodeJSON(t, out), "threads")
			threads := array(t, "threads", top["threads"])
			if len(threads) != len(sum) {
				t.Fatalf("got %d threads, want %d as in summary", len(threads), len(sum))
			}
			for i, v := range threads {
				w := fmt.Sprintf("threads[%d]", i)
				m := object(t, w, v, "pid", "tid", "name", "sampledMs", "bottomUp", "nodes")
				if got := fixed(t, w+".sampledMs", m["sampledMs"], 6); got != sum[i].sampled {
					t.Errorf("%s.sampledMs: got %d ns, want %d ns as in summary", w, got, sum[i].sampled)
				}
				nodes := array(t, w+".nodes", m["nodes"])
				root := object(t, w+".nodes[0]", nodes[0], "parent", "depth", "name", "url", "line", "col", "selfMs", "totalMs", "calls")
				if got := fixed(t, w+".nodes[0].totalMs", root["totalMs"], 6); got != sum[i].sampled {
					t.Errorf("%s.nodes[0].totalMs: got %d ns, want sampledMs = %d ns", w, got, sum[i].sampled)
				}
				if calls := checkTreeTable(t, w+".nodes", nodes); calls != sum[i].profileCalls {
					t.Errorf("%s: Σ calls of the tree nodes = %d, want profileCalls = %d", w, calls, sum[i].profileCalls)
				}
			}
		})
	}
}

// checkTreeTable checks a flat tree table: node 0 is the root (parent −1),
// every other node comes after its parent, one deeper; a node's totalMs is
// its selfMs plus its children's totalMs, children sorted by totalMs. It
// returns the sum of the nodes' calls.
func checkTreeTable(t *testing.T, what string, nodes []any) int64 {
	t.Helper()
	type info struct{ self, total, kids, lastKid, depth int64 }
	infos := make([]info, len(nodes))
	var calls int64
	for j, v := range nodes {
		w := fmt.Sprintf("%s[%d]", what, j)
		m := object(t, w, v, "parent", "depth", "name", "url", "line", "col", "selfMs", "totalMs", "calls")
		str(t, w+".name", m["name"])
		str(t, w+".url", m["url"])
		integer(t, w+".line", m["line"])
		integer(t, w+".col", m["col"])
		parent := integer(t, w+".parent", m["parent"])
		in := info{self: fixed(t, w+".selfMs", m["selfMs"], 6), total: fixed(t, w+".totalMs", m["totalMs"], 6),
			depth: integer(t, w+".depth", m["depth"]), lastKid: -1}
		calls += integer(t, w+".calls", m["calls"])
		if in.self < 0 || in.self > in.total {
			t.Errorf("%s: selfMs %d ns, totalMs %d ns: want 0 ≤ self ≤ total", w, in.self, in.total)
		}
		infos[j] = in
		if j == 0 {
			if parent != -1 || in.depth != 0 {
				t.Errorf("%s: parent %d depth %d, want the root: −1, 0", w, parent, in.depth)
			}
			continue
		}
		if parent < 0 || parent >= int64(j) {
			t.Fatalf("%s: parent %d, want an earlier node", w, parent)
		}
		par := &infos[parent]
		if in.depth != par.depth+1 {
			t.Errorf("%s: depth %d, want its parent's + 1 = %d", w, in.depth, par.depth+1)
		}
		if par.lastKid >= 0 && in.total > par.lastKid {
			t.Errorf("%s: totalMs %d ns > the previous sibling's %d ns; want children sorted by totalMs", w, in.total, par.lastKid)
		}
		par.lastKid = in.total
		par.kids += in.total
	}
	for j, in := range infos {
		if d := in.total - in.self - in.kids; d < -1000 || d > 1000 { // 1e-3 ms
			t.Errorf("%s[%d]: totalMs %d ns, want selfMs + Σ children totalMs = %d + %d ns", what, j, in.total, in.self, in.kids)
		}
	}
	return calls
}

// ---------------------------------------------------------------------------
// Errors, usage, inputs

func TestExitStatus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mix := profilePath("mix")
	missing := filepath.Join(dir, "missing.cpuprofile")
	badType := write("bad-type.json", `{"nodes":[{"id":1,"callFrame":{"functionName":5}}]}`)
	badSyntax := write("bad-syntax.cpuprofile", `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"",`+
		`"lineNumber":-1,"columnNumber":-1}}],"startTime":0,"endTime":1,"samples":[1,x],"timeDeltas":[0,0]}`)
	truncated := write("truncated.cpuprofile", `{"nodes":[{"id":1,"callFrame":{"functionName":"(ro`)
	empty := write("empty.cpuprofile", "")
	blank := write("blank.cpuprofile", " \n\t\n")
	text := write("notes.txt", "hello\n")
	q := regexp.QuoteMeta

	for _, tc := range []struct {
		name       string
		args       []string
		code       int
		stdout     string   // regexp; "" means empty
		stderr     []string // regexps that must all match; none means empty
		stdoutFull string   // exact stdout, if set
	}{
		{name: "no-args", args: nil, code: 2, stderr: []string{`^` + q(cli.Usage) + `$`}},
		{name: "help", args: []string{"help"}, code: 0, stdoutFull: cli.Usage},
		{name: "-h", args: []string{"-h"}, code: 0, stdoutFull: cli.Usage},
		{name: "-help", args: []string{"-help"}, code: 0, stdoutFull: cli.Usage},
		{name: "--help", args: []string{"--help"}, code: 0, stdoutFull: cli.Usage},
		{name: "summary-h", args: []string{"summary", "-h"}, code: 0, stdout: `^Usage: jsprof summary \[--json\] \[--thread SEL\] FILE\n(?s:.*)\nFlags:\n(?s:.*)-json\n`},
		{name: "top-h", args: []string{"top", "-h"}, code: 0, stdout: `^Usage: jsprof top (?s:.*)\nFlags:\n(?s:.*)-by string(?s:.*)-lines(?s:.*)-n int`},
		{name: "tree-help", args: []string{"tree", "--help"}, code: 0, stdout: `^Usage: jsprof tree (?s:.*)-bottom-up(?s:.*)-depth int(?s:.*)-min float`},
		{name: "calls-h", args: []string{"calls", "-h"}, code: 0, stdout: `^Usage: jsprof calls --json \[--entries\] \[--thread SEL\] FILE\n`},
		{name: "help-after-file", args: []string{"top", mix, "-h"}, code: 0, stdout: `^Usage: jsprof top `},
		{name: "unknown-command", args: []string{"flame", mix}, code: 2, stderr: []string{`^jsprof: unknown command "flame"; want summary, top, tree, calls, convert(, [a-z]+)*\n$`}},
		{name: "unknown-flag", args: []string{"top", "--bogus", mix}, code: 2, stderr: []string{`^jsprof top: .*-bogus`, `run "jsprof top -h" for usage\n$`}},
		{name: "unknown-flag-after-file", args: []string{"summary", mix, "--color"}, code: 2, stderr: []string{`^jsprof summary: .*-color`}},
		{name: "bad-flag-value", args: []string{"top", "-n", "many", mix}, code: 2, stderr: []string{`^jsprof top: .*"many"`}},
		{name: "by-bogus", args: []string{"top", "--by", "bogus", mix}, code: 2, stderr: []string{`^jsprof top: unknown --by "bogus"; want self or total\n`}},
		{name: "negative-n", args: []string{"top", "-n", "-1", mix}, code: 2, stderr: []string{`^jsprof top: `}},
		{name: "negative-depth", args: []string{"tree", "--depth", "-1", mix}, code: 2, stderr: []string{`^jsprof tree: `}},
		{name: "min-over-100", args: []string{"tree", "--min", "101", mix}, code: 2, stderr: []string{`^jsprof tree: `}},
		{name: "calls-without-json", args: []string{"calls", mix}, code: 2, stderr: []string{`^jsprof calls: .*--json`}},
		{name: "no-file", args: []string{"summary"}, code: 2, stderr: []string{`^jsprof summary: want exactly one FILE, got 0 arguments\n`}},
		{name: "two-files", args: []string{"summary", mix, mix}, code: 2, stderr: []string{`^jsprof summary: want exactly one FILE, got 2 arguments\n`}},
		{name: "missing-file", args: []string{"summary", missing}, code: 1, stderr: []string{`^jsprof: ` + q(missing) + `: `, `no such file or directory\n$`}},
		{name: "missing-file-top", args: []string{"top", "--json", missing}, code: 1, stderr: []string{`^jsprof: ` + q(missing) + `: `}},
		{name: "directory", args: []string{"summary", dir}, code: 1, stderr: []string{`^jsprof: ` + q(dir) + `: `, `directory\n$`}},
		{name: "bad-type", args: []string{"summary", badType}, code: 1,
			stderr: []string{`^jsprof: ` + q(badType) + `: offset 46: nodes\[0\]\.callFrame\.functionName: .*string`}},
		{name: "bad-syntax", args: []string{"top", badSyntax}, code: 1,
			stderr: []string{`^jsprof: ` + q(badSyntax) + `: offset 155: samples\[1\]: `}},
		{name: "truncated", args: []string{"calls", "--json", truncated}, code: 1,
			stderr: []string{`^jsprof: ` + q(truncated) + `: offset \d+: nodes\[0\]`, `end of input`}},
		{name: "empty", args: []string{"summary", empty}, code: 1, stderr: []string{`^jsprof: ` + q(empty) + `: offset 0: empty input\n$`}},
		{name: "blank", args: []string{"tree", blank}, code: 1, stderr: []string{`^jsprof: ` + q(blank) + `: .*empty input\n$`}},
		{name: "not-a-profile", args: []string{"summary", text}, code: 1, stderr: []string{`^jsprof: ` + q(text) + `: offset 0: unrecognized format`}},
		{name: "empty-stdin", args: []string{"summary", "-"}, code: 1, stderr: []string{`^jsprof: -: offset 0: empty input\n$`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := run(t, nil, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit status: got %d, want %d\n%v", r.code, tc.code, r)
			}
			switch {
			case tc.stdoutFull != "":
				if r.stdout != tc.stdoutFull {
					t.Errorf("stdout: got\n%s\nwant\n%s", r.stdout, tc.stdoutFull)
				}
			case tc.stdout != "":
				if !regexp.MustCompile(tc.stdout).MatchString(r.stdout) {
					t.Errorf("stdout: got\n%s\nwant a match for %s", r.stdout, tc.stdout)
				}
			case r.stdout != "":
				t.Errorf("stdout: got\n%s\nwant nothing", clip(r.stdout))
			}
			if len(tc.stderr) == 0 && r.stderr != "" {
				t.Errorf("stderr: got\n%s\nwant nothing", r.stderr)
			}
			for _, re := range tc.stderr {
				if !regexp.MustCompile(re).MatchString(r.stderr) {
					t.Errorf("stderr: got\n%s\nwant a match for %s", r.stderr, re)
				}
			}
		})
	}
}

// failWriter fails every write, like a full disk or a closed pipe.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestWriteError checks that a failed write of the output is an error (exit
// 1), not a silent success.
func TestWriteError(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"summary"}, {"summary", "--json"}, {"top"}, {"top", "--json"}, {"top", "--lines"},
		{"tree"}, {"tree", "--json"}, {"calls", "--json"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			code := cli.Run(t.Context(), append(slices.Clone(args), profilePath("mix")), nil, failWriter{}, &stderr)
			if code != 1 || !strings.Contains(stderr.String(), "no space left on device") {
				t.Errorf("got exit %d and stderr %q, want 1 and the write error", code, stderr.String())
			}
		})
	}
}

// TestStdin checks that "-" reads standard input and gives the same results
// as the file.
func TestStdin(t *testing.T) {
	t.Parallel()
	for _, prof := range []string{"mix", "async"} {
		t.Run(prof, func(t *testing.T) {
			t.Parallel()
			path := profilePath(prof)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fromFile := decodeJSON(t, mustRun(t, nil, "summary", "--json", path)).(map[string]any)
			fromStdin := decodeJSON(t, mustRun(t, data, "summary", "--json", "-")).(map[string]any)
			if got := fromStdin["file"]; got != "-" {
				t.Errorf("file: got %v, want -", got)
			}
			delete(fromFile, "file")
			delete(fromStdin, "file")
			if !reflect.DeepEqual(fromFile, fromStdin) {
				t.Errorf("summary --json -: got\n%v\nwant (as from the file)\n%v", fromStdin, fromFile)
			}
			// Flags may follow "-".
			for _, args := range [][]string{{"top", "--json", "-n", "0", "-"}, {"calls", "-", "--json"}} {
				fileArgs := slices.Clone(args)
				fileArgs[slices.Index(fileArgs, "-")] = path
				if got, want := mustRun(t, data, args...), mustRun(t, nil, fileArgs...); got != want {
					t.Errorf("jsprof %s: output differs from the file's:\n%s", strings.Join(args, " "), lineDiff(want, got))
				}
			}
		})
	}
}

// TestGzipByContent checks that gzip input is recognised by its content, not
// its name.
func TestGzipByContent(t *testing.T) {
	t.Parallel()
	for _, prof := range []string{"mix", "recursion"} {
		t.Run(prof, func(t *testing.T) {
			t.Parallel()
			path := profilePath(prof)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var zbuf bytes.Buffer
			zw := gzip.NewWriter(&zbuf)
			if _, err := zw.Write(data); err != nil {
				t.Fatal(err)
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			gz := filepath.Join(t.TempDir(), prof+".json") // not .gz: detection is by content
			if err := os.WriteFile(gz, zbuf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"top", "--json", "-n", "0"}, {"tree", "--json", "--depth", "4"}} {
				want := mustRun(t, nil, append(slices.Clone(args), path)...)
				got := mustRun(t, nil, append(slices.Clone(args), gz)...)
				if got != want {
					t.Errorf("jsprof %s on gzip: output differs from the plain file's:\n%s", strings.Join(args, " "), lineDiff(want, got))
				}
				// And from stdin.
				got = mustRun(t, zbuf.Bytes(), append(slices.Clone(args), "-")...)
				if got != want {
					t.Errorf("jsprof %s - on gzip stdin: output differs from the plain file's:\n%s", strings.Join(args, " "), lineDiff(want, got))
				}
			}
			// A corrupt gzip stream is an input error.
			bad := filepath.Join(t.TempDir(), "bad.cpuprofile")
			if err := os.WriteFile(bad, zbuf.Bytes()[:zbuf.Len()/2], 0o644); err != nil {
				t.Fatal(err)
			}
			r := run(t, nil, "summary", bad)
			if r.code != 1 || !strings.HasPrefix(r.stderr, "jsprof: "+bad+": ") {
				t.Errorf("truncated gzip: got %v, want exit 1 and an error naming the file", r)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Hostile strings

// hostileName and hostileURL are what the profile below holds, as a JSON
// decoder reads them (the raw 0xff byte read as U+FFFD).
const (
	hostileName = "<script>alert(1)</script> \"q\" 'a' \\b\\ \n nl \x00 nul \u2028 ls \ufffd bad \t tab \x7f del \x1b esc \r cr \u0085 nel \u202e rlo &amp;"
	hostileURL  = "file:///x/<script>alert(1)</script>\"\\\nline\ufffd.js"
)

// hostileProfile returns a .cpuprofile whose function names and URLs hold
// hostileName and hostileURL, with every kind of escape and raw bytes: a raw
// U+2028 and a raw invalid byte 0xff.
func hostileProfile() []byte {
	name := `<script>alert(1)</script> \"q\" 'a' \\b\\ \n nl \u0000 nul ` + "\u2028" + ` ls ` + "\xff" +
		` bad \t tab ` + "\x7f" + ` del \u001b esc \r cr \u0085 nel \u202E rlo &amp;`
	url := `file:///x/\u003cscript>alert(1)</script>\"\\\nline` + "\xff" + `.js`
	return []byte(`{"nodes":[` +
		`{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2,4]},` +
		`{"id":2,"callFrame":{"functionName":"` + name + `","scriptId":"7","url":"` + url + `","lineNumber":3,"columnNumber":4},` +
		`"hitCount":3,"children":[3],"positionTicks":[{"line":4,"ticks":3}]},` +
		`{"id":3,"callFrame":{"functionName":"inner\u2029\n","scriptId":"7","url":"` + url + `","lineNumber":5,"columnNumber":6},"hitCount":2},` +
		`{"id":4,"callFrame":{"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":1}` +
		`],"startTime":1000,"endTime":2000,"samples":[2,3,3,2,2,4],"timeDeltas":[100,100,100,100,100,100]}`)
}

func TestHostileStrings(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hostile.cpuprofile")
	if err := os.WriteFile(path, hostileProfile(), 0o644); err != nil {
		t.Fatal(err)
	}
	wantNames := map[string]string{hostileName: hostileURL, "inner\u2029\n": hostileURL, "(program)": ""}

	t.Run("calls-json", func(t *testing.T) {
		t.Parallel()
		out := mustRun(t, nil, "calls", "--json", path)
		checkJSONSafe(t, out)
		seen := map[string]bool{}
		for _, c := range parseCalls(t, out) {
			url, ok := wantNames[c.name]
			if !ok {
				t.Errorf("name: got %q, want one of the profile's", c.name)
				continue
			}
			seen[c.name] = true
			if c.url != url {
				t.Errorf("url of %q: got %q, want %q", c.name, c.url, url)
			}
		}
		if len(seen) != len(wantNames) {
			t.Errorf("got calls of %q, want all of %q", slices.Sorted(maps.Keys(seen)), slices.Sorted(maps.Keys(wantNames)))
		}
	})
	t.Run("top-json", func(t *testing.T) {
		t.Parallel()
		checkJSONSafe(t, mustRun(t, nil, "top", "--json", path))
		th := topJSON(t, "-n", "0", path)
		if len(th) != 1 || len(th[0].functions) != len(wantNames) {
			t.Fatalf("got %+v, want one thread with %d functions", th, len(wantNames))
		}
		for _, f := range th[0].functions {
			if url, ok := wantNames[f.name]; !ok || f.url != url {
				t.Errorf("function %s: want one of the profile's names and its URL", f.key())
			}
		}
	})
	t.Run("tree-json", func(t *testing.T) {
		t.Parallel()
		out := mustRun(t, nil, "tree", "--json", path)
		checkJSONSafe(t, out)
		var doc report.Tree
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, n := range doc.Threads[0].Nodes[1:] {
			if n.Depth <= 2 {
				names = append(names, n.Name)
			}
		}
		slices.Sort(names)
		if want := slices.Sorted(maps.Keys(wantNames)); !slices.Equal(names, want) {
			t.Errorf("tree names: got %q, want %q", names, want)
		}
	})
	for _, args := range [][]string{
		{"top"}, {"top", "--by", "total"}, {"top", "--lines"}, {"tree"}, {"tree", "--bottom-up"}, {"summary"},
	} {
		t.Run(strings.Join(args, "-"), func(t *testing.T) {
			t.Parallel()
			out := mustRun(t, nil, append(slices.Clone(args), path)...)
			checkTextSafe(t, out)
			if args[0] == "summary" {
				return
			}
			// The functions rows: everything after the two header lines.
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			rows := lines[2:]
			want := len(wantNames)
			switch {
			case slices.Contains(args, "--lines"):
				want = 1 // one line with positionTicks
			case slices.Contains(args, "--bottom-up"):
				want = 4 // 3 functions, and the caller of inner
			}
			if len(rows) != want {
				t.Errorf("got %d rows, want %d:\n%s", len(rows), want, out)
			}
			row := regexp.MustCompile(`^ +\d+\.\d{3} +\d+\.\d%? +\d+(\.\d{3})?`)
			for _, r := range rows {
				if !row.MatchString(r) {
					t.Errorf("row does not start with the numeric columns (a string broke the line?): %q", r)
				}
			}
			if !strings.Contains(out, "<script>alert(1)</script>") {
				t.Errorf("the name is not shown:\n%s", out)
			}
		})
	}
}

// checkJSONSafe checks that every line of out is valid JSON on its own, and
// that nothing that breaks embedding in HTML or JavaScript is left raw.
func checkJSONSafe(t *testing.T, out string) {
	t.Helper()
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("line %d: invalid JSON: %q", i+1, line)
		}
		if !utf8.ValidString(line) {
			t.Errorf("line %d: invalid UTF-8: %q", i+1, line)
		}
		if strings.ContainsAny(line, "<>&\u2028\u2029") {
			t.Errorf("line %d: raw <, >, &, U+2028 or U+2029: %q", i+1, line)
		}
	}
}

// checkTextSafe checks that text output has no control characters (C0, DEL,
// C1), line or paragraph separators, or invalid UTF-8 apart from the newlines
// that end its lines.
func checkTextSafe(t *testing.T, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("invalid UTF-8 in the output:\n%q", out)
	}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		for _, r := range line {
			if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\u202e' {
				t.Errorf("line %d: raw %U: %q", i+1, r, line)
				break
			}
		}
	}
}

// convert writes a .cpuprofile that reads back into the same functions and
// times; a call graph is made acyclic and the count reported.
func TestConvertCPUProfile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, in := range []string{"../../testdata/node/mix.cpuprofile", "../../testdata/node/recursion.cpuprofile"} {
		out := filepath.Join(dir, filepath.Base(in)+".gz")
		var stdout, stderr strings.Builder
		if code := cli.Run(t.Context(), []string{"convert", "-o", out, in}, nil, &stdout, &stderr); code != 0 {
			t.Fatalf("convert %s: exit %d: %s", in, code, stderr.String())
		}
		want := mustRun(t, nil, "top", "--json", "-n", "0", in)
		got := mustRun(t, nil, "top", "--json", "-n", "0", out)
		if got != want {
			t.Errorf("%s: top of the converted file differs:\n%s\nvs\n%s", in, got, want)
		}
	}
	var stdout, stderr strings.Builder
	if code := cli.Run(t.Context(), []string{"convert", "--format", "perfetto", "../../testdata/node/mix.cpuprofile"}, nil, &stdout, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), `unknown --format "perfetto"; want `+format.JoinOr(format.WritableNames())) {
		t.Errorf("unsupported format: exit %d, %q", code, stderr.String())
	}
}

// TestInterrupted requires a cancelled context (Ctrl-C in main) to stop a
// command with exit status 130 and one line on stderr.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, args := range [][]string{{"summary", profilePath("mix")}, {"top", profilePath("mix")}, {"convert", "--format", "folded", profilePath("mix")}} {
		var stdout, stderr bytes.Buffer
		code := cli.Run(ctx, args, nil, &stdout, &stderr)
		if code != 130 || stderr.String() != "jsprof: interrupted\n" || stdout.Len() != 0 {
			t.Errorf("jsprof %s with a cancelled context: got exit %d, stderr %q, %d bytes out; want 130, \"jsprof: interrupted\", nothing",
				strings.Join(args, " "), code, stderr.String(), stdout.Len())
		}
	}
}

// TestCallsAreReportTypes requires every line of calls --json and of
// calls --json --entries (written by a fast appender, not encoding/json)
// to be exactly the JSON of report.Call and report.Entry: no unknown
// member, and the same bytes when the type writes it back.
func TestCallsAreReportTypes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args  []string
		proto func() any
	}{
		{[]string{"calls", "--json", profilePath("mix")}, func() any { return new(report.Call) }},
		{[]string{"calls", "--json", "--entries", profilePath("mix")}, func() any { return new(report.Entry) }},
	} {
		out := mustRun(t, nil, c.args...)
		n := 0
		for line := range strings.Lines(out) {
			v := c.proto()
			dec := json.NewDecoder(strings.NewReader(line))
			dec.DisallowUnknownFields()
			if err := dec.Decode(v); err != nil {
				t.Fatalf("jsprof %s: line %d: %v", strings.Join(c.args, " "), n+1, err)
			}
			var back bytes.Buffer
			if err := json.NewEncoder(&back).Encode(v); err != nil {
				t.Fatal(err)
			}
			if back.String() != line {
				t.Fatalf("jsprof %s: line %d: got %q, the type writes %q", strings.Join(c.args, " "), n+1, line, back.String())
			}
			n++
		}
		if n == 0 {
			t.Errorf("jsprof %s: no lines", strings.Join(c.args, " "))
		}
	}
}
