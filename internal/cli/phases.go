package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"time"
)

// Debugging the cost of a command (issue "Twenty times DevTools": measure
// first). Two environment variables, read by Run:
//
//	JSPROF_DEBUG_PHASES=1       print each phase's wall time, allocations and
//	                            live heap to stderr when the command ends
//	JSPROF_DEBUG_CPUPROFILE=F   write a Go CPU profile of the command to F
//	                            (go tool pprof F)
//	JSPROF_DEBUG_HEAPPROFILE=F  with JSPROF_DEBUG_PHASES, collect garbage at
//	                            the end of each phase and write the live
//	                            heap's profile to F.N-phase (N from 1); the
//	                            phases' times then include the collections
//	JSPROF_DEBUG_TRACE=F        write a Go execution trace of the command to F
//	                            (go tool trace F): what each core runs when
//
// and for jsprof record, JSPROF_DEBUG_PROTOCOL=F writes every DevTools-
// protocol message sent and received to F (record.NodeOptions.ProtocolLog).
//
// Phases are the load's steps (reading, then per thread: timeline, calls,
// trees; categories) and "output", everything after the load (the
// command's own analyses that were not asked for up front, and writing).

// phaseLog records phases; a nil *phaseLog records nothing.
type phaseLog struct {
	w     io.Writer
	t0    time.Time
	cur   string
	start time.Time
	alloc uint64
	rows  []phaseRow
	heap  string // JSPROF_DEBUG_HEAPPROFILE
}

type phaseRow struct {
	name          string
	wall          time.Duration
	alloc, heapMB float64
	peakMB        float64 // the process's peak RSS so far
}

func newPhaseLog(w io.Writer) *phaseLog {
	if os.Getenv("JSPROF_DEBUG_PHASES") == "" {
		return nil
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	now := time.Now()
	return &phaseLog{w: w, t0: now, cur: "start", start: now, alloc: ms.TotalAlloc, heap: os.Getenv("JSPROF_DEBUG_HEAPPROFILE")}
}

// mark ends the current phase and starts the named one.
func (p *phaseLog) mark(name string) {
	if p == nil || name == p.cur {
		return
	}
	if p.heap != "" {
		p.writeHeap(fmt.Sprintf("%s.%d-%s", p.heap, len(p.rows)+1, p.cur))
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	now := time.Now()
	p.rows = append(p.rows, phaseRow{p.cur, now.Sub(p.start), float64(ms.TotalAlloc-p.alloc) / 1e6, float64(ms.HeapAlloc) / 1e6, float64(peakRSSKiB()) * 1024 / 1e6})
	p.cur, p.start, p.alloc = name, now, ms.TotalAlloc
}

// writeHeap collects garbage and writes the live heap's profile to name.
func (p *phaseLog) writeHeap(name string) {
	runtime.GC()
	f, err := os.Create(name)
	if err == nil {
		err = pprof.Lookup("heap").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(p.w, "jsprof: JSPROF_DEBUG_HEAPPROFILE: %v\n", err)
	}
}

// finish ends the last phase and prints the table.
func (p *phaseLog) finish() {
	if p == nil {
		return
	}
	p.mark("")
	w := bufio.NewWriter(p.w)
	defer w.Flush()
	fmt.Fprintf(w, "%-48s %9s %10s %9s %9s\n", "phase", "wall ms", "alloc MB", "heap MB", "peak MB")
	var alloc float64
	for _, r := range p.rows {
		if r.wall < 50*time.Microsecond && r.alloc < 0.05 {
			continue
		}
		alloc += r.alloc
		fmt.Fprintf(w, "%-48s %9.1f %10.1f %9.1f %9.1f\n", r.name, r.wall.Seconds()*1e3, r.alloc, r.heapMB, r.peakMB)
	}
	rss := "?"
	if kb := peakRSSKiB(); kb > 0 {
		rss = strconv.FormatFloat(float64(kb)*1024/1e6, 'f', 1, 64)
	}
	fmt.Fprintf(w, "%-48s %9.1f %10.1f   peak RSS %s MB, GOMAXPROCS %d\n", "total", time.Since(p.t0).Seconds()*1e3, alloc, rss, runtime.GOMAXPROCS(0))
}

// peakRSSKiB returns the process's peak resident set size (Linux's VmHWM),
// or 0 where /proc does not tell.
func peakRSSKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			v = bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))
			n, _ := strconv.ParseInt(string(v), 10, 64)
			return n
		}
	}
	return 0
}

// startCPUProfile starts the Go CPU profile JSPROF_DEBUG_CPUPROFILE asks
// for, and the execution trace JSPROF_DEBUG_TRACE asks for; the returned
// function stops them.
func startCPUProfile(stderr io.Writer) func() {
	stopTrace := startTrace(stderr)
	name := os.Getenv("JSPROF_DEBUG_CPUPROFILE")
	if name == "" {
		return stopTrace
	}
	f, err := os.Create(name)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "jsprof: JSPROF_DEBUG_CPUPROFILE: %v\n", err)
		return stopTrace
	}
	return func() {
		stopTrace()
		pprof.StopCPUProfile()
		f.Close()
	}
}

// startTrace starts the execution trace JSPROF_DEBUG_TRACE asks for; the
// returned function stops it.
func startTrace(stderr io.Writer) func() {
	name := os.Getenv("JSPROF_DEBUG_TRACE")
	if name == "" {
		return func() {}
	}
	f, err := os.Create(name)
	if err == nil {
		err = trace.Start(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "jsprof: JSPROF_DEBUG_TRACE: %v\n", err)
		return func() {}
	}
	return func() {
		trace.Stop()
		f.Close()
	}
}
