package server_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/tools/browser"
)

// EnvViewBench names the profile TestViewBenchmark measures (unset: the
// test is skipped). It is a measurement, not a timed test:
//
//	JSPROF_VIEW_BENCH=/tmp/large-profile.cpuprofile go test -run TestViewBenchmark -v ./internal/server/
const EnvViewBench = "JSPROF_VIEW_BENCH"

// TestViewBenchmark measures jsprof view on a big profile in headless
// Chromium: the time from starting the command to data-state="ready", the
// time of a zoom or pan step's redraw (median and 95th percentile), the
// page's JS heap and the server's peak RSS.
func TestViewBenchmark(t *testing.T) {
	file := os.Getenv(EnvViewBench)
	if file == "" {
		t.Skipf("set $%s to a profile to measure", EnvViewBench)
	}
	bin := filepath.Join(t.TempDir(), "jsprof")
	build := exec.Command("go", "build", "-o", bin, "./cmd/jsprof")
	build.Dir = proftest.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	b, ctx := startBrowser(t)
	pg, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.SetViewport(ctx, 1400, 900, 1); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(file)
	start := time.Now()
	cmd := exec.CommandContext(ctx, bin, "view", "--no-open", file)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Navigate(ctx, strings.TrimSpace(line)); err != nil {
		t.Fatal(err)
	}
	if err := pg.WaitFor(ctx, `document.documentElement.dataset.state === 'ready' || document.documentElement.dataset.state === 'error'`); err != nil {
		t.Fatal(err)
	}
	ready := time.Since(start)
	v := &viewer{t: t, ctx: ctx, page: pg}
	v.waitReady()
	// Zoom in 25 steps around the middle, then pan 25 steps: each step
	// redraws at once from the boxes it has, then with the boxes of the
	// new window.
	var steps []float64
	for i := range 50 {
		key := "w"
		if i >= 25 {
			key = "d"
		}
		t0 := time.Now()
		var n int
		v.eval(`window.__jsprof.renders().length`, &n)
		if err := pg.Eval(ctx, `(async () => { const f = document.getElementById('flame'); f.dispatchEvent(new KeyboardEvent('keydown', {key: '`+key+`', bubbles: true})); })()`, nil); err != nil {
			t.Fatal(err)
		}
		if err := pg.WaitFor(ctx, fmt.Sprintf(`window.__jsprof.renders().length >= %d`, n+2)); err != nil {
			t.Fatal(err)
		}
		steps = append(steps, float64(time.Since(t0).Microseconds())/1000)
	}
	var renders []float64
	v.eval(`window.__jsprof.renders()`, &renders)
	renders = renders[len(renders)-100:]
	var heap struct {
		UsedSize float64 `json:"usedSize"`
	}
	if err := pg.Call(ctx, "Runtime.getHeapUsage", nil, &heap); err != nil {
		t.Fatal(err)
	}
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	t.Logf("%s (%.1f MB): ready in %v; redraw per zoom/pan step: median %.2f ms, p95 %.2f ms (%d draws); step with the fetch of the new window: median %.1f ms, p95 %.1f ms; JS heap %.1f MB; server peak RSS %d MB",
		filepath.Base(file), float64(st.Size())/1e6, ready.Round(time.Millisecond), pct(renders, 50), pct(renders, 95), len(renders), pct(steps, 50), pct(steps, 95), heap.UsedSize/1e6, vmHWM(string(status))/1024)
	v.screenshot("benchmark")
	_ = context.Background
}

func pct(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(float64(len(s))*p/100))]
}

// vmHWM returns the VmHWM (peak RSS) of a /proc status file in KB.
func vmHWM(status string) int {
	for _, l := range strings.Split(status, "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			var kb int
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(l, "VmHWM:"), "kB")), &kb)
			return kb
		}
	}
	return 0
}

var _ = browser.Find
