//go:build unix

package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/tools/browser"
)

// The record command against real Node 20 (package record tests the
// recorder itself, Chromium included).

const recordTestdata = "../../record/testdata/"

func requireNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not on PATH: the record tests need Node.js 20")
	}
}

func runCLI(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = cli.Run(ctx, args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

// TestRecordNode: record -- node writes the .cpuprofile, passes the
// program's output through, reports what it wrote, and every command
// reads the file.
func TestRecordNode(t *testing.T) {
	t.Parallel()
	requireNode(t)
	out := filepath.Join(t.TempDir(), "hot.cpuprofile")
	code, stdout, stderr := runCLI(t, t.Context(), "record", "-o", out, "--", "node", recordTestdata+"hot.js", "300")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "ready\ndone true true\n" {
		t.Errorf("stdout: got %q, want the program's output", stdout)
	}
	for _, re := range []string{
		`(?m)^jsprof: recording node \S+hot.js 300 \(pid \d+\) every 100µs; Ctrl-C stops$`,
		`(?m)^jsprof: node \S+hot.js 300 ended \(exit status 0\) after \d`,
		`(?m)^jsprof: wrote \S+hot.cpuprofile \(\d+ (KB|bytes)\)$`,
		`(?m)^  main \(pid 1 tid 1\): \d+ samples, [\d.]+ ms sampled; hottest: \S+ [\d.]+ ms self$`,
		`(?m)^jsprof: next: jsprof top \S+hot.cpuprofile$`,
	} {
		if !regexp.MustCompile(re).MatchString(stderr) {
			t.Errorf("stderr lacks %s:\n%s", re, stderr)
		}
	}
	for _, args := range [][]string{{"summary", out}, {"top", "-n", "5", out}, {"tree", "--depth", "3", out}, {"calls", "--json", out}, {"convert", "--format", "pprof", "-o", out + ".pb", out}} {
		if code, _, stderr := runCLI(t, t.Context(), args...); code != 0 {
			t.Errorf("jsprof %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	if _, top, _ := runCLI(t, t.Context(), "top", "-n", "0", out); !strings.Contains(top, "hotLoop") {
		t.Errorf("jsprof top: no hotLoop in\n%s", top)
	}
}

// TestRecordWorkers: with workers, the default output is one trace with
// every thread; a .cpuprofile OUT gives one file per thread.
func TestRecordWorkers(t *testing.T) {
	requireNode(t)
	script, err := filepath.Abs(recordTestdata + "workers.js")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir()) // the default name goes to the current directory
	code, _, stderr := runCLI(t, t.Context(), "record", "--", "node", script, "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob("node-*.json")
	if len(files) != 1 {
		t.Fatalf("got files %q, want one node-*.json", files)
	}
	if n := strings.Count(stderr, "hottest: "); n != 3 || !strings.Contains(stderr, "[worker 1] cruncher-1 (pid") {
		t.Errorf("want three threads reported:\n%s", stderr)
	}
	code, _, stderr = runCLI(t, t.Context(), "record", "-o", "app.cpuprofile", "--", "node", script, "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"app.cpuprofile", "app.worker-1.cpuprofile", "app.worker-2.cpuprofile"} {
		if code, _, stderr := runCLI(t, t.Context(), "summary", f); code != 0 {
			t.Errorf("%s: exit %d: %s", f, code, stderr)
		}
	}
}

// TestRecordUsage checks the usage errors, which exit 2 before anything
// runs.
func TestRecordUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"record"}, "nothing to record: want -- node SCRIPT, --pid PID, --inspect ADDR or --chrome URL"},
		{[]string{"record", "--pid", "1", "--chrome", "http://x"}, "want one of -- node SCRIPT, --pid PID, --inspect ADDR and --chrome URL, not several"},
		{[]string{"record", "--interval", "0", "--pid", "1"}, "--interval 0s: want a positive duration such as 100us or 1ms"},
		{[]string{"record", "--browser", "x", "--pid", "1"}, "--browser and --chrome-port go with --chrome URL"},
		{[]string{"record", "--interval", "fast", "--pid", "1"}, `invalid value "fast" for flag -interval`},
	} {
		code, _, stderr := runCLI(t, t.Context(), tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("jsprof %s: got exit %d, %q; want 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
	code, _, stderr := runCLI(t, t.Context(), "record", "-o", "/no/such/dir/x.cpuprofile", "--pid", "1")
	if code != 1 || stderr != "jsprof: cannot write /no/such/dir/x.cpuprofile: no directory /no/such/dir\n" {
		t.Errorf("got exit %d, %q", code, stderr)
	}
}

// TestRecordSIGINT sends SIGINT to a jsprof binary recording a program
// that would run for a minute, as Ctrl-C at a terminal does (to jsprof;
// the program runs in its own process group): jsprof writes a valid
// profile, stops the program and exits 0.
func TestRecordSIGINT(t *testing.T) {
	t.Parallel()
	requireNode(t)
	bin := filepath.Join(t.TempDir(), "jsprof")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/jsprof")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(t.TempDir(), "spin.cpuprofile")
	cmd := exec.Command(bin, "record", "-o", out, "--", "node", recordTestdata+"spin.js", "60000")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	sc := bufio.NewScanner(stderr)
	pid := 0
	var lines []string
	deadline := time.AfterFunc(30*time.Second, func() { _ = cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if m := regexp.MustCompile(`^jsprof: recording .* \(pid (\d+)\)`).FindStringSubmatch(sc.Text()); m != nil {
			pid, _ = strconv.Atoi(m[1])
			break
		}
	}
	if pid == 0 {
		t.Fatalf("jsprof did not start recording: %q", lines)
	}
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err = cmd.Wait()
	if err != nil {
		t.Fatalf("jsprof: %v; stderr:\n%s", err, strings.Join(lines, "\n"))
	}
	all := strings.Join(lines, "\n")
	if !strings.Contains(all, "jsprof: interrupted after ") || !strings.Contains(all, "jsprof: wrote "+out) {
		t.Errorf("stderr:\n%s", all)
	}
	code, top, errs := runCLI(t, t.Context(), "top", "-n", "0", out)
	if code != 0 || !strings.Contains(top, "spin.js") {
		t.Errorf("jsprof top: exit %d %s\n%s", code, errs, top)
	}
	t.Logf("%.600s", top)
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("node (pid %d) still runs after jsprof ended", pid)
	}
	t.Logf("%s", all)
}

// TestRecordChrome: record --chrome writes Chromium's gzip stream as it
// comes (OUT ends in .gz), reads it back and names the page's hot
// function; top finds it on the page's main thread.
func TestRecordChrome(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Chromium: not in -short mode")
	}
	t.Parallel()
	bin := browser.Require(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(recordTestdata)))
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "page.json.gz")
	code, _, stderr := runCLI(t, t.Context(), "record", "--chrome", srv.URL+"/page.html", "--browser", bin, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	head, _ := os.ReadFile(out)
	if len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b {
		t.Errorf("%s is not gzip", out)
	}
	if !regexp.MustCompile(`(?m)^  CrRendererMain \(pid \d+ tid \d+\): \d+ samples, [\d.]+ ms sampled; hottest: hotFunction [\d.]+ ms self$`).MatchString(stderr) {
		t.Errorf("stderr lacks the page's main thread with hotFunction:\n%s", stderr)
	}
	code, top, errs := runCLI(t, t.Context(), "top", "-n", "3", "--thread", "CrRendererMain", out)
	if code != 0 || !strings.Contains(top, "hotFunction") {
		t.Errorf("jsprof top: exit %d %s\n%s", code, errs, top)
	}
}
