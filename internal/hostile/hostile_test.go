package hostile_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jsprof/jsprof/internal/hostile"
	"github.com/jsprof/jsprof/internal/proftest"
)

var update = flag.Bool("update", false, "rewrite testdata/catalogue.txt")

// TestHostile runs the jsprof binary on every hostile case and requires:
// exit 0 (a salvaged result, its losses among the diagnostics) or exit 1
// with one line naming the file (and, for JSON problems, the byte offset and
// JSON path); never a crash; within 20 s and the case's memory bound. The
// messages are a golden catalogue, so that they stay precise and stable.
func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary on large inputs: not in -short mode")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "jsprof")
	build := exec.Command("go", "build", "-o", bin, "./cmd/jsprof")
	build.Dir = proftest.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var catalogue []string
	for _, c := range hostile.Cases() {
		path := filepath.Join(dir, "input")
		os.RemoveAll(path)
		if c.Dir {
			os.Mkdir(path, 0o755)
		} else if err := os.WriteFile(path, c.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, append(append([]string{"summary", "--json"}, c.Args...), path)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// The child's peak RSS: wait4's ru_maxrss counts the forking test
		// process, so poll VmHWM in /proc while it runs.
		rssMB := 0
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		timeout := time.After(20 * time.Second)
		tick := time.NewTicker(5 * time.Millisecond)
	wait:
		for {
			select {
			case <-done:
				break wait
			case <-timeout:
				cmd.Process.Kill()
				<-done
				t.Errorf("%s: still running after 20 s", c.Name)
				break wait
			case <-tick.C:
				rssMB = max(rssMB, vmHWM(status))
			}
		}
		tick.Stop()
		elapsed := time.Since(start)
		code := cmd.ProcessState.ExitCode()
		msg := strings.ReplaceAll(strings.TrimSpace(stderr.String()), path, "FILE")
		switch code {
		case 0:
			var s struct {
				Diagnostics []struct{ Code string }
				Threads     []struct{ Samples int }
			}
			if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
				t.Errorf("%s: exit 0 with unreadable JSON: %v", c.Name, err)
			}
			var codes []string
			for _, d := range s.Diagnostics {
				codes = append(codes, d.Code)
			}
			msg = fmt.Sprintf("%d threads; diagnostics: %s", len(s.Threads), strings.Join(codes, ", "))
		case 1:
			if strings.Count(msg, "\n") != 0 || !strings.HasPrefix(msg, "jsprof: FILE: ") {
				t.Errorf("%s: want one line naming the file, got %q", c.Name, msg)
			}
			jsonProblem := !regexp.MustCompile(`gzip|directory|size limit|empty input|expands`).MatchString(msg)
			if jsonProblem && !strings.Contains(msg, "offset ") {
				t.Errorf("%s: no byte offset in %q", c.Name, msg)
			}
		default:
			t.Errorf("%s: exit %d: %s", c.Name, code, msg)
		}
		if c.MaxRSSMB > 0 && rssMB > c.MaxRSSMB {
			t.Errorf("%s: peak RSS %d MB, bound %d MB", c.Name, rssMB, c.MaxRSSMB)
		}
		t.Logf("%-34s exit %d %6.2fs %5d MB  %s", c.Name, code, elapsed.Seconds(), rssMB, firstN(msg, 120))
		catalogue = append(catalogue, fmt.Sprintf("%s: exit %d: %s", c.Name, code, msg))
	}
	got := strings.Join(catalogue, "\n") + "\n"
	golden := filepath.Join("testdata", "catalogue.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./internal/hostile -update creates it)", err)
	}
	if got != string(want) {
		g, w := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(g), len(w)) {
			var gl, wl string
			if i < len(g) {
				gl = g[i]
			}
			if i < len(w) {
				wl = w[i]
			}
			if gl != wl {
				t.Errorf("catalogue line %d:\n got  %s\n want %s", i+1, gl, wl)
			}
		}
		t.Error("the messages changed; if that is intended, run go test ./internal/hostile -update and review the diff")
	}
}

// vmHWM returns a process's peak resident set in MB, 0 if unknown.
func vmHWM(status string) int {
	data, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(data)
	if m == nil {
		return 0
	}
	var kb int
	fmt.Sscan(string(m[1]), &kb)
	return kb / 1024
}

func firstN(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
