package speedscope_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/profile"
)

const schema = `"$schema":"https://www.speedscope.app/file-format-schema.json"`

// dump renders the threads and samples of p: one line per thread, then one
// per sample with its time and stack (root first; each frame as
// name@url:line:col with jsprof's 0-based positions, the location left out
// when unknown), then the diagnostics.
func dump(p *profile.Profile) string {
	var b strings.Builder
	for ti, th := range p.Threads {
		fmt.Fprintf(&b, "thread %q pid=%d tid=%d start=%d end=%d last=%d\n", th.Name, th.PID, th.TID, th.Start, th.End, th.LastSampleEnd)
		ss := p.ThreadSamples(profile.ThreadID(ti))
		for i, n := range ss.Node.All() {
			var names []string
			for x := range p.Stack(n) {
				f := p.NodeFrame(x)
				name := p.Str(f.Name)
				if f.URL != 0 || f.Line >= 0 || f.Column >= 0 {
					name += fmt.Sprintf("@%s:%d:%d", p.Str(f.URL), f.Line, f.Column)
				}
				names = append(names, name)
			}
			slices.Reverse(names)
			fmt.Fprintf(&b, "%d %s\n", ss.Time.At(i), strings.Join(names, ";"))
		}
	}
	for _, d := range p.Diagnostics {
		fmt.Fprintf(&b, "diag %s %d\n", d.Code, d.Count)
	}
	return b.String()
}

var parseCases = []struct {
	name, input, want string
}{
	{
		// Weights in µs with fractions, a zero weight (left out), an empty
		// stack (the root), 1-based positions, "(anonymous)", pid and tid
		// from the name.
		name: "sampled",
		input: `{` + schema + `,"shared":{"frames":[{"name":"main","file":"a.js","line":1,"col":1},{"name":"(anonymous)","file":"a.js","line":10},{"name":"leaf"}]},
"profiles":[{"type":"sampled","name":"main (pid 7, tid 9)","unit":"microseconds","startValue":1000.5,"endValue":1100,
"samples":[[0,1],[0,1,2],[],[0],[0,2],[]],"weights":[10,0.25,0,5,1e1,0.0004]}],"name":"x","activeProfileIndex":0,"exporter":"test"}`,
		want: `thread "main" pid=7 tid=9 start=1000500 end=1100000 last=1025750
1000500 main@a.js:0:0;@a.js:9:-1
1010500 main@a.js:0:0;@a.js:9:-1;leaf
1010750 main@a.js:0:0
1015750 main@a.js:0:0;leaf
`,
	},
	{
		// Profiles before shared, samples before type, unknown members,
		// names without pid and tid, positions not positive, no
		// startValue or endValue, a profile with no events.
		name: "member-order",
		input: `{"profiles":[{"samples":[[1],[1,0]],"weights":[1.5,2],"extra":{"a":[1,{"b":null}]},"type":"sampled","unit":"milliseconds","name":"worker"},
{"name":"second","type":"evented","unit":"seconds","startValue":0,"endValue":1,"events":[]}],
"version":"1.0","shared":{"frames":[{"name":"b","line":0,"col":-3,"key":7},{"name":"a","file":"x.js","line":2147483647,"col":null}]},` + schema + `}`,
		want: `thread "worker" pid=1 tid=1 start=0 end=3500000 last=3500000
0 a@x.js:2147483646:-1
1500000 a@x.js:2147483646:-1;b
thread "second" pid=1 tid=2 start=0 end=1000000000 last=0
`,
	},
	{
		// A sample at each distinct event time; the root before the first
		// event and after the last; a frame closed and opened again at
		// one time makes a new sample; a frame opened and closed at one
		// time makes none; events before their type.
		name: "evented",
		input: `{` + schema + `,"shared":{"frames":[{"name":"a"},{"name":"b"},{"name":"(program)"}]},"profiles":[{"events":[
{"type":"O","frame":0,"at":110},{"type":"O","frame":1,"at":110},{"type":"C","frame":1,"at":120},{"type":"O","frame":0,"at":120},
{"type":"C","frame":0,"at":130},{"type":"C","frame":0,"at":140},
{"type":"O","frame":2,"at":150},{"type":"C","frame":2,"at":160},{"type":"O","frame":2,"at":160},{"type":"C","frame":2,"at":170},
{"at":170,"frame":0,"type":"O"},{"type":"O","frame":1,"at":170},{"type":"C","frame":1,"at":170},{"type":"C","frame":0,"at":180}],
"type":"evented","name":"ev","unit":"nanoseconds","startValue":100,"endValue":200}]}`,
		want: `thread "ev" pid=1 tid=1 start=100 end=200 last=200
100 
110 a;b
120 a;a
130 a
140 
150 (program)
160 (program)
170 a
180 
`,
	},
	{
		// Frames left open run to endValue.
		name: "unclosed",
		input: `{` + schema + `,"shared":{"frames":[{"name":"a"},{"name":"b"}]},"profiles":[
{"type":"evented","name":"u","unit":"nanoseconds","startValue":0,"endValue":20,"events":[{"type":"O","frame":0,"at":0},{"type":"O","frame":1,"at":5}]},
{"type":"evented","name":"v","unit":"nanoseconds","events":[{"type":"O","frame":0,"at":0},{"type":"O","frame":1,"at":5}]}]}`,
		want: `thread "u" pid=1 tid=1 start=0 end=20 last=20
0 a
5 a;b
thread "v" pid=1 tid=2 start=0 end=5 last=5
0 a
diag unclosed-frames 4
`,
	},
	{
		// Decimal times are converted exactly, beyond float64's 53 bits.
		name: "exact-times",
		input: `{` + schema + `,"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","name":"t","unit":"microseconds",
"startValue":1795297897967764.123,"endValue":17952978979677641.24e-1,"samples":[[0],[0,0]],"weights":[0.0005,1.2345e3]}]}`,
		want: `thread "t" pid=1 tid=1 start=1795297897967764123 end=1795297897967764124 last=1795297897968998624
1795297897967764123 a
1795297897967764124 a;a
`,
	},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if !speedscope.Sniff([]byte(tc.input)) && !strings.HasPrefix(tc.input, `{"profiles"`) {
				t.Errorf("Sniff: got false, want true")
			}
			p, err := speedscope.ParseBytes([]byte(tc.input))
			if err != nil {
				t.Fatal(err)
			}
			if p.Format != "speedscope" {
				t.Errorf("format %q, want speedscope", p.Format)
			}
			if got := dump(p); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			// The same, gzip-compressed, through Parse.
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write([]byte(tc.input))
			zw.Close()
			q, err := speedscope.Parse(&gz)
			if err != nil {
				t.Fatal(err)
			}
			if got := dump(q); got != tc.want {
				t.Errorf("gzip: got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  bool
	}{
		{"first", `{` + schema + `,"shared":{}}`, true},
		{"after-others", `{"version":"1.25.0","name":"x","activeProfileIndex":0,` + schema + `,"shared":{}}`, true},
		{"cut-after-schema", `{` + schema + `,"shared":{"fr`, true},
		{"other-schema", `{"$schema":"http://json-schema.org/draft-07/schema#"}`, false},
		{"after-profiles", `{"profiles":[],` + schema + `}`, false},
		{"cpuprofile", `{"nodes":[],"samples":[]}`, false},
		{"array", `[` + schema + `]`, false},
		{"empty", ``, false},
	} {
		if got := speedscope.Sniff([]byte(tc.input)); got != tc.want {
			t.Errorf("%s: got %t, want %t", tc.name, got, tc.want)
		}
	}
}

// head is the start of a valid file, up to the profiles.
const head = `{` + schema + `,"shared":{"frames":[{"name":"a"},{"name":"b"}]},"profiles":`

var errorCases = []struct {
	name, input, want string // want: a regexp for the message after "offset N: "
}{
	{"empty", ` `, `^\$: empty input$`},
	{"array", `[]`, `^\$: want object, got array$`},
	{"other-schema", `{"$schema":"x","shared":{"frames":[]},"profiles":[]}`, `^\$schema: unrecognized format: \$schema is "x", want "https://www.speedscope.app/file-format-schema.json"$`},
	{"no-schema", `{"shared":{"frames":[]},"profiles":[{}]}`, `^\$: unrecognized format: no \$schema member`},
	{"no-shared", `{` + schema + `,"profiles":[]}`, `^\$: missing shared.frames$`},
	{"no-frames", `{` + schema + `,"shared":{},"profiles":[]}`, `^shared: missing frames$`},
	{"no-profiles", `{` + schema + `,"shared":{"frames":[]}}`, `^\$: missing profiles$`},
	{"zero-profiles", `{` + schema + `,"shared":{"frames":[]},"profiles":[]}`, `^profiles: empty input: no profiles$`},
	{"frame-no-name", `{` + schema + `,"shared":{"frames":[{"name":"a"},{"file":"x"}]},"profiles":[]}`, `^shared.frames\[1\]: missing name$`},
	{"frame-name-number", `{` + schema + `,"shared":{"frames":[{"name":1}]},"profiles":[]}`, `^shared.frames\[0\].name: want string, got number$`},
	{"frame-line-string", `{` + schema + `,"shared":{"frames":[{"name":"a","line":"3"}]},"profiles":[]}`, `^shared.frames\[0\].line: want integer, got string$`},
	{"frame-line-huge", `{` + schema + `,"shared":{"frames":[{"name":"a","line":2147483648}]},"profiles":[]}`, `^shared.frames\[0\].line: 2147483648 out of range$`},
	{"type", head + `[{"type":"heap","name":"x","unit":"bytes"}]}`, `^profiles\[0\].type: type "heap"; want sampled or evented$`},
	{"unit", head + `[{"type":"sampled","name":"x","unit":"bytes","samples":[],"weights":[]}]}`, `^profiles\[0\].unit: unit "bytes"; want nanoseconds, microseconds, milliseconds, seconds or none`},
	{"no-type", head + `[{"name":"x","unit":"nanoseconds"}]}`, `^profiles\[0\]: missing type$`},
	{"no-unit", head + `[{"type":"sampled","samples":[],"weights":[]}]}`, `^profiles\[0\]: missing unit$`},
	{"no-weights", head + `[{"type":"sampled","unit":"nanoseconds","samples":[]}]}`, `^profiles\[0\]: a sampled profile needs samples and weights$`},
	{"no-events", head + `[{"type":"evented","unit":"nanoseconds","samples":[]}]}`, `^profiles\[0\]: an evented profile needs events$`},
	{"frame-range", head + `[{"type":"sampled","unit":"nanoseconds","samples":[[0],[2]],"weights":[1,1]}]}`, `^profiles\[0\].samples\[1\]\[0\]: frame 2 out of range: shared.frames has 2$`},
	{"frame-range-deferred", head + `[{"samples":[[0],[0,-1]],"type":"sampled","unit":"nanoseconds","weights":[1,1]}]}`, `^profiles\[0\].samples\[1\]\[1\]: frame -1 out of range`},
	{"frame-fraction", head + `[{"type":"sampled","unit":"nanoseconds","samples":[[0.5]],"weights":[1]}]}`, `^profiles\[0\].samples\[0\]\[0\]: want integer, got 0.5$`},
	{"stack-not-array", head + `[{"type":"sampled","unit":"nanoseconds","samples":[0],"weights":[1]}]}`, `^profiles\[0\].samples\[0\]: want array, got number$`},
	{"weights-count", head + `[{"type":"sampled","unit":"nanoseconds","samples":[[0],[1]],"weights":[1]}]}`, `^profiles\[0\].weights: 1 weights for 2 samples$`},
	{"weight-negative", head + `[{"type":"sampled","unit":"nanoseconds","samples":[[0],[1]],"weights":[1,-1]}]}`, `^profiles\[0\].weights\[1\]: negative weight$`},
	{"weight-string", head + `[{"type":"sampled","unit":"nanoseconds","samples":[[0]],"weights":["1"]}]}`, `^profiles\[0\].weights\[0\]: want number, got string$`},
	{"weight-huge", head + `[{"type":"sampled","unit":"seconds","samples":[[0]],"weights":[1e300]}]}`, `^profiles\[0\].weights\[0\]: 1e300 out of range$`},
	{"weights-sum", head + `[{"type":"sampled","unit":"nanoseconds","startValue":2e18,"samples":[[0],[1]],"weights":[2e17,2e17]}]}`, `^profiles\[0\].weights\[1\]: startValue plus the weights so far is out of range$`},
	{"start-huge", head + `[{"type":"sampled","unit":"nanoseconds","startValue":-3e18,"samples":[],"weights":[]}]}`, `^profiles\[0\].startValue: -3e18 out of range$`},
	{"close-nothing", head + `[{"type":"evented","unit":"nanoseconds","events":[{"type":"C","frame":0,"at":1}]}]}`, `^profiles\[0\].events\[0\]: closes frame 0 with no frame open$`},
	{"close-other", head + `[{"type":"evented","unit":"nanoseconds","events":[{"type":"O","frame":0,"at":1},{"type":"C","frame":1,"at":2}]}]}`, `^profiles\[0\].events\[1\]: closes frame 1 \("b"\) while "a" is open$`},
	{"event-order", head + `[{"type":"evented","unit":"nanoseconds","events":[{"type":"O","frame":0,"at":5},{"type":"C","frame":0,"at":4.4}]}]}`, `^profiles\[0\].events\[1\]: at 4.4 comes before the previous event's$`},
	{"event-type", head + `[{"type":"evented","unit":"nanoseconds","events":[{"type":"B","frame":0,"at":5}]}]}`, `^profiles\[0\].events\[0\].type: type "B"; want O or C$`},
	{"event-no-at", head + `[{"type":"evented","unit":"nanoseconds","events":[{"type":"O","frame":0}]}]}`, `^profiles\[0\].events\[0\]: missing at$`},
	{"event-no-frame", head + `[{"type":"evented","unit":"nanoseconds","events":[{"type":"O","at":0}]}]}`, `^profiles\[0\].events\[0\]: missing frame$`},
	{"second-samples", head + `[{"type":"sampled","unit":"nanoseconds","samples":[],"samples":[],"weights":[]}]}`, `^profiles\[0\].samples: a second samples member$`},
	{"trailing", head + `[{"type":"sampled","unit":"nanoseconds","samples":[],"weights":[]}]} {}`, `^\$: unexpected data after the top-level object$`},
	{"truncated", head + `[{"type":"sampled","unit":"nanoseconds","samples":[[0,1`, `^profiles\[0\].samples\[0\]: unexpected end of input`},
	{"odd-key", `{"a b":{"x":[1,]}}`, `^\$\["a b"\]: want`},
	{"empty-key-truncated", `{"":`, `^\$\[""\]: unexpected end of input`},
	{"bad-escape", `{` + schema + `,"shared":{"frames":[{"name":"\q"}]},"profiles":[]}`, `^shared.frames\[0\].name: invalid escape`},
}

// TestParseErrors checks that errors are *profile.ParseError values that
// locate the problem: an offset inside the input and the JSON path.
func TestParseErrors(t *testing.T) {
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := speedscope.ParseBytes([]byte(tc.input))
			if err == nil {
				t.Fatal("no error")
			}
			checkParseError(t, []byte(tc.input), err)
			msg := regexp.MustCompile(`^offset \d+: `).ReplaceAllString(err.Error(), "")
			if !regexp.MustCompile(tc.want).MatchString(msg) {
				t.Errorf("got %q, want a match for %q", err, tc.want)
			}
		})
	}
}

// Errors that callers branch on wrap the sentinels.
func TestParseErrorSentinels(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  error
	}{
		{`{"$schema":"x"}`, profile.ErrUnrecognized},
		{`{"nodes":[]}`, profile.ErrUnrecognized},
		{"\n", profile.ErrEmpty},
		{head + `[{"type":"sampled"`, profile.ErrTruncated},
	} {
		if _, err := speedscope.ParseBytes([]byte(tc.input)); !errors.Is(err, tc.want) {
			t.Errorf("%.40q: got %v, want %v", tc.input, err, tc.want)
		}
	}
}

// checkParseError checks that err locates the problem inside data.
func checkParseError(t *testing.T, data []byte, err error) {
	t.Helper()
	var pe *profile.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("got error %q (%T), want a *profile.ParseError", err, err)
	}
	if pe.Err == nil || pe.Path == "" {
		t.Fatalf("ParseError without Err or Path: %+v", pe)
	}
	if pe.Offset < 0 || pe.Offset > int64(len(data)) {
		t.Fatalf("error offset %d outside [0, %d]: %v", pe.Offset, len(data), err)
	}
	if prefix := fmt.Sprintf("offset %d: %s: ", pe.Offset, pe.Path); !strings.HasPrefix(err.Error(), prefix) {
		t.Fatalf("error %q does not start with %q", err, prefix)
	}
	// A NUL byte is taken for the end of the input by jsonscan.
	if errors.Is(err, profile.ErrTruncated) && pe.Offset != int64(len(data)) && !bytes.Contains(data, []byte{0}) {
		t.Fatalf("truncation reported at offset %d of %d: %v", pe.Offset, len(data), err)
	}
}

func TestScaleDecimal(t *testing.T) {
	for _, tc := range []struct {
		in     string
		digits int
		want   int64
		ok     bool
	}{
		{"0", 3, 0, true},
		{"-0.0", 9, 0, true},
		{"12", 0, 12, true},
		{"12", 3, 12000, true},
		{"1.2345", 3, 1235, true},   // halves away from zero
		{"-1.2345", 3, -1235, true}, // likewise
		{"1.2344", 3, 1234, true},
		{"0.0004", 3, 0, true},
		{"0.0005", 3, 1, true},
		{"0.00005", 3, 0, true},
		{"1e3", 0, 1000, true},
		{"1E-3", 6, 1000, true},
		{"15e-1", 0, 2, true},
		{"000", 0, 0, true},
		{"1795297897967764.123", 3, 1795297897967764123, true},
		{"2305843009213693952", 0, 1 << 61, true},
		{"2305843009213693953", 0, 0, false},
		{"-2305843009213693953", 0, 0, false},
		{"1e19", 0, 0, false},
		{"1e-99999999999", 9, 0, true},
		{"1e99999999999", 0, 0, false},
		{"0.000000000000000000000000000001e30", 0, 1, true},
	} {
		got, ok := speedscope.ScaleDecimal([]byte(tc.in), tc.digits)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ScaleDecimal(%s, %d) = %d, %t; want %d, %t", tc.in, tc.digits, got, ok, tc.want, tc.ok)
		}
	}
}
