package record

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultInterval is the sampling interval when NodeOptions.Interval is 0:
// 100 µs, as DevTools' JavaScript profiler uses with high-resolution
// profiling on (its default). node --cpu-prof uses 1 ms.
const DefaultInterval = 100 * time.Microsecond

// NodeOptions controls a Node recording. The zero value records every
// 100 µs until the program exits or ctx is done.
type NodeOptions struct {
	// Interval is the sampling interval (rounded down to whole µs, at
	// least 1 µs); 0 means DefaultInterval.
	Interval time.Duration
	// Duration stops the recording after this long; 0 means no limit.
	Duration time.Duration

	// Stdin, Stdout and Stderr are the streams of a program Node starts;
	// nil means none (stdin reads nothing, output is discarded). The
	// inspector's own messages ("Debugger listening on …") are kept out of
	// Stderr.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Dir is the program's working directory ("": the current one); Env
	// its environment (nil: the current one).
	Dir string
	Env []string

	// Progress, when set, receives one-line status messages ("recording
	// pid 4242 every 100µs", "worker 1 started"). It is called from
	// several goroutines, one call at a time.
	Progress func(msg string)
	// ProtocolLog, when set, receives every DevTools-protocol message sent
	// and received (workers' inside their NodeWorker envelopes), a line
	// each, cut to 400 bytes: what to look at when a recording hangs.
	ProtocolLog io.Writer
}

func (o *NodeOptions) interval() time.Duration {
	if o.Interval <= 0 {
		return DefaultInterval
	}
	return max(o.Interval, time.Microsecond)
}

// StopReason says why a recording ended.
type StopReason string

// The reasons a recording ends.
const (
	StopExited      StopReason = "exited"      // the program (or page load) finished
	StopDuration    StopReason = "duration"    // the Duration elapsed
	StopInterrupted StopReason = "interrupted" // ctx was done (Ctrl-C)
	StopLost        StopReason = "lost"        // the connection closed unexpectedly
)

// Thread is one recorded JavaScript thread: Node's main thread or a worker.
type Thread struct {
	Name     string // "main", or the worker's name as Node gives it ("[worker 1] cruncher")
	URL      string // the worker's script, "" for the main thread
	ThreadID int    // Node's threadId: 0 for the main thread, then 1, 2, … for workers
	Parent   int    // ThreadID of the thread that started the worker (0 for the main thread)
	// Profile is the profile exactly as V8 sent it (Profiler.stop's
	// result.profile): the JSON of a .cpuprofile file.
	Profile []byte
}

// Recording is the result of a Node recording.
type Recording struct {
	// PID is the Node process (0 when not known).
	PID int
	// Target says what was recorded: the command line, "pid 4242" or the
	// inspector's address.
	Target string
	// Interval is the sampling interval asked for.
	Interval time.Duration
	// Threads are the recorded threads: the main thread first, then the
	// workers by threadId. A thread whose profile could not
	// be collected is not here but in Missing.
	Threads []Thread
	// Missing names threads whose profiles were lost (a worker that was
	// terminated before it could be stopped, a lost connection), each
	// with the reason.
	Missing []string
	// Stopped says why recording ended.
	Stopped StopReason
	// Lost is the error that ended the connection when Stopped is
	// StopLost; Threads then holds what had been received.
	Lost error
	// Process is how the program ended, when Node was started by the
	// recorder and has ended; nil otherwise.
	Process *os.ProcessState
	// Start and End are wall-clock times of the recording.
	Start, End time.Time
}

// nodeThread is one JavaScript thread reachable over the connection.
type nodeThread struct {
	r        *nodeRecorder
	parent   *nodeThread // nil for the main thread
	session  string      // NodeWorker session id (workers)
	info     Thread
	calls    pending // replies to commands sent through the parent (workers)
	children map[string]*nodeThread

	setup   chan struct{} // closed when setting up has ended
	started bool          // the profiler runs (set before setup closes)
	// resumed is set once setting up has asked the thread to run: a
	// NodeRuntime.waitingForDebugger after that resumes it again.
	resumed  atomic.Bool
	stopOnce sync.Once
	stopped  chan struct{} // closed when the profile is collected or given up
	profile  []byte
	lostWhy  string
}

// call implements caller: the main thread directly, a worker through its
// parent's NodeWorker.sendMessageToWorker.
func (t *nodeThread) call(ctx context.Context, method string, params, res any) error {
	if t.parent == nil {
		return t.r.c.call(ctx, method, params, res)
	}
	id, ch, err := t.calls.add()
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	m := message{ID: id, Method: method}
	if params != nil {
		if m.Params, err = json.Marshal(params); err != nil {
			t.calls.remove(id)
			return err
		}
	}
	raw, err := json.Marshal(&m)
	if err != nil {
		t.calls.remove(id)
		return err
	}
	if err := t.parent.call(ctx, "NodeWorker.sendMessageToWorker", map[string]any{"sessionId": t.session, "message": string(raw)}, nil); err != nil {
		t.calls.remove(id)
		return fmt.Errorf("%s: %w", method, err)
	}
	return t.calls.await(ctx, id, ch, method, res)
}

// nodeRecorder records every thread of one Node process.
type nodeRecorder struct {
	opts    *NodeOptions
	c       *conn
	main    *nodeThread
	ctx     context.Context // for setting up workers; done when the recording ends
	cancel  context.CancelFunc
	stopCtx context.Context // for stopping: outlives an interrupted ctx

	mu       sync.Mutex
	threads  []*nodeThread
	stopping bool
	exited   chan struct{} // the main thread waits for the debugger to disconnect
	exitOnce sync.Once
	closed   chan struct{} // the connection closed
	wg       sync.WaitGroup
	progMu   sync.Mutex
}

func (r *nodeRecorder) progress(format string, args ...any) {
	if r.opts.Progress == nil {
		return
	}
	r.progMu.Lock()
	defer r.progMu.Unlock()
	r.opts.Progress(fmt.Sprintf(format, args...))
}

// connectNode connects to a Node inspector websocket and returns a
// recorder whose main thread is not yet set up.
func connectNode(ctx context.Context, wsURL string, opts *NodeOptions) (*nodeRecorder, error) {
	r := &nodeRecorder{opts: opts, exited: make(chan struct{}), closed: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.WithoutCancel(ctx))
	r.stopCtx = context.WithoutCancel(ctx)
	r.main = r.newThread(nil, "", Thread{Name: "main"})
	c, err := dial(ctx, wsURL, func(ev event) { r.event(r.main, ev) }, opts.ProtocolLog)
	if err != nil {
		r.cancel()
		return nil, err
	}
	r.c = c
	return r, nil
}

func (r *nodeRecorder) newThread(parent *nodeThread, session string, info Thread) *nodeThread {
	t := &nodeThread{r: r, parent: parent, session: session, info: info, children: map[string]*nodeThread{},
		setup: make(chan struct{}), stopped: make(chan struct{})}
	r.mu.Lock()
	r.threads = append(r.threads, t)
	r.mu.Unlock()
	return t
}

// event handles an event of thread t. It runs on the connection's reading
// goroutine and must not wait for replies.
func (r *nodeRecorder) event(t *nodeThread, ev event) {
	switch ev.Method {
	case methodClosed:
		r.mu.Lock()
		for _, w := range r.threads[1:] {
			w.calls.fail(ErrConnectionLost)
		}
		r.mu.Unlock()
		close(r.closed)
	case "NodeRuntime.waitingForDebugger":
		// Node can take the Runtime.runIfWaitingForDebugger of setting up
		// while it is still starting, before it begins to wait for a
		// debugger, and then wait for ever: the script never ran (seen in
		// CI, one recording in many). It says when it waits; once set up,
		// the thread is resumed again.
		if !t.resumed.Load() {
			return // setting up resumes it
		}
		r.wg.Go(func() {
			ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
			defer cancel()
			if t.call(ctx, "Runtime.runIfWaitingForDebugger", nil, nil) == nil {
				r.progress("%s was still waiting for a debugger: resumed it", t.info.Name)
			}
		})
	case "NodeRuntime.waitingForDisconnect":
		if t.parent == nil {
			r.exitOnce.Do(func() { close(r.exited) })
			return
		}
		// A worker is ending: collect its profile, then let it go.
		r.wg.Go(func() {
			r.stopThread(t, "")
			_ = t.parent.call(r.stopCtx, "NodeWorker.detach", map[string]any{"sessionId": t.session}, nil)
		})
	case "NodeWorker.attachedToWorker":
		var p struct {
			SessionID  string `json:"sessionId"`
			WorkerInfo struct {
				WorkerID string `json:"workerId"`
				Title    string `json:"title"`
				URL      string `json:"url"`
			} `json:"workerInfo"`
		}
		if json.Unmarshal(ev.Params, &p) != nil || p.SessionID == "" {
			return
		}
		// The title is "[worker THREADID] NAME"; workerId is only the
		// session's count.
		id, _ := strconv.Atoi(p.WorkerInfo.WorkerID)
		if rest, ok := strings.CutPrefix(p.WorkerInfo.Title, "[worker "); ok {
			if n, _, ok := strings.Cut(rest, "]"); ok {
				if v, err := strconv.Atoi(n); err == nil {
					id = v
				}
			}
		}
		w := r.newThread(t, p.SessionID, Thread{Name: p.WorkerInfo.Title, URL: p.WorkerInfo.URL, ThreadID: id, Parent: t.info.ThreadID})
		if w.info.Name == "" {
			w.info.Name = "worker " + p.WorkerInfo.WorkerID
		}
		r.mu.Lock()
		t.children[p.SessionID] = w
		r.mu.Unlock()
		r.wg.Go(func() { r.setupThread(w) })
	case "NodeWorker.detachedFromWorker":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(ev.Params, &p)
		r.mu.Lock()
		w := t.children[p.SessionID]
		r.mu.Unlock()
		if w != nil {
			w.calls.fail(errors.New("the worker ended"))
			r.wg.Go(func() { r.stopThread(w, "it ended before its profile could be collected") })
		}
	case "NodeWorker.receivedMessageFromWorker":
		var p struct {
			SessionID string `json:"sessionId"`
			Message   string `json:"message"`
		}
		if json.Unmarshal(ev.Params, &p) != nil {
			return
		}
		r.mu.Lock()
		w := t.children[p.SessionID]
		r.mu.Unlock()
		if w == nil {
			return
		}
		m := new(message)
		if json.Unmarshal([]byte(p.Message), m) != nil {
			return
		}
		if m.Method == "" {
			w.calls.deliver(m)
			return
		}
		r.event(w, event{Method: m.Method, Params: m.Params})
	}
}

// setupThread starts the profiler on t and lets it run. A thread that
// appears after stopping began is only let run.
func (r *nodeRecorder) setupThread(t *nodeThread) {
	defer close(t.setup)
	ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
	defer cancel()
	r.mu.Lock()
	stopping := r.stopping
	r.mu.Unlock()
	if !stopping {
		// Optional: older Nodes lack it, and then a worker's end is seen
		// only when it detaches.
		_ = t.call(ctx, "NodeRuntime.notifyWhenWaitingForDisconnect", map[string]any{"enabled": true}, nil)
		// Optional too: NodeRuntime.waitingForDebugger events (see event).
		_ = t.call(ctx, "NodeRuntime.enable", nil, nil)
		err := t.call(ctx, "Profiler.enable", nil, nil)
		if err == nil {
			err = t.call(ctx, "Profiler.setSamplingInterval", map[string]any{"interval": r.opts.interval().Microseconds()}, nil)
		}
		if err == nil {
			err = t.call(ctx, "Profiler.start", nil, nil)
		}
		if err != nil {
			t.lostWhy = "its profiler could not be started: " + err.Error()
		} else {
			r.mu.Lock()
			t.started = true
			r.mu.Unlock()
			if t.parent != nil {
				r.progress("recording %s", t.info.Name)
			}
		}
		// Workers of workers.
		_ = t.call(ctx, "NodeWorker.enable", map[string]any{"waitForDebuggerOnStart": true}, nil)
	}
	t.resumed.Store(true)
	_ = t.call(ctx, "Runtime.runIfWaitingForDebugger", nil, nil)
	// Enabling NodeRuntime again reports waitingForDebugger if the thread
	// is waiting still (the race above, already lost).
	_ = t.call(ctx, "NodeRuntime.enable", nil, nil)
}

// stopThread collects t's profile once; why (if not "") is the reason to
// record when no profile comes.
func (r *nodeRecorder) stopThread(t *nodeThread, why string) {
	t.stopOnce.Do(func() {
		defer close(t.stopped)
		<-t.setup
		r.mu.Lock()
		started := t.started
		r.mu.Unlock()
		if !started {
			if t.lostWhy == "" {
				t.lostWhy = "it started after recording stopped"
			}
			return
		}
		ctx, cancel := context.WithTimeout(r.stopCtx, 60*time.Second)
		defer cancel()
		var res struct {
			Profile json.RawMessage `json:"profile"`
		}
		if err := t.call(ctx, "Profiler.stop", nil, &res); err != nil {
			if why == "" {
				why = "stopping its profiler failed: " + err.Error()
			}
			t.lostWhy = why
			return
		}
		t.profile = res.Profile
	})
}

// record runs a recording on a connected recorder: set up the main thread,
// run until a stop condition, stop every thread. done, when not nil, is
// closed when the program ends by itself.
func (r *nodeRecorder) record(ctx context.Context, rec *Recording, done <-chan struct{}) {
	defer r.cancel()
	rec.Interval = r.opts.interval()
	rec.Start = time.Now()

	// The main thread. Its setup also resumes a program waiting for the
	// debugger (--inspect-brk).
	r.wg.Go(func() { r.setupThread(r.main) })
	<-r.main.setup

	var timer <-chan time.Time
	if r.opts.Duration > 0 {
		t := time.NewTimer(r.opts.Duration)
		defer t.Stop()
		timer = t.C
	}
	if r.main.started {
		target := fmt.Sprintf("%s (pid %d)", rec.Target, rec.PID)
		if strings.HasPrefix(rec.Target, "pid ") {
			target = rec.Target
		}
		r.progress("recording %s every %v; Ctrl-C stops", target, rec.Interval)
	}
	select {
	case <-r.exited:
		rec.Stopped = StopExited
	case <-done:
		rec.Stopped = StopExited
	case <-timer:
		rec.Stopped = StopDuration
	case <-ctx.Done():
		rec.Stopped = StopInterrupted
	case <-r.closed:
		rec.Stopped = StopLost
		rec.Lost = r.c.lost()
	}
	r.mu.Lock()
	r.stopping = true
	threads := append([]*nodeThread(nil), r.threads...)
	r.mu.Unlock()

	// Workers first (their profiles travel through the main thread), then
	// the main thread.
	var wg sync.WaitGroup
	for _, t := range threads[1:] {
		wg.Go(func() { r.stopThread(t, "") })
	}
	wg.Wait()
	r.stopThread(r.main, "")
	rec.End = time.Now()
	r.cancel()
	r.c.close()
	r.wg.Wait()

	r.mu.Lock()
	threads = append([]*nodeThread(nil), r.threads...)
	r.mu.Unlock()
	slices.SortStableFunc(threads[1:], func(a, b *nodeThread) int { return cmp.Compare(a.info.ThreadID, b.info.ThreadID) })
	for _, t := range threads {
		if t.profile != nil {
			rec.Threads = append(rec.Threads, t.info)
			rec.Threads[len(rec.Threads)-1].Profile = t.profile
			continue
		}
		why := t.lostWhy
		if why == "" {
			why = "no profile came back"
		}
		rec.Missing = append(rec.Missing, t.info.Name+": "+why)
	}
	if rec.Stopped == StopLost && rec.Lost == nil {
		rec.Lost = ErrConnectionLost
	}
}

// Attach records a Node process whose inspector is already listening: addr
// is HOST:PORT (its first target is recorded) or the ws:// URL of a target.
// Recording stops when ctx is done, after opts.Duration, or when the
// process exits; the process keeps running. Interrupting ctx is a normal
// end: the recording is returned with Stopped set to StopInterrupted.
func Attach(ctx context.Context, addr string, opts NodeOptions) (*Recording, error) {
	wsURL, err := nodeTargetURL(ctx, addr)
	if err != nil {
		return nil, err
	}
	return attachURL(ctx, wsURL, addr, 0, &opts)
}

// attachURL records the Node target at wsURL; wantPID, when not 0, is the
// process the target must belong to.
func attachURL(ctx context.Context, wsURL, name string, wantPID int, opts *NodeOptions) (*Recording, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r, err := connectNode(cctx, wsURL, opts)
	if err != nil {
		return nil, err
	}
	pid, err := r.pid(cctx)
	if err != nil {
		r.abort()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if wantPID != 0 && pid != wantPID {
		r.abort()
		return nil, fmt.Errorf("the inspector on %s belongs to pid %d, not %d: another Node process holds that port", hostOf(wsURL), pid, wantPID)
	}
	rec := &Recording{PID: pid, Target: name}
	if wantPID != 0 {
		rec.Target = "pid " + strconv.Itoa(pid)
	}
	r.record(ctx, rec, nil)
	return rec, nil
}

// abort closes a recorder that will not record.
func (r *nodeRecorder) abort() {
	r.cancel()
	r.c.close()
}

// pid asks the main thread for its process id.
func (r *nodeRecorder) pid(ctx context.Context) (int, error) {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
	}
	if err := r.c.call(ctx, "Runtime.evaluate", map[string]any{"expression": "process.pid", "returnByValue": true}, &res); err != nil {
		if errors.Is(err, ErrConnectionLost) {
			return 0, errors.New("the target exited while jsprof was connecting")
		}
		return 0, err
	}
	pid, err := strconv.Atoi(string(res.Result.Value))
	if err != nil {
		return 0, fmt.Errorf("the target is not Node.js (process.pid is %s)", res.Result.Value)
	}
	return pid, nil
}

// nodeTargetURL resolves HOST:PORT or a ws:// URL to the websocket of a
// Node target.
func nodeTargetURL(ctx context.Context, addr string) (string, error) {
	if strings.HasPrefix(addr, "ws://") || strings.HasPrefix(addr, "wss://") {
		return addr, nil
	}
	addr = strings.TrimPrefix(strings.TrimSuffix(addr, "/"), "http://")
	if !strings.Contains(addr, ":") {
		return "", fmt.Errorf("inspector address %q: want HOST:PORT or a ws:// URL", addr)
	}
	if strings.HasPrefix(addr, ":") {
		addr = "127.0.0.1" + addr
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var v target
	if err := getJSON(ctx, addr, "/json/version", &v); err != nil {
		return "", err
	}
	if !strings.HasPrefix(v.Browser, "node") {
		return "", fmt.Errorf("%s is %s, not Node.js: record a browser with --chrome URL --chrome-port PORT", addr, v.Browser)
	}
	var list []target
	if err := getJSON(ctx, addr, "/json/list", &list); err != nil {
		return "", err
	}
	for _, t := range list {
		if t.WebSocketDebuggerURL != "" {
			return t.WebSocketDebuggerURL, nil
		}
	}
	return "", fmt.Errorf("%s lists no target to attach to (is a debugger already attached?)", addr)
}
