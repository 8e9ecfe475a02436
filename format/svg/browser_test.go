package svg_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format/svg"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/tools/browser"
)

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// recordDialogs runs before any script of every document: it records calls
// to alert, confirm, prompt, print and open instead of running them (real
// dialogs are caught as well, by the browser package).
const recordDialogs = `(() => {
  const calls = [];
  Object.defineProperty(window, "__calls", {value: calls});
  for (const name of ["alert", "confirm", "prompt", "print", "open"]) {
    window[name] = function (...args) { calls.push(name + "(" + args.map(String).join(",") + ")"); };
  }
})();`

// inspect reports what the browser made of the document.
const inspect = `(() => {
  const all = [...document.querySelectorAll("*")];
  const svgNS = "http://www.w3.org/2000/svg";
  const root = document.querySelector("svg");
  return {
    parseErrors: document.getElementsByTagName("parsererror").length,
    foreign: all.filter(e => e.closest("svg") && e.namespaceURI !== svgNS).map(e => e.tagName),
    frames: document.querySelectorAll("g.f").length,
    rects: document.querySelectorAll("g.f > rect").length,
    scripts: document.getElementsByTagName("script").length,
    handlers: all.filter(e => [...e.attributes].some(a => /^on/i.test(a.name))).map(e => e.tagName),
    titles: [...document.querySelectorAll("g.f > title")].map(t => t.textContent),
    plotted: Math.round(document.getElementById("frames").getBBox().width),
    rootWidth: root ? root.width.baseVal.value : 0,
    calls: window.__calls,
  };
})()`

type inspected struct {
	ParseErrors int      `json:"parseErrors"`
	Foreign     []string `json:"foreign"`
	Frames      int      `json:"frames"`
	Rects       int      `json:"rects"`
	Scripts     int      `json:"scripts"`
	Handlers    []string `json:"handlers"`
	Titles      []string `json:"titles"`
	Plotted     float64  `json:"plotted"`
	RootWidth   float64  `json:"rootWidth"`
	Calls       []string `json:"calls"`
}

// zoom clicks the first frame of at least 20 px and less than half the
// width, reads the result, then clicks "Reset zoom".
const zoom = `(() => {
  const gs = [...document.querySelectorAll("g.f")];
  const width = g => +g.querySelector("rect").getAttribute("width");
  const shown = () => gs.filter(x => x.getAttribute("display") !== "none").length;
  const g = gs.find(g => width(g) >= 20 && width(g) < 590);
  const w0 = width(g);
  const click = el => el.dispatchEvent(new MouseEvent("click", {bubbles: true}));
  g.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
  const details = document.getElementById("details").textContent;
  click(g.querySelector("rect"));
  const r = {
    title: g.querySelector("title").textContent, details,
    before: w0, zoomed: width(g), shownZoomed: shown(), total: gs.length,
    label: g.querySelector("text") ? g.querySelector("text").textContent : "",
    name: g.getAttribute("data-name") || "",
    unzoom: document.getElementById("unzoom").getAttribute("display") !== "none",
  };
  click(document.getElementById("unzoom"));
  r.after = width(g);
  r.shownAfter = shown();
  return r;
})()`

type zoomed struct {
	Title, Details, Label, Name string
	Before, Zoomed, After       float64
	ShownZoomed, ShownAfter     int
	Total                       int
	Unzoom                      bool
}

// The SVG in headless Chromium, standalone and inlined in an HTML page:
// it loads, the browser finds the same frames and tooltips as
// encoding/xml, frames fill the plotting width, the zoom script works and
// throws nothing, and no script from the data runs.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test: not in -short mode")
	}
	bin := browser.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	b, err := browser.Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	t.Logf("started %s in %v", bin, time.Since(start))
	dir := t.TempDir()
	type testCase struct {
		name string
		p    func(testing.TB) *profile.Profile
		opts svg.Options
	}
	cases := []testCase{
		{"mix", func(tb testing.TB) *profile.Profile { return read(tb, "../../testdata/node/mix.cpuprofile") }, svg.Options{}},
		{"deep-stack", func(tb testing.TB) *profile.Profile { return read(tb, "../../testdata/node/deep-stack.cpuprofile") }, svg.Options{}},
		{"hostile", hostile, svg.Options{Title: hostileTitle}},
		{"hostile-noscript", hostile, svg.Options{Title: hostileTitle, NoScript: true}},
	}
	// A trace thread, with trace events among the frames.
	if trace := filepath.Join(proftest.RepoRoot(), "..", "shared", "corpus", traceWithEvents); fileExists(trace) {
		cases = append(cases, testCase{"trace", func(tb testing.TB) *profile.Profile { return read(tb, trace) }, svg.Options{}})
	} else {
		t.Logf("%s is absent (the shared corpus is not next to this checkout): no trace case", trace)
	}
	for _, tc := range cases {
		out := write(t, analyse(t, tc.p(t), 0, view.Options{}), tc.opts)
		doc := parseSVG(t, out)
		var titles []string
		for _, f := range doc.Frames {
			titles = append(titles, f.Title)
		}
		svgFile := filepath.Join(dir, tc.name+".svg")
		htmlFile := filepath.Join(dir, tc.name+".html")
		// Inlined in HTML, without the XML declaration: the HTML parser
		// reads it as foreign content, which treats some things (CDATA,
		// entities) differently from the XML parser.
		body := out[bytes.Index(out, []byte("<svg")):]
		html := append([]byte("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>flame graph</title></head><body>\n"), body...)
		html = append(html, "</body></html>\n"...)
		for file, data := range map[string][]byte{svgFile: out, htmlFile: html} {
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, file := range []string{svgFile, htmlFile} {
			t.Run(filepath.Base(file), func(t *testing.T) {
				pg, err := b.NewPage(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if err := pg.AddInitScript(ctx, recordDialogs); err != nil {
					t.Fatal(err)
				}
				if err := pg.NavigateFile(ctx, file); err != nil {
					t.Fatal(err)
				}
				var got inspected
				if err := pg.Eval(ctx, inspect, &got); err != nil {
					t.Fatal(err)
				}
				if got.ParseErrors != 0 {
					t.Errorf("the browser reports %d parse errors", got.ParseErrors)
				}
				if got.Rects != len(doc.Frames) || got.Frames != len(doc.Frames) {
					t.Errorf("the browser has %d frames with %d rects, want %d", got.Frames, got.Rects, len(doc.Frames))
				}
				if !slices.Equal(got.Titles, titles) {
					t.Errorf("the browser's tooltips differ from encoding/xml's:\n got %q\nwant %q", got.Titles, titles)
				}
				wantScripts := 1
				if tc.opts.NoScript {
					wantScripts = 0
				}
				if got.Scripts != wantScripts {
					t.Errorf("%d <script> elements, want %d", got.Scripts, wantScripts)
				}
				if len(got.Foreign) != 0 || len(got.Handlers) != 0 {
					t.Errorf("elements from the data: non-SVG %q, with event handlers %q", got.Foreign, got.Handlers)
				}
				if math.Abs(got.Plotted-plotW) > 1 || got.RootWidth != 1200 {
					t.Errorf("frames span %g px in a %g px image, want %g in 1200", got.Plotted, got.RootWidth, plotW)
				}
				if !tc.opts.NoScript {
					var z zoomed
					if err := pg.Eval(ctx, zoom, &z); err != nil {
						t.Fatal(err)
					}
					if math.Abs(z.Zoomed-plotW) > 0.01 || z.After != z.Before || z.ShownZoomed >= z.Total || z.ShownAfter != z.Total || !z.Unzoom || z.Details != z.Title {
						t.Errorf("zoom: %+v; want the frame %g px wide with others hidden, then as before", z, plotW)
					}
					if z.Name != "" && (z.Label == "" || !bytes.HasPrefix([]byte(z.Name), bytes.TrimSuffix([]byte(z.Label), []byte("\u2026")))) {
						t.Errorf("zoomed label %q does not start the name %q", z.Label, z.Name)
					}
					t.Logf("zoomed %q: %g → %g px, %d of %d frames shown, label %q", label(z.Title), z.Before, z.Zoomed, z.ShownZoomed, z.Total, z.Label)
					// Zoom into the first 60 frames (all the hostile ones),
					// which rewrites their labels.
					var n int
					if err := pg.Eval(ctx, `(() => { const gs = [...document.querySelectorAll("g.f > rect")].slice(0, 60); for (const r of gs) r.dispatchEvent(new MouseEvent("click", {bubbles: true})); return gs.length; })()`, &n); err != nil {
						t.Fatal(err)
					}
				}
				var calls []string
				if err := pg.Eval(ctx, `window.__calls`, &calls); err != nil {
					t.Fatal(err)
				}
				if len(calls) != 0 || len(got.Calls) != 0 {
					t.Errorf("scripts from the data ran: %q", append(got.Calls, calls...))
				}
				if d := pg.Dialogs(); len(d) != 0 {
					t.Errorf("dialogs opened: %+v", d)
				}
				if e := pg.Exceptions(); len(e) != 0 {
					t.Errorf("uncaught exceptions: %q", e)
				}
				t.Logf("%s: %d bytes, %d rects, no script from the data ran", filepath.Base(file), len(out), got.Rects)
			})
		}
	}
}
