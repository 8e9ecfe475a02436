package record

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"
)

func TestInspectorAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"default", []string{"node"}, "127.0.0.1:9229"},
		{"inspect-port", []string{"node", "--inspect-port=9333"}, "127.0.0.1:9333"},
		{"inspect-port separate", []string{"node", "--inspect-port", "9334"}, "127.0.0.1:9334"},
		{"inspect host:port", []string{"node", "--inspect=127.0.0.2:9444"}, "127.0.0.2:9444"},
		{"inspect port", []string{"node", "--inspect=9445"}, "127.0.0.1:9445"},
		{"inspect-brk any host", []string{"node", "--inspect-brk=0.0.0.0:9446"}, "127.0.0.1:9446"},
		{"last wins", []string{"node", "--inspect=9447", "--inspect-port=9448"}, "127.0.0.1:9448"},
		{"debug-port", []string{"node", "--debug-port=9449"}, "127.0.0.1:9449"},
		{"bare inspect", []string{"node", "--inspect"}, "127.0.0.1:9229"},
	} {
		if got := inspectorAddr(tc.args); got != tc.want {
			t.Errorf("%s: inspectorAddr(%q): got %s, want %s", tc.name, tc.args, got, tc.want)
		}
	}
}

func TestCheckNodeArgs(t *testing.T) {
	t.Parallel()
	// pid 0: /proc/0 does not exist, so only the arguments decide.
	for _, tc := range []struct {
		args []string
		want string // "" for no error
	}{
		{[]string{"/usr/bin/node", "--max-old-space-size=100"}, ""},
		{[]string{"nodejs"}, ""},
		{[]string{"/usr/bin/node", "--disable-sigusr1"}, "process 0 runs with --disable-sigusr1: its inspector cannot be opened from outside; restart it with --inspect and use --inspect HOST:PORT"},
		{[]string{"/usr/bin/python3", "app.py"}, "process 0 (python3) is not Node.js: SIGUSR1 would not open an inspector, and may kill it"},
	} {
		err := checkNodeArgs(0, tc.args)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("checkNodeArgs(%q): got %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestStderrFilter: Node's stderr reaches the program's stderr without the
// inspector's lines, byte for byte otherwise, and the websocket URL is
// found; output that cannot be an inspector line is not held back.
func TestStderrFilter(t *testing.T) {
	t.Parallel()
	in := "Debugger listening on ws://127.0.0.1:4321/abc\n" +
		"For help, see: https://nodejs.org/en/docs/inspector\n" +
		"Debugger attached.\n" +
		"warning: D is for Debugger, not this line\n" +
		"Debugger is not the inspector\n" +
		"partial line without newline, then\n" +
		"Waiting for the debugger to disconnect...\n" +
		"no newline at the end"
	want := "warning: D is for Debugger, not this line\n" +
		"Debugger is not the inspector\n" +
		"partial line without newline, then\n" +
		"no newline at the end"
	for _, r := range []struct {
		name string
		r    io.Reader
	}{{"whole", strings.NewReader(in)}, {"byte by byte", iotest.OneByteReader(strings.NewReader(in))}} {
		var out bytes.Buffer
		f := &stderrFilter{out: &out, listening: make(chan string, 1)}
		f.copy(r.r)
		if out.String() != want {
			t.Errorf("%s: got %q, want %q", r.name, out.String(), want)
		}
		select {
		case u := <-f.listening:
			if u != "ws://127.0.0.1:4321/abc" {
				t.Errorf("%s: got URL %q", r.name, u)
			}
		default:
			t.Errorf("%s: no URL found", r.name)
		}
		if got := f.tailNote(); got != ": no newline at the end" {
			t.Errorf("%s: tailNote: got %q", r.name, got)
		}
	}
	// Output that is not an inspector line passes before its line ends.
	pr, pw := io.Pipe()
	var out syncBuffer
	f := &stderrFilter{out: &out, listening: make(chan string, 1)}
	done := make(chan struct{})
	go func() { f.copy(pr); close(done) }()
	if _, err := pw.Write([]byte("progress 10%")); err != nil {
		t.Fatal(err)
	}
	for range 200 {
		if out.String() == "progress 10%" {
			break
		}
		waitABit()
	}
	if got := out.String(); got != "progress 10%" {
		t.Errorf("partial output: got %q, want it passed at once", got)
	}
	pw.Close()
	<-done
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func waitABit() { time.Sleep(10 * time.Millisecond) }
