//go:build unix

package record_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/record"
	"github.com/jsprof/jsprof/session"
)

// These tests run the real Node (20, as installed) and talk to its
// inspector on 127.0.0.1 only.

func requireNode(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not on PATH: the record tests need Node.js 20")
	}
	return p
}

func testContext(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// diagnose fills opts with a protocol log, progress and program output
// (where opts has none), and prints them if the test fails: a recording
// that hangs in CI is then explained by its log. It returns the log so far.
func diagnose(t *testing.T, opts *record.NodeOptions) (logged func() string) {
	t.Helper()
	var mu sync.Mutex
	var log bytes.Buffer
	lockedWriter := func(prefix string) io.Writer {
		return writerFunc(func(p []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(&log, "%s%s", prefix, p)
			return len(p), nil
		})
	}
	opts.ProtocolLog = lockedWriter("")
	progress := opts.Progress
	opts.Progress = func(m string) {
		mu.Lock()
		fmt.Fprintf(&log, "%s progress: %s\n", time.Now().Format("15:04:05.000000"), m)
		mu.Unlock()
		if progress != nil {
			progress(m)
		}
	}
	if opts.Stderr == nil {
		opts.Stderr = lockedWriter("stderr: ")
	}
	logged = func() string {
		mu.Lock()
		defer mu.Unlock()
		return log.String()
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the recording's protocol log, progress and stderr:\n%s", logged())
		}
	})
	return logged
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// hot is a function's self and total time in a thread's tree.
type hot struct {
	name, url   string
	self, total time.Duration
}

// threadTop returns a thread's functions by self time, hottest first,
// as jsprof top computes them (DevTools' tree, all view).
func threadTop(t *testing.T, th *session.Thread) []hot {
	t.Helper()
	tree, err := th.Tree(t.Context(), view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []hot
	for _, id := range tree.Top(calltree.BySelf, 0) {
		f := &tree.Funcs[id]
		fr := &tree.Profile.Frames[f.Frame]
		out = append(out, hot{tree.Profile.Str(fr.Name), tree.Profile.Str(fr.URL), f.Self.Sub(0), f.Total.Sub(0)})
	}
	return out
}

// hottestJS is the hottest function that is not a VM state ((idle),
// (program), (garbage collector)).
func hottestJS(fs []hot) hot {
	for _, f := range fs {
		if !strings.HasPrefix(f.name, "(") {
			return f
		}
	}
	return hot{}
}

func find(fs []hot, name string) (hot, bool) {
	for _, f := range fs {
		if f.name == name {
			return f, true
		}
	}
	return hot{}, false
}

func load(t *testing.T, name string) *session.Session {
	t.Helper()
	s, err := session.Load(t.Context(), name, session.Options{})
	if err != nil {
		t.Fatalf("session.Load(%s): %v", name, err)
	}
	return s
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// topKeys returns the top-level keys of a JSON object, in order.
func topKeys(t *testing.T, data []byte) []string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(data))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %v %v", tok, err)
	}
	var keys []string
	for d.More() {
		k, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestNode records a CPU-bound script from its start: the hottest
// function is the one the script spends its time in, start-up (top-level
// code) is included, and the file has the form node --cpu-prof writes,
// which the test compares with --cpu-prof's own file for the same script.
func TestNode(t *testing.T) {
	// Not parallel: the fewer processes compete with V8's sampler, the
	// closer the profile is to what the script does.
	requireNode(t)
	var stdout, stderr bytes.Buffer
	var progress []string
	opts := record.NodeOptions{
		Stdout: &stdout, Stderr: &stderr, Progress: func(m string) { progress = append(progress, m) },
	}
	diagnose(t, &opts)
	rec, err := record.Node(testContext(t, 60*time.Second), []string{"node", "testdata/hot.js", "400"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stopped != record.StopExited || rec.Process == nil || rec.Process.ExitCode() != 0 {
		t.Errorf("got stop %q, process %v; want exited, exit status 0", rec.Stopped, rec.Process)
	}
	if got, want := stdout.String(), "ready\ndone true true\n"; got != want {
		t.Errorf("program's stdout: got %q, want %q", got, want)
	}
	if stderr.Len() != 0 {
		t.Errorf("program's stderr: got %q, want nothing (the inspector's messages are filtered out)", stderr.String())
	}
	if len(rec.Threads) != 1 || len(rec.Missing) != 0 {
		t.Fatalf("got %d threads (missing %q), want 1", len(rec.Threads), rec.Missing)
	}
	if len(progress) == 0 || !strings.Contains(progress[0], fmt.Sprintf("pid %d", rec.PID)) {
		t.Errorf("progress: got %q, want a line naming pid %d", progress, rec.PID)
	}
	prof := rec.Threads[0].Profile
	file := writeFile(t, "hot.cpuprofile", prof)
	s := load(t, file)
	if len(s.Threads()) != 1 {
		t.Fatalf("got %d threads in the file, want 1", len(s.Threads()))
	}
	top := threadTop(t, s.Threads()[0])
	// hotLoop is the hottest function. On a loaded machine V8's sampler
	// thread is starved and now and then gives a sample to the wrong
	// frame (node --cpu-prof does the same), so hotLoop must be among
	// the three hottest JS functions, with at least 100 ms.
	h := hottestJS(top)
	rank := 0
	for _, f := range top {
		if strings.HasPrefix(f.name, "(") {
			continue
		}
		rank++
		if f.name == "hotLoop" {
			break
		}
	}
	if l, _ := find(top, "hotLoop"); rank > 3 || l.total < 100*time.Millisecond {
		t.Errorf("hottest function: got %s (%v self), hotLoop %v total, rank %d; want hotLoop among the 3 hottest, ≥100ms", h.name, h.self, l.total, rank)
	} else if h.name != "hotLoop" {
		t.Logf("hotLoop ranks %d (hottest %s %v): a starved sampler", rank, h.name, h.self)
	}
	// Start-up: the script's top level runs buildTable for ~100 ms before
	// main; --inspect-brk holds the script until the profiler runs.
	var topLevel time.Duration
	for _, f := range top {
		if f.name == "" && strings.HasSuffix(f.url, "/hot.js") {
			topLevel = f.total
		}
	}
	mainFn, _ := find(top, "main")
	if b, ok := find(top, "buildTable"); !ok || topLevel-mainFn.total < 50*time.Millisecond {
		t.Errorf("start-up: buildTable found %t (%v total), top level %v beside main's %v; want buildTable, and ≥50ms of top level outside main",
			ok, b.total, topLevel, mainFn.total)
	}
	samples := s.Threads()[0].Info().Samples.Len()

	// node --cpu-prof on the same script, at the same interval.
	dir := t.TempDir()
	cmd := exec.Command("node", "--cpu-prof", "--cpu-prof-interval", "100", "--cpu-prof-dir", dir, "testdata/hot.js", "400")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("node --cpu-prof: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.cpuprofile"))
	if len(files) != 1 {
		t.Fatalf("node --cpu-prof wrote %q, want one file", files)
	}
	ref, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(topKeys(t, prof), ","), strings.Join(topKeys(t, ref), ","); got != want {
		t.Errorf("top-level keys: got %s, want %s (as --cpu-prof)", got, want)
	}
	const head = `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[`
	if !bytes.HasPrefix(prof, []byte(head)) || !bytes.HasPrefix(ref, []byte(head)) {
		t.Errorf("both files should start %s; got %.120s and %.120s", head, prof, ref)
	}
	rs := load(t, files[0])
	rtop := threadTop(t, rs.Threads()[0])
	rh := hottestJS(rtop)
	if rh.name != "hotLoop" && rh.name != "main" {
		t.Errorf("--cpu-prof's hottest function: got %s, want hotLoop", rh.name)
	}
	rb, _ := find(rtop, "buildTable")
	b, _ := find(top, "buildTable")
	t.Logf("record: %d samples, %d bytes, hotLoop %v self, buildTable %v total; --cpu-prof: %d samples, %d bytes, hotLoop %v self, buildTable %v total",
		samples, len(prof), h.self.Round(time.Millisecond), b.total.Round(time.Millisecond),
		rs.Threads()[0].Info().Samples.Len(), len(ref), rh.self.Round(time.Millisecond), rb.total.Round(time.Millisecond))
	// Sample counts depend on the machine's load (V8's sampler thread
	// competes with the other tests): they are logged, not compared.
	if samples < 50 {
		t.Errorf("got %d samples in ~500 ms at 100 µs, want many more", samples)
	}
}

// checkWorkers checks a recording of testdata/workers.js with two workers
// and returns in how many workerHot is the hottest function.
func checkWorkers(t *testing.T, rec *record.Recording) int {
	t.Helper()
	if len(rec.Threads) != 3 || len(rec.Missing) != 0 {
		t.Fatalf("got %d threads (missing %q), want 3: main and two workers", len(rec.Threads), rec.Missing)
	}
	for i, th := range rec.Threads {
		if i > 0 && (th.ThreadID != i || !strings.Contains(th.Name, "cruncher-") || !strings.HasSuffix(th.URL, "workers.js")) {
			t.Errorf("thread %d: got %+v, want threadId %d, a cruncher, workers.js", i, th, i)
		}
	}
	var buf bytes.Buffer
	if err := rec.WriteTrace(&buf); err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, "workers.json", buf.Bytes())
	s := load(t, file)
	if len(s.Threads()) != 3 {
		t.Fatalf("the trace reads as %d threads, want 3", len(s.Threads()))
	}
	workerHotLeads := 0
	for _, th := range s.Threads() {
		info := th.Info()
		top := threadTop(t, th)
		h := hottestJS(top)
		t.Logf("thread %q (pid %d tid %d): %d samples, hottest %s %v", info.Name, info.PID, info.TID, info.Samples.Len(), h.name, h.self.Round(time.Millisecond))
		if info.PID != int64(rec.PID) {
			t.Errorf("thread %q: pid %d, want %d", info.Name, info.PID, rec.PID)
		}
		if info.TID == 1 {
			if info.Name != "main" {
				t.Errorf("tid 1: got name %q, want main", info.Name)
			}
			continue
		}
		// Each worker spends ~300 ms of CPU in workerHot. Its samples
		// must hold that time; which frame gets it is V8's: now and then
		// its sampler, starved on a loaded machine, gives a worker's
		// samples to the wrong frame (the script's top level, or a Node
		// internal), as node --cpu-prof does. So workerHot must lead in at
		// least one worker, and every worker must have the time.
		tree, err := th.Tree(t.Context(), view.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sampled := tree.TopDown[0].Total.Sub(0); sampled < 150*time.Millisecond {
			t.Errorf("worker %q: %v sampled, want ≥150ms", info.Name, sampled)
		}
		if h.name == "workerHot" && h.self >= 75*time.Millisecond {
			workerHotLeads++
		}
	}
	return workerHotLeads
}

// TestNodeWorkers records a script with two worker threads: each worker is
// its own thread, in the trace that holds them all, with its hot function.
func TestNodeWorkers(t *testing.T) {
	// Not parallel, as TestNode.
	requireNode(t)
	var rec *record.Recording
	for attempt := 1; ; attempt++ {
		var stdout bytes.Buffer
		opts := record.NodeOptions{Stdout: &stdout}
		logged := diagnose(t, &opts)
		var err error
		rec, err = record.Node(testContext(t, 30*time.Second), []string{"node", "testdata/workers.js", "2"}, opts)
		if err != nil {
			t.Fatal(err)
		}
		// Once in many CI runs, a recording ran to the test's time limit
		// with no worker ever announced (NodeWorker.attachedToWorker) and
		// the program stuck. The cause is not known; the protocol log of
		// such a run is kept, and the recording is tried once more.
		if attempt == 1 && rec.Stopped == record.StopInterrupted && len(rec.Threads) == 1 {
			t.Logf("the recording hung (no worker announced; stdout %q); trying once more. Its protocol log:\n%s", stdout.String(), logged())
			continue
		}
		if leads := checkWorkers(t, rec); leads > 0 || attempt >= 3 {
			if leads == 0 {
				t.Error("workerHot is the hottest function of no worker, want at least one")
			}
			break
		}
		// V8's sampler, starved on a loaded machine (CI runs packages
		// in parallel on two cores), gave both workers' time to another
		// frame; the samples were few. Recorded again: what is tested is
		// that a worker's hot function can be told, not V8 under load.
		t.Logf("attempt %d: workerHot led no worker; recording again", attempt)
	}
	// Each thread alone is a .cpuprofile.
	for _, th := range rec.Threads {
		s := load(t, writeFile(t, "thread.cpuprofile", th.Profile))
		if n := s.Threads()[0].Info().Samples.Len(); n == 0 {
			t.Errorf("%s: no samples", th.Name)
		}
	}
}

// spinning is a Node process running testdata/spin.js.
type spinning struct {
	cmd    *exec.Cmd
	stderr *record.SyncBuffer // read while node writes it
	pid    int
	done   chan struct{}
}

// inspectorPort matches the line node prints when its inspector opens.
var inspectorPort = regexp.MustCompile(`Debugger listening on ws://127\.0\.0\.1:(\d+)/`)

// startInspected starts spin.js with its inspector open on a port node
// picks, and returns that port. A port merely free a moment ago could be
// taken by another test before node bound it, and node then ran without
// an inspector ("nothing is listening" in TestErrors, once in CI).
func startInspected(t *testing.T) (*spinning, int) {
	t.Helper()
	sp := startSpin(t, nil, "--inspect=127.0.0.1:0")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if m := inspectorPort.FindStringSubmatch(sp.stderr.String()); m != nil {
			port, err := strconv.Atoi(m[1])
			if err != nil {
				t.Fatal(err)
			}
			return sp, port
		}
		if time.Now().After(deadline) {
			t.Fatalf("node did not say where its inspector listens: %s", sp.stderr.String())
		}
	}
}

// startSpin starts node with flags and testdata/spin.js and waits for it to
// print "ready"; the process is killed when the test ends.
func startSpin(t *testing.T, env []string, flags ...string) *spinning {
	t.Helper()
	requireNode(t)
	cmd := exec.Command("node", append(flags, "testdata/spin.js", "60000")...)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sp := &spinning{cmd: cmd, stderr: new(record.SyncBuffer), done: make(chan struct{})}
	cmd.Stderr = sp.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sp.pid = cmd.Process.Pid
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-sp.done
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ok := sc.Scan() && strings.HasPrefix(sc.Text(), "ready")
		ready <- ok
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
		close(sp.done)
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("spin.js did not start: %s", sp.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("spin.js did not print ready within 20 s")
	}
	return sp
}

func (sp *spinning) alive() bool {
	select {
	case <-sp.done:
		return false
	default:
		return true
	}
}

// reservePort returns a loopback TCP port held by a socket bound to it but
// not listening, until release or the test's end: a connection to it is
// refused, and no other socket can take it (neither binds it without
// SO_REUSEADDR). A port merely free a moment ago could be taken before the
// test used it, by a parallel test's listener or outgoing connection.
func reservePort(t *testing.T) (port int, release func()) {
	t.Helper()
	syscall.ForkLock.RLock() // no child started meanwhile inherits the socket
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		t.Fatal(err)
	}
	release = sync.OnceFunc(func() { _ = syscall.Close(fd) })
	t.Cleanup(release)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return sa.(*syscall.SockaddrInet4).Port, release
}

// checkSpinProfile checks a recording of spin.js: one thread, a profile
// that reads back with samples. Where the time went is logged, not
// checked: on a loaded machine V8 now and then gives spinHot's samples to
// its caller (processImmediate), and a process that barely ran has few
// JS samples; TestNode checks the hot function of a recording.
func checkSpinProfile(t *testing.T, rec *record.Recording) {
	t.Helper()
	if len(rec.Threads) != 1 {
		t.Fatalf("got %d threads (missing %q), want 1", len(rec.Threads), rec.Missing)
	}
	s := load(t, writeFile(t, "spin.cpuprofile", rec.Threads[0].Profile))
	n := s.Threads()[0].Info().Samples.Len()
	top := threadTop(t, s.Threads()[0])
	h := hottestJS(top)
	spin, _ := find(top, "spinHot")
	t.Logf("%s: stopped %s after %v, %d samples, hottest %s %v self, spinHot %v total", rec.Target, rec.Stopped, rec.End.Sub(rec.Start).Round(time.Millisecond),
		n, h.name, h.self.Round(time.Millisecond), spin.total.Round(time.Millisecond))
	if n == 0 {
		t.Error("the profile has no samples")
	}
}

// TestAttachInspect attaches to a process listening with --inspect, for
// --duration; the process keeps running.
func TestAttachInspect(t *testing.T) {
	t.Parallel()
	sp, port := startInspected(t)
	rec, err := record.Attach(testContext(t, 30*time.Second), "127.0.0.1:"+strconv.Itoa(port), record.NodeOptions{Duration: 600 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stopped != record.StopDuration || rec.PID != sp.pid {
		t.Errorf("got stop %q pid %d, want duration, pid %d", rec.Stopped, rec.PID, sp.pid)
	}
	checkSpinProfile(t, rec)
	time.Sleep(100 * time.Millisecond)
	if !sp.alive() {
		t.Error("the process ended; it should keep running after the recording")
	}
	// A second recording over the ws:// URL works too.
	var list []struct {
		URL string `json:"webSocketDebuggerUrl"`
	}
	if err := getJSON("127.0.0.1:"+strconv.Itoa(port), &list); err != nil || len(list) == 0 {
		t.Fatalf("/json/list: %v %v", list, err)
	}
	rec, err = record.Attach(testContext(t, 30*time.Second), list[0].URL, record.NodeOptions{Duration: 300 * time.Millisecond, Interval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	checkSpinProfile(t, rec)
}

func getJSON(addr string, v any) error {
	c := exec.Command("node", "-e", `fetch("http://`+addr+`/json/list").then(r => r.text()).then(t => process.stdout.write(t))`)
	out, err := c.Output()
	if err != nil {
		return err
	}
	return json.Unmarshal(out, v)
}

// TestAttachPID opens the inspector of a running process with SIGUSR1, on
// the port its --inspect-port names, records for --duration, and leaves the
// process running.
func TestAttachPID(t *testing.T) {
	t.Parallel()
	// Node must bind the port itself, after the signal: a port free when
	// chosen can be taken by then by a parallel test's listener (AttachPID
	// then finds another program on it) or connection (node then fails to
	// bind it, and says so). That is tried again on another port; any other
	// failure is the test's.
	var (
		sp       *spinning
		port     int
		progress []string
		rec      *record.Recording
		err      error
	)
	for try := 1; ; try++ {
		var release func()
		port, release = reservePort(t)
		release()
		sp = startSpin(t, nil, "--inspect-port="+strconv.Itoa(port))
		progress = nil
		rec, err = record.AttachPID(testContext(t, 30*time.Second), sp.pid, record.NodeOptions{
			Duration: 600 * time.Millisecond, Progress: func(m string) { progress = append(progress, m) },
		})
		taken := err != nil && (strings.Contains(sp.stderr.String(), "address already in use") ||
			strings.Contains(err.Error(), "which another program holds"))
		if taken && try < 3 {
			t.Logf("try %d: port %d was taken before node bound it: %v", try, port, err)
			continue
		}
		break
	}
	if err != nil {
		t.Fatalf("%v (node: %s)", err, sp.stderr.String())
	}
	if rec.PID != sp.pid || rec.Target != "pid "+strconv.Itoa(sp.pid) {
		t.Errorf("got pid %d target %q, want %d", rec.PID, rec.Target, sp.pid)
	}
	if len(progress) == 0 || !strings.Contains(progress[0], "SIGUSR1") || !strings.Contains(progress[0], strconv.Itoa(port)) {
		t.Errorf("progress: got %q, want SIGUSR1 and port %d first", progress, port)
	}
	checkSpinProfile(t, rec)
	time.Sleep(100 * time.Millisecond)
	if !sp.alive() {
		t.Error("the process ended; it should keep running after the recording")
	}
	// Again: the inspector is open now, and is found without a signal.
	rec, err = record.AttachPID(testContext(t, 30*time.Second), sp.pid, record.NodeOptions{Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	checkSpinProfile(t, rec)
}

// TestInterrupt cancels the context (what Ctrl-C does) mid-recording: the
// profile is collected and valid, and the program jsprof started is
// stopped.
func TestInterrupt(t *testing.T) {
	t.Parallel()
	requireNode(t)
	ctx, cancel := context.WithCancel(testContext(t, 60*time.Second))
	var out bytes.Buffer
	started := make(chan struct{})
	go func() {
		<-started
		time.Sleep(700 * time.Millisecond)
		cancel()
	}()
	rec, err := record.Node(ctx, []string{"node", "testdata/spin.js", "60000"}, record.NodeOptions{
		Stdout: &out, Progress: func(string) {
			select {
			case <-started:
			default:
				close(started)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stopped != record.StopInterrupted {
		t.Errorf("got stop %q, want interrupted", rec.Stopped)
	}
	if rec.Process == nil {
		t.Fatal("the program was not stopped")
	}
	if ws, ok := rec.Process.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGINT {
		t.Logf("program ended: %v", rec.Process)
	}
	checkSpinProfile(t, rec)
}

// TestErrors checks the one-line answers to the errors people hit.
func TestErrors(t *testing.T) {
	t.Parallel()
	requireNode(t)
	ctx := testContext(t, 60*time.Second)

	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleep.Process.Kill(); _ = sleep.Wait() })
	port, _ := reservePort(t)
	// Node 20 lacks --disable-sigusr1 (22.14 has it; procArgs' test covers
	// it): a process that handles SIGUSR1 itself does not open its
	// inspector either.
	noSignal := startSpin(t, []string{"SPIN_IGNORE_SIGUSR1=1"}, "--inspect-port="+strconv.Itoa(port))
	_, port2 := startInspected(t)

	// A process that exited: its pid is free (for now).
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}

	closed, _ := reservePort(t)
	// A port taken by some other HTTP server.
	other := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(other.Close)
	otherAddr := strings.TrimPrefix(other.URL, "http://")
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"no node", func() error {
			_, err := record.Node(ctx, []string{"no-such-node-binary", "app.js"}, record.NodeOptions{})
			return err
		}, `^no-such-node-binary not found on PATH: install Node.js, or give its path`},
		{"no node at that path", func() error {
			_, err := record.Node(ctx, []string{"/no/such/node", "app.js"}, record.NodeOptions{})
			return err
		}, `^cannot run /no/such/node: `},
		{"not a node command", func() error {
			_, err := record.Node(ctx, []string{"npm", "start"}, record.NodeOptions{})
			return err
		}, `^npm is not node: want a node command line \(node app.js …\); for an npm script, run its node command directly$`},
		{"exits before the inspector", func() error {
			_, err := record.Node(ctx, []string{"node", "--no-such-flag", "app.js"}, record.NodeOptions{})
			return err
		}, `^node exited \(exit status 9\) before its inspector opened: .*bad option: --no-such-flag`},
		{"no such process", func() error {
			_, err := record.AttachPID(ctx, gone.Process.Pid, record.NodeOptions{})
			return err
		}, `^no process with pid \d+$`},
		{"not node", func() error {
			_, err := record.AttachPID(ctx, sleep.Process.Pid, record.NodeOptions{})
			return err
		}, `^process \d+ \(sleep\) is not Node.js: SIGUSR1 would not open an inspector, and may kill it$`},
		{"inspector does not open", func() error {
			_, err := record.AttachPID(ctx, noSignal.pid, record.NodeOptions{})
			return err
		}, `^process \d+ did not open its inspector on 127.0.0.1:` + strconv.Itoa(port) + ` within 5 s after SIGUSR1 \(started with --disable-sigusr1`},
		{"nothing listening", func() error {
			_, err := record.Attach(ctx, "127.0.0.1:"+strconv.Itoa(closed), record.NodeOptions{})
			return err
		}, `^nothing is listening on 127.0.0.1:\d+ \(is the inspector open\?\)$`},
		{"port taken", func() error {
			_, err := record.Attach(ctx, otherAddr, record.NodeOptions{})
			return err
		}, `^127.0.0.1:\d+ is taken by a program that is not a DevTools endpoint \(GET /json/version: 404 Not Found\)$`},
		{"chrome port taken", func() error {
			_, err := record.Chrome(ctx, "about:blank", io.Discard, record.ChromeOptions{Port: other.Listener.Addr().(*net.TCPAddr).Port})
			return err
		}, `^127.0.0.1:\d+ is taken by a program that is not a DevTools endpoint \(GET /json/version: 404 Not Found\)$`},
		{"no chromium on the port", func() error {
			_, err := record.Chrome(ctx, "about:blank", io.Discard, record.ChromeOptions{Port: closed})
			return err
		}, `^nothing is listening on 127.0.0.1:\d+: start Chromium with --remote-debugging-port=\d+$`},
		{"node port given to --chrome-port", func() error {
			_, err := record.Chrome(ctx, "about:blank", io.Discard, record.ChromeOptions{Port: port2})
			return err
		}, `^127.0.0.1:\d+ is node.js/v20[.\d]+, not Chromium: record it with --inspect 127.0.0.1:\d+$`},
		{"bad address", func() error {
			_, err := record.Attach(ctx, "localhost", record.NodeOptions{})
			return err
		}, `^inspector address "localhost": want HOST:PORT or a ws:// URL$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil {
				t.Fatalf("got no error, want %s", tc.want)
			}
			if !regexp.MustCompile(tc.want).MatchString(err.Error()) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %q, want one line matching %s", err, tc.want)
			}
		})
	}
	if !noSignal.alive() {
		t.Error("the --disable-sigusr1 process was signalled")
	}
	if err := sleep.Process.Signal(syscall.Signal(0)); err != nil {
		t.Error("the sleep process was signalled")
	}
}

// TestLost kills the process mid-recording: the recording ends with
// StopLost and ErrConnectionLost, and says which profile is missing (V8
// hands a profile over only when it stops).
func TestLost(t *testing.T) {
	t.Parallel()
	sp, port := startInspected(t)
	go func() {
		time.Sleep(800 * time.Millisecond)
		_ = sp.cmd.Process.Kill()
	}()
	rec, err := record.Attach(testContext(t, 30*time.Second), "127.0.0.1:"+strconv.Itoa(port), record.NodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stopped != record.StopLost || !errors.Is(rec.Lost, record.ErrConnectionLost) || len(rec.Threads) != 0 || len(rec.Missing) != 1 {
		t.Errorf("got stop %q, lost %v, %d threads, missing %q; want lost, ErrConnectionLost, none, main missing", rec.Stopped, rec.Lost, len(rec.Threads), rec.Missing)
	}
}

// TestNodeWaitsAgain records a script that waits for a debugger after it
// started: the recorder resumes it (NodeRuntime.waitingForDebugger), as it
// resumes a Node that took its first resume before it began to wait, which
// hung a CI run's recording for its whole time limit with the script never
// run.
func TestNodeWaitsAgain(t *testing.T) {
	requireNode(t)
	var stdout bytes.Buffer
	var progress []string
	var mu sync.Mutex
	opts := record.NodeOptions{Stdout: &stdout, Progress: func(m string) { mu.Lock(); progress = append(progress, m); mu.Unlock() }}
	diagnose(t, &opts)
	rec, err := record.Node(testContext(t, 30*time.Second), []string{"node", "testdata/wait.js"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stopped != record.StopExited || stdout.String() != "before\nafter\n" {
		t.Errorf("got stop %q and stdout %q, want exited and before, after", rec.Stopped, stdout.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.ContainsFunc(progress, func(m string) bool { return strings.Contains(m, "was still waiting for a debugger: resumed it") }) {
		t.Errorf("progress %q: want the resume said", progress)
	}
}
