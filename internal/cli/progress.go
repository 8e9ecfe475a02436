package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// progress draws a bar on stderr for inputs that take over a second, when
// stderr is a terminal. It is a no-op otherwise.
type progress struct {
	w     io.Writer
	total int64
	read  atomic.Int64
	phase atomic.Value // string
	done  chan struct{}
	wg    sync.WaitGroup
	drawn bool
	// phases, if not nil, records each phase's cost (JSPROF_DEBUG_PHASES).
	phases *phaseLog
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func startProgress(w io.Writer, total int64) *progress {
	p := &progress{w: w, total: total, done: make(chan struct{})}
	p.phase.Store("reading")
	if !isTerminal(w) {
		return p
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		select {
		case <-p.done:
			return
		case <-time.After(time.Second):
		}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			p.draw()
			select {
			case <-p.done:
				fmt.Fprint(p.w, "\r\033[K")
				return
			case <-tick.C:
			}
		}
	}()
	return p
}

func (p *progress) setRead(n int64)     { p.read.Store(n) }
func (p *progress) setPhase(s string)   { p.phase.Store(s); p.phases.mark(s) }
func (p *progress) stop()               { close(p.done); p.wg.Wait() }
func (p *progress) phaseString() string { return p.phase.Load().(string) }

func (p *progress) draw() {
	const width = 30
	phase := p.phaseString()
	if phase != "reading" || p.total <= 0 {
		fmt.Fprintf(p.w, "\r\033[Kjsprof: %s…", phase)
		return
	}
	frac := float64(p.read.Load()) / float64(p.total)
	frac = min(max(frac, 0), 1)
	n := int(frac * width)
	bar := make([]byte, width)
	for i := range bar {
		if i < n {
			bar[i] = '#'
		} else {
			bar[i] = '.'
		}
	}
	fmt.Fprintf(p.w, "\r\033[Kjsprof: reading [%s] %3.0f%%", bar, frac*100)
}
