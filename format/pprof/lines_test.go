package pprof_test

import (
	"bytes"
	"math/big"
	"path/filepath"
	"testing"

	pprofile "github.com/google/pprof/profile"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/profile"
)

// lineTables is what the CLI passes as Options.Lines: each thread's
// per-line self times (`top --lines`).
func lineTables(a *analysed) map[profile.ThreadID][]pprof.LineSelf {
	out := map[profile.ThreadID][]pprof.LineSelf{}
	for i, tree := range a.trees {
		th := a.stacks[i].Thread
		out[th] = []pprof.LineSelf{}
		for _, ls := range tree.Lines() {
			out[th] = append(out[th], pprof.LineSelf{Frame: tree.Funcs[ls.Func].Frame, Line: ls.Line, Self: ls.Self})
		}
	}
	return out
}

// fnLine is a source line of a pprof function.
type fnLine struct {
	fn   fn
	line int64
}

// With Options.Lines, each function's flat time is spread over its source
// lines: the leaf Locations at line L of a function add up to the self
// time the table gives L (⌊F·Self_L/max(F, ΣSelf)⌋ for a frame of flat
// time F), the rest stays at the function's first line; the functions'
// flat and cum, and the samples' total count and ns, are those written
// without the table. The .cpuprofile fixtures (positionTicks), and a
// corpus trace (its per-sample lines, where the analysis reads them).
func TestWriteLines(t *testing.T) {
	t.Parallel()
	files := nodeFixtures(t)
	if trace, ok := corpusFile(traceWithEvents); ok {
		files = append(files, trace)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			p := readNode(t, file)
			a := analyse(t, p, view.Options{})
			plain := parsePprof(t, write(t, a))
			tables := lineTables(a)
			var buf bytes.Buffer
			if err := pprof.Write(&buf, a.p, a.stacks, pprof.Options{Lines: tables}); err != nil {
				t.Fatal(err)
			}
			pp := parsePprof(t, buf.Bytes())

			// Flat and cum per function, and the totals, unchanged.
			if len(a.trees) != 1 {
				t.Fatalf("%d threads, want one", len(a.trees))
			}
			tree := a.trees[0]
			wantTimes, sumTotal, multi := jsprofTimes(tree)
			compareTimes(t, pprofTimes(pp, nil), wantTimes, sumTotal, multi)
			if g, w := sums(pp), sums(plain); g != w {
				t.Errorf("count and ns %v, want %v as without lines", g, w)
			}

			// Per line.
			want := map[fnLine]int64{}
			byFrame := map[profile.FrameID][]pprof.LineSelf{}
			for _, ls := range tables[a.stacks[0].Thread] {
				byFrame[ls.Frame] = append(byFrame[ls.Frame], ls)
			}
			withLines := 0
			for _, f := range tree.Funcs {
				if f.Self == 0 {
					continue
				}
				k := funcOf(a.p, f.Frame)
				lines := byFrame[f.Frame]
				var sum int64
				for _, ls := range lines {
					sum += int64(ls.Self)
				}
				den := max(int64(f.Self), sum)
				rest := int64(f.Self)
				for _, ls := range lines {
					x := new(big.Int).Mul(big.NewInt(int64(f.Self)), big.NewInt(int64(ls.Self)))
					x.Quo(x, big.NewInt(den))
					want[fnLine{k, int64(ls.Line)}] += x.Int64()
					rest -= x.Int64()
				}
				if len(lines) > 0 {
					withLines++
				}
				if rest > 0 {
					want[fnLine{k, k.line}] += rest
				}
			}
			got := map[fnLine]int64{}
			for _, s := range pp.Sample {
				ln := s.Location[0].Line[0]
				got[fnLine{fn{ln.Function.Name, ln.Function.Filename, ln.Function.StartLine}, ln.Line}] += s.Value[1]
			}
			for k, w := range want {
				if w != 0 && got[k] != w {
					t.Errorf("%v line %d: flat %d ns, want %d", k.fn, k.line, got[k], w)
				}
			}
			for k, g := range got {
				if g != 0 && want[k] == 0 {
					t.Errorf("%v line %d: flat %d ns, want none", k.fn, k.line, g)
				}
			}
			t.Logf("%s: %d functions, %d with per-line self times; %d function lines with flat time checked; %d locations (%d without lines)",
				filepath.Base(file), len(tree.Funcs), withLines, len(want), len(pp.Location), len(plain.Location))
		})
	}
}

func parsePprof(t *testing.T, data []byte) *pprofile.Profile {
	t.Helper()
	pp, err := pprofile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := pp.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return pp
}

// sums returns the total of each sample value.
func sums(pp *pprofile.Profile) [2]int64 {
	var s [2]int64
	for _, smp := range pp.Sample {
		s[0] += smp.Value[0]
		s[1] += smp.Value[1]
	}
	return s
}

// FileName gives pprof a path it can open, FuncName a name of their own to
// anonymous functions.
func TestNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ url, want string }{
		{"file:///srv/app/server.js", "/srv/app/server.js"},
		{"file:///tmp/a%20b/x.js", "/tmp/a b/x.js"},
		{"file:///C:/app/x.js", "C:/app/x.js"},
		{"file://server/share/x.js", "//server/share/x.js"},
		{"file://localhost/srv/x.js", "/srv/x.js"},
		{"https://example.com/static/app.js?v=2#top", "example.com/static/app.js"},
		{"http://localhost:8080/app.js", "localhost:8080/app.js"},
		{"node:internal/main/run_main_module", "node:internal/main/run_main_module"},
		{"/plain/path.js", "/plain/path.js"},
		{"", ""},
	} {
		if got := pprof.FileName(c.url); got != c.want {
			t.Errorf("FileName(%q) = %q, want %q", c.url, got, c.want)
		}
	}
	b := profile.NewBuilder("test")
	for _, c := range []struct {
		name, url, script string
		line              int32
		want              string
	}{
		{"handle", "file:///srv/server.js", "3", 9, "handle"},
		{"", "file:///srv/server.js", "3", 15, "(anonymous) server.js:16"},
		{"", "https://example.com/js/app.js?v=1", "4", 0, "(anonymous) app.js:1"},
		{"", "file:///srv/server.js", "3", -1, "(anonymous) server.js"},
		{"", "", "12", 2, "(anonymous) VM12:3"},
		{"", "", "", 2, "(anonymous) line 3"},
		{"", "", "0", -1, "(anonymous)"},
	} {
		fr := &profile.Frame{Name: b.Intern(c.name), URL: b.Intern(c.url), ScriptID: b.Intern(c.script), Line: c.line, Column: -1}
		if got := pprof.FuncName(b.P, fr); got != c.want {
			t.Errorf("FuncName(%q %q script %q line %d) = %q, want %q", c.name, c.url, c.script, c.line, got, c.want)
		}
	}
}
