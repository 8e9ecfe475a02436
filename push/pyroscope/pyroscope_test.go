package pyroscope_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jsprof/jsprof/push/pyroscope"
)

// The encoding of a small PushRequest, byte for byte, as protobuf's wire
// format gives it for push.proto's field numbers.
func TestEncodeGolden(t *testing.T) {
	t.Parallel()
	got := pyroscope.EncodePushRequest([]pyroscope.RawSeries{{
		Labels:  []pyroscope.Label{{Name: "a", Value: "b"}},
		Samples: []pyroscope.RawSample{{Profile: []byte{1, 2}, ID: "x"}},
	}})
	want := []byte{
		0x0a, 0x11, // series (1, LEN) 17 bytes
		0x0a, 0x06, 0x0a, 0x01, 'a', 0x12, 0x01, 'b', // labels (1): name (1) "a", value (2) "b"
		0x12, 0x07, 0x0a, 0x02, 1, 2, 0x12, 0x01, 'x', // samples (2): raw_profile (1), ID (2)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("got % x, want % x", got, want)
	}
	back, err := pyroscope.DecodePushRequest(append(got, 0x18, 0x05)) // an unknown varint field is skipped
	if err != nil || len(back) != 1 || back[0].Labels[0] != (pyroscope.Label{Name: "a", Value: "b"}) || back[0].Samples[0].ID != "x" {
		t.Errorf("decoded %+v, %v", back, err)
	}
	if _, err := pyroscope.DecodePushRequest(got[:len(got)-2]); err == nil {
		t.Errorf("a truncated message decodes")
	}
}

// server answers with the statuses in turn (then 200) and records the
// requests.
type server struct {
	mu       sync.Mutex
	statuses []int
	bodies   [][]byte
	headers  []http.Header
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.headers = append(s.headers, r.Header.Clone())
	status := 200
	if len(s.statuses) > 0 {
		status, s.statuses = s.statuses[0], s.statuses[1:]
	}
	s.mu.Unlock()
	if status != 200 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, `{"code":"invalid_argument","message":"profile is too old"}`)
		return
	}
	w.Header().Set("Content-Type", "application/proto")
}

func TestRetriesAndErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		statuses []int
		wantErr  string
		attempts int
	}{
		{"ok", nil, "", 1},
		{"retried-503-429", []int{503, 429}, "", 3},
		{"400-at-once", []int{400}, "pyroscope: 400 Bad Request: invalid_argument: profile is too old", 1},
		{"500-gives-up", []int{500, 500, 500}, "(after 3 attempts)", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &server{statuses: tc.statuses}
			ts := httptest.NewServer(s)
			defer ts.Close()
			const secret = "s3cr3t-token"
			c, err := pyroscope.New(pyroscope.Options{URL: ts.URL, Bearer: secret, Retries: 2, Backoff: time.Millisecond, Tenant: "t1"})
			if err != nil {
				t.Fatal(err)
			}
			err = c.Push(context.Background(), pyroscope.Series{PProf: []byte("pprof")}, "svc")
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("got %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("got %v, want %q", err, tc.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), secret) {
				t.Errorf("the error shows the token: %v", err)
			}
			if len(s.bodies) != tc.attempts {
				t.Errorf("%d attempts, want %d", len(s.bodies), tc.attempts)
			}
			h := s.headers[0]
			if h.Get("Authorization") != "Bearer "+secret || h.Get("Content-Type") != "application/proto" ||
				h.Get("Connect-Protocol-Version") != "1" || h.Get("X-Scope-OrgID") != "t1" {
				t.Errorf("headers %v", h)
			}
			series, err := pyroscope.DecodePushRequest(s.bodies[0])
			if err != nil || len(series) != 1 || string(series[0].Samples[0].Profile) != "pprof" {
				t.Fatalf("request %+v, %v", series, err)
			}
		})
	}
}

func TestBadOptions(t *testing.T) {
	t.Parallel()
	for _, o := range []pyroscope.Options{{URL: "localhost:4040"}, {URL: "http://u:p@host"}, {URL: "http://h", BasicAuth: "nocolon"}} {
		if _, err := pyroscope.New(o); err == nil {
			t.Errorf("%+v: no error", o)
		} else if strings.Contains(err.Error(), "u:p") {
			t.Errorf("error shows the credentials: %v", err)
		}
	}
	// A cancelled context stops the retries.
	ts := httptest.NewServer(&server{statuses: []int{503, 503, 503, 503, 503}})
	defer ts.Close()
	c, _ := pyroscope.New(pyroscope.Options{URL: ts.URL, Backoff: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := c.Push(ctx, pyroscope.Series{}, "svc"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want the context's deadline", err)
	}
}
