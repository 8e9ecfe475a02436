package input

import (
	"errors"
	"fmt"
	"sync"
)

// A Mapping is a plain input file mapped into memory, read-only, for a
// reader that parses a whole document held in memory (.cpuprofile): the
// file is not copied into the heap, and the reader hands back the parts it
// has read (Release), so that the process's resident memory holds what the
// reader built plus a window of the file, not the whole file beside it.
// Data must not be used after Close, and nothing built from it may point
// into it.
type Mapping struct {
	Data    []byte
	release func(lo, hi int)
	unmap   func() error
	mu      sync.Mutex
	closed  bool
}

// ErrNotMapped tells that the input cannot be mapped (compressed, not a
// regular file, standard input, a platform without mapping): read it.
var ErrNotMapped = errors.New("input: not mapped")

// mapMinBytes is the smallest file worth mapping.
const mapMinBytes = 8 << 20

// Map maps the stream's file when it is a plain (uncompressed) regular file
// of mapMinBytes or more, not yet read past its head; else it returns
// ErrNotMapped and the stream is read as usual.
func (s *Stream) Map() (*Mapping, error) {
	if s.file == nil || s.fileSize < mapMinBytes || s.fileSize > s.max {
		return nil, ErrNotMapped
	}
	m, err := mapFile(s.file, s.fileSize)
	if err != nil {
		return nil, ErrNotMapped
	}
	return m, nil
}

// ReadMapped reads the rest of the stream, whatever it is (standard input,
// a pipe, gzip), into memory mapped for it, for a reader that wants the
// whole document (ReadAll would copy it into the heap, growing its buffer
// by doubling: 85 MB from a pipe took 0.3–0.6 s and 66 k page faults, the
// mapping 0.1 s). It returns ErrNotMapped where anonymous memory cannot be
// mapped; the stream is then unread. The mapping's Release is a no-op.
func (s *Stream) ReadMapped() (*Mapping, error) {
	return readAnon(s, s.max)
}

// Release tells that the bytes [lo, hi) of Data will not be read again
// soon: the pages they lie on leave the process's memory (they are read
// back from the file if they are), but the one hi is on. A reader that
// gives back what it has passed stretch after stretch so gives back every
// page once (lo is rounded down: rounded up, the page on each stretch's
// start stayed, 80 KB of a 20 MB profile read by megabytes). Safe for
// concurrent use.
func (m *Mapping) Release(lo, hi int64) {
	const page = 4096
	lo &^= page - 1
	hi &^= page - 1
	if m == nil || m.release == nil || hi <= lo {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.release(int(lo), int(hi))
	}
}

// Close unmaps the file.
func (m *Mapping) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	return m.unmap()
}

// FaultError turns a memory fault recovered while reading a mapped file
// (with debug.SetPanicOnFault) into an error; anything else panics again.
func FaultError(r any) error {
	if e, ok := r.(interface{ Addr() uintptr }); ok {
		return fmt.Errorf("reading the mapped file failed (was it changed while being read?): %v", e)
	}
	panic(r)
}
