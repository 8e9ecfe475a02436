package format

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/format/folded"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/profile"
)

// small is a .cpuprofile the writers turn into samples of the other formats.
const small = `{"nodes":[
	{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,4]},
	{"id":2,"callFrame":{"functionName":"main","scriptId":"1","url":"file:///a.js","lineNumber":0,"columnNumber":0},"children":[3]},
	{"id":3,"callFrame":{"functionName":"hot","scriptId":"1","url":"file:///a.js","lineNumber":9,"columnNumber":4}},
	{"id":4,"callFrame":{"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}}],
 "startTime":1000,"endTime":2000,"samples":[2,3,3,4,2],"timeDeltas":[10,100,100,100,100]}`

// samples returns small inputs of every readable format, by format name:
// hand-written ones of the forms the writers do not write, and the writers'
// output for small.
func samples(t *testing.T) map[string][]string {
	t.Helper()
	p, err := v8.ParseBytes([]byte(small), v8.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ids := []profile.ThreadID{0}
	write := func(f func(w io.Writer) error) string {
		t.Helper()
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	gunzip := func(s string) string {
		t.Helper()
		zr, err := gzip.NewReader(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	return map[string][]string{
		"cpuprofile": {
			small,
			write(func(w io.Writer) error { return v8.Write(w, p, v8.WriteOptions{}) }),
			// Legacy (head tree, seconds), and an XS call graph.
			`{"head":{"functionName":"(root)","url":"","lineNumber":0,"id":1,"scriptId":0,"hitCount":0,"children":[
				{"functionName":"f","url":"x.js","lineNumber":1,"id":2,"scriptId":1,"hitCount":3,"children":[]}]},
			 "startTime":1,"endTime":1.003,"samples":[2,2,2]}`,
			` {"nodes":[
				{"id":0,"callFrame":{"functionName":"(host)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[9]},
				{"id":5,"callFrame":{"functionName":"shared","scriptId":"0","url":"/w.js","lineNumber":2,"columnNumber":-1},"hitCount":2,"children":[]},
				{"id":9,"callFrame":{"functionName":"(anonymous-9)","scriptId":"0","url":"/w.js","lineNumber":0,"columnNumber":-1},"hitCount":0,"children":[5]}],
			 "startTime":1795297897967764,"endTime":1795297897972764,"samples":[5,5],"timeDeltas":[1250,1250]}`,
		},
		"trace": {
			write(func(w io.Writer) error { return chrometrace.Write(w, p, chrometrace.WriteOptions{Threads: ids}) }),
			`[{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"CrRendererMain"}}]`,
		},
		"speedscope": {
			write(func(w io.Writer) error { return speedscope.Write(w, p, sampleStacks(p), speedscope.Options{}) }),
		},
		"firefox": {
			write(func(w io.Writer) error { return firefox.Write(w, p, sampleStacks(p), firefox.Options{}) }),
			`{"meta":{"version":13,"interval":1,"startTime":0},"threads":[{"name":"T","tid":7,"pid":"12",` +
				`"stringTable":["(root)","f (https://x/a.js:12:3)"],` +
				`"frameTable":{"schema":{"location":0},"data":[[0],[1]]},` +
				`"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0],[0,1]]},` +
				`"samples":{"schema":{"stack":0,"time":1},"data":[[1,0],[1,1]]}}]}`,
		},
		"pprof": {
			// The input layer decompresses before Parse sees the data.
			gunzip(write(func(w io.Writer) error { return pprof.Write(w, p, sampleStacks(p), pprof.Options{}) })),
		},
		"folded": {
			write(func(w io.Writer) error {
				fw := folded.NewWriter(p)
				for n := range p.Nodes {
					var stack []profile.FrameID
					for m := range p.Stack(profile.NodeID(n)) {
						stack = append(stack, p.Nodes[m].Frame)
					}
					slices.Reverse(stack) // root first
					fw.Add(stack, 10)
				}
				_, err := fw.WriteTo(w)
				return err
			}),
			"main;hot 20\nmain 5\n",
		},
	}
}

// profileFormats are the Profile.Format (or its start) each reader sets.
var profileFormats = map[string][]string{"cpuprofile": {"cpuprofile", "xs"}, "trace": {"chrome-trace"}}

func TestDetect(t *testing.T) {
	t.Parallel()
	all := samples(t)
	for _, f := range Formats {
		if !f.In {
			if f.parse != nil || f.Sniff != nil {
				t.Errorf("%s: not read, but has a reader or a Sniff", f.Name)
			}
			continue
		}
		if f.parse == nil {
			t.Errorf("%s: read, but has no reader", f.Name)
		}
		if len(all[f.Name]) == 0 {
			t.Errorf("%s: no sample", f.Name)
		}
		want := profileFormats[f.Name]
		if want == nil {
			want = []string{f.Name}
		}
		readAs := func(p *profile.Profile) bool {
			return slices.ContainsFunc(want, func(w string) bool { return strings.HasPrefix(p.Format, w) })
		}
		for i, in := range all[f.Name] {
			got := "(none: tried by reading)"
			if d := detect([]byte(in)); d != nil {
				got = d.Name
			}
			if f.Sniff != nil && got != f.Name {
				t.Errorf("%s sample %d: detected as %s", f.Name, i, got)
			}
			p, err := Parse([]byte(in), Options{})
			if err != nil {
				t.Errorf("%s sample %d: Parse: %v", f.Name, i, err)
				continue
			}
			if !readAs(p) {
				t.Errorf("%s sample %d: Parse read it as %q, want %q", f.Name, i, p.Format, want)
			}
			// ReadFile's path: sniffed from the start of a stream.
			st, err := input.Open("-", strings.NewReader(in), input.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p, err = read(st, Options{})
			st.Close()
			if err != nil {
				t.Errorf("%s sample %d: read: %v", f.Name, i, err)
			} else if !readAs(p) {
				t.Errorf("%s sample %d: read it as %q, want %q", f.Name, i, p.Format, want)
			}
		}
	}
}

// TestDetectOrder pins the cases where the order matters.
func TestDetectOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		// An object that no format's signature claims goes to the v8 reader,
		// for its error.
		{`{"x":1}`, "cpuprofile"},
		{` {}`, "cpuprofile"},
		// Both signatures: trace before speedscope, speedscope before
		// firefox, both before the v8 reader.
		{`{"$schema":"https://www.speedscope.app/file-format-schema.json","traceEvents":[]}`, "trace"},
		{`{"meta":{"version":13,"interval":1},"$schema":"https://www.speedscope.app/file-format-schema.json"}`, "speedscope"},
		{`{"head":{},"meta":{"version":13,"interval":1}}`, "firefox"},
		// Neither JSON nor folded: pprof is tried by reading it.
		{"\x00\x01", ""},
		{"f;g x\n", ""},
	} {
		got := ""
		if d := detect([]byte(tc.in)); d != nil {
			got = d.Name
		}
		if got != tc.want {
			t.Errorf("detect(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestUnrecognized(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("  hello"), Options{})
	var pe *profile.ParseError
	if !errors.As(err, &pe) || !errors.Is(err, profile.ErrUnrecognized) || pe.Offset != 2 {
		t.Fatalf("got %v", err)
	}
	if want := "unrecognized format: want " + Supported; !strings.Contains(err.Error(), want) {
		t.Errorf("got %q, want it to contain %q", err, want)
	}
	if _, err := Parse([]byte(" \n"), Options{}); !errors.Is(err, profile.ErrEmpty) {
		t.Errorf("blank input: got %v", err)
	}
}

func TestSupported(t *testing.T) {
	t.Parallel()
	for _, f := range Formats {
		if f.In && (f.Description == "" || !strings.Contains(Supported, f.Description)) {
			t.Errorf("Supported does not list %s (%q): %s", f.Name, f.Description, Supported)
		}
	}
	// The hostile catalogue pins this text.
	const want = "a V8 .cpuprofile (current or legacy, XS call graphs), a Chrome trace (JSON array or object with traceEvents), speedscope, a Firefox profile (Gecko or processed), pprof or folded stacks"
	if Supported != want {
		t.Errorf("Supported = %q, want %q", Supported, want)
	}
}

func TestTable(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	exts := map[string]string{}
	fallbacks := 0
	for _, f := range Formats {
		if f.Name == "" || names[f.Name] {
			t.Errorf("name %q empty or repeated", f.Name)
		}
		names[f.Name] = true
		if !f.In && !f.Out {
			t.Errorf("%s: neither read nor written", f.Name)
		}
		if f.Out && (len(f.Exts) == 0 || f.Writes == "") {
			t.Errorf("%s: written, but no Exts or no Writes", f.Name)
		}
		if !f.Out && (len(f.Exts) > 0 || f.Writes != "" || f.Compresses) {
			t.Errorf("%s: not written, but has Exts, Writes or Compresses", f.Name)
		}
		for _, e := range f.Exts {
			if !strings.HasPrefix(e, ".") || strings.HasSuffix(e, ".gz") {
				t.Errorf("%s: extension %q: want .something, not ending in .gz", f.Name, e)
			}
			if other, ok := exts[e]; ok {
				t.Errorf("extension %q: both %s and %s", e, other, f.Name)
			}
			exts[e] = f.Name
		}
		if f.Fallback {
			fallbacks++
			if f.Sniff == nil {
				t.Errorf("%s: Fallback without a Sniff", f.Name)
			}
		}
		if f.stream != nil && (f.Sniff == nil || f.Fallback) {
			t.Errorf("%s: streamed, but not told by a signature", f.Name)
		}
	}
	if fallbacks > 1 {
		t.Errorf("%d Fallback formats; at most one can claim what the others leave", fallbacks)
	}
}

func TestForOutput(t *testing.T) {
	t.Parallel()
	for _, f := range Formats {
		for _, e := range f.Exts {
			for _, path := range []string{"out" + e, "out" + e + ".gz", "dir.x/a.b" + e, e} {
				got, ok := ForOutput(path)
				if !ok || got.Name != f.Name {
					t.Errorf("ForOutput(%q) = %q, %v; want %s", path, got.Name, ok, f.Name)
				}
			}
		}
	}
	for _, path := range []string{"-", "", "out", "out.json", "out.gz", "out.cpuprofile.txt", "out.cpuprofile.gz.gz", "out.CPUPROFILE", "out.cpuprofile/"} {
		if got, ok := ForOutput(path); ok {
			t.Errorf("ForOutput(%q) = %s, want none", path, got.Name)
		}
	}
}

// TestForOutputLongest: the longest extension wins, wherever its format is
// in the table. Not parallel: it changes Formats.
func TestForOutputLongest(t *testing.T) {
	defer func(old []Info) { Formats = old }(Formats)
	json := Info{Name: "json", Exts: []string{".json"}, Out: true}
	for _, formats := range [][]Info{append([]Info{json}, Formats...), append(slices.Clip(Formats), json)} {
		Formats = formats
		for path, want := range map[string]string{"a.trace.json": "trace", "a.speedscope.json.gz": "speedscope", "a.json": "json", "a.json.gz": "json", "a.x.json": "json"} {
			if got, ok := ForOutput(path); !ok || got.Name != want {
				t.Errorf("ForOutput(%q) = %q, %v; want %s", path, got.Name, ok, want)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	for _, f := range Formats {
		if got, ok := Lookup(f.Name); !ok || got.Name != f.Name || got.Description != f.Description {
			t.Errorf("Lookup(%q) = %q, %v", f.Name, got.Name, ok)
		}
	}
	for _, name := range []string{"", "perfetto", "CPUProfile", " cpuprofile", "cpuprofile.gz", ".cpuprofile", "chrome-trace"} {
		if got, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) = %s, want none", name, got.Name)
		}
	}
	// The "want …" of an unknown --to names every written format, in table
	// order.
	want := JoinOr(WritableNames())
	if want != "cpuprofile, trace, speedscope, firefox, pprof, folded or svg" {
		t.Errorf("want list %q", want)
	}
	var written []string
	for _, f := range Formats {
		if f.Out {
			written = append(written, f.Name)
			if !strings.Contains(want, f.Name) {
				t.Errorf("want list %q leaves out %s", want, f.Name)
			}
		}
	}
	if !slices.Equal(WritableNames(), written) {
		t.Errorf("WritableNames() = %q, want %q", WritableNames(), written)
	}
}

func TestJoinOr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a or b"},
		{[]string{"a", "b", "c"}, "a, b or c"},
	} {
		if got := JoinOr(tc.in); got != tc.want {
			t.Errorf("JoinOr(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWritersHelp(t *testing.T) {
	t.Parallel()
	help := WritersHelp()
	if !strings.HasSuffix(help, "\n") {
		t.Errorf("help does not end in a newline")
	}
	var heads []string
	for _, line := range strings.Split(strings.TrimSuffix(help, "\n"), "\n") {
		if len(line) > 79 {
			t.Errorf("line longer than 79 columns: %q", line)
		}
		if !strings.HasPrefix(line, "   ") {
			heads = append(heads, strings.Fields(line)[0])
		}
	}
	if !slices.Equal(heads, WritableNames()) {
		t.Errorf("help lists %q, want %q", heads, WritableNames())
	}
	for _, f := range Formats {
		for _, e := range f.Exts {
			if !strings.Contains(help, "*"+e) {
				t.Errorf("help does not name *%s", e)
			}
		}
	}
}

// sampleStacks returns thread 0's samples as the stacks the writers of
// analysed views take (a session's, which this package cannot import):
// each sample's stack, root first, lasting until the next sample (the last
// one until the thread's end).
func sampleStacks(p *profile.Profile) []profile.ThreadStacks {
	ss := p.ThreadSamples(0)
	return []profile.ThreadStacks{{Stacks: func(yield func(*profile.Stack) bool) {
		for i, n := range ss.Node.All() {
			st := profile.Stack{Time: ss.Time.At(i), Weight: p.Threads[0].End - ss.Time.At(i)}
			if i+1 < ss.Node.Len() {
				st.Weight = ss.Time.At(i+1) - ss.Time.At(i)
			}
			for m := range p.Stack(n) {
				st.Frames = append(st.Frames, p.Nodes[m].Frame)
			}
			slices.Reverse(st.Frames)
			if !yield(&st) {
				return
			}
		}
	}}}
}

// TestNotCPU checks that inputs in a format jsprof reads but holding no CPU
// profile are named as such, not "unrecognized": a pprof heap profile (no
// sample type is a time) and a V8 heap profile (.heapprofile).
func TestNotCPU(t *testing.T) {
	t.Parallel()
	var heap bytes.Buffer
	zw := gzip.NewWriter(&heap)
	// A legacy text heap profile: google/pprof reads it, with byte and
	// count sample types only.
	zw.Write([]byte("heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1000 0x2000\n"))
	zw.Close()
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"pprof-heap", heap.Bytes(), "not a CPU profile: no CPU or time sample type"},
		{"v8-heapprofile", []byte(`{"head":{"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"selfSize":0,"children":[]}}`),
			"a V8 heap profile (.heapprofile: nodes with selfSize in bytes, no sample times), not a CPU profile"},
	} {
		st, err := input.Open("-", bytes.NewReader(tc.in), input.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = read(st, Options{})
		st.Close()
		if err == nil || errors.Is(err, profile.ErrUnrecognized) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}
