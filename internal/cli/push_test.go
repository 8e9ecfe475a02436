package cli_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jsprof/jsprof/push/pyroscope"
	"github.com/jsprof/jsprof/report"
)

// fakePyroscope is a loopback server that speaks Pyroscope's push API (the
// Connect procedure, decoded from push.proto's messages, and /ingest) and
// keeps what it received.
type fakePyroscope struct {
	mu       sync.Mutex
	profiles [][]byte
	labels   [][]pyroscope.Label
	queries  []string
	auth     []string
}

func (f *fakePyroscope) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	switch r.URL.Path {
	case pyroscope.PushPath:
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/proto" {
			http.Error(w, `{"code":"invalid_argument","message":"want a POST of application/proto"}`, http.StatusBadRequest)
			return
		}
		body, _ := io.ReadAll(r.Body)
		series, err := pyroscope.DecodePushRequest(body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"code": "invalid_argument", "message": err.Error()})
			return
		}
		for _, s := range series {
			for _, smp := range s.Samples {
				f.profiles = append(f.profiles, smp.Profile)
				f.labels = append(f.labels, s.Labels)
			}
		}
	case "/ingest":
		file, _, err := r.FormFile("profile")
		if err != nil {
			http.Error(w, "no profile part: "+err.Error(), http.StatusBadRequest)
			return
		}
		data, _ := io.ReadAll(file)
		f.profiles = append(f.profiles, data)
		f.queries = append(f.queries, r.URL.RawQuery)
	default:
		http.NotFound(w, r)
	}
}

func topByName(t *testing.T, file string) map[string]report.FunctionRow {
	t.Helper()
	var top report.Top
	if err := json.Unmarshal([]byte(mustRun(t, nil, "top", "--json", "-n", "15", file)), &top); err != nil {
		t.Fatal(err)
	}
	out := map[string]report.FunctionRow{}
	for _, th := range top.Threads {
		for _, f := range th.Functions {
			// The pprof round trip names files by path and anonymous
			// functions by place: key by place, natives by name.
			key := f.Name
			if f.URL != "" {
				key = fmt.Sprintf("%s:%d:%d", path.Base(f.URL), f.Line, f.Col)
			}
			r := out[key]
			r.Function = f.Function
			r.SelfMs += f.SelfMs
			r.TotalMs += f.TotalMs
			out[key] = r
		}
	}
	return out
}

// near allows 10 µs: the pushed pprof's samples are laid out from its
// wall-clock TimeNanos (~1.7e18 ns), where the DevTools float-ms arithmetic
// of the call reconstruction resolves only ~0.25 µs per call boundary (as
// on XS's epoch clocks); GC's many short calls in mix add up to ~1 µs,
// depending on the start time.
func near(a, b report.Millis) bool { return a-b <= 10_000 && b-a <= 10_000 }

// jsprof push sends each file through the Connect API (or /ingest); the
// server decodes the request, and jsprof's reader reads the pushed pprof
// back with the file's total and top functions (self and total time). The
// token, given in the environment, appears in no output.
func TestPush(t *testing.T) {
	const token = "tok-9f8e7d"
	t.Setenv("JSPROF_PUSH_BEARER", token)
	srv := &fakePyroscope{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	files := []string{profilePath("mix"), profilePath("recursion")}
	r := run(t, nil, append([]string{"push", "--url", ts.URL, "--name", "checkout", "--label", "env=test"}, files...)...)
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, token) {
		t.Fatalf("push: %v", r)
	}
	r2 := run(t, nil, "push", "--ingest", "--url", ts.URL, "--name", "checkout", "--label", "env=test", files[0])
	if r2.code != 0 {
		t.Fatalf("push --ingest: %v", r2)
	}
	if len(srv.profiles) != 3 {
		t.Fatalf("the server got %d profiles, want 3", len(srv.profiles))
	}
	for i, a := range srv.auth {
		if a != "Bearer "+token {
			t.Errorf("request %d: Authorization %q", i, a)
		}
	}
	want := map[string]string{"service_name": "checkout", "__name__": "process_cpu", "env": "test"}
	for _, l := range srv.labels[0] {
		if w, ok := want[l.Name]; ok && w == l.Value {
			delete(want, l.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("labels %v lack %v", srv.labels[0], want)
	}
	if q := srv.queries[0]; !strings.Contains(q, "name=checkout.cpu%7Benv%3Dtest%7D") || !strings.Contains(q, "format=pprof") || !strings.Contains(q, "from=") {
		t.Errorf("ingest query %q", q)
	}
	dir := t.TempDir()
	for i, src := range []string{files[0], files[1], files[0]} {
		pushed := filepath.Join(dir, "pushed.pb.gz")
		if err := os.WriteFile(pushed, srv.profiles[i], 0o644); err != nil {
			t.Fatal(err)
		}
		var sum [2]report.Summary
		for k, f := range []string{src, pushed} {
			if err := json.Unmarshal([]byte(mustRun(t, nil, "summary", "--json", f)), &sum[k]); err != nil {
				t.Fatal(err)
			}
		}
		// The pushed profile leaves out idle time (stacks with no frame),
		// which the file's (idle) frame holds: compare the functions' time.
		got, wantTop := topByName(t, pushed), topByName(t, src)
		agree := 0
		for k, w := range wantTop {
			g, ok := got[k]
			// pprof records no sample times: jsprof's reader lays them
			// out again (see near).
			if !ok || !near(g.SelfMs, w.SelfMs) || !near(g.TotalMs, w.TotalMs) {
				t.Errorf("%s: pushed %s self %v total %v, file %v %v", filepath.Base(src), k, g.SelfMs, g.TotalMs, w.SelfMs, w.TotalMs)
				continue
			}
			agree++
		}
		if !near(sum[0].Threads[0].SampledMs, sum[1].Threads[0].SampledMs) {
			t.Errorf("%s: pushed %v ms, file %v ms", filepath.Base(src), sum[1].Threads[0].SampledMs, sum[0].Threads[0].SampledMs)
		}
		t.Logf("%s (request %d): the pushed pprof reads back with the file's %.3f ms and its top %d functions' self and total time",
			filepath.Base(src), i, float64(sum[0].Threads[0].SampledMs)/1e6, agree)
	}
	if !strings.Contains(r.stdout, "pushed "+files[0]) || !strings.Contains(r.stdout, "file's modification time") {
		t.Errorf("push output:\n%s", r.stdout)
	}
}

// Pyroscope's limits: a profile over them is trimmed with its total kept,
// and the output says what was cut. A 4xx stops with the server's message.
func TestPushLimitsAndErrors(t *testing.T) {
	t.Parallel()
	srv := &fakePyroscope{}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	r := run(t, nil, "push", "--url", ts.URL, "--name", "svc", "--max-samples", "20", "--max-depth", "8", profilePath("deep-stack"))
	if r.code != 0 || !strings.Contains(r.stdout, "trimmed to Pyroscope's limits") || !strings.Contains(r.stdout, `"(truncated)"`) ||
		!strings.Contains(r.stdout, `"(other)"`) {
		t.Fatalf("push with limits: %v", r)
	}
	pushed := filepath.Join(t.TempDir(), "p.pb.gz")
	os.WriteFile(pushed, srv.profiles[0], 0o644)
	var a, b report.Summary
	json.Unmarshal([]byte(mustRun(t, nil, "summary", "--json", profilePath("deep-stack"))), &a)
	json.Unmarshal([]byte(mustRun(t, nil, "summary", "--json", pushed)), &b)
	if len(b.Threads) != 1 || !near(a.Threads[0].SampledMs, b.Threads[0].SampledMs) {
		t.Errorf("trimmed: %v ms, file %v ms", b.Threads[0].SampledMs, a.Threads[0].SampledMs)
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"code":"unauthenticated","message":"invalid token"}`)
	}))
	defer bad.Close()
	r = run(t, nil, "push", "--url", bad.URL, "--name", "svc", "--basic-auth", "me:hunter2", profilePath("mix"))
	if r.code != 1 || !strings.Contains(r.stderr, "401 Unauthorized: unauthenticated: invalid token") || strings.Contains(r.stderr+r.stdout, "hunter2") {
		t.Errorf("push to a server refusing it: %v", r)
	}
	if r := run(t, nil, "push", "--url", ts.URL, "--name", "svc", "--max-bytes", "1000", profilePath("mix")); r.code != 1 || !strings.Contains(r.stderr, "over the limit of 1000") {
		t.Errorf("push over --max-bytes: %v", r)
	}
	if r := run(t, nil, "push", "--url", ts.URL, "--name", "svc", "--from", "99999", profilePath("mix")); r.code != 0 || !strings.Contains(r.stdout, "skipped") {
		t.Errorf("push of a range with no time: %v", r)
	}
	if r := run(t, nil, "push", "--name", "svc", profilePath("mix")); r.code != 2 {
		t.Errorf("push without --url: %v", r)
	}
}
