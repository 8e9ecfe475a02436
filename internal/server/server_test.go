package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/internal/server"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

func testdata(name string) string {
	return filepath.Join(proftest.RepoRoot(), "testdata", "node", name)
}

func load(t testing.TB, path string) *session.Session {
	t.Helper()
	s, err := session.Load(context.Background(), path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// get requests path from h with the given Host and decodes a 200 JSON
// answer into v.
func get(t testing.TB, h http.Handler, path string, v any) {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req.Host = "127.0.0.1:1234"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("GET %s: got %d %s, want 200", path, rec.Code, rec.Body.String())
	}
	if v != nil {
		if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
}

func TestHostAndHeaders(t *testing.T) {
	t.Parallel()
	h := server.New(load(t, testdata("mix.cpuprofile")), server.Options{Hosts: server.LoopbackHosts("127.0.0.1:1234")})
	for _, tc := range []struct {
		name, method, host, path string
		code                     int
	}{
		{"page", "GET", "127.0.0.1:1234", "/", 200},
		{"localhost", "GET", "localhost:1234", "/api/info", 200},
		{"module", "GET", "127.0.0.1:1234", "/main.js", 200},
		{"rebinding", "GET", "evil.example:1234", "/api/info", 421},
		{"other port", "GET", "127.0.0.1:9999", "/api/info", 421},
		{"no host", "GET", "", "/api/info", 421},
		{"post", "POST", "127.0.0.1:1234", "/api/info", 405},
		{"tests are not served", "GET", "127.0.0.1:1234", "/test/view.test.mjs", 404},
		{"unknown api", "GET", "127.0.0.1:1234", "/api/nope", 404},
		{"bad thread", "GET", "127.0.0.1:1234", "/api/flame?t=7", 400},
		{"bad number", "GET", "127.0.0.1:1234", "/api/flame?from=NaN", 400},
		{"bad width", "GET", "127.0.0.1:1234", "/api/flame?width=-1", 400},
		{"bad open", "GET", "127.0.0.1:1234", "/api/tree?open=99999999", 400},
		{"bad view", "GET", "127.0.0.1:1234", "/api/tree?view=x", 400},
		{"bad entry", "GET", "127.0.0.1:1234", "/api/entry?id=-5", 400},
		{"focus on nothing", "GET", "127.0.0.1:1234", "/api/tree?focus=noSuchFunctionAnywhere", 400},
		{"focus by regexp", "GET", "127.0.0.1:1234", "/api/tree?focus=" + url.QueryEscape("^alloc"), 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, nil)
			req.Host = tc.host
			req.Header.Set("Origin", "http://evil.example")
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.code {
				t.Errorf("got %d, want %d (%s)", rec.Code, tc.code, rec.Body.String())
			}
			if got := rec.Header().Get("Content-Security-Policy"); got != server.CSP {
				t.Errorf("CSP %q, want %q", got, server.CSP)
			}
			for k := range rec.Header() {
				if strings.HasPrefix(strings.ToLower(k), "access-control-") {
					t.Errorf("CORS header %s sent", k)
				}
			}
			if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("no nosniff")
			}
		})
	}
	// The default accepts loopback names only.
	d := server.New(load(t, testdata("mix.cpuprofile")), server.Options{})
	for host, code := range map[string]int{"localhost:5": 200, "127.0.0.1:5": 200, "[::1]:5": 200, "evil.example:5": 421, "10.0.0.1:5": 421} {
		req := httptest.NewRequest("GET", "/api/status", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		d.ServeHTTP(rec, req)
		if rec.Code != code {
			t.Errorf("default options, Host %s: got %d, want %d", host, rec.Code, code)
		}
	}
	// Bound to every interface: IP literals with the port, never names.
	a := server.New(load(t, testdata("mix.cpuprofile")), server.Options{Hosts: []string{"0.0.0.0:7"}, IPHostPort: "7"})
	for host, code := range map[string]int{"192.168.1.9:7": 200, "192.168.1.9:8": 421, "evil.example:7": 421} {
		req := httptest.NewRequest("GET", "/api/status", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, req)
		if rec.Code != code {
			t.Errorf("all interfaces, Host %s: got %d, want %d", host, rec.Code, code)
		}
	}
}

// The page parses: every module it names is served, and no inline script
// or handler attribute exists (the CSP would block them).
func TestAssets(t *testing.T) {
	t.Parallel()
	h := server.New(load(t, testdata("mix.cpuprofile")), server.Options{})
	req := httptest.NewRequest("GET", "/", nil)
	req.Host = "127.0.0.1:1"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	page := rec.Body.String()
	if !strings.Contains(page, `<script type="module" src="main.js"></script>`) {
		t.Fatalf("index.html does not load main.js:\n%s", page)
	}
	if strings.Contains(page, " on") && strings.Contains(page, "onclick") {
		t.Errorf("index.html has an inline handler")
	}
	for _, f := range []string{"main.js", "api.js", "dom.js", "view.js", "format.js", "flamechart.js", "activity.js", "tables.js", "flamegraph.js", "tracks.js", "style.css"} {
		req := httptest.NewRequest("GET", "/"+f, nil)
		req.Host = "127.0.0.1:1"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 || rec.Body.Len() == 0 {
			t.Errorf("%s: %d, %d bytes", f, rec.Code, rec.Body.Len())
		}
		body := rec.Body.String()
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "eval(", "new Function(", "document.write"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s uses %s", f, bad)
			}
		}
	}
}

// runCLI runs jsprof with args and decodes its JSON output into v.
func runCLI(t *testing.T, v any, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), args, nil, &out, &errb); code != 0 {
		t.Fatalf("jsprof %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		t.Fatal(err)
	}
}

// expandAll fetches a tree with every node open, in the CLI's order.
func expandAll(t *testing.T, h http.Handler, query string) (report.ViewerTree, []report.TreeNode) {
	t.Helper()
	var tr report.ViewerTree
	get(t, h, "/api/tree?all=1&limit=100000&"+query, &tr)
	// Depth-first, in the order the server gave each list.
	kids := map[int32][]report.ViewerRow{}
	for _, r := range tr.Rows {
		kids[r.Parent] = append(kids[r.Parent], r)
	}
	var out []report.TreeNode
	var walk func(id, parent, depth int32)
	walk = func(id, parent, depth int32) {
		for _, r := range kids[id] {
			out = append(out, report.TreeNode{Parent: parent, Depth: depth, Function: r.Function, SelfMs: r.SelfMs, TotalMs: r.TotalMs, Calls: r.Calls})
			walk(r.ID, int32(len(out)), depth+1)
		}
	}
	walk(0, 0, 1)
	return tr, out
}

// The tables hold the numbers of jsprof top and tree, under views and
// transforms.
func TestTablesMatchCLI(t *testing.T) {
	t.Parallel()
	files := []string{testdata("mix.cpuprofile")}
	if !testing.Short() {
		files = append(files, testdata("recursion.cpuprofile")) // deep recursion: slow under -race
	}
	if _, err := os.Stat(filepath.Join(proftest.RepoRoot(), "..", "shared", "corpus", "devtools", "recursive-counting-js.json.gz")); err == nil {
		files = append(files, filepath.Join(proftest.RepoRoot(), "..", "shared", "corpus", "devtools", "recursive-counting-js.json.gz"))
	} else {
		t.Log("../shared/corpus is absent: the trace case is skipped")
	}
	for _, file := range files {
		sess := load(t, file)
		h := server.New(sess, server.Options{})
		ti := fmt.Sprint(0)
		var info report.ViewerInfo
		get(t, h, "/api/info", &info)
		ti = fmt.Sprint(info.Default)
		th := info.Threads[info.Default]
		sel := fmt.Sprintf("%d:%d", th.PID, th.TID)
		for _, tc := range []struct {
			name  string
			query string
			flags []string
		}{
			{"plain", "", nil},
			{"js", "view=js", []string{"--view", "js"}},
			{"range", "rfrom=5&rto=40", []string{"--from", "5", "--to", "40"}},
			{"collapse", "cr=1", []string{"--collapse-recursion"}},
			{"merge", "merge=" + url.QueryEscape(hottest(t, h, info.Default)), []string{"--merge", hottest(t, h, info.Default)}},
			{"focus", "focus=" + url.QueryEscape(hottest(t, h, info.Default)), []string{"--focus", hottest(t, h, info.Default)}},
		} {
			t.Run(filepath.Base(file)+"/"+tc.name, func(t *testing.T) {
				var top report.Top
				runCLI(t, &top, append([]string{"top", "--json", "-n", "0", "--thread", sel, file}, tc.flags...)...)
				var fs report.ViewerFunctions
				get(t, h, "/api/functions?limit=1000000&t="+ti+"&"+tc.query, &fs)
				want := top.Threads[0].Functions
				var got []report.FunctionRow
				for _, r := range fs.Rows {
					got = append(got, report.FunctionRow{Function: r.Function, SelfMs: r.SelfMs, TotalMs: r.TotalMs})
				}
				var wantNZ []report.FunctionRow
				for _, f := range want {
					if f.SelfMs != 0 || f.TotalMs != 0 {
						wantNZ = append(wantNZ, f)
					}
				}
				if !equalJSON(got, wantNZ) {
					t.Errorf("functions differ from jsprof top --json:\n got %s\nwant %s", js(got), js(wantNZ))
				}
				for _, bu := range []bool{false, true} {
					var tree report.Tree
					args := []string{"tree", "--json", "--thread", sel, file}
					q := "t=" + ti + "&" + tc.query
					if bu {
						args = append(args, "--bottom-up")
						q += "&bu=1"
					}
					runCLI(t, &tree, append(args, tc.flags...)...)
					vt, rows := expandAll(t, h, q)
					want := tree.Threads[0].Nodes[1:]
					if vt.TotalMs != tree.Threads[0].SampledMs {
						t.Errorf("bottomUp=%v: total %v, want %v", bu, vt.TotalMs, tree.Threads[0].SampledMs)
					}
					if !equalJSON(rows, want) {
						t.Errorf("bottomUp=%v: %d rows, jsprof tree --json has %d; first difference: %s", bu, len(rows), len(want), firstDiff(rows, want))
					}
				}
			})
		}
	}
}

// hottest names the function with the most self time that is not a meta
// node.
func hottest(t *testing.T, h http.Handler, ti int) string {
	var fs report.ViewerFunctions
	get(t, h, fmt.Sprintf("/api/functions?t=%d", ti), &fs)
	for _, r := range fs.Rows {
		if r.Name != "" && !strings.HasPrefix(r.Name, "(") && !strings.ContainsAny(r.Name, "@.*+?[]") {
			return r.Name
		}
	}
	return fs.Rows[0].Name
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

func equalJSON(a, b any) bool { return js(a) == js(b) }

func firstDiff(a, b []report.TreeNode) string {
	for i := range min(len(a), len(b)) {
		if js(a[i]) != js(b[i]) {
			return fmt.Sprintf("row %d: got %s, want %s", i, js(a[i]), js(b[i]))
		}
	}
	return "(one is a prefix of the other)"
}

// The flame boxes are the session's flame-chart entries: every entry of the
// window at least a pixel wide is sent as is, and narrower ones are
// merged, never lost.
func TestFlameBoxes(t *testing.T) {
	t.Parallel()
	// Calls of 4.3 s and more (durations past uint32 ns).
	long := filepath.Join(t.TempDir(), "long.cpuprofile")
	if err := os.WriteFile(long, []byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2]},
		{"id":2,"callFrame":{"functionName":"main","scriptId":"1","url":"a.js","lineNumber":0,"columnNumber":0},"children":[3]},
		{"id":3,"callFrame":{"functionName":"work","scriptId":"1","url":"a.js","lineNumber":5,"columnNumber":0}}],
		"startTime":0,"endTime":16000000,"samples":[2,3,3,2,3,2],"timeDeltas":[0,3000000,3000000,1000,5000000,1000]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{testdata("mix.cpuprofile"), testdata("deep-stack.cpuprofile"), long}
	if p := filepath.Join(proftest.RepoRoot(), "..", "shared", "corpus", "devtools", "recursive-counting-js.json.gz"); exists(p) {
		files = append(files, p)
	}
	for _, file := range files {
		sess := load(t, file)
		h := server.New(sess, server.Options{})
		var info report.ViewerInfo
		get(t, h, "/api/info", &info)
		th := info.Threads[info.Default]
		want := flameEntries(t, sess, info.Default)
		span := int64(th.ToUs - th.FromUs)
		for _, w := range []struct{ from, to, width int64 }{
			{int64(th.FromUs), int64(th.ToUs), 1000},
			{int64(th.FromUs) + span/3, int64(th.FromUs) + span/3 + span/50, 800},
			{int64(th.FromUs), int64(th.ToUs), 7},
		} {
			var fb report.FlameBoxes
			get(t, h, fmt.Sprintf("/api/flame?t=%d&from=%s&to=%s&width=%d", info.Default, us(w.from), us(w.to), w.width), &fb)
			checkBoxes(t, filepath.Base(file), fb, want, w.from, w.to, w.width)
		}
		// /api/entry details any entry as the session has it (the flame
		// index keeps a .cpuprofile's calls in its own compact slots).
		th0 := sess.Threads()[info.Default]
		cs, _ := th0.Calls(context.Background())
		for _, id := range []int{0, 1, len(want) / 3, len(want) / 2, len(want) - 1} {
			var fe report.FlameEntry
			get(t, h, fmt.Sprintf("/api/entry?t=%d&id=%d", info.Default, id), &fe)
			e := want[id]
			if fe.Level != e.level || int64(fe.StartUs) != e.start || int64(fe.DurUs) != e.dur || fe.Name != e.name {
				t.Errorf("%s: entry %d: got %+v, want %+v", filepath.Base(file), id, fe, e)
			}
			if !th0.IsTrace() && fe.SelfUs != report.Micros(cs[id].Self) {
				t.Errorf("%s: entry %d: got self %d ns, want the call's %d", filepath.Base(file), id, fe.SelfUs, cs[id].Self)
			}
		}
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func us(ns int64) string { return fmt.Sprintf("%.3f", float64(ns)/1e3) }

// entry is a flame-chart entry in ns from the thread's origin.
type entry struct {
	level      int32
	start, dur int64
	name       string
}

func flameEntries(t *testing.T, sess *session.Session, ti int) []entry {
	th := sess.Threads()[ti]
	ctx := context.Background()
	origin, err := th.Origin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := sess.Profile
	cs, _ := th.Calls(ctx)
	var out []entry
	if !th.IsTrace() {
		for _, c := range cs {
			out = append(out, entry{c.Depth, int64(c.Start - origin), int64(c.Dur), p.Str(p.NodeFrame(c.Node).Name)})
		}
		return out
	}
	es, _ := th.FlameEntries(ctx)
	for _, e := range es {
		name := ""
		if e.Call >= 0 {
			name = p.Str(p.NodeFrame(cs[e.Call].Node).Name)
		} else {
			name = p.Str(p.Events[e.Event].Name)
		}
		out = append(out, entry{e.Level, int64(e.Start - origin), int64(e.Dur), name})
	}
	return out
}

func checkBoxes(t *testing.T, name string, fb report.FlameBoxes, want []entry, from, to, width int64) {
	t.Helper()
	px := float64(to-from) / float64(width)
	type key struct {
		level      int32
		start, dur int64
	}
	got := map[int32]key{}
	merged := map[int32]int64{} // per level, entries in merged boxes
	for i := range fb.ID {
		if fb.ID[i] >= 0 {
			e := want[fb.ID[i]]
			if e.level != fb.Level[i] || e.start != int64(fb.Start[i]) || e.dur != int64(fb.Dur[i]) || e.name != fb.Names[fb.Name[i]] {
				t.Fatalf("%s: box %d (id %d) is %d/%d/%d %q, the entry is %+v", name, i, fb.ID[i], fb.Level[i], fb.Start[i], fb.Dur[i], fb.Names[fb.Name[i]], e)
			}
			got[fb.ID[i]] = key{e.level, e.start, e.dur}
		} else {
			if fb.Count[i] < 2 {
				t.Errorf("%s: merged box %d of %d entries", name, i, fb.Count[i])
			}
			merged[fb.Level[i]] += int64(fb.Count[i])
		}
	}
	inWindow := map[int32]int64{}
	for id, e := range want {
		if e.start+e.dur <= from || e.start >= to {
			continue
		}
		inWindow[e.level]++
		if float64(e.dur) >= px {
			if _, ok := got[int32(id)]; !ok {
				t.Fatalf("%s: entry %d %+v (%.1f px) is not drawn", name, id, e, float64(e.dur)/px)
			}
		}
	}
	for l, n := range inWindow {
		var drawn int64
		for id := range got {
			if want[id].level == l {
				drawn++
			}
		}
		if drawn+merged[l] != n {
			t.Errorf("%s: level %d: %d entries in the window, %d drawn and %d merged", name, l, n, drawn, merged[l])
		}
	}
	if len(fb.ID) > int(width)*2*max(1, fb.Levels)+10 {
		t.Errorf("%s: %d boxes for %d px", name, len(fb.ID), width)
	}
}

func TestSourceRoots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	outside := filepath.Join(dir, "outside")
	for _, d := range []string{filepath.Join(root, "src"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "src", "app.js"), "function main() {}\n")
	write(filepath.Join(outside, "secret.js"), "SECRET\n")
	if err := os.Symlink(filepath.Join(outside, "secret.js"), filepath.Join(root, "src", "link.js")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	h := server.New(load(t, testdata("mix.cpuprofile")), server.Options{SourceRoots: []string{root}})
	none := server.New(load(t, testdata("mix.cpuprofile")), server.Options{})
	for _, tc := range []struct {
		name, url string
		code      int
	}{
		{"file url in root", "file://" + filepath.Join(root, "src", "app.js"), 200},
		{"http url relative", "http://localhost:3000/src/app.js", 200},
		{"webpack url", "webpack:///./src/app.js", 200},
		{"relative", "src/app.js", 200},
		{"absolute in root", filepath.Join(root, "src", "app.js"), 200},
		{"dotdot", "src/../../outside/secret.js", 403},
		{"dotdot encoded", "http://x/src/%2e%2e/%2e%2e/outside/secret.js", 403},
		{"backslash dotdot", `src\..\..\outside\secret.js`, 403},
		{"file url outside", "file://" + filepath.Join(outside, "secret.js"), 404},
		{"absolute outside", filepath.Join(outside, "secret.js"), 404},
		{"file url from another machine", "file:///home/ci/app/src/app.js", 200},
		{"absolute from another machine", "/home/ci/app/src/app.js", 200},
		{"etc passwd", "file:///etc/passwd", 404},
		{"symlink out", "src/link.js", 404},
		{"symlinked dir out", "out/secret.js", 404},
		{"file url other host", "file://evil/etc/passwd", 403},
		{"nul", "src/app.js\x00.png", 403},
		{"directory", "src", 404},
		{"empty", "", 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/api/source?url="+url.QueryEscape(tc.url), nil)
			req.Host = "127.0.0.1:1"
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.code {
				t.Errorf("got %d %s, want %d", rec.Code, rec.Body.String(), tc.code)
			}
			if strings.Contains(rec.Body.String(), "SECRET") {
				t.Errorf("served a file outside the root: %s", rec.Body.String())
			}
			rec = httptest.NewRecorder()
			none.ServeHTTP(rec, req)
			if rec.Code != 404 {
				t.Errorf("without roots: got %d, want 404", rec.Code)
			}
		})
	}
}

// While the file loads, the API answers 503 with the progress; then the
// session.
func TestPending(t *testing.T) {
	t.Parallel()
	p := server.NewPending(1000)
	h := server.New(nil, server.Options{Pending: p})
	p.Progress(250)
	var st report.ViewerStatus
	get(t, h, "/api/status", &st)
	if st.State != "loading" || st.Read != 250 || st.Size != 1000 {
		t.Errorf("status %+v, want loading 250/1000", st)
	}
	req := httptest.NewRequest("GET", "/api/info", nil)
	req.Host = "localhost:1"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 503 {
		t.Errorf("info while loading: %d, want 503", rec.Code)
	}
	p.Done(load(t, testdata("mix.cpuprofile")), nil)
	get(t, h, "/api/status", &st)
	if st.State != "ready" {
		t.Errorf("status %+v, want ready", st)
	}
	get(t, h, "/api/info", nil)
	q := server.NewPending(-1)
	hq := server.New(nil, server.Options{Pending: q})
	q.Done(nil, fmt.Errorf("x.json: offset 3: bad"))
	get(t, hq, "/api/status", &st)
	if st.State != "error" || st.Error != "x.json: offset 3: bad" {
		t.Errorf("status %+v, want the error", st)
	}
}

// Every endpoint answers concurrent requests (run with -race).
func TestConcurrent(t *testing.T) {
	t.Parallel()
	h := server.New(load(t, testdata("mix.cpuprofile")), server.Options{})
	paths := []string{"/api/info", "/api/flame?width=300", "/api/activity?width=200", "/api/tree", "/api/tree?bu=1&open=1,2",
		"/api/functions", "/api/function?f=1", "/api/flamegraph", "/api/summary", "/api/entry?id=3", "/api/stack?id=2", "/api/tree?view=js&cr=1"}
	var wg sync.WaitGroup
	for range 4 {
		for _, p := range paths {
			wg.Go(func() { get(t, h, p, nil) })
		}
	}
	wg.Wait()
	var all report.ViewerSummary
	get(t, h, "/api/summary", &all)
	var fg report.FlameGraph
	get(t, h, "/api/flamegraph?width=500", &fg)
	if len(fg.Rows) < 2 || fg.Rows[0].TotalMs != all.Threads[0].SampledMs {
		t.Errorf("flame graph root %v, want the thread's time %v", fg.Rows[0].TotalMs, all.Threads[0].SampledMs)
	}
	var act report.Activity
	get(t, h, "/api/activity?width=100", &act)
	for x := range 100 {
		var sum float32
		for c := range act.Shares {
			sum += act.Shares[c][x]
		}
		if sum > 1.01 {
			t.Errorf("pixel %d: shares add up to %v", x, sum)
		}
	}
	_ = io.Discard
}

// The activity graph adds up to the summary's category times: each
// category's shares over the pixels, times a pixel's duration.
func TestActivityMatchesSummary(t *testing.T) {
	t.Parallel()
	files := []string{testdata("mix.cpuprofile")}
	if p := corpus("devtools/two-workers.json.gz"); exists(p) {
		files = append(files, p)
	}
	for _, file := range files {
		sess := load(t, file)
		h := server.New(sess, server.Options{})
		var info report.ViewerInfo
		get(t, h, "/api/info", &info)
		var sum report.ViewerSummary
		get(t, h, "/api/summary", &sum)
		for i, th := range info.Threads {
			const width = 2000
			var act report.Activity
			get(t, h, fmt.Sprintf("/api/activity?t=%d&width=%d", i, width), &act)
			pxMs := float64(th.ToUs-th.FromUs) / 1e6 / width
			for c, cat := range info.Categories {
				var ms float64
				for _, v := range act.Shares[c] {
					ms += float64(v) * pxMs
				}
				want := float64(sum.Threads[i].Categories[cat.Name]) / 1e6
				if d := ms - want; d > 0.001*pxMs*width || d < -0.001*pxMs*width {
					t.Errorf("%s thread %d %s: activity %.3f ms, summary %.3f ms", filepath.Base(file), i, cat.Name, ms, want)
				}
			}
		}
	}
}

// The function list under each total-time semantics is jsprof top --total's.
func TestTotalSemantics(t *testing.T) {
	t.Parallel()
	files := []string{testdata("recursion.cpuprofile")}
	if p := corpus("xs/xs_workload.cpuprofile"); exists(p) {
		files = append(files, p)
	}
	for _, file := range files {
		h := server.New(load(t, file), server.Options{})
		for _, sem := range []string{"", "devtools", "vscode", "xsbug"} {
			var top report.Top
			args := []string{"top", "--json", "-n", "0", file}
			q := "/api/functions?limit=1000000"
			if sem != "" {
				args = append(args, "--total", sem)
				q += "&total=" + sem
			}
			runCLI(t, &top, args...)
			var fs report.ViewerFunctions
			get(t, h, q, &fs)
			var got, want []report.FunctionRow
			for _, r := range fs.Rows {
				got = append(got, report.FunctionRow{Function: r.Function, SelfMs: r.SelfMs, TotalMs: r.TotalMs})
			}
			for _, f := range top.Threads[0].Functions {
				if f.SelfMs != 0 || f.TotalMs != 0 {
					want = append(want, f)
				}
			}
			if fs.TotalSemantics != top.Threads[0].TotalSemantics || !equalJSON(got, want) {
				t.Errorf("%s --total %q: %s %d rows, jsprof top: %s %d rows", filepath.Base(file), sem, fs.TotalSemantics, len(got), top.Threads[0].TotalSemantics, len(want))
			}
		}
	}
}

// TestFlameWalked: a .cpuprofile with too many calls to index has its
// flame chart walked a stretch at a time (flamewalk.go); its boxes and
// entries are the index's, for windows at every scale, at the edges and
// past them.
func TestFlameWalked(t *testing.T) {
	files := []string{testdata("mix.cpuprofile"), testdata("deep-stack.cpuprofile"), testdata("recursion.cpuprofile")}
	type answer struct{ boxes, entries []string }
	ask := func(file string) answer {
		sess := load(t, file)
		h := server.New(sess, server.Options{})
		var info report.ViewerInfo
		get(t, h, "/api/info", &info)
		th := info.Threads[info.Default]
		span := int64(th.ToUs - th.FromUs)
		var a answer
		for _, w := range []struct{ from, to, width int64 }{
			{int64(th.FromUs), int64(th.ToUs), 1000},
			{int64(th.FromUs), int64(th.ToUs), 7},
			{int64(th.FromUs) - span, int64(th.ToUs) + span, 300},
			{int64(th.FromUs) + span/3, int64(th.FromUs) + span/3 + span/50, 800},
			{int64(th.FromUs) + span/2, int64(th.FromUs) + span/2 + span/1000, 1200},
			{int64(th.ToUs) - span/20, int64(th.ToUs), 500},
			// Runs of narrow calls across both edges.
			{int64(th.FromUs) + span/4, int64(th.FromUs) + span/2, 7},
			{int64(th.FromUs) + span/4 + 3, int64(th.FromUs) + span/2 + 5, 40},
		} {
			var fb report.FlameBoxes
			get(t, h, fmt.Sprintf("/api/flame?t=%d&from=%s&to=%s&width=%d", info.Default, us(w.from), us(w.to), w.width), &fb)
			a.boxes = append(a.boxes, js(fb))
		}
		n := len(flameEntries(t, sess, info.Default))
		for _, id := range []int{0, 1, 2, n / 7, n / 3, n / 2, n - 2, n - 1} {
			var fe report.FlameEntry
			get(t, h, fmt.Sprintf("/api/entry?t=%d&id=%d", info.Default, id), &fe)
			a.entries = append(a.entries, js(fe))
		}
		return a
	}
	// Requests at once share the walked chart's caches (run with -race by
	// scripts/test.sh).
	restore := server.SetFlameWalk(0, 16)
	sess := load(t, testdata("mix.cpuprofile"))
	h := server.New(sess, server.Options{})
	var wg sync.WaitGroup
	codes := make([]int, 16)
	for i := range 8 {
		wg.Go(func() {
			for k, path := range []string{fmt.Sprintf("/api/flame?t=0&width=%d", 100+i%3), fmt.Sprintf("/api/entry?t=0&id=%d", i%4)} {
				req := httptest.NewRequest("GET", path, nil)
				req.Host = "127.0.0.1:1234"
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				codes[2*i+k] = rec.Code
			}
		})
	}
	wg.Wait()
	for i, c := range codes {
		if c != 200 {
			t.Errorf("concurrent request %d: status %d", i, c)
		}
	}
	restore()
	for _, file := range files {
		indexed := ask(file)
		for _, every := range []int{1, 5, 64} {
			restore := server.SetFlameWalk(0, every)
			walked := ask(file)
			restore()
			for i := range indexed.boxes {
				if walked.boxes[i] != indexed.boxes[i] {
					t.Errorf("%s, a state every %d samples: window %d: walked boxes\n%.600s\nindexed\n%.600s", filepath.Base(file), every, i, walked.boxes[i], indexed.boxes[i])
				}
			}
			for i := range indexed.entries {
				if walked.entries[i] != indexed.entries[i] {
					t.Errorf("%s, a state every %d samples: entry %d: walked %s, indexed %s", filepath.Base(file), every, i, walked.entries[i], indexed.entries[i])
				}
			}
		}
	}
}
