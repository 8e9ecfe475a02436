// Package pyroscope pushes pprof profiles to Grafana Pyroscope.
//
// Two endpoints are spoken:
//
//   - The Connect API (default): a unary POST of push.v1.PushRequest to
//     /push.v1.PusherService/Push, in the Connect protocol's binary form
//     (Content-Type application/proto). The messages are encoded here from
//     Pyroscope's published api/push/v1/push.proto and api/types/v1/types.proto
//     (PushRequest{series=1}, RawProfileSeries{labels=1, samples=2},
//     LabelPair{name=1, value=2}, RawSample{raw_profile=1, ID=2}); the module
//     github.com/grafana/pyroscope/api would bring gRPC, grpc-gateway and
//     gnostic into a static CLI for four small messages.
//   - The older HTTP ingestion API (Options.Ingest): POST
//     /ingest?name=SERVICE.cpu{k=v,…}&from=&until=&format=pprof with the
//     profile as the "profile" part of a multipart form.
//
// Errors: 429 and 5xx responses and network errors are retried with
// exponential backoff (honouring Retry-After); other 4xx responses fail at
// once with the server's message (a Connect error's "message"). Credentials
// go in headers only and never into an error or a log line.
package pyroscope

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PushPath is the Connect procedure of Pyroscope's push API.
const PushPath = "/push.v1.PusherService/Push"

// Options configures a Client. URL is required; the zero value of every
// other field is a usable default.
type Options struct {
	// URL is the server's base URL, e.g. http://localhost:4040.
	URL string
	// BasicAuth is "user:password" for HTTP basic authentication; Bearer a
	// token for "Authorization: Bearer". At most one is used (Bearer first).
	BasicAuth, Bearer string
	// Tenant, if set, is sent as X-Scope-OrgID (multi-tenant Pyroscope).
	Tenant string
	// Ingest uses the older /ingest endpoint instead of the Connect API.
	Ingest bool
	// Retries is the number of retries after the first attempt (default
	// 4; negative: none); Backoff the first wait (default 500 ms), doubled
	// each time.
	Retries int
	Backoff time.Duration
	// HTTPClient sends the requests (default: one with a 30 s timeout).
	HTTPClient *http.Client
	// OnRetry, if not nil, is told of each retry: the attempt that failed
	// and why, and the wait.
	OnRetry func(attempt int, err error, wait time.Duration)
}

// Client pushes profiles to one Pyroscope server.
type Client struct {
	opts Options
	base *url.URL
}

// New returns a client for opts.
func New(opts Options) (*Client, error) {
	u, err := url.Parse(strings.TrimSuffix(opts.URL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("pyroscope: URL %q: want http://HOST:PORT or https://HOST", opts.URL)
	}
	if u.User != nil {
		return nil, errors.New("pyroscope: put credentials in --basic-auth or --bearer, not in the URL")
	}
	if opts.BasicAuth != "" && !strings.Contains(opts.BasicAuth, ":") {
		return nil, errors.New("pyroscope: basic auth wants USER:PASSWORD")
	}
	if opts.Retries == 0 {
		opts.Retries = 4
	}
	if opts.Backoff == 0 {
		opts.Backoff = 500 * time.Millisecond
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	return &Client{opts: opts, base: u}, nil
}

// Label is a series label.
type Label struct{ Name, Value string }

// Series is one profile to push: its labels (service_name and __name__
// are added by Push when missing) and the gzipped pprof profile.
type Series struct {
	Labels []Label
	PProf  []byte
	// Start and Duration time the profile (the /ingest endpoint's from and
	// until; the Connect API reads them from the pprof profile).
	Start    time.Time
	Duration time.Duration
}

// Error is an error response of the server.
type Error struct {
	Status int    // HTTP status
	Code   string // Connect error code, if any
	Msg    string // the server's message
}

// Error returns "pyroscope: STATUS TEXT: code: message".
func (e *Error) Error() string {
	s := fmt.Sprintf("pyroscope: %d %s", e.Status, http.StatusText(e.Status))
	if e.Code != "" {
		s += ": " + e.Code
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Temporary reports whether the request may succeed later (429, 5xx).
func (e *Error) Temporary() bool {
	return e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// Push sends the series, retrying as the package documentation says.
func (c *Client) Push(ctx context.Context, s Series, service string) error {
	labels := slices.Clone(s.Labels)
	has := func(name string) bool {
		return slices.ContainsFunc(labels, func(l Label) bool { return l.Name == name })
	}
	if !has("service_name") {
		labels = append(labels, Label{"service_name", service})
	}
	if !has("__name__") {
		labels = append(labels, Label{"__name__", "process_cpu"})
	}
	build := func() (*http.Request, error) { return c.connectRequest(ctx, labels, s.PProf) }
	if c.opts.Ingest {
		build = func() (*http.Request, error) { return c.ingestRequest(ctx, labels, service, s) }
	}
	wait := c.opts.Backoff
	for attempt := 0; ; attempt++ {
		req, err := build()
		if err != nil {
			return err
		}
		err = c.do(req)
		if err == nil {
			return nil
		}
		var se *Error
		retry := errors.As(err, &se) && se.Temporary() || !errors.As(err, &se) && ctx.Err() == nil
		if !retry || attempt >= c.opts.Retries {
			if attempt > 0 {
				return fmt.Errorf("%w (after %d attempts)", err, attempt+1)
			}
			return err
		}
		w := wait
		var ra *retryAfter
		if errors.As(err, &ra) && ra.wait > 0 {
			w = ra.wait
		}
		if c.opts.OnRetry != nil {
			c.opts.OnRetry(attempt+1, err, w)
		}
		t := time.NewTimer(w)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait *= 2
	}
}

// retryAfter is an Error with the server's Retry-After.
type retryAfter struct {
	err  *Error
	wait time.Duration
}

func (r *retryAfter) Error() string { return r.err.Error() }
func (r *retryAfter) Unwrap() error { return r.err }

func (c *Client) auth(req *http.Request) {
	switch {
	case c.opts.Bearer != "":
		req.Header.Set("Authorization", "Bearer "+c.opts.Bearer)
	case c.opts.BasicAuth != "":
		user, pass, _ := strings.Cut(c.opts.BasicAuth, ":")
		req.SetBasicAuth(user, pass)
	}
	if c.opts.Tenant != "" {
		req.Header.Set("X-Scope-OrgID", c.opts.Tenant)
	}
	req.Header.Set("User-Agent", "jsprof")
}

func (c *Client) connectRequest(ctx context.Context, labels []Label, pprof []byte) (*http.Request, error) {
	body := EncodePushRequest([]RawSeries{{Labels: labels, Samples: []RawSample{{Profile: pprof, ID: newID()}}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.String()+PushPath, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/proto")
	req.Header.Set("Connect-Protocol-Version", "1")
	c.auth(req)
	return req, nil
}

func (c *Client) ingestRequest(ctx context.Context, labels []Label, service string, s Series) (*http.Request, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, err := mw.CreateFormFile("profile", "profile.pprof")
	if err != nil {
		return nil, err
	}
	part.Write(s.PProf)
	if err := mw.Close(); err != nil {
		return nil, err
	}
	// name=SERVICE.cpu{k=v,…}: the application name with the labels other
	// than the ones the name carries.
	var kv []string
	for _, l := range labels {
		if l.Name != "service_name" && l.Name != "__name__" {
			kv = append(kv, l.Name+"="+l.Value)
		}
	}
	q := url.Values{}
	q.Set("name", service+".cpu{"+strings.Join(kv, ",")+"}")
	start := s.Start
	if start.IsZero() {
		start = time.Now().Add(-s.Duration)
	}
	q.Set("from", strconv.FormatInt(start.Unix(), 10))
	q.Set("until", strconv.FormatInt(start.Add(s.Duration).Unix(), 10))
	q.Set("format", "pprof")
	q.Set("spyName", "jsprof")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.String()+"/ingest?"+q.Encode(), &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	c.auth(req)
	return req, nil
}

// do sends a request and turns a non-2xx response into an *Error.
func (c *Client) do(req *http.Request) error {
	resp, err := c.opts.HTTPClient.Do(req)
	if err != nil {
		// url.Error holds the URL, which holds no credentials (New refuses
		// them there).
		return fmt.Errorf("pyroscope: %w", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 == 2 {
		return nil
	}
	e := &Error{Status: resp.StatusCode}
	var ce struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(data, &ce) == nil && (ce.Code != "" || ce.Message != "") {
		e.Code, e.Msg = ce.Code, ce.Message
	} else {
		e.Msg = strings.TrimSpace(string(data))
		if len(e.Msg) > 500 {
			e.Msg = e.Msg[:500] + "…"
		}
	}
	if ra := resp.Header.Get("Retry-After"); ra != "" && e.Temporary() {
		if secs, err := strconv.Atoi(ra); err == nil && secs >= 0 && secs < 600 {
			return &retryAfter{err: e, wait: time.Duration(secs) * time.Second}
		}
	}
	return e
}

func newID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
