package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/internal/server"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
	"github.com/jsprof/jsprof/tools/browser"
)

// EnvScreenshots names a directory to save the browser tests' screenshots
// in (default: the test's artifact directory).
const EnvScreenshots = "JSPROF_SCREENSHOTS"

// recordDialogs runs before the page's scripts: it counts every way a
// script from the data could announce itself.
const recordDialogs = `window.__calls = [];
for (const f of ['alert', 'confirm', 'prompt']) { const orig = window[f]; window[f] = (m) => { window.__calls.push(f + ':' + m); }; }`

type viewer struct {
	t    *testing.T
	ctx  context.Context
	page *browser.Page
	url  string
	sess *session.Session
}

func startBrowser(t *testing.T) (*browser.Browser, context.Context) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test: not in -short mode")
	}
	bin := browser.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Second)
	t.Cleanup(cancel)
	b, err := browser.Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, ctx
}

// open serves file and loads the page at query, waiting for ready.
func open(t *testing.T, b *browser.Browser, ctx context.Context, file, query string) *viewer {
	t.Helper()
	return openWith(t, b, ctx, file, query, server.Options{})
}

// openWith is open with server options (Hosts is set).
func openWith(t *testing.T, b *browser.Browser, ctx context.Context, file, query string, opts server.Options) *viewer {
	t.Helper()
	sess := loadEvents(t, file) // as jsprof view loads it
	ts := httptest.NewUnstartedServer(nil)
	opts.Hosts = server.LoopbackHosts(ts.Listener.Addr().String())
	ts.Config.Handler = server.New(sess, opts)
	ts.Start()
	t.Cleanup(ts.Close)
	pg, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.SetViewport(ctx, 1400, 900, 1); err != nil {
		t.Fatal(err)
	}
	if err := pg.AddInitScript(ctx, recordDialogs); err != nil {
		t.Fatal(err)
	}
	v := &viewer{t: t, ctx: ctx, page: pg, url: ts.URL + "/" + query, sess: sess}
	v.navigate(v.url)
	return v
}

func (v *viewer) navigate(u string) {
	v.t.Helper()
	start := time.Now()
	if err := v.page.Navigate(v.ctx, u); err != nil {
		v.t.Fatal(err)
	}
	v.waitReady()
	v.t.Logf("%s: ready in %v", u, time.Since(start).Round(time.Millisecond))
}

func (v *viewer) waitReady() {
	v.t.Helper()
	if err := v.page.WaitFor(v.ctx, `document.documentElement.dataset.state === 'ready' || document.documentElement.dataset.state === 'error'`); err != nil {
		v.t.Fatal(err)
	}
	var st struct{ State, Error string }
	v.eval(`({state: document.documentElement.dataset.state, error: document.getElementById('error').textContent})`, &st)
	if st.State != "ready" {
		v.t.Fatalf("page state %s: %s", st.State, st.Error)
	}
}

func (v *viewer) eval(expr string, res any) {
	v.t.Helper()
	if err := v.page.Eval(v.ctx, expr, res); err != nil {
		v.t.Fatal(err)
	}
}

// renders returns the page's count of completed renders.
func (v *viewer) renders() int {
	var n string
	v.eval(`document.documentElement.dataset.renders || '0'`, &n)
	var k int
	fmt.Sscan(n, &k)
	return k
}

// after runs act and waits for the page to finish the render it causes.
func (v *viewer) after(act func()) {
	v.t.Helper()
	n := v.renders()
	act()
	if err := v.page.WaitFor(v.ctx, fmt.Sprintf(`Number(document.documentElement.dataset.renders) > %d || document.documentElement.dataset.state === 'error'`, n)); err != nil {
		v.t.Fatal(err)
	}
	v.waitReady()
}

func (v *viewer) screenshot(name string) string {
	v.t.Helper()
	png, err := v.page.Screenshot(v.ctx)
	if err != nil {
		v.t.Fatal(err)
	}
	dir := os.Getenv(EnvScreenshots)
	if dir == "" {
		dir = v.t.ArtifactDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		v.t.Fatal(err)
	}
	p := filepath.Join(dir, name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		v.t.Fatal(err)
	}
	return p
}

// inked returns the share of non-white pixels of a canvas (the time
// grid's faint lines, #efeff3, count as white).
func (v *viewer) inked(id string) float64 {
	var f float64
	v.eval(`(() => { const c = document.getElementById('`+id+`'); const d = c.getContext('2d').getImageData(0, 0, c.width, Math.min(c.height, 400)).data;
		let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 236 || d[i+1] < 236 || d[i+2] < 236) n++; return n / (d.length / 4); })()`, &f)
	return f
}

// clean checks that no script from the data ran and nothing threw.
func (v *viewer) clean() {
	v.t.Helper()
	var calls []string
	v.eval(`window.__calls`, &calls)
	if len(calls) > 0 || len(v.page.Dialogs()) > 0 {
		v.t.Errorf("scripts from the data ran: %q %+v", calls, v.page.Dialogs())
	}
	if ex := v.page.Exceptions(); len(ex) > 0 {
		v.t.Errorf("uncaught exceptions: %q", ex)
	}
}

type drawnBox struct {
	ID    int32   `json:"id"`
	Level int32   `json:"level"`
	Start float64 `json:"start"`
	Dur   float64 `json:"dur"`
	Name  *string `json:"name"`
	Count int32   `json:"count"`
	X, W  float64
}

// checkDrawn compares the boxes the page drew with the session's
// flame-chart entries for the page's window.
func (v *viewer) checkDrawn(ti int) int {
	v.t.Helper()
	var drawn []drawnBox
	v.eval(`window.__jsprof.drawn()`, &drawn)
	var win struct{ From, To float64 }
	v.eval(`window.__jsprof.window()`, &win)
	var geo struct{ Width, Height, Top float64 }
	v.eval(`(() => { const s = document.getElementById('flame-scroll'); return {width: s.clientWidth, height: s.clientHeight, top: s.scrollTop}; })()`, &geo)
	want := flameEntries(v.t, v.sess, ti)
	from, to := int64(win.From*1e3), int64(win.To*1e3)
	px := float64(to-from) / geo.Width
	got := map[int32]bool{}
	for _, d := range drawn {
		if d.ID < 0 {
			continue
		}
		e := want[d.ID]
		if e.level != d.Level || fmt.Sprintf("%.3f", float64(e.start)/1e3) != fmt.Sprintf("%.3f", d.Start) ||
			fmt.Sprintf("%.3f", float64(e.dur)/1e3) != fmt.Sprintf("%.3f", d.Dur) || d.Name == nil || *d.Name != e.name {
			v.t.Fatalf("drawn box %+v is not entry %d %+v", d, d.ID, e)
		}
		got[d.ID] = true
	}
	missing := 0
	for id, e := range want {
		if e.start+e.dur <= from || e.start >= to || float64(e.dur) < 1.01*px || float64(e.level+1)*16 > geo.Top+geo.Height {
			continue
		}
		if !got[int32(id)] {
			missing++
			if missing < 5 {
				v.t.Errorf("entry %d %+v (%.1f px) in the window is not drawn", id, e, float64(e.dur)/px)
			}
		}
	}
	if len(got) == 0 {
		v.t.Errorf("no entry drawn in the window %+v", win)
	}
	return len(got)
}

func corpus(rel string) string {
	return filepath.Join(proftest.RepoRoot(), "..", "shared", "corpus", rel)
}

// TestBrowser opens the viewer on a .cpuprofile, a multi-thread trace and
// an XS profile in headless Chromium and checks what it draws and lists
// against the session and the CLI, then drives it: hover, click, zoom,
// range selection, search, a transform, back/forward and a reload.
func TestBrowser(t *testing.T) {
	b, ctx := startBrowser(t)
	cases := []struct{ name, file string }{
		{"mix", testdata("mix.cpuprofile")},
		{"trace", corpus("devtools/two-workers.json.gz")},
		{"xs", corpus("xs/xs_workload.cpuprofile")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !exists(tc.file) {
				t.Skipf("%s is absent (../shared/corpus is not next to this checkout)", tc.file)
			}
			v := open(t, b, ctx, tc.file, "")
			var info report.ViewerInfo
			v.eval(`fetch('/api/info').then(r => r.json())`, &info)
			n := v.checkDrawn(info.Default)
			if f := v.inked("flame"); f < 0.003 {
				t.Errorf("flame chart canvas is %.1f%% inked: empty?", 100*f)
			}
			if f := v.inked("activity"); f < 0.01 {
				t.Errorf("activity canvas is %.1f%% inked: empty?", 100*f)
			}
			// The call tree's top level is jsprof tree --json's depth 1.
			th := info.Threads[info.Default]
			var tree report.Tree
			runCLI(t, &tree, "tree", "--json", "--depth", "1", "--thread", fmt.Sprintf("%d:%d", th.PID, th.TID), tc.file)
			var rows []string
			v.eval(`[...document.querySelectorAll('#panel-table tbody tr')].map(tr => tr.querySelector('.fn').textContent + '|' + tr.cells[0].textContent)`, &rows)
			var want []string
			for _, nd := range tree.Threads[0].Nodes[1:] {
				name := nd.Name
				if name == "" {
					name = "(anonymous)"
				}
				want = append(want, name+"|"+fmtMs(float64(nd.TotalMs)/1e6))
			}
			if strings.Join(rows, "\n") != strings.Join(want, "\n") {
				t.Errorf("call tree rows:\n%s\nwant (jsprof tree --json):\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
			}
			t.Logf("%d threads; %d entries drawn; %d tree rows; screenshot %s", len(info.Threads), n, len(rows), v.screenshot(tc.name+"-calltree"))
			for _, tab := range []string{"bottomup", "functions", "flamegraph", "summary"} {
				v.after(func() { v.eval(`document.querySelector('#tabs button[data-tab=`+tab+`]').click()`, nil) })
				if tab == "flamegraph" {
					if f := v.inked("graph"); f < 0.05 {
						t.Errorf("flame graph canvas is %.1f%% inked: empty?", 100*f)
					}
				}
				v.screenshot(tc.name + "-" + tab)
			}
			if tc.name == "mix" {
				interact(t, v, info.Default)
			}
			// A multi-thread profile has a track per thread, each drawn.
			var tracks []float64
			v.eval(`[...document.querySelectorAll('#tracks canvas')].map(c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
				let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 250 || d[i+1] < 250 || d[i+2] < 250) n++; return n; })`, &tracks)
			if len(info.Threads) > 1 && len(tracks) != len(info.Threads) {
				t.Errorf("%d tracks for %d threads", len(tracks), len(info.Threads))
			}
			for i, n := range tracks {
				if n == 0 {
					t.Errorf("track %d is empty", i)
				}
			}
			// Every other thread: pick it in the menu (the first other one in
			// the track list); its boxes are its own.
			for i := range info.Threads {
				if i == info.Default {
					continue
				}
				v.after(func() {
					if len(tracks) > 0 && i == (info.Default+1)%len(info.Threads) {
						v.eval(fmt.Sprintf(`document.querySelector('#tracks .track[data-thread="%d"]').click()`, i), nil)
						return
					}
					v.eval(fmt.Sprintf(`(() => { const s = document.getElementById('thread'); s.value = '%d'; s.dispatchEvent(new Event('change')); })()`, i), nil)
				})
				n := v.checkDrawn(i)
				t.Logf("thread %d (%s): %d entries drawn; screenshot %s", i, info.Threads[i].Name, n, v.screenshot(fmt.Sprintf("%s-thread%d", tc.name, i)))
			}
			v.clean()
		})
	}
}

// fmtMs is format.js's fmtMs for the values of the tests.
func fmtMs(ms float64) string {
	a := ms
	if a < 0 {
		a = -a
	}
	switch {
	case a >= 10000:
		return fmt.Sprintf("%.1f s", ms/1000)
	case a >= 1000:
		return fmt.Sprintf("%.2f s", ms/1000)
	case a >= 100:
		return fmt.Sprintf("%.1f ms", ms)
	case a >= 1:
		return fmt.Sprintf("%.2f ms", ms)
	case a == 0:
		return "0 ms"
	case a >= 0.01:
		return fmt.Sprintf("%.0f µs", ms*1000)
	}
	return fmt.Sprintf("%.1f µs", ms*1000)
}

func interact(t *testing.T, v *viewer, ti int) {
	// The call tree, its first row opened.
	v.after(func() { v.eval(`document.querySelector('#tabs button[data-tab=calltree]').click()`, nil) })
	v.eval(`document.querySelector('#panel-table tbody tr .tw[role=button]').click()`, nil)
	if err := v.page.WaitFor(v.ctx, `document.querySelectorAll('#panel-table tbody tr').length > 4`); err != nil {
		t.Fatal(err)
	}
	// Hover a wide box of the flame chart: the tooltip names it.
	var drawn []drawnBox
	v.eval(`window.__jsprof.drawn()`, &drawn)
	var box drawnBox
	for _, d := range drawn {
		if d.ID >= 0 && d.W > box.W && d.Level > 0 {
			box = d
		}
	}
	var off struct{ X, Y float64 }
	v.eval(`(() => { const r = document.getElementById('flame').getBoundingClientRect(); return {x: r.left, y: r.top}; })()`, &off)
	x, y := off.X+box.X+box.W/2, off.Y+float64(box.Level)*16+8
	if err := v.page.Mouse(v.ctx, "mouseMoved", x, y, "none", 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := v.page.WaitFor(v.ctx, `!document.getElementById('tooltip').hidden && document.getElementById('tooltip').textContent.length > 0`); err != nil {
		t.Fatal(err)
	}
	var tip string
	v.eval(`document.querySelector('#tooltip .b').textContent`, &tip)
	name := "(anonymous)"
	if box.Name != nil && *box.Name != "" {
		name = *box.Name
	}
	if tip != name {
		t.Errorf("tooltip names %q, want %q", tip, name)
	}
	v.screenshot("mix-hover")
	// Click: the function's callers and callees show.
	v.page.Mouse(v.ctx, "mousePressed", x, y, "left", 1, 0)
	v.page.Mouse(v.ctx, "mouseReleased", x, y, "left", 1, 0)
	if err := v.page.WaitFor(v.ctx, `document.querySelector('#detail h3 .fn') && document.querySelector('#detail h3 .fn').textContent === `+jsString(name)); err != nil {
		t.Fatal(err)
	}
	v.screenshot("mix-selected")
	// Zoom with the wheel: the window narrows and the boxes still match.
	var before, after struct{ From, To float64 }
	v.eval(`window.__jsprof.window()`, &before)
	for range 3 {
		v.page.Mouse(v.ctx, "mouseWheel", x, y, "none", 0, -400)
	}
	if err := v.page.WaitFor(v.ctx, fmt.Sprintf(`window.__jsprof.window().to - window.__jsprof.window().from < %f`, (before.To-before.From)*0.9)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the debounced fetch of the new boxes
	v.eval(`window.__jsprof.window()`, &after)
	v.checkDrawn(ti)
	v.screenshot("mix-zoomed")
	// Range selection on the activity graph: the tables follow.
	var act struct{ X, Y, W float64 }
	v.eval(`(() => { const r = document.getElementById('activity').getBoundingClientRect(); return {x: r.left, y: r.top, w: r.width}; })()`, &act)
	v.after(func() {
		v.page.Mouse(v.ctx, "mousePressed", act.X+act.W*0.2, act.Y+20, "left", 1, 0)
		v.page.Mouse(v.ctx, "mouseMoved", act.X+act.W*0.5, act.Y+20, "left", 0, 0)
		v.page.Mouse(v.ctx, "mouseReleased", act.X+act.W*0.5, act.Y+20, "left", 1, 0)
	})
	var st map[string]any
	v.eval(`window.__jsprof.state()`, &st)
	if st["rfrom"] == "" || st["rto"] == "" {
		t.Errorf("range selection left no range in the state: %v", st)
	}
	v.screenshot("mix-range")
	// Search: matching boxes stay bright and the function list filters.
	v.after(func() {
		v.eval(`(() => { const s = document.getElementById('search'); s.value = 'fib'; s.dispatchEvent(new Event('input')); })()`, nil)
	})
	v.after(func() { v.eval(`document.querySelector('#tabs button[data-tab=functions]').click()`, nil) })
	var names []string
	v.eval(`[...document.querySelectorAll('#panel-table tbody tr .fn')].map(e => e.textContent)`, &names)
	for _, n := range names {
		if !strings.Contains(strings.ToLower(n), "fib") {
			t.Errorf("search fib lists %q", n)
		}
	}
	v.screenshot("mix-search")
	// The flame graph: a click on a box zooms into its subtree.
	v.after(func() { v.eval(`document.querySelector('#tabs button[data-tab=flamegraph]').click()`, nil) })
	var g struct{ X, Y float64 }
	v.eval(`(() => { const r = document.getElementById('graph').getBoundingClientRect(); return {x: r.left, y: r.top}; })()`, &g)
	v.after(func() {
		v.page.Mouse(v.ctx, "mousePressed", g.X+5, g.Y+18*9+9, "left", 1, 0)
		v.page.Mouse(v.ctx, "mouseReleased", g.X+5, g.Y+18*9+9, "left", 1, 0)
	})
	v.eval(`window.__jsprof.state()`, &st)
	if st["root"] == "" {
		t.Errorf("a click on the flame graph did not zoom: state %v", st)
	}
	v.screenshot("mix-flamegraph-zoomed")
	// A transform from the selected function, then back and forward, and
	// a reload of the copied URL.
	v.after(func() { v.eval(`document.querySelector('#tabs button[data-tab=calltree]').click()`, nil) })
	v.eval(`document.querySelector('#panel-table tbody tr').click()`, nil)
	if err := v.page.WaitFor(v.ctx, `document.querySelector('#detail .actions button')`); err != nil {
		t.Fatal(err)
	}
	rowsOf := func() string {
		var s string
		v.eval(`[...document.querySelectorAll('#panel-table tbody tr')].map(tr => tr.textContent).join('\n')`, &s)
		return s
	}
	plain := rowsOf()
	v.after(func() { v.eval(`document.querySelectorAll('#detail .actions button')[2].click()`, nil) }) // Drop
	var crumbs string
	v.eval(`document.getElementById('crumbs').textContent`, &crumbs)
	if !strings.Contains(crumbs, "drop") {
		t.Errorf("breadcrumbs %q, want a drop", crumbs)
	}
	focused := rowsOf()
	if focused == plain {
		t.Errorf("drop changed nothing")
	}
	var href string
	v.eval(`location.href`, &href)
	v.screenshot("mix-transform")
	v.after(func() { v.eval(`history.back()`, nil) })
	if got := rowsOf(); got != plain {
		t.Errorf("back: rows differ from before the focus")
	}
	v.after(func() { v.eval(`history.forward()`, nil) })
	if got := rowsOf(); got != focused {
		t.Errorf("forward: rows differ from the transformed ones")
	}
	v.navigate(href)
	if got := rowsOf(); got != focused {
		t.Errorf("reload of %s: rows differ from the transformed ones", href)
	}
	u, _ := url.Parse(href)
	if !strings.Contains(u.RawQuery, "x=drop") {
		t.Errorf("the URL %s does not keep the transform", href)
	}
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// hostileNames try to break out of text, attributes and URLs.
var hostileNames = []string{
	`<script>alert(1)</script>`,
	`"><img src=x onerror=alert(2)>`,
	`'><svg onload=alert(3)>`,
	`javascript:alert(4)`,
	"\u202eevil bidi\u202c",
	"nul\x00bell\x07esc\x1b tab\tnl\nCR\r",
	`</textarea><iframe src="javascript:alert(5)">`,
	`{{constructor.constructor('alert(6)')()}}`,
}

// hostileProfile writes a .cpuprofile whose function names and URLs are
// hostileNames, plus a 1 MB name.
func hostileProfile(t *testing.T) string {
	type frame struct {
		FunctionName string `json:"functionName"`
		ScriptID     string `json:"scriptId"`
		URL          string `json:"url"`
		LineNumber   int    `json:"lineNumber"`
		ColumnNumber int    `json:"columnNumber"`
	}
	type node struct {
		ID        int   `json:"id"`
		CallFrame frame `json:"callFrame"`
		Children  []int `json:"children,omitempty"`
	}
	names := append(append([]string{}, hostileNames...), strings.Repeat("<b>big</b>", 100_000))
	nodes := []node{{ID: 1, CallFrame: frame{FunctionName: "(root)", ScriptID: "0", LineNumber: -1, ColumnNumber: -1}}}
	var samples, deltas []int
	for i, n := range names {
		id := len(nodes) + 1
		nodes[0].Children = append(nodes[0].Children, id)
		nodes = append(nodes, node{ID: id, CallFrame: frame{FunctionName: n, ScriptID: fmt.Sprint(i + 1), URL: names[(i+1)%len(hostileNames)], LineNumber: i}})
		for range 5 + i {
			samples = append(samples, id)
			deltas = append(deltas, 1000)
		}
	}
	b, err := json.Marshal(map[string]any{"nodes": nodes, "startTime": 0, "endTime": len(samples) * 1000, "samples": samples, "timeDeltas": deltas})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "hostile.cpuprofile")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBrowserHostile: names that try to be HTML or script show as text,
// and nothing runs.
func TestBrowserHostile(t *testing.T) {
	b, ctx := startBrowser(t)
	v := open(t, b, ctx, hostileProfile(t), "?tab=functions")
	var got struct {
		Scripts, Imgs, Iframes, Svgs int
		Names                        []string
	}
	v.eval(`({scripts: document.scripts.length, imgs: document.images.length, iframes: document.querySelectorAll('iframe').length,
		svgs: document.querySelectorAll('svg').length, names: [...document.querySelectorAll('#panel-table .fn')].map(e => e.textContent)})`, &got)
	if got.Scripts != 1 || got.Imgs != 0 || got.Iframes != 0 || got.Svgs != 0 {
		t.Errorf("the page grew elements from the data: %+v", got)
	}
	for _, n := range hostileNames[:4] {
		found := false
		for _, g := range got.Names {
			found = found || g == n
		}
		if !found {
			t.Errorf("name %q is not shown as text (shown: %q)", n, got.Names)
		}
	}
	// Hover every box of the flame chart and select one: tooltips and the
	// detail panel take the names as text too.
	var drawn []drawnBox
	v.eval(`window.__jsprof.drawn()`, &drawn)
	var off struct{ X, Y float64 }
	v.eval(`(() => { const r = document.getElementById('flame').getBoundingClientRect(); return {x: r.left, y: r.top}; })()`, &off)
	for _, d := range drawn {
		x, y := off.X+d.X+d.W/2, off.Y+float64(d.Level)*16+8
		v.page.Mouse(v.ctx, "mouseMoved", x, y, "none", 0, 0)
	}
	v.page.Mouse(v.ctx, "mousePressed", off.X+drawn[0].X+2, off.Y+8, "left", 1, 0)
	v.page.Mouse(v.ctx, "mouseReleased", off.X+drawn[0].X+2, off.Y+8, "left", 1, 0)
	v.after(func() { v.eval(`document.querySelector('#tabs button[data-tab=calltree]').click()`, nil) })
	v.after(func() { v.eval(`document.querySelector('#tabs button[data-tab=summary]').click()`, nil) })
	v.eval(`({scripts: document.scripts.length, imgs: document.images.length, iframes: document.querySelectorAll('iframe').length, svgs: document.querySelectorAll('svg').length, names: []})`, &got)
	if got.Scripts != 1 || got.Imgs != 0 || got.Iframes != 0 || got.Svgs != 0 {
		t.Errorf("the page grew elements from the data: %+v", got)
	}
	v.after(func() { v.eval(`document.querySelector('#tabs button[data-tab=calltree]').click()`, nil) })
	t.Logf("screenshot %s", v.screenshot("hostile"))
	v.clean()
}

// TestBrowserSource: the selected function's hot lines show beside its
// source, read under the source root.
func TestBrowserSource(t *testing.T) {
	b, ctx := startBrowser(t)
	v := openWith(t, b, ctx, testdata("mix.cpuprofile"), "?tab=functions&q=allocate", server.Options{SourceRoots: []string{proftest.RepoRoot()}})
	v.eval(`document.querySelector('#panel-table tbody tr').click()`, nil)
	if err := v.page.WaitFor(v.ctx, `document.querySelector('#detail table.src tr.hot')`); err != nil {
		t.Fatal(err)
	}
	var hot []string
	v.eval(`[...document.querySelectorAll('#detail table.src tr.hot')].map(tr => tr.cells[1].textContent + ' ' + tr.cells[2].textContent)`, &hot)
	src, err := os.ReadFile(testdata("mix.js"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	for _, h := range hot {
		var n int
		fmt.Sscan(h, &n)
		if n < 1 || n > len(lines) || !strings.HasSuffix(h, lines[n-1]) {
			t.Errorf("hot line %q is not line %d of mix.js", h, n)
		}
	}
	if len(hot) == 0 {
		t.Error("no hot line shown")
	}
	t.Logf("%d hot lines; screenshot %s", len(hot), v.screenshot("mix-source"))
	v.clean()
}

// TestBrowserError: a file that cannot be read shows data-state="error"
// with the reader's message, as text.
func TestBrowserError(t *testing.T) {
	b, ctx := startBrowser(t)
	p := server.NewPending(100)
	const msg = `bad.json: offset 3: <img src=x onerror=alert(1)>: want a profile`
	p.Done(nil, fmt.Errorf("%s", msg))
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = server.New(nil, server.Options{Hosts: server.LoopbackHosts(ts.Listener.Addr().String()), Pending: p})
	ts.Start()
	defer ts.Close()
	pg, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.AddInitScript(ctx, recordDialogs); err != nil {
		t.Fatal(err)
	}
	v := &viewer{t: t, ctx: ctx, page: pg}
	if err := pg.Navigate(ctx, ts.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if err := pg.WaitFor(ctx, `document.documentElement.dataset.state === 'error'`); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Text string
		Imgs int
	}
	v.eval(`({text: document.getElementById('error').textContent, imgs: document.images.length})`, &got)
	if got.Text != msg || got.Imgs != 0 {
		t.Errorf("error shown as %q with %d images, want %q as text", got.Text, got.Imgs, msg)
	}
	v.screenshot("error")
	v.clean()
}

// TestBrowserDiff: the page opened with --diff (Options.Diff) shows the
// Δ self and Δ total columns in the function list, with the values of
// /api/diff, and colours the flame graph with the diverging scale and its
// legend.
func TestBrowserDiff(t *testing.T) {
	b, ctx := startBrowser(t)
	nw := testdata("async.cpuprofile")
	pend := server.NewPending(-1)
	pend.Done(load(t, nw), nil)
	v := openWith(t, b, ctx, testdata("mix.cpuprofile"), "?tab=functions", server.Options{Diff: pend, DiffName: "async.cpuprofile"})
	var heads []string
	v.eval(`[...document.querySelectorAll('#panel-table thead th')].map(th => th.textContent)`, &heads)
	if got := strings.Join(heads, "|"); !strings.Contains(got, "Δ self|Δ total") {
		t.Fatalf("function list header %q has no delta columns", got)
	}
	var cells [][]string
	v.eval(`[...document.querySelectorAll('#panel-table tbody tr[data-func]')].map(tr => [...tr.cells].map(td => td.textContent))`, &cells)
	var withDelta, changed int
	for _, c := range cells {
		if len(c) != 7 {
			t.Fatalf("row %q: want 7 cells", c)
		}
		if c[4] != "" {
			withDelta++
		}
		if c[4] != "" && c[4] != "±0" {
			changed++
		}
	}
	if withDelta == 0 || changed == 0 {
		t.Errorf("%d rows, %d with a delta, %d changed: %q", len(cells), withDelta, changed, cells)
	}
	var name string
	v.eval(`document.getElementById('diff-name').textContent`, &name)
	if name != "vs async.cpuprofile" {
		t.Errorf("diff name %q", name)
	}
	t.Logf("%d rows, %d changed; screenshot %s", len(cells), changed, v.screenshot("mix-diff-functions"))

	v.after(func() { v.eval(`document.querySelector('#tabs button[data-tab=flamegraph]').click()`, nil) })
	var legend struct {
		Hidden   bool
		Swatches int
		Text     string
	}
	v.eval(`(() => { const l = document.getElementById('diff-legend'); return {hidden: l.hidden, swatches: l.querySelectorAll('.sw').length, text: l.textContent}; })()`, &legend)
	if legend.Hidden || legend.Swatches != 11 || !strings.Contains(legend.Text, "grey: no change") {
		t.Errorf("legend %+v", legend)
	}
	// The graph holds red or blue pixels (the scale's ends lean to one
	// channel), not only the grey of no change.
	var coloured float64
	v.eval(`(() => { const c = document.getElementById('graph'); const d = c.getContext('2d').getImageData(0, 0, c.width, Math.min(c.height, 400)).data;
		let n = 0; for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - d[i+2]) > 40) n++; return n / (d.length / 4); })()`, &coloured)
	if coloured == 0 {
		t.Error("the flame graph has no red or blue box")
	}
	t.Logf("coloured share %.3f; screenshot %s", coloured, v.screenshot("mix-diff-flamegraph"))
	v.clean()
}

// TestBrowserEventThreads opens a trace with threads without samples (GPU,
// compositor, raster, thread-pool workers): each is a track of its trace
// events, whose boxes are the reader's events in the flame chart's window,
// and which follow its zoom and pan; the ruler's ticks follow too.
func TestBrowserEventThreads(t *testing.T) {
	file := corpus("devtools/threejs-gpu.json.gz")
	if !exists(file) {
		t.Skipf("%s is absent (../shared/corpus is not next to this checkout)", file)
	}
	b, ctx := startBrowser(t)
	v := open(t, b, ctx, file, "")
	var info report.ViewerInfo
	v.eval(`fetch('/api/info').then(r => r.json())`, &info)
	tracks, boxes := v.checkEventsDrawn(info.Default)
	if tracks < 5 {
		t.Errorf("%d event tracks have boxes, want at least 5", tracks)
	}
	var labels []string
	v.eval(`[...document.querySelectorAll('#event-tracks .proc, #event-tracks .etrack-name')].map(e => e.textContent)`, &labels)
	for _, want := range []string{"GPU Process (pid 3581327)", "CrGpuMain 493 events", "Compositor 1832 events", "ThreadPoolForegroundWorker 2 events"} {
		if !slices.Contains(labels, want) {
			t.Errorf("no track label %q in %q", want, labels)
		}
	}
	if f := v.inked("ruler"); f < 0.01 {
		t.Errorf("ruler canvas is %.1f%% inked: empty?", 100*f)
	}
	t.Logf("whole window: %d tracks drawn, %d events as boxes; screenshot %s", tracks, boxes, v.screenshot("events-all"))

	// Zoom to 20 ms in the middle: the tracks and the ruler follow.
	var win struct{ From, To float64 }
	v.eval(`window.__jsprof.window()`, &win)
	mid := (win.From + win.To) / 2
	v.eval(fmt.Sprintf(`window.__jsprof.setWindow(%f, %f)`, mid, mid+20000), nil)
	tracks, boxes = v.checkEventsDrawn(info.Default)
	if boxes == 0 {
		t.Errorf("no event drawn in 20 ms")
	}
	var ruler struct {
		Step  float64
		Ticks []struct {
			T     float64
			Label string
		}
	}
	v.eval(`window.__jsprof.ruler()`, &ruler)
	if ruler.Step <= 0 || ruler.Step > 5000 || len(ruler.Ticks) < 4 || ruler.Ticks[0].T < mid || ruler.Ticks[len(ruler.Ticks)-1].T > mid+20000 {
		t.Errorf("ruler for [%.0f, %.0f] µs: step %v µs, ticks %+v", mid, mid+20000, ruler.Step, ruler.Ticks)
	}
	t.Logf("20 ms: %d tracks, %d events as boxes, ruler every %v µs (%s …); screenshot %s", tracks, boxes, ruler.Step, ruler.Ticks[0].Label, v.screenshot("events-zoom"))

	// A wheel over an event track zooms the shared window.
	var rect struct{ X, Y float64 }
	v.eval(`(() => { const r = document.querySelector('#event-tracks canvas').getBoundingClientRect(); return {x: r.left + r.width / 2, y: r.top + 5}; })()`, &rect)
	if err := v.page.Mouse(ctx, "mouseWheel", rect.X, rect.Y, "none", 0, -400); err != nil {
		t.Fatal(err)
	}
	if err := v.page.WaitFor(ctx, `window.__jsprof.window().to - window.__jsprof.window().from < 15000`); err != nil {
		t.Fatal(err)
	}
	if err := v.page.WaitFor(ctx, `(() => { const w = window.__jsprof.window(); const r = window.__jsprof.ruler(); return r.ticks.length && r.ticks[0].t >= w.from; })()`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the tracks' fetch after the wheel
	v.checkEventsDrawn(info.Default)

	// Around the longest GPUTask of the GPU process's main thread; hover
	// over it shows the event.
	origin := info.Threads[info.Default].OriginUs
	var gpu profile.Event
	for _, et := range v.sess.EventThreads() {
		for _, e := range et.Events {
			if et.Name == "CrGpuMain" && v.sess.Profile.Str(e.Name) == "GPUTask" && e.Dur > gpu.Dur {
				gpu = e
			}
		}
	}
	at := float64(int64(gpu.Start)-int64(origin)) / 1e3
	dur := float64(gpu.Dur) / 1e3
	v.eval(fmt.Sprintf(`window.__jsprof.setWindow(%f, %f)`, at-dur/5, at+dur*1.3), nil)
	tracks, boxes = v.checkEventsDrawn(info.Default)
	t.Logf("around GPUTask at %.3f ms (%.3f ms): %d tracks, %d events as boxes", at/1e3, dur/1e3, tracks, boxes)
	var box struct {
		X, Y float64
		Name string
	}
	v.eval(`(() => { const cs = [...document.querySelectorAll('#event-tracks canvas')]; const all = window.__jsprof.eventsDrawn();
		for (const name of ['GPUTask', null]) for (let i = 0; i < cs.length; i++) {
		const b = all[i].boxes.find(b => b.id >= 0 && b.w > 6 && (!name || b.name === name)); if (!b) continue; const r = cs[i].getBoundingClientRect();
		cs[i].scrollIntoView({block: 'nearest'});
		const r2 = cs[i].getBoundingClientRect();
		return {x: r2.left + b.x + b.w / 2, y: r2.top + b.level * 15 + 7, name: b.name}; } return null; })()`, &box)
	if box.Name == "" {
		t.Fatal("no event box to hover")
	}
	if err := v.page.Mouse(ctx, "mouseMoved", box.X, box.Y, "none", 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := v.page.WaitFor(ctx, `!document.getElementById('tooltip').hidden && document.getElementById('tooltip').textContent.includes(`+jsString(box.Name)+`)`); err != nil {
		t.Errorf("hover over %q: %v", box.Name, err)
	}
	var tip string
	v.eval(`document.getElementById('tooltip').textContent`, &tip)
	t.Logf("hover: %q; screenshot %s", tip, v.screenshot("events-hover"))
	v.clean()
}
