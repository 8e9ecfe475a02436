package firefox_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

func parseFile(t *testing.T, path string) (*profile.Profile, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := firefox.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return p, data
}

// TestParseCorpus reads every Firefox profile of the shared corpus; the
// counts were read from the files (threads, samples rows, and the nodes
// left once stacks of the same function under the same parent merge, plus
// each thread's root: the input's "(root)" frame is a node of its own).
func TestParseCorpus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file       string
		format           string
		threads, samples int
		nodes            int
		names            []string // thread names
		startLast        profile.Time
	}{
		{"gecko-v3", "firefox/gecko-1.json", "firefox-gecko", 3, 21, 18, []string{"GeckoMain", "Compositor", "GeckoMain"}, 1000e6},
		{"gecko-v13", "firefox/gecko-2.json", "firefox-gecko", 3, 21, 20, []string{"GeckoMain", "Compositor", "GeckoMain"}, 1000e6},
		{"processed-old", "firefox/processed-1.json", "firefox-processed", 3, 21, 18, []string{"GeckoMain", "Compositor", "Content"}, 1000e6},
		{"processed-v7", "firefox/processed-2.json", "firefox-processed", 3, 21, 20, []string{"GeckoMain", "Compositor", "GeckoMain"}, 1000e6},
		{"processed-v24", "firefox/processed-3.json", "firefox-processed", 3, 21, 20, []string{"GeckoMain", "Compositor", "GeckoMain"}, 1000e6},
		{"devtools-v9-large", "speedscope/Firefox/59/firefox.json", "firefox-gecko", 1, 10161, 1903, []string{"GeckoMain"}, -1},
		{"devtools-v9", "speedscope/Firefox/59/simple-firefox.json", "firefox-gecko", 1, 38, 117, []string{"GeckoMain"}, -1},
		{"devtools-v9-recursion", "speedscope/Firefox/61/recursion.json", "firefox-gecko", 1, 15, 86, []string{"GeckoMain"}, -1},
		{"devtools-v12", "speedscope/Firefox/63/simple-firefox.json", "firefox-gecko", 1, 39, 155, []string{"GeckoMain"}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, data := parseFile(t, proftest.Corpus(t, tt.file))
			if !firefox.Sniff(data) || !firefox.Sniff(data[:min(len(data), 256<<10)]) {
				t.Errorf("Sniff = false, want true")
			}
			if p.Format != tt.format {
				t.Errorf("format %q, want %q", p.Format, tt.format)
			}
			if len(p.Threads) != tt.threads || p.Samples.Len() != tt.samples || len(p.Nodes) != tt.nodes {
				t.Errorf("got %d threads, %d samples, %d nodes; want %d, %d, %d",
					len(p.Threads), p.Samples.Len(), len(p.Nodes), tt.threads, tt.samples, tt.nodes)
			}
			for i, th := range p.Threads {
				if i < len(tt.names) && th.Name != tt.names[i] {
					t.Errorf("thread %d: name %q, want %q", i, th.Name, tt.names[i])
				}
				if th.Samples.Len() == 0 {
					t.Errorf("thread %d: no samples", i)
				}
			}
			if tt.startLast >= 0 {
				if got := p.Threads[len(p.Threads)-1].Start; got != tt.startLast {
					t.Errorf("last thread starts at %d ns, want %d (its process started 1 s later)", got, tt.startLast)
				}
			}
			js := 0
			for _, f := range p.Frames {
				if f.Kind == profile.KindJS {
					js++
				}
			}
			if js == 0 {
				t.Errorf("no JS frame among %d", len(p.Frames))
			}
		})
	}
}

// TestParseGeckoDetails checks the frames, pids and times of gecko-2.json.
func TestParseGeckoDetails(t *testing.T) {
	t.Parallel()
	p, _ := parseFile(t, proftest.Corpus(t, "firefox/gecko-2.json"))
	var got []string
	for _, f := range p.Frames {
		got = append(got, fmt.Sprintf("%s|%s|%d|%v", p.Str(f.Name), p.Str(f.URL), f.Line, f.Kind))
	}
	want := "frobnicate|chrome://blargh|33|js"
	if !strings.Contains(strings.Join(got, "\n"), want) {
		t.Errorf("frames:\n%s\nwant one %s", strings.Join(got, "\n"), want)
	}
	for i, th := range p.Threads {
		if th.PID <= 0 || th.TID <= 0 {
			t.Errorf("thread %d: pid %d tid %d, want positive", i, th.PID, th.TID)
		}
		if want := fmt.Sprintf("Unknown Process %d", i+1); th.ProcessName != want {
			t.Errorf("thread %d: process %q, want %q", i, th.ProcessName, want)
		}
	}
	if n := p.Diagnostics.Count("firefox-synthetic-ids"); n != 6 {
		t.Errorf("firefox-synthetic-ids ×%d, want 6", n)
	}
	// A sample of stack 0, the input's "(root)", is a sample of a native
	// frame named "(root)" under the thread's root, as the Firefox Profiler
	// shows it (with its self time); only V8 profiles have the meta root.
	n := p.Samples.Node.At(4)
	if f := p.Frames[p.Nodes[n].Frame]; p.Nodes[n].Parent != p.Threads[0].Root() || p.Str(f.Name) != "(root)" || f.Kind != profile.KindNative {
		t.Errorf("sample 4: node %d (parent %d, frame %q kind %v), want a native \"(root)\" under the root",
			n, p.Nodes[n].Parent, p.Str(f.Name), f.Kind)
	}
	if got := p.Samples.Time.At(6); got != 6e6 {
		t.Errorf("sample 6 at %d ns, want 6e6", got)
	}
}

// selfByFunction returns each function's self time over all threads, by
// "name url:line:col", under the "all" view (the session's trees).
func selfByFunction(t *testing.T, p *profile.Profile) map[string]profile.Time {
	t.Helper()
	out := map[string]profile.Time{}
	s := session.New("", p, session.Options{})
	for _, tree := range trees(t, s, view.Options{}) {
		for _, f := range tree.Funcs {
			k := f.Key
			out[fmt.Sprintf("%s %s:%d:%d", p.Str(k.Name), p.Str(p.Frames[f.Frame].URL), k.Line, k.Column)] += f.Self
		}
	}
	return out
}

func TestParseRoundTrip(t *testing.T) {
	t.Parallel()
	s := load(t, "../../testdata/node/mix.cpuprofile")
	orig := s.Profile
	buf := bytes.NewBuffer(write(t, s, view.Options{}))
	if !firefox.Sniff(buf.Bytes()) {
		t.Errorf("Sniff(Write output) = false")
	}
	p, err := firefox.Parse(buf)
	if err != nil {
		t.Fatalf("Parse(Write output): %v", err)
	}
	if p.Format != "firefox-processed" || len(p.Threads) != len(orig.Threads) {
		t.Fatalf("format %q, %d threads; want firefox-processed, %d", p.Format, len(p.Threads), len(orig.Threads))
	}
	if d := p.Diagnostics.Count("firefox-untested-version"); d != 0 {
		t.Errorf("version %d reported untested", firefox.ProcessedVersion)
	}
	want, got := selfByFunction(t, orig), selfByFunction(t, p)
	if len(want) < 5 {
		t.Fatalf("only %d functions in mix.cpuprofile", len(want))
	}
	for k, w := range want {
		if g := got[k]; g-w > 1000 || w-g > 1000 {
			t.Errorf("%s: self %d ns, want %d", k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok && g != 0 {
			t.Errorf("%s: self %d ns, not in the original", k, g)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	gecko := func(version, samples string) string {
		return `{"meta":{"version":` + version + `,"interval":1,"startTime":0},"threads":[{"name":"T","tid":7,"pid":"12",` +
			`"stringTable":["(root)","f (https://x/a.js:12:3)"],` +
			`"frameTable":{"schema":{"location":0},"data":[[0],[1]]},` +
			`"stackTable":{"schema":{"prefix":0,"frame":1},"data":[[null,0],[0,1]]},` +
			`"samples":{"schema":{"stack":0,"time":1},"data":` + samples + `}}]}`
	}
	processed := func(version, extra string) string {
		return `{"meta":{"version":24,"preprocessedProfileVersion":` + version + `,"interval":1,"startTime":0},"threads":[{"name":"T",` +
			`"stringArray":["f"],"funcTable":{"name":[0],"fileName":[null],"lineNumber":[null],"columnNumber":[null],"length":1},` +
			`"frameTable":{"func":[0],"length":1},"stackTable":{"frame":[0],"prefix":[null],"length":1},` +
			`"samples":{"stack":[0,null],"time":[1,2],"length":2` + extra + `}}]}`
	}
	tests := []struct {
		name, input, err string
	}{
		{"empty", "  ", "empty input"},
		{"not an object", "[1]", "unrecognized"},
		{"no meta", `{"nodes":[]}`, "unrecognized"},
		{"truncated", gecko("13", `[[1,0]`)[:80], "offset \\d+: .*unexpected end of input"},
		{"gecko too new", gecko("99", `[]`), `offset \d+: meta.version: Gecko profile version 99 not supported \(want 3 to 36\)`},
		{"gecko too old", gecko("2", `[]`), `Gecko profile version 2 not supported`},
		{"bad stack", gecko("13", `[[1,0],[5,1]]`), `offset \d+: threads\[0\].samples.data\[1\]: 5 is not an index of stackTable \(2 rows\)`},
		{"bad time", gecko("13", `[[1,"x"]]`), `offset \d+: threads\[0\].samples.data\[0\]: a string, want a number`},
		{"processed too new", processed("99", ""), `offset \d+: meta.preprocessedProfileVersion: processed profile version 99 not supported \(want 0 to 75\)`},
		{"processed bad stack", strings.Replace(processed("24", ""), `"stack":[0,null]`, `"stack":[0,3]`, 1), `threads\[0\].samples.stack\[1\]: 3 is not an index of stackTable`},
		{"processed short column", strings.Replace(processed("24", ""), `"time":[1,2]`, `"time":[1]`, 1), `threads\[0\].samples.time: 1 values, want length 2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := firefox.Parse(strings.NewReader(tt.input))
			if err == nil {
				t.Fatalf("Parse succeeded, want error %q", tt.err)
			}
			var pe *profile.ParseError
			if !errors.As(err, &pe) {
				t.Errorf("error %T, want *profile.ParseError", err)
			}
			if !regexp.MustCompile(tt.err).MatchString(err.Error()) {
				t.Errorf("error %q, want match for %q", err, tt.err)
			}
		})
	}
}

func TestParseOddities(t *testing.T) {
	t.Parallel()
	in := `{"meta":{"version":24,"preprocessedProfileVersion":30,"interval":1,"startTime":0},"threads":[{"name":"T","pid":"42","tid":43,` +
		`"stringArray":["f","https://x/a.js"],"funcTable":{"name":[0],"fileName":[1],"lineNumber":[12],"columnNumber":[3],"length":1},` +
		`"frameTable":{"func":[0],"length":1},"stackTable":{"frame":[0],"prefix":[null],"length":1},` +
		`"samples":{"stack":[0,null,0],"timeDeltas":[1.5,0.25,-0.5],"weight":[1,2,1],"length":3}}]}`
	p, err := firefox.Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		code string
		n    int64
	}{{"firefox-untested-version", 1}, {"firefox-null-stack", 1}, {"firefox-weight-ignored", 1}, {"firefox-unsorted-samples", 1}} {
		if got := p.Diagnostics.Count(c.code); got != c.n {
			t.Errorf("%s ×%d, want %d\n%s", c.code, got, c.n, p.Diagnostics)
		}
	}
	if th := p.Threads[0]; th.PID != 42 || th.TID != 43 {
		t.Errorf("pid %d tid %d, want 42 43", th.PID, th.TID)
	}
	if got, want := fmt.Sprint(p.Samples.Time), "[1250000 1500000 1750000]"; got != want {
		t.Errorf("times %s, want %s", got, want)
	}
	f := p.Frames[p.Nodes[p.Samples.Node.At(0)].Frame] // the third row, sorted first
	if p.Str(f.Name) != "f" || p.Str(f.URL) != "https://x/a.js" || f.Line != 11 || f.Column != 2 {
		t.Errorf("frame %q %q %d:%d, want f https://x/a.js 11:2", p.Str(f.Name), p.Str(f.URL), f.Line, f.Column)
	}
}

func TestSniffOthers(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`{"nodes":[],"startTime":0}`, `{"traceEvents":[]}`, `[{"ph":"X"}]`, `{"$schema":"x","meta":{"version":1,"interval":1}}`, `f;g 1`} {
		if firefox.Sniff([]byte(in)) {
			t.Errorf("Sniff(%s) = true, want false", in)
		}
	}
}
