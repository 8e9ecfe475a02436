// Package browser drives headless Chromium for tests that must see output in
// a real browser (the SVG flame graph of format/svg). It speaks the Chrome
// DevTools protocol over a pipe (--remote-debugging-pipe: commands go to the
// browser's fd 3, replies and events come from its fd 4, each message a JSON
// object ended by a NUL byte), so it needs only the standard library.
//
// Chromium comes from Debian's chromium package: install.sh in this
// directory installs it. Find locates the binary; tests call Require, which
// fails (never skips) when there is no browser, with a message saying how
// to install one.
//
// A Page records every JavaScript dialog (alert, confirm, prompt) that opens
// in any of its frames, and dismisses it, so that a test can check that no
// script from untrusted data ran.
package browser

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// EnvBinary names the environment variable that overrides the Chromium
// binary Find looks for.
const EnvBinary = "JSPROF_CHROMIUM"

// candidates are the binaries Find tries, in order, after $JSPROF_CHROMIUM.
var candidates = []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns the path of a Chromium (or Chrome) binary: $JSPROF_CHROMIUM
// when set, else the first of /usr/bin/chromium, chromium, chromium-browser,
// google-chrome and google-chrome-stable found on PATH.
func Find() (string, error) {
	if p := os.Getenv(EnvBinary); p != "" {
		return exec.LookPath(p)
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found (looked for $" + EnvBinary + ", /usr/bin/chromium, chromium, chromium-browser, google-chrome)")
}

// Require returns the Chromium binary, or fails the test with a message
// saying how to install one: a missing browser is a failure, not a skip.
func Require(tb testing.TB) string {
	tb.Helper()
	p, err := Find()
	if err != nil {
		tb.Fatalf("%v: run tools/browser/install.sh (as root: apt-get install chromium), or set $%s; run go test -short to leave out the browser tests", err, EnvBinary)
	}
	return p
}

// Args are the command-line flags Start gives Chromium, besides
// --remote-debugging-pipe and --user-data-dir: headless, no sandbox (tests
// run as root in CI), and no network traffic of its own.
var Args = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-default-apps", "--disable-extensions", "--mute-audio", "--no-default-browser-check",
	"--allow-file-access-from-files",
}

// message is a protocol message in either direction.
type message struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// Browser is a running headless Chromium. Its methods are safe for
// concurrent use.
type Browser struct {
	cmd     *exec.Cmd
	in      *os.File // the browser's fd 3
	dataDir string
	stderr  *limitedBuffer
	done    chan struct{} // closed when the reader stops
	readErr error

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan *message
	pages   map[string]*Page // by session id
}

// Start launches the Chromium binary at path (from Find or Require) with a
// fresh profile directory, which Close removes.
func Start(ctx context.Context, path string) (*Browser, error) {
	dir, err := os.MkdirTemp("", "jsprof-chromium-")
	if err != nil {
		return nil, err
	}
	toBrowser, in, err := os.Pipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	out, fromBrowser, err := os.Pipe()
	if err != nil {
		toBrowser.Close()
		in.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	args := append(append([]string{}, Args...), "--remote-debugging-pipe", "--user-data-dir="+dir, "about:blank")
	cmd := exec.Command(path, args...)
	b := &Browser{cmd: cmd, in: in, dataDir: dir, stderr: &limitedBuffer{max: 64 << 10}, done: make(chan struct{}),
		pending: map[int64]chan *message{}, pages: map[string]*Page{}}
	cmd.Stderr = b.stderr
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // fds 3 and 4
	if err := cmd.Start(); err != nil {
		toBrowser.Close()
		fromBrowser.Close()
		in.Close()
		out.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	go b.read(out)
	// The first command proves the pipe works.
	var v struct {
		Product string `json:"product"`
	}
	if err := b.call(ctx, "", "Browser.getVersion", nil, &v); err != nil {
		b.Close()
		return nil, fmt.Errorf("talking to %s: %w", path, err)
	}
	return b, nil
}

// read delivers replies to their callers and events to their pages until
// the browser closes its end of the pipe.
func (b *Browser) read(out *os.File) {
	defer close(b.done)
	defer out.Close()
	r := bufio.NewReaderSize(out, 1<<20)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = err
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		m := new(message)
		if err := json.Unmarshal(raw[:len(raw)-1], m); err != nil {
			continue
		}
		b.mu.Lock()
		if m.Method == "" {
			if ch, ok := b.pending[m.ID]; ok {
				delete(b.pending, m.ID)
				ch <- m
			}
			b.mu.Unlock()
			continue
		}
		pg := b.pages[m.SessionID]
		b.mu.Unlock()
		if pg != nil {
			pg.event(m)
		}
	}
}

// call sends a command (to the browser when session is "", else to a page)
// and decodes its result into res (which may be nil).
func (b *Browser) call(ctx context.Context, session, method string, params, res any) error {
	m := message{Method: method, SessionID: session}
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return err
		}
		m.Params = raw
	}
	ch := make(chan *message, 1)
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return b.closedError()
	}
	b.nextID++
	m.ID = b.nextID
	b.pending[m.ID] = ch
	raw, err := json.Marshal(&m)
	if err == nil {
		_, err = b.in.Write(append(raw, 0))
	}
	if err != nil {
		delete(b.pending, m.ID)
		b.mu.Unlock()
		return fmt.Errorf("%s: %w", method, err)
	}
	b.mu.Unlock()
	select {
	case reply, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: %w", method, b.closedError())
		}
		if reply.Error != nil {
			return fmt.Errorf("%s: %s (code %d)", method, reply.Error.Message, reply.Error.Code)
		}
		if res != nil {
			if err := json.Unmarshal(reply.Result, res); err != nil {
				return fmt.Errorf("%s: decoding the result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, m.ID)
		b.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

func (b *Browser) closedError() error {
	return fmt.Errorf("the browser closed the protocol pipe; its stderr ends:\n%s", b.stderr.tail(2000))
}

// Close closes the browser (Browser.close, then a kill after 10 s) and
// removes its profile directory.
func (b *Browser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		err = <-exited
	}
	b.in.Close()
	<-b.done
	os.RemoveAll(b.dataDir)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		err = nil // killed or exited non-zero while closing: not the caller's problem
	}
	return err
}

// Dialog is a JavaScript dialog that opened in a page.
type Dialog struct {
	Type    string `json:"type"` // alert, confirm, prompt or beforeunload
	Message string `json:"message"`
	URL     string `json:"url"`
}

// Page is a browser tab, attached in flat session mode.
type Page struct {
	b         *Browser
	session   string
	mu        sync.Mutex
	dialogs   []Dialog
	errors    []string
	loadEvent chan struct{}
}

// NewPage opens a blank tab and enables the Page and Runtime domains.
func (b *Browser) NewPage(ctx context.Context) (*Page, error) {
	var tr struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &tr); err != nil {
		return nil, err
	}
	var ar struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": tr.TargetID, "flatten": true}, &ar); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: ar.SessionID}
	b.mu.Lock()
	b.pages[p.session] = p
	b.mu.Unlock()
	for _, m := range []string{"Page.enable", "Runtime.enable"} {
		if err := p.Call(ctx, m, nil, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Call sends a protocol command to the page and decodes its result into res
// (which may be nil).
func (p *Page) Call(ctx context.Context, method string, params, res any) error {
	return p.b.call(ctx, p.session, method, params, res)
}

func (p *Page) event(m *message) {
	switch m.Method {
	case "Page.javascriptDialogOpening":
		var d Dialog
		_ = json.Unmarshal(m.Params, &d)
		p.mu.Lock()
		p.dialogs = append(p.dialogs, d)
		p.mu.Unlock()
		// A dialog blocks its page until handled; the reader must not wait.
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = p.Call(ctx, "Page.handleJavaScriptDialog", map[string]any{"accept": false}, nil)
		}()
	case "Runtime.exceptionThrown":
		var e struct {
			Details struct {
				Text      string `json:"text"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
		}
		_ = json.Unmarshal(m.Params, &e)
		p.mu.Lock()
		p.errors = append(p.errors, e.Details.Text+" "+e.Details.Exception.Description)
		p.mu.Unlock()
	case "Page.loadEventFired":
		p.mu.Lock()
		if p.loadEvent != nil {
			close(p.loadEvent)
			p.loadEvent = nil
		}
		p.mu.Unlock()
	}
}

// AddInitScript makes src run in every new document of the page (and its
// frames) before the document's own scripts.
func (p *Page) AddInitScript(ctx context.Context, src string) error {
	return p.Call(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": src}, nil)
}

// Navigate loads url and waits for its load event.
func (p *Page) Navigate(ctx context.Context, url string) error {
	loaded := make(chan struct{})
	p.mu.Lock()
	p.loadEvent = loaded
	p.mu.Unlock()
	var res struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.Call(ctx, "Page.navigate", map[string]any{"url": url}, &res); err != nil {
		return err
	}
	if res.ErrorText != "" {
		return fmt.Errorf("navigating to %s: %s", url, res.ErrorText)
	}
	select {
	case <-loaded:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for %s to load: %w", url, ctx.Err())
	}
}

// NavigateFile loads a local file.
func (p *Page) NavigateFile(ctx context.Context, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	return p.Navigate(ctx, "file://"+filepath.ToSlash(abs))
}

// Eval evaluates a JavaScript expression in the page's main frame, awaiting
// it if it is a promise, and decodes its value (as JSON) into res (which
// may be nil). A thrown exception is an error.
func (p *Page) Eval(ctx context.Context, expr string, res any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r)
	if err != nil {
		return err
	}
	if e := r.ExceptionDetails; e != nil {
		return fmt.Errorf("evaluating script: %s %s", e.Text, e.Exception.Description)
	}
	if res == nil || len(r.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Result.Value, res)
}

// Dialogs returns the JavaScript dialogs that have opened in the page so far.
func (p *Page) Dialogs() []Dialog {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Dialog(nil), p.dialogs...)
}

// Exceptions returns the uncaught exceptions the page has reported so far.
func (p *Page) Exceptions() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errors...)
}

// limitedBuffer keeps the last max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(b)
	if l.buf.Len() > l.max {
		keep := l.buf.Bytes()[l.buf.Len()-l.max/2:]
		l.buf = *bytes.NewBuffer(append([]byte(nil), keep...))
	}
	return len(b), nil
}

func (l *limitedBuffer) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buf.Bytes()
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// SetViewport sets the page's size in CSS pixels and its device scale
// factor (0 keeps the default of 1).
func (p *Page) SetViewport(ctx context.Context, width, height int, scale float64) error {
	if scale == 0 {
		scale = 1
	}
	return p.Call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": scale, "mobile": false,
	}, nil)
}

// Screenshot captures the page's viewport as PNG.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var r struct {
		Data []byte `json:"data"` // base64 in the protocol; encoding/json decodes it
	}
	if err := p.Call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return nil, err
	}
	return r.Data, nil
}

// Mouse sends a mouse event at (x, y) in CSS pixels: typ is mouseMoved,
// mousePressed, mouseReleased or mouseWheel (with deltaY); button is
// "left" or "none"; clicks counts the clicks of a press or release.
func (p *Page) Mouse(ctx context.Context, typ string, x, y float64, button string, clicks int, deltaY float64) error {
	params := map[string]any{"type": typ, "x": x, "y": y, "button": button, "clickCount": clicks}
	if typ == "mouseWheel" {
		params["deltaX"], params["deltaY"] = 0, deltaY
	}
	return p.Call(ctx, "Input.dispatchMouseEvent", params, nil)
}

// WaitFor evaluates expr until it returns true (polling every 25 ms) or
// ctx ends.
func (p *Page) WaitFor(ctx context.Context, expr string) error {
	for {
		var ok bool
		if err := p.Eval(ctx, "Boolean("+expr+")", &ok); err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", expr, ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}
