package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"

	"github.com/coder/websocket"
)

// ErrConnectionLost reports a DevTools connection that closed while
// recording. A Recording or trace that carries it holds what was received
// before the loss.
var ErrConnectionLost = errors.New("connection to the target lost")

// maxMessage bounds one protocol message: a Profiler.stop reply carries a
// whole profile (tens of MB for minutes at 100 µs).
const maxMessage = 2 << 30

// caller sends a command to one protocol target (a page, a Node thread)
// and decodes its result into res, which may be nil.
type caller interface {
	call(ctx context.Context, method string, params, res any) error
}

// protoError is an error reply of the protocol.
type protoError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// message is a protocol message in either direction.
type message struct {
	ID        int64           `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *protoError     `json:"error,omitempty"`
}

// event is a protocol event: a message without an id.
type event struct {
	Session string // flat session id (Chrome), "" for the connection's own target
	Method  string
	Params  json.RawMessage
}

// pending routes replies to their callers by id.
type pending struct {
	mu     sync.Mutex
	nextID int64
	wait   map[int64]chan *message
	err    error // once set, no more replies come
}

func (p *pending) add() (int64, chan *message, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return 0, nil, p.err
	}
	if p.wait == nil {
		p.wait = map[int64]chan *message{}
	}
	p.nextID++
	ch := make(chan *message, 1)
	p.wait[p.nextID] = ch
	return p.nextID, ch, nil
}

func (p *pending) remove(id int64) {
	p.mu.Lock()
	delete(p.wait, id)
	p.mu.Unlock()
}

// deliver hands a reply to its caller; unknown ids are dropped.
func (p *pending) deliver(m *message) {
	p.mu.Lock()
	ch, ok := p.wait[m.ID]
	delete(p.wait, m.ID)
	p.mu.Unlock()
	if ok {
		ch <- m
	}
}

// fail ends every pending call, and every later one, with err.
func (p *pending) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return
	}
	p.err = err
	for id, ch := range p.wait {
		close(ch)
		delete(p.wait, id)
	}
}

func (p *pending) failure() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// await waits for the reply to id and decodes it.
func (p *pending) await(ctx context.Context, id int64, ch chan *message, method string, res any) error {
	select {
	case reply, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: %w", method, p.failure())
		}
		if reply.Error != nil {
			return fmt.Errorf("%s: %s (code %d)", method, reply.Error.Message, reply.Error.Code)
		}
		if res != nil {
			if err := json.Unmarshal(reply.Result, res); err != nil {
				return fmt.Errorf("%s: decoding the reply: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		p.remove(id)
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// conn is a DevTools-protocol connection over a websocket. Its methods are
// safe for concurrent use. Events go to onEvent on the reading goroutine,
// in order; onEvent must not block on the connection.
type conn struct {
	ws      *websocket.Conn
	onEvent func(event)
	calls   pending
	cancel  context.CancelFunc
	done    chan struct{} // closed when reading stops
	log     *protocolLog  // nil: no log
}

// dial connects to a DevTools websocket (ws://host:port/…). log, when not
// nil, receives every message sent and received.
func dial(ctx context.Context, wsURL string, onEvent func(event), log io.Writer) (*conn, error) {
	ws, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPClient: loopbackClient})
	if err != nil {
		return nil, dialError(wsURL, err)
	}
	ws.SetReadLimit(maxMessage)
	rctx, cancel := context.WithCancel(context.Background())
	c := &conn{ws: ws, onEvent: onEvent, cancel: cancel, done: make(chan struct{})}
	if log != nil {
		c.log = &protocolLog{w: log}
	}
	go c.read(rctx)
	return c, nil
}

// protocolLog writes one line per protocol message: the wall-clock time,
// the direction, and the message cut to logMessage bytes (a Profiler.stop
// reply is a whole profile).
type protocolLog struct {
	mu sync.Mutex
	w  io.Writer
}

const logMessage = 400

func (l *protocolLog) message(dir string, data []byte) {
	if l == nil {
		return
	}
	cut := ""
	if len(data) > logMessage {
		cut = fmt.Sprintf(" …(%d bytes)", len(data))
		data = data[:logMessage]
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.w, "%s %s %s%s\n", time.Now().Format("15:04:05.000000"), dir, data, cut)
}

// dialError turns the usual failures into one-line answers.
func dialError(addr string, err error) error {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("nothing is listening on %s (is the inspector open?)", hostOf(addr))
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s did not answer in time: %w", hostOf(addr), err)
	}
	return fmt.Errorf("connecting to %s: %w", addr, err)
}

func hostOf(addr string) string {
	if u, err := url.Parse(addr); err == nil && u.Host != "" {
		return u.Host
	}
	return addr
}

func (c *conn) read(ctx context.Context) {
	defer close(c.done)
	for {
		_, data, err := c.ws.Read(ctx)
		if err != nil {
			c.log.message("!!", []byte(err.Error()))
			if ctx.Err() != nil {
				c.calls.fail(errors.New("connection closed"))
			} else if errors.Is(err, io.EOF) || websocket.CloseStatus(err) != -1 {
				c.calls.fail(ErrConnectionLost) // closed by the other end
			} else {
				c.calls.fail(fmt.Errorf("%w: %v", ErrConnectionLost, err))
			}
			if c.onEvent != nil {
				c.onEvent(event{Method: methodClosed})
			}
			return
		}
		c.log.message("<-", data)
		m := new(message)
		if err := json.Unmarshal(data, m); err != nil {
			continue // not a protocol message: ignore, as DevTools does
		}
		if m.Method == "" {
			c.calls.deliver(m)
			continue
		}
		if c.onEvent != nil {
			c.onEvent(event{Session: m.SessionID, Method: m.Method, Params: m.Params})
		}
	}
}

// methodClosed is the pseudo-event a connection delivers last, when it
// stops reading.
const methodClosed = "jsprof.closed"

// send calls method on the target of session ("": the connection's own).
func (c *conn) send(ctx context.Context, session, method string, params, res any) error {
	m := message{Method: method, SessionID: session}
	if params != nil {
		raw, err := json.Marshal(params)
		if err != nil {
			return err
		}
		m.Params = raw
	}
	id, ch, err := c.calls.add()
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	m.ID = id
	raw, err := json.Marshal(&m)
	if err != nil {
		c.calls.remove(id)
		return err
	}
	c.log.message("->", raw)
	if err := c.ws.Write(ctx, websocket.MessageText, raw); err != nil {
		c.calls.remove(id)
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", method, ctx.Err())
		}
		return fmt.Errorf("%s: %w: %v", method, ErrConnectionLost, err)
	}
	return c.calls.await(ctx, id, ch, method, res)
}

// call implements caller for the connection's own target.
func (c *conn) call(ctx context.Context, method string, params, res any) error {
	return c.send(ctx, "", method, params, res)
}

// session returns a caller for a flat (Chrome) session.
func (c *conn) session(id string) caller { return flatSession{c, id} }

type flatSession struct {
	c  *conn
	id string
}

func (s flatSession) call(ctx context.Context, method string, params, res any) error {
	return s.c.send(ctx, s.id, method, params, res)
}

// lost reports the error that ended the connection, if it ended.
func (c *conn) lost() error {
	select {
	case <-c.done:
		return c.calls.failure()
	default:
		return nil
	}
}

// close closes the connection and waits for the reader to stop.
func (c *conn) close() {
	c.cancel()
	_ = c.ws.CloseNow()
	<-c.done
}

// loopbackClient is the HTTP client for discovery (/json/version,
// /json/list) and the websocket handshake: no proxy, short timeouts.
var loopbackClient = &http.Client{
	Transport: &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		ResponseHeaderTimeout: 10 * time.Second,
		MaxIdleConns:          4,
		IdleConnTimeout:       5 * time.Second,
	},
}

// target is one entry of /json/list or /json/version.
type target struct {
	Type                 string `json:"type"`
	Title                string `json:"title"`
	URL                  string `json:"url"`
	WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	Browser              string `json:"Browser"`
}

// getJSON fetches http://addr/path and decodes it into v.
func getJSON(ctx context.Context, addr, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return err
	}
	resp, err := loopbackClient.Do(req)
	if err != nil {
		return dialError(addr, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("reading %s%s: %w", addr, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s is taken by a program that is not a DevTools endpoint (GET %s: %s)", addr, path, resp.Status)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s is taken by a program that is not a DevTools endpoint (GET %s: not its JSON)", addr, path)
	}
	return nil
}
