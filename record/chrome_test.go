//go:build unix

package record_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/internal/oracle"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/record"
	"github.com/jsprof/jsprof/session"
	"github.com/jsprof/jsprof/tools/browser"
)

// servePage serves testdata/page.html on 127.0.0.1 for the test's life.
func servePage(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata")))
	t.Cleanup(srv.Close)
	return srv.URL + "/page.html"
}

// mainThread returns the page's main thread: the CrRendererMain with the
// most samples.
func mainThread(t *testing.T, s *session.Session) *session.Thread {
	t.Helper()
	var best *session.Thread
	for _, th := range s.Threads() {
		if th.Info().Name == "CrRendererMain" && (best == nil || th.Info().Samples.Len() > best.Info().Samples.Len()) {
			best = th
		}
	}
	if best == nil {
		var names []string
		for _, th := range s.Threads() {
			names = append(names, th.Info().Name)
		}
		t.Fatalf("no CrRendererMain thread with samples; threads: %q", names)
	}
	return best
}

// checkPageTrace checks a recorded trace of page.html: on the page's main
// thread jsprof finds hotFunction hottest, and the forced layout's Layout
// events and paint events are there.
func checkPageTrace(t *testing.T, file string) *session.Thread {
	t.Helper()
	s := load(t, file)
	th := mainThread(t, s)
	top := threadTop(t, th)
	h := hottestJS(top)
	layout, hasLayout := find(top, "Layout")
	forced, _ := find(top, "forceLayout")
	var paints []string
	for _, name := range []string{"Paint", "PrePaint", "PaintImage", "Layerize", "Commit"} {
		if f, ok := find(top, name); ok && f.total > 0 {
			paints = append(paints, name)
		}
	}
	t.Logf("%s: %s pid %d tid %d, %d samples; hottest %s %v self; Layout %v; forceLayout %v total; paint events %q",
		filepath.Base(file), th.Info().Name, th.Info().PID, th.Info().TID, th.Info().Samples.Len(), h.name, h.self.Round(time.Millisecond),
		layout.total.Round(time.Millisecond), forced.total.Round(time.Millisecond), paints)
	if h.name != "hotFunction" || h.self < 100*time.Millisecond {
		t.Errorf("hottest on the main thread: got %s %v, want hotFunction ≥100ms", h.name, h.self)
	}
	if !hasLayout || layout.total <= 0 || forced.total <= 0 {
		t.Errorf("got Layout %v and forceLayout %v, want both (forced layout)", layout.total, forced.total)
	}
	if len(paints) == 0 || paints[0] != "Paint" {
		t.Errorf("paint events: got %q, want Paint among them", paints)
	}
	return th
}

// TestChrome records loading a page in headless Chromium (started by the
// recorder) and checks what jsprof finds in the trace, then that the
// DevTools engine reads the recorded trace into the same ProfileCalls as
// jsprof.
func TestChrome(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium: not in -short mode")
	}
	t.Parallel()
	bin := browser.Require(t)
	url := servePage(t)
	file := filepath.Join(t.TempDir(), "page.json.gz")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	info, err := record.Chrome(testContext(t, 90*time.Second), url, f, record.ChromeOptions{Browser: bin, Gzip: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	head, _ := os.ReadFile(file)
	if info.Stopped != record.StopExited || info.Bytes == 0 || len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b {
		t.Fatalf("got %+v and %d bytes (gzip %t), want a settled load and a gzip trace", info, len(head), len(head) > 1 && head[0] == 0x1f)
	}
	t.Logf("%s: %d bytes in %v", info.Browser, info.Bytes, info.End.Sub(info.Start).Round(time.Millisecond))
	th := checkPageTrace(t, file)

	// The DevTools engine on the same file.
	if err := oracle.Install(); err != nil {
		t.Fatal(err)
	}
	p, err := format.ReadFile(file, nil, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dump, err := oracle.Run(file, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	compared, total := 0, 0
	for _, ot := range dump.Threads {
		if len(ot.Calls) == 0 {
			continue
		}
		ti := -1
		for i, pt := range p.Threads {
			if pt.PID == ot.PID && pt.TID == ot.TID {
				ti = i
			}
		}
		if ti < 0 {
			t.Errorf("engine thread %d:%d (%s) with %d calls: not in jsprof", ot.PID, ot.TID, ot.Name, len(ot.Calls))
			continue
		}
		tl, err := calls.NewTimeline(p, profile.ThreadID(ti))
		if err != nil {
			t.Fatal(err)
		}
		got := tl.Integrate(calls.IntegrateOptions{})
		same := compareCalls(t, p, got, ot.Calls)
		t.Logf("thread %d:%d %s: %d of %d ProfileCalls identical (engine %d)", ot.PID, ot.TID, ot.Name, same, len(got), len(ot.Calls))
		compared++
		total += len(ot.Calls)
		if ot.PID == th.Info().PID && ot.TID == th.Info().TID && len(ot.Calls) < 10 {
			t.Errorf("the page's main thread has %d calls in the engine, want the page's JS", len(ot.Calls))
		}
	}
	if compared == 0 {
		t.Error("the engine found no thread with ProfileCalls in the recorded trace")
	}
}

// compareCalls requires jsprof's ProfileCalls to equal the engine's: node,
// frame, ts, dur and self within 1e-3 µs. It returns how many are equal.
func compareCalls(t *testing.T, p *profile.Profile, got []calls.Call, want []oracle.Call) int {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("got %d calls, want %d", len(got), len(want))
	}
	same, bad := 0, 0
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		nd := &p.Nodes[g.Node]
		f := &p.Frames[nd.Frame]
		ok := nd.InputID == w.NodeID && p.Str(f.Name) == w.Name && p.Str(f.URL) == w.URL &&
			int64(f.Line) == w.Line && int64(f.Column) == w.Column && p.Str(f.ScriptID) == w.ScriptID &&
			near(g.Start, w.Ts) && near(g.Dur, w.Dur) && w.HasSelf && near(g.Self, w.Self)
		if ok {
			same++
			continue
		}
		if bad < 5 {
			t.Errorf("call %d: got node %d %q ts %.3f dur %.3f self %.3f; want node %d %q ts %.3f dur %.3f self %.3f",
				i, nd.InputID, p.Str(f.Name), g.Start.Micros(), g.Dur.Micros(), g.Self.Micros(), w.NodeID, w.Name, w.Ts, w.Dur, w.Self)
		}
		bad++
	}
	return same
}

// near reports whether a time in ns is within 1e-3 µs of a float µs value.
func near(got profile.Time, wantUs float64) bool {
	d := got - profile.TimeFromMicros(wantUs)
	return d >= -1 && d <= 1
}

// TestChromePort records in a Chromium that is already running with
// --remote-debugging-port, for a fixed duration, into a plain JSON trace;
// the browser keeps running.
func TestChromePort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium: not in -short mode")
	}
	t.Parallel()
	bin := browser.Require(t)
	url := servePage(t)
	// Its own profile directory, removed once its whole process group
	// (renderers too) is gone. The browser picks its port and writes it
	// to DevToolsActivePort there: a port merely free a moment ago could
	// be taken before the browser bound it (startInspected).
	dir, err := os.MkdirTemp("", "jsprof-record-test-")
	if err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, record.ChromeArgs...), "--no-sandbox", "--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=0", "--user-data-dir="+dir, "about:blank")
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		for range 50 {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	ctx := testContext(t, 90*time.Second)
	deadline := time.Now().Add(20 * time.Second)
	port := 0
	for port == 0 {
		if b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort")); err == nil {
			if line, _, ok := strings.Cut(string(b), "\n"); ok {
				port, _ = strconv.Atoi(line)
			}
		}
		if port == 0 {
			if time.Now().After(deadline) {
				t.Fatal("Chromium wrote no DevToolsActivePort within 20 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	var info *record.TraceInfo
	file := filepath.Join(t.TempDir(), "page.json")
	for {
		f, err := os.Create(file)
		if err != nil {
			t.Fatal(err)
		}
		// Long enough for the page's work on a loaded machine: CI's run
		// recorded 1.3 s of forced layouts alone, and 1.5 s cut hotFunction
		// short.
		info, err = record.Chrome(ctx, url, f, record.ChromeOptions{Port: port, Duration: 6 * time.Second})
		f.Close()
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "nothing is listening") || time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond) // the browser is still starting
	}
	if info.Stopped != record.StopDuration {
		t.Errorf("got stop %q, want duration", info.Stopped)
	}
	head, _ := os.ReadFile(file)
	if len(head) == 0 || head[0] != '{' {
		t.Errorf("got %.20q, want plain JSON", head)
	}
	checkPageTrace(t, file)

	// Ctrl-C (ctx done) mid-recording: the trace so far is written.
	ictx, cancel := context.WithCancel(ctx)
	time.AfterFunc(1200*time.Millisecond, cancel)
	var buf bytes.Buffer
	info, err = record.Chrome(ictx, url, &buf, record.ChromeOptions{Port: port, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if info.Stopped != record.StopInterrupted || info.End.Sub(info.Start) > 20*time.Second {
		t.Errorf("got stop %q after %v, want interrupted", info.Stopped, info.End.Sub(info.Start))
	}
	ifile := filepath.Join(t.TempDir(), "interrupted.json")
	if err := os.WriteFile(ifile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	th := mainThread(t, load(t, ifile))
	t.Logf("interrupted: %d bytes, %s with %d samples", buf.Len(), th.Info().Name, th.Info().Samples.Len())
	select {
	case <-exited:
		t.Error("the browser exited; it should keep running")
	default:
	}
}
