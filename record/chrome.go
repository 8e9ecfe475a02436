package record

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EnvChromium names the environment variable that overrides the Chromium
// binary FindChromium looks for (the one tools/browser uses too).
const EnvChromium = "JSPROF_CHROMIUM"

// chromiumNames are the binaries FindChromium tries after $JSPROF_CHROMIUM,
// in tools/browser's order.
var chromiumNames = []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// FindChromium returns the path of a Chromium (or Chrome) binary:
// $JSPROF_CHROMIUM when set, else the first of /usr/bin/chromium,
// chromium, chromium-browser, google-chrome and google-chrome-stable on
// PATH.
func FindChromium() (string, error) {
	if p := os.Getenv(EnvChromium); p != "" {
		return exec.LookPath(p)
	}
	for _, c := range chromiumNames {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium on PATH: install it (Debian: apt-get install chromium; or tools/browser/install.sh), or give --browser PATH")
}

// ChromeArgs are the flags a started Chromium gets besides
// --remote-debugging-port and --user-data-dir: headless, and no traffic of
// its own. As root, --no-sandbox is added (Chromium refuses to run
// sandboxed as root).
var ChromeArgs = []string{
	"--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--mute-audio",
}

// TraceCategories are the trace categories DevTools' Performance panel
// records (TimelineController.startRecording, JS sampling on, no
// screenshots or layer pictures).
var TraceCategories = []string{
	"-*",
	"blink.console",
	"blink.user_timing",
	"devtools.timeline",
	"disabled-by-default-devtools.target-rundown",
	"disabled-by-default-devtools.timeline",
	"disabled-by-default-devtools.timeline.frame",
	"disabled-by-default-devtools.timeline.stack",
	"disabled-by-default-devtools.v8-source-rundown",
	"disabled-by-default-v8.compile",
	"disabled-by-default-v8.cpu_profiler",
	"disabled-by-default-v8.cpu_profiler.hires",
	"disabled-by-default-lighthouse",
	"latencyInfo",
	"loading",
	"v8.execute",
	"v8",
}

// ChromeOptions controls a Chromium recording. The zero value starts the
// installed Chromium headless and records the page's load until it has
// settled.
type ChromeOptions struct {
	// Browser is the Chromium binary; "" means FindChromium.
	Browser string
	// Port, when not 0, records from a Chromium already running with
	// --remote-debugging-port=Port on 127.0.0.1 instead of starting one:
	// the page opens in a new tab, which is closed afterwards.
	Port int
	// Duration, when not 0, records for this long from the navigation,
	// loaded or not; else recording stops Settle after the load event.
	Duration time.Duration
	// Settle is how long to go on after the load event; 0 means 1 s.
	Settle time.Duration
	// Interval 1 ms or more samples JS every 1 ms (Chromium's default
	// without the hires category); less, or 0, every ~100 µs as DevTools.
	Interval time.Duration
	// Gzip asks Chromium for a gzip-compressed trace, which is written
	// as it comes.
	Gzip bool
	// Progress, when set, receives one-line status messages.
	Progress func(msg string)
	// ProtocolLog, when set, receives every DevTools-protocol message, as
	// NodeOptions.ProtocolLog.
	ProtocolLog io.Writer
}

// TraceInfo describes a recorded trace.
type TraceInfo struct {
	Bytes    int64      // written to the output
	Browser  string     // product and version, e.g. "Chrome/131.0.6778.85"
	Stopped  StopReason // StopExited means the page loaded and settled
	Lost     error      // with StopLost: the trace may be cut short
	DataLoss bool       // Chromium reported that its trace buffer overflowed
	Start    time.Time
	End      time.Time
}

// Chrome records a Performance-panel trace of loading pageURL in Chromium
// and writes it to w, as Chromium streams it (gzip with opts.Gzip). It
// stops when the page has loaded and settled, after opts.Duration, or
// when ctx is done (Ctrl-C); the trace is written in each case.
func Chrome(ctx context.Context, pageURL string, w io.Writer, opts ChromeOptions) (*TraceInfo, error) {
	progress := func(format string, args ...any) {
		if opts.Progress != nil {
			opts.Progress(fmt.Sprintf(format, args...))
		}
	}
	var wsURL string
	var b *browserProc
	if opts.Port != 0 {
		addr := "127.0.0.1:" + strconv.Itoa(opts.Port)
		vctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		var v target
		err := getJSON(vctx, addr, "/json/version", &v)
		cancel()
		if err != nil && isRefused(err) {
			return nil, fmt.Errorf("nothing is listening on %s: start Chromium with --remote-debugging-port=%d", addr, opts.Port)
		}
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(v.Browser, "node") {
			return nil, fmt.Errorf("%s is %s, not Chromium: record it with --inspect %s", addr, v.Browser, addr)
		}
		if v.WebSocketDebuggerURL == "" {
			return nil, fmt.Errorf("%s gives no browser websocket", addr)
		}
		wsURL = v.WebSocketDebuggerURL
	} else {
		path := opts.Browser
		var err error
		if path == "" {
			if path, err = FindChromium(); err != nil {
				return nil, err
			}
		} else if path, err = exec.LookPath(path); err != nil {
			return nil, fmt.Errorf("--browser %s: %w", opts.Browser, err)
		}
		if b, err = startBrowser(ctx, path); err != nil {
			return nil, err
		}
		defer b.close()
		wsURL = b.wsURL
	}

	t := &tracer{loaded: make(chan struct{}), complete: make(chan string, 1), closed: make(chan struct{})}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c, err := dial(cctx, wsURL, t.event, opts.ProtocolLog)
	if err != nil {
		return nil, err
	}
	defer c.close()
	info := &TraceInfo{}
	var v struct {
		Product string `json:"product"`
	}
	if err := c.call(cctx, "Browser.getVersion", nil, &v); err != nil {
		return nil, err
	}
	info.Browser = strings.TrimPrefix(v.Product, "Headless")
	var tr struct {
		TargetID string `json:"targetId"`
	}
	if err := c.call(cctx, "Target.createTarget", map[string]any{"url": "about:blank"}, &tr); err != nil {
		return nil, err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.call(ctx, "Target.closeTarget", map[string]any{"targetId": tr.TargetID}, nil)
	}()
	var ar struct {
		SessionID string `json:"sessionId"`
	}
	if err := c.call(cctx, "Target.attachToTarget", map[string]any{"targetId": tr.TargetID, "flatten": true}, &ar); err != nil {
		return nil, err
	}
	t.page = ar.SessionID
	page := c.session(ar.SessionID)
	if err := page.call(cctx, "Page.enable", nil, nil); err != nil {
		return nil, err
	}
	cats := TraceCategories
	if opts.Interval >= time.Millisecond {
		cats = slicesWithout(cats, "disabled-by-default-v8.cpu_profiler.hires")
	}
	compression := "none"
	if opts.Gzip {
		compression = "gzip"
	}
	if err := page.call(cctx, "Tracing.start", map[string]any{
		"categories":        strings.Join(cats, ","),
		"transferMode":      "ReturnAsStream",
		"streamFormat":      "json",
		"streamCompression": compression,
	}, nil); err != nil {
		return nil, err
	}
	info.Start = time.Now()
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	navErr := page.call(cctx, "Page.navigate", map[string]any{"url": pageURL}, &nav)
	if navErr == nil && nav.ErrorText != "" {
		navErr = fmt.Errorf("loading %s: %s", pageURL, nav.ErrorText)
	}
	if navErr == nil {
		progress("recording %s in %s; Ctrl-C stops", pageURL, info.Browser)
		info.Stopped = t.wait(ctx, &opts)
		if info.Stopped == StopLost {
			info.Lost = c.lost()
		}
	}

	// Stop tracing and read the stream, even after Ctrl-C.
	sctx, cancel2 := context.WithTimeout(context.WithoutCancel(ctx), 60*time.Second)
	defer cancel2()
	if err := page.call(sctx, "Tracing.end", nil, nil); err != nil {
		if navErr != nil {
			return nil, navErr
		}
		return nil, fmt.Errorf("stopping the trace: %w", err)
	}
	var handle string
	select {
	case handle = <-t.complete:
	case <-t.closed:
		return nil, fmt.Errorf("the browser went away before sending the trace: %w", ErrConnectionLost)
	case <-sctx.Done():
		return nil, fmt.Errorf("the browser did not finish the trace within 60 s")
	}
	if navErr != nil {
		_ = page.call(sctx, "IO.close", map[string]any{"handle": handle}, nil)
		return nil, navErr
	}
	info.DataLoss = t.dataLoss
	n, err := readStream(sctx, page, handle, w)
	info.Bytes = n
	info.End = time.Now()
	if err != nil {
		if errors.Is(err, ErrConnectionLost) {
			info.Stopped, info.Lost = StopLost, err
			return info, nil
		}
		return info, err
	}
	return info, nil
}

// readStream copies an IO stream (IO.read until EOF) to w.
func readStream(ctx context.Context, c caller, handle string, w io.Writer) (int64, error) {
	var n int64
	for {
		var res struct {
			Base64Encoded bool   `json:"base64Encoded"`
			Data          string `json:"data"`
			EOF           bool   `json:"eof"`
		}
		if err := c.call(ctx, "IO.read", map[string]any{"handle": handle, "size": 1 << 20}, &res); err != nil {
			return n, fmt.Errorf("reading the trace: %w", err)
		}
		data := []byte(res.Data)
		if res.Base64Encoded {
			var err error
			if data, err = base64.StdEncoding.DecodeString(res.Data); err != nil {
				return n, fmt.Errorf("reading the trace: %w", err)
			}
		}
		k, err := w.Write(data)
		n += int64(k)
		if err != nil {
			return n, fmt.Errorf("writing the trace: %w", err)
		}
		if res.EOF {
			break
		}
	}
	_ = c.call(ctx, "IO.close", map[string]any{"handle": handle}, nil)
	return n, nil
}

// tracer follows the events of one traced page.
type tracer struct {
	page      string // flat session id
	loadOnce  sync.Once
	loaded    chan struct{}
	complete  chan string // the stream handle
	closed    chan struct{}
	closeOnce sync.Once
	dataLoss  bool
}

func (t *tracer) event(ev event) {
	switch ev.Method {
	case methodClosed:
		t.closeOnce.Do(func() { close(t.closed) })
	case "Page.loadEventFired":
		if ev.Session == t.page {
			t.loadOnce.Do(func() { close(t.loaded) })
		}
	case "Tracing.tracingComplete":
		var p struct {
			Stream           string `json:"stream"`
			DataLossOccurred bool   `json:"dataLossOccurred"`
		}
		_ = json.Unmarshal(ev.Params, &p)
		t.dataLoss = p.DataLossOccurred
		select {
		case t.complete <- p.Stream:
		default:
		}
	case "Target.detachedFromTarget":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(ev.Params, &p)
		if p.SessionID == t.page {
			t.closeOnce.Do(func() { close(t.closed) })
		}
	}
}

// wait returns when recording should stop.
func (t *tracer) wait(ctx context.Context, opts *ChromeOptions) StopReason {
	var limit <-chan time.Time
	if opts.Duration > 0 {
		tm := time.NewTimer(opts.Duration)
		defer tm.Stop()
		limit = tm.C
	}
	loaded := t.loaded
	if opts.Duration > 0 {
		loaded = nil // record the whole duration
	}
	for {
		select {
		case <-loaded:
			settle := opts.Settle
			if settle <= 0 {
				settle = time.Second
			}
			tm := time.NewTimer(settle)
			defer tm.Stop()
			limit, loaded = tm.C, nil
			continue
		case <-limit:
			if opts.Duration > 0 {
				return StopDuration
			}
			return StopExited
		case <-ctx.Done():
			return StopInterrupted
		case <-t.closed:
			return StopLost
		}
	}
}

// browserProc is a Chromium the recorder started.
type browserProc struct {
	cmd    *exec.Cmd
	dir    string
	wsURL  string
	exited chan struct{}
}

// startBrowser starts Chromium headless with a fresh profile directory and
// its DevTools endpoint on a free loopback port.
func startBrowser(ctx context.Context, path string) (*browserProc, error) {
	dir, err := os.MkdirTemp("", "jsprof-record-chromium-")
	if err != nil {
		return nil, err
	}
	args := append([]string{}, ChromeArgs...)
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	args = append(args, "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir="+dir, "about:blank")
	cmd := exec.Command(path, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	b := &browserProc{cmd: cmd, dir: dir, exited: make(chan struct{})}
	found := make(chan string, 1)
	var tailMu sync.Mutex
	var tail []string
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, "DevTools listening on "); ok {
				select {
				case found <- strings.TrimSpace(u):
				default:
				}
				continue
			}
			tailMu.Lock()
			tail = append(tail, line)
			if len(tail) > 5 {
				tail = tail[1:]
			}
			tailMu.Unlock()
		}
		_ = cmd.Wait()
		close(b.exited)
	}()
	tm := time.NewTimer(30 * time.Second)
	defer tm.Stop()
	select {
	case b.wsURL = <-found:
		return b, nil
	case <-b.exited:
		tailMu.Lock()
		defer tailMu.Unlock()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s exited (%v) before opening its DevTools port: %s", path, cmd.ProcessState, strings.Join(tail, " | "))
	case <-tm.C:
		b.close()
		return nil, fmt.Errorf("%s did not open its DevTools port within 30 s", path)
	case <-ctx.Done():
		b.close()
		return nil, ctx.Err()
	}
}

// close ends the browser (SIGINT to its process group, SIGKILL 5 s later)
// and removes its profile directory.
func (b *browserProc) close() {
	interruptGroup(b.cmd.Process)
	select {
	case <-b.exited:
	case <-time.After(5 * time.Second):
		killGroup(b.cmd.Process)
		<-b.exited
	}
	os.RemoveAll(b.dir)
}

func slicesWithout(s []string, drop string) []string {
	var out []string
	for _, x := range s {
		if x != drop {
			out = append(out, x)
		}
	}
	return out
}
