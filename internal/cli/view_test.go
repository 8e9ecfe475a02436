package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jsprof/jsprof/internal/cli"
)

// jsprof view serves the viewer on 127.0.0.1 and a free port, prints the
// URL first, refuses other Host headers and stops when interrupted.
func TestView(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, []string{"view", "--no-open", "../../testdata/node/mix.cpuprofile"}, nil, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(line)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/") {
		t.Fatalf("first line %q, want http://127.0.0.1:PORT/", url)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.Get(url + "api/status")
		if err != nil {
			t.Fatal(err)
		}
		var st struct{ State string }
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if st.State == "ready" {
			break
		}
		if st.State == "error" || time.Now().After(deadline) {
			t.Fatalf("state %q", st.State)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, tc := range []struct {
		host string
		code int
	}{{"", 200}, {"localhost", 200}, {"evil.example", 421}} {
		req, _ := http.NewRequest("GET", url+"api/info", nil)
		if tc.host != "" {
			_, port, _ := strings.Cut(strings.TrimPrefix(strings.TrimSuffix(url, "/"), "http://"), ":")
			req.Host = tc.host + ":" + port
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.code {
			t.Errorf("Host %q: got %d, want %d", req.Host, resp.StatusCode, tc.code)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("CSP %q", csp)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d after an interrupt, want 0 (stderr %s)", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("view did not stop when interrupted")
	}
}

func TestViewErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"view", "--no-open", "no-such-file.cpuprofile"}, 1},
		{[]string{"view", "--no-open", "-"}, 2},
		{[]string{"view", "--no-open", "--source-root", "no-such-dir", "../../testdata/node/mix.cpuprofile"}, 2},
		{[]string{"view", "--no-open", "--addr", "256.0.0.1:0", "../../testdata/node/mix.cpuprofile"}, 1},
	} {
		var stdout, stderr bytes.Buffer
		if code := cli.Run(t.Context(), tc.args, nil, &stdout, &stderr); code != tc.code {
			t.Errorf("jsprof %s: exit %d, want %d (stderr %s)", strings.Join(tc.args, " "), code, tc.code, stderr.String())
		}
	}
}
