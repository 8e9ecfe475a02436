// Package server is jsprof's viewer: an http.Handler that serves the page
// (plain ES modules, HTML and CSS embedded from ui/) and a JSON API over a
// session.Session that answers per viewport: flame-chart boxes for a time
// window and a width in pixels (entries under a pixel merged), activity
// graphs binned per pixel, trees trimmed to what is open.
//
// Safety: every request must carry a Host header naming the served address
// (Options.Hosts; by default a loopback name), which defeats DNS
// rebinding; no CORS header is ever sent; every answer carries a strict
// Content-Security-Policy (scripts, styles and requests only from the page's
// own origin, no inline script, no eval); profile strings reach the page as
// JSON data that the page shows as text. Source files are read only under
// Options.SourceRoots (see source.go).
package server

import (
	"context"
	"embed"
	"encoding/json"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

//go:embed ui/*.html ui/*.css ui/*.js
var uiFS embed.FS

// CSP is the Content-Security-Policy of every answer.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Options configures New. The zero value accepts loopback Host headers and
// reads no source files.
type Options struct {
	// Hosts are the accepted values of the Host header ("127.0.0.1:8080").
	// Empty: any port on localhost, 127.0.0.1 or [::1].
	Hosts []string
	// IPHostPort, if set, also accepts any IP literal with this port as the
	// Host (for a server bound to all interfaces: DNS rebinding needs a
	// name, so IP literals are safe).
	IPHostPort string
	// SourceRoots are the directories the source view may read under.
	SourceRoots []string
	// Pending, with a nil session, is the load in progress: the API answers
	// 503 with its progress until it is done.
	Pending *Pending
	// Diff, if set, is the profile (NEW) the page's (BASE) is compared
	// with: /api/diff answers, and the page shows the deltas.
	Diff *Pending
	// DiffName names NEW on the page.
	DiffName string
}

// Pending is a session being loaded. Its methods are safe for concurrent
// use.
type Pending struct {
	mu   sync.Mutex
	read int64
	size int64
	sess *session.Session
	err  error
	done chan struct{}
}

// NewPending returns a load in progress of a file of size bytes (−1 if
// unknown).
func NewPending(size int64) *Pending { return &Pending{size: size, done: make(chan struct{})} }

// Progress records the bytes read so far (session.Options.Progress).
func (p *Pending) Progress(read int64) {
	p.mu.Lock()
	p.read = read
	p.mu.Unlock()
}

// Done records the end of the load.
func (p *Pending) Done(s *session.Session, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sess != nil || p.err != nil {
		return
	}
	p.sess, p.err = s, err
	close(p.done)
}

// Wait waits for the end of the load.
func (p *Pending) Wait(ctx context.Context) (*session.Session, error) {
	select {
	case <-p.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sess, p.err
}

func (p *Pending) status() (report.ViewerStatus, *session.Session) {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := report.ViewerStatus{State: "loading", Read: p.read, Size: p.size}
	switch {
	case p.err != nil:
		st.State, st.Error = "error", p.err.Error()
	case p.sess != nil:
		st.State = "ready"
		if st.Size >= 0 {
			st.Read = st.Size
		}
	}
	return st, p.sess
}

// server is the handler.
type server struct {
	opts    Options
	pending *Pending
	mux     *http.ServeMux

	mu      sync.Mutex
	threads map[*session.Thread]*threadCache
	events  eventIndexes
}

// New returns the viewer's handler for sess (or, with sess nil, for
// opts.Pending).
func New(sess *session.Session, opts Options) http.Handler {
	s := &server{opts: opts, pending: opts.Pending, threads: map[*session.Thread]*threadCache{}}
	if sess != nil || s.pending == nil {
		s.pending = NewPending(-1)
		s.pending.Done(sess, nil)
	}
	ui, err := fs.Sub(uiFS, "ui")
	if err != nil {
		panic(err) // the embedded tree always has ui/
	}
	mux := http.NewServeMux()
	static := http.FileServerFS(ui)
	mux.Handle("GET /", static)
	mux.HandleFunc("GET /api/status", s.status)
	s.api(mux)
	s.mux = mux
	return s
}

// ServeHTTP checks the Host header and the method, sets the security
// headers and dispatches.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if !s.hostOK(r.Host) {
		http.Error(w, "jsprof view: unexpected Host header (DNS rebinding?); open the URL jsprof printed", http.StatusMisdirectedRequest)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "jsprof view: only GET", http.StatusMethodNotAllowed)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/api/") {
		h.Set("Cache-Control", "no-store")
	}
	s.mux.ServeHTTP(w, r)
}

// hostOK reports whether host is an accepted Host header.
func (s *server) hostOK(host string) bool {
	name, port, err := net.SplitHostPort(host)
	if s.opts.IPHostPort != "" && err == nil && port == s.opts.IPHostPort && net.ParseIP(name) != nil {
		return true
	}
	if len(s.opts.Hosts) > 0 {
		for _, h := range s.opts.Hosts {
			if strings.EqualFold(host, h) {
				return true
			}
		}
		return false
	}
	if err != nil {
		name = host
	}
	switch strings.ToLower(name) {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// LoopbackHosts returns the Host headers a browser sends for addr (a
// listener's address): addr itself, and localhost:port for a loopback
// address.
func LoopbackHosts(addr string) []string {
	hosts := []string{addr}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return hosts
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		hosts = append(hosts, net.JoinHostPort("localhost", port))
	}
	return hosts
}

// status answers /api/status; with wait=1 it waits (up to a second) for
// the load to end, so that the page learns of it at once.
func (s *server) status(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("wait") == "1" {
		select {
		case <-s.pending.done:
		case <-time.After(time.Second):
		case <-r.Context().Done():
		}
	}
	st, _ := s.pending.status()
	writeJSON(w, http.StatusOK, st)
}

// apiError is the body of an API error.
type apiError struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, apiError{Error: msg})
}
