// Package fuzzcheck holds the checks that every fuzz target of the readers
// makes on each input besides its own: that the reader takes time in
// proportion to the input (no input makes it superlinear or stalls it).
//
// A fuzz worker kills itself after 10 s on one input, which the fuzzer
// reports as "fuzzing process hung or terminated unexpectedly" and, near the
// end of a short run, not at all; an input that takes a few seconds slows
// the run without failing it. Speed fails such an input at once, with its
// size and times, and the fuzzer writes it to testdata/fuzz like any other
// failure.
package fuzzcheck

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"testing"
	"time"
)

// The budget of one input: PerMB per MiB that the reader reads, at least
// Floor. The .cpuprofile and trace readers read 180 to 500 MB/s
// (BENCHMARKS.md), 2 to 6 ms per MiB; the slowest shapes measured (deep
// stacks in speedscope, many threads in a Firefox profile) take 25 to 100
// ms of CPU per MiB on a loaded machine. The budget leaves room for the
// fuzzer's coverage counters and the garbage collector, and is multiplied
// by RaceFactor under the race detector.
const (
	PerMB      = 100 * time.Millisecond
	Floor      = 100 * time.Millisecond
	RaceFactor = 10
)

// Tries is how many times Speed runs a reader that goes over its budget
// before it fails the input: every run must be over it. A stall that the
// input causes repeats; a pause of the machine (a collection of earlier
// garbage, a burst of other work) rarely does.
//
// A run's time is the lesser of its wall-clock time and the CPU time of the
// process during it (where the system tells it): on a machine shared with
// other processes, a run may wait for a CPU longer than it runs, which the
// CPU time leaves out, and the CPU time of other goroutines running in
// parallel, which the wall clock leaves out.
const Tries = 3

// maxRetry is the longest first run after which Speed still tries again:
// the fuzz worker's own limit of 10 s per input must not fire first.
const maxRetry = 3 * time.Second

// Budget returns the time a reader may take on n bytes of (decompressed)
// input.
func Budget(n int64) time.Duration {
	d := time.Duration(float64(PerMB) * float64(n) / (1 << 20))
	d = max(d, Floor)
	if raceEnabled {
		d *= RaceFactor
	}
	return d
}

// maxSize bounds the decompression of gzip input by Size: its budget is
// the fuzz worker's limit of 10 s per input.
const maxSize = 100 << 20

// Size returns the number of bytes a reader reads from data: its length,
// or, for gzip data (which the readers decompress), the length it
// decompresses to (what can be decompressed of it, at most 100 MiB), if
// that is more.
func Size(data []byte) int64 {
	n := int64(len(data))
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return n
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return n
	}
	zr.Multistream(true)
	m, _ := io.Copy(io.Discard, io.LimitReader(zr, maxSize))
	return max(n, m)
}

// Speed runs read, a reader's work on data, and fails t if it takes longer
// than Budget(Size(data)) on each of Tries runs (see Tries). read must give
// the same result every time it is called; it is run only once when it is
// within budget, so that its results can be kept by the caller.
func Speed(t testing.TB, data []byte, read func()) {
	t.Helper()
	size := Size(data)
	budget := Budget(size)
	var runs []run
	for range Tries {
		r := measure(read)
		runs = append(runs, r)
		if r.time() <= budget || r.time() > maxRetry {
			break
		}
	}
	if runs[len(runs)-1].time() > budget { // every run was over budget
		t.Fatalf("fuzzcheck: the reader took %s on %s: over its budget of %s (%s per MiB, at least %s)",
			runsString(runs), sizeString(int64(len(data)), size), budget, PerMB, Floor)
	}
}

// run is the wall-clock and CPU time of one run (cpu < 0 if unknown).
type run struct{ wall, cpu time.Duration }

func measure(read func()) run {
	cpu0, ok := cpuTime()
	start := time.Now()
	read()
	r := run{wall: time.Since(start), cpu: -1}
	if cpu1, ok1 := cpuTime(); ok && ok1 {
		r.cpu = cpu1 - cpu0
	}
	return r
}

// time is the run's time as Speed counts it (see Tries).
func (r run) time() time.Duration {
	if r.cpu < 0 {
		return r.wall
	}
	return min(r.wall, r.cpu)
}

func (r run) String() string {
	s := r.wall.Round(time.Microsecond).String()
	if r.cpu >= 0 {
		s += " (CPU " + r.cpu.Round(time.Microsecond).String() + ")"
	}
	return s
}

// Parse runs parse on data under Speed and returns its results (those of
// its last run).
func Parse[T any](t testing.TB, data []byte, parse func([]byte) (T, error)) (T, error) {
	t.Helper()
	var v T
	var err error
	Speed(t, data, func() { v, err = parse(data) })
	return v, err
}

func runsString(runs []run) string {
	var b bytes.Buffer
	for i, r := range runs {
		switch {
		case i == 0:
		case i == len(runs)-1:
			b.WriteString(" and ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(r.String())
	}
	return b.String()
}

func sizeString(n, decompressed int64) string {
	if decompressed != n {
		return fmt.Sprintf("%d bytes (%d decompressed)", n, decompressed)
	}
	return fmt.Sprintf("%d bytes", n)
}
