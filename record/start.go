package record

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Node starts argv, a node command line (node [node flags] script
// [args]), with its inspector on a free loopback port, connects before the
// script runs (so start-up is profiled, as --cpu-prof does) and records
// every thread until the program exits, opts.Duration elapses or ctx is
// done (Ctrl-C): the profiles are collected in each case. A program still
// running then is stopped: SIGINT to its process group, SIGKILL 5 s later.
//
// The program runs in its own process group, so that a Ctrl-C at the
// terminal reaches the recorder, which collects the profiles before it
// stops the program.
func Node(ctx context.Context, argv []string, opts NodeOptions) (*Recording, error) {
	if len(argv) == 0 {
		return nil, errors.New("no program to run: want a node command line, e.g. node app.js")
	}
	if base := strings.ToLower(filepath.Base(argv[0])); !strings.Contains(base, "node") {
		return nil, fmt.Errorf("%s is not node: want a node command line (node app.js …); for an npm script, run its node command directly", argv[0])
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		if !strings.ContainsRune(argv[0], filepath.Separator) {
			return nil, fmt.Errorf("%s not found on PATH: install Node.js, or give its path (-- /path/to/node app.js)", argv[0])
		}
		return nil, fmt.Errorf("cannot run %s: %w", argv[0], err)
	}
	cmd := exec.Command(path, append([]string{"--inspect-brk=127.0.0.1:0"}, argv[1:]...)...)
	cmd.Args[0] = argv[0]
	cmd.Dir, cmd.Env = opts.Dir, opts.Env
	cmd.Stdin, cmd.Stdout = opts.Stdin, opts.Stdout
	cmd.WaitDelay = 2 * time.Second // output still held open by the program's own children
	setProcessGroup(cmd)
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("starting %s: %w", argv[0], err)
	}
	pw.Close()
	filter := &stderrFilter{out: opts.Stderr, listening: make(chan string, 1)}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		filter.copy(pr)
		pr.Close()
	}()
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	p := &program{cmd: cmd, exited: exited}

	var wsURL string
	wait := time.NewTimer(30 * time.Second)
	defer wait.Stop()
	select {
	case wsURL = <-filter.listening:
	case <-exited:
		<-copied
		return nil, fmt.Errorf("%s exited (%v) before its inspector opened%s", argv[0], cmd.ProcessState, filter.tailNote())
	case <-wait.C:
		p.stop()
		return nil, fmt.Errorf("%s did not open its inspector within 30 s (is it Node.js? jsprof runs it with --inspect-brk)%s", argv[0], filter.tailNote())
	case <-ctx.Done():
		p.stop()
		return nil, ctx.Err()
	}

	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	r, err := connectNode(cctx, wsURL, &opts)
	cancel()
	if err != nil {
		p.stop()
		if p.hasExited() {
			return nil, fmt.Errorf("%s exited (%v) while jsprof was connecting", argv[0], cmd.ProcessState)
		}
		return nil, err
	}
	rec := &Recording{PID: cmd.Process.Pid, Target: strings.Join(argv, " ")}
	r.record(ctx, rec, exited)
	if rec.Stopped == StopLost && p.hasExited() {
		rec.Stopped = StopExited // the program ended without waiting for the profiles
	}
	p.stop()
	rec.Process = cmd.ProcessState
	return rec, nil
}

// program is a started Node process.
type program struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

func (p *program) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// stop waits a moment for the program to end by itself (it does once the
// debugger disconnects after its end), then interrupts its process group,
// then kills it.
func (p *program) stop() {
	select {
	case <-p.exited:
		return
	case <-time.After(500 * time.Millisecond):
	}
	interruptGroup(p.cmd.Process)
	select {
	case <-p.exited:
		return
	case <-time.After(5 * time.Second):
	}
	killGroup(p.cmd.Process)
	<-p.exited
}

// The inspector's messages on Node's stderr, kept out of the program's
// output.
var inspectorLines = []string{
	"Debugger listening on ",
	"For help, see: https://nodejs.org/",
	"Debugger attached.",
	"Waiting for the debugger to disconnect...",
	"Debugger ending on ",
}

// stderrFilter passes Node's stderr through, without the inspector's own
// lines, and finds the websocket URL Node listens on. Output that cannot
// be an inspector line goes through at once, not a line later.
type stderrFilter struct {
	out       io.Writer
	listening chan string
	found     bool

	mu   sync.Mutex
	tail []byte // the last bytes passed through, for error messages
}

func (f *stderrFilter) copy(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	atStart := true
	for {
		if atStart {
			// Hold back a line while it may be one of the inspector's.
			line, err := f.readHeld(br)
			if len(line) > 0 {
				if url, ok := strings.CutPrefix(strings.TrimRight(string(line), "\r\n"), "Debugger listening on "); ok && !f.found {
					f.found = true
					f.listening <- url
				}
				if !isInspectorLine(line) {
					f.pass(line)
				}
				atStart = bytes.HasSuffix(line, []byte("\n"))
			}
			if err != nil {
				return
			}
			continue
		}
		// Mid-line: pass through whatever has come, up to the newline.
		if _, err := br.Peek(1); err != nil {
			return
		}
		b, _ := br.Peek(br.Buffered())
		n := len(b)
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			n, atStart = i+1, true
		}
		f.pass(b[:n])
		_, _ = br.Discard(n)
	}
}

// readHeld reads at the start of a line: a whole line when it begins like
// an inspector message, else as soon as it cannot be one.
func (f *stderrFilter) readHeld(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		b, err := br.ReadByte()
		if err != nil {
			return line, err
		}
		line = append(line, b)
		if b == '\n' || !mayBeInspectorLine(line) {
			return line, nil
		}
	}
}

func mayBeInspectorLine(prefix []byte) bool {
	for _, l := range inspectorLines {
		n := min(len(prefix), len(l))
		if string(prefix[:n]) == l[:n] {
			return true
		}
	}
	return false
}

func isInspectorLine(line []byte) bool {
	for _, l := range inspectorLines {
		if bytes.HasPrefix(line, []byte(l)) {
			return true
		}
	}
	return false
}

func (f *stderrFilter) pass(b []byte) {
	if f.out != nil {
		_, _ = f.out.Write(b)
	}
	f.mu.Lock()
	f.tail = append(f.tail, b...)
	if len(f.tail) > 4096 {
		f.tail = append([]byte(nil), f.tail[len(f.tail)-2048:]...)
	}
	f.mu.Unlock()
}

// tailNote returns ": " and the last line the program wrote to stderr, or "".
func (f *stderrFilter) tailNote() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := strings.TrimSpace(string(f.tail))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return ""
	}
	return ": " + s
}
