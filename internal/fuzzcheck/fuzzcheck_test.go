package fuzzcheck_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jsprof/jsprof/internal/fuzzcheck"
)

func TestBudget(t *testing.T) {
	scale := fuzzcheck.Budget(0) / fuzzcheck.Floor // RaceFactor under -race, else 1
	for _, tc := range []struct {
		n    int64
		want time.Duration
	}{
		{0, 100 * time.Millisecond},
		{100, 100 * time.Millisecond},
		{1 << 20, 100 * time.Millisecond},
		{3 << 20, 300 * time.Millisecond},
		{1 << 29, 51200 * time.Millisecond},
	} {
		if got := fuzzcheck.Budget(tc.n); got != tc.want*scale {
			t.Errorf("Budget(%d) = %v, want %v", tc.n, got, tc.want*scale)
		}
	}
}

func TestSize(t *testing.T) {
	plain := bytes.Repeat([]byte("[1,2,3]"), 1000)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(plain)
	zw.Close()
	if got := fuzzcheck.Size(plain); got != int64(len(plain)) {
		t.Errorf("Size(plain) = %d, want %d", got, len(plain))
	}
	if got := fuzzcheck.Size(z.Bytes()); got != int64(len(plain)) {
		t.Errorf("Size(gzip) = %d, want the decompressed %d", got, len(plain))
	}
	// A gzip stream cut short counts what it decompresses to.
	cut := z.Bytes()[:z.Len()-8]
	if got := fuzzcheck.Size(cut); got != int64(len(plain)) {
		t.Errorf("Size(truncated gzip) = %d, want %d", got, len(plain))
	}
	if got := fuzzcheck.Size([]byte{0x1f, 0x8b, 1}); got != 3 {
		t.Errorf("Size(bad gzip header) = %d, want 3", got)
	}
}

// recorder is a testing.TB that records a Fatalf instead of failing.
type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic(r)
}

// speed runs fuzzcheck.Speed with a recorder and returns its failure, "" if
// none.
func speed(data []byte, read func()) (msg string) {
	r := &recorder{}
	defer func() {
		if v := recover(); v != nil && v != r {
			panic(v)
		}
		msg = r.msg
	}()
	fuzzcheck.Speed(r, data, read)
	return ""
}

// spin keeps a CPU busy for d: of the process's CPU time where it is known
// (Speed counts that), else of wall-clock time.
func spin(d time.Duration) {
	start := time.Now()
	cpu0, ok := fuzzcheck.CPUTime()
	for {
		if cpu, _ := fuzzcheck.CPUTime(); ok && cpu-cpu0 >= d || !ok && time.Since(start) >= d {
			return
		}
	}
}

func TestSpeed(t *testing.T) {
	if testing.Short() {
		t.Skip("keeps a CPU busy for a second")
	}
	over := fuzzcheck.Budget(0) + 20*time.Millisecond
	t.Run("waiting", func(t *testing.T) {
		// A run that waits (for a CPU, on a loaded machine) is not counted
		// by its wall-clock time alone.
		if _, ok := fuzzcheck.CPUTime(); !ok {
			t.Skip("no CPU time here")
		}
		runs := 0
		if msg := speed([]byte("x"), func() { runs++; time.Sleep(over) }); msg != "" || runs != 1 {
			t.Errorf("a reader that sleeps: failure %q after %d runs, want none after 1", msg, runs)
		}
	})
	t.Run("fast", func(t *testing.T) {
		runs := 0
		if msg := speed([]byte("x"), func() { runs++ }); msg != "" || runs != 1 {
			t.Errorf("a fast reader: failure %q after %d runs, want none after 1", msg, runs)
		}
	})
	t.Run("pause", func(t *testing.T) {
		// A reader over budget once (a pause of the machine) passes.
		runs := 0
		msg := speed([]byte("x"), func() {
			if runs++; runs == 1 {
				spin(over)
			}
		})
		if msg != "" || runs != 2 {
			t.Errorf("a reader slow once: failure %q after %d runs, want none after 2", msg, runs)
		}
	})
	t.Run("stall", func(t *testing.T) {
		runs := 0
		msg := speed([]byte("x"), func() { runs++; spin(over) })
		if runs != fuzzcheck.Tries || !strings.Contains(msg, "over its budget") || !strings.Contains(msg, "on 1 bytes") {
			t.Errorf("a reader slow every time: failure %q after %d runs, want one after %d", msg, runs, fuzzcheck.Tries)
		}
	})
	t.Run("parse", func(t *testing.T) {
		v, err := fuzzcheck.Parse(t, []byte("abc"), func(b []byte) (int, error) { return len(b), nil })
		if v != 3 || err != nil {
			t.Errorf("Parse = %d, %v; want 3, nil", v, err)
		}
	})
}
