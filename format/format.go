// Package format detects the format of a profile input from its content (not
// its name) and dispatches to the reader for it. Its table of formats,
// [Formats], is the one list of what jsprof reads and writes: detection, the
// "unrecognized format" message, and convert's names, output file names and
// usage text all come from it.
package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/profile"
)

// Options controls Parse. The zero value means defaults.
type Options struct {
	Input    input.Options
	V8Limits v8.Limits
	Trace    chrometrace.Options
}

// sniffBytes is how much of the input is examined to tell the formats apart
// (at most the stream's buffer).
const sniffBytes = 256 << 10

// ReadFile reads and parses the named file ("-" for stdin), plain or gzip.
// Traces are streamed; .cpuprofile files are read whole. Errors name the
// file.
func ReadFile(name string, stdin io.Reader, opts Options) (*profile.Profile, error) {
	st, err := input.Open(name, stdin, opts.Input)
	if err != nil {
		return nil, profile.WithFile(err, name)
	}
	defer st.Close()
	p, err := read(st, opts)
	return p, profile.WithFile(err, name)
}

func read(st *input.Stream, opts Options) (*profile.Profile, error) {
	// Peek at most the buffer's size: more fails with bufio.ErrBufferFull.
	head, err := st.Peek(min(sniffBytes, st.Size()))
	if err != nil && !errors.Is(err, io.EOF) && len(head) == 0 {
		return nil, err
	}
	f := detect(head)
	// A format told from the head (for a fallback, by its signature) is
	// read from the mapped file when it can be.
	if f != nil && f.parseMapped != nil && (!f.Fallback || f.Signature != nil && f.Signature(head)) {
		if m, err := st.Map(); err == nil {
			defer m.Close()
			return f.parseMapped(m.Data, opts, mappedRelease(m, opts.Input), func(lo, hi int64) { m.Release(lo, hi) })
		}
		if f.stream == nil {
			// Read whole anyway (standard input, a pipe, gzip): into
			// memory mapped for it rather than a heap buffer grown by
			// doubling. The progress was the reading's.
			m, err := st.ReadMapped()
			if err == nil {
				defer m.Close()
				return f.parseMapped(m.Data, opts, mappedRelease(m, input.Options{Context: opts.Input.Context}), func(int64, int64) {})
			}
			if !errors.Is(err, input.ErrNotMapped) {
				return nil, err
			}
		}
	}
	if f != nil && f.stream != nil {
		return f.stream(st, opts)
	}
	data, err := st.ReadAll()
	if err != nil {
		return nil, err
	}
	if f != nil && (!f.Fallback || len(head) == len(data) || f.Signature != nil && f.Signature(head)) {
		// Told from the head: no second detection over the whole input (a
		// Sniff that skips members, as speedscope's does before "$schema",
		// would scan a 48 MB .cpuprofile's node array: 14% of its summary).
		// A fallback's claim on a head cut short is final only with its
		// signature: a trace's traceEvents can come after 256 KiB of
		// metadata.
		return f.parse(data, opts)
	}
	return Parse(data, opts)
}

// mappedRelease returns the release function a reader of mapping m calls
// with each stretch it has gone past: the pages go back, progress is
// reported, and a cancelled context stops the reader.
func mappedRelease(m *input.Mapping, opts input.Options) func(lo, hi int64) error {
	var mu sync.Mutex
	var done int64
	return func(lo, hi int64) error {
		m.Release(lo, hi)
		if opts.Progress != nil {
			mu.Lock()
			done += hi - lo
			opts.Progress(min(done, int64(len(m.Data))))
			mu.Unlock()
		}
		if opts.Context != nil {
			return opts.Context.Err()
		}
		return nil
	}
}

// Parse parses a decompressed input held in memory. The format is the first
// of Formats to claim it: see [Info.Sniff] and [Info.Fallback]; the readable
// formats without a Sniff (pprof) are tried last, by reading the input, and
// the first whose error does not wrap profile.ErrUnrecognized gives the
// error.
func Parse(data []byte, opts Options) (*profile.Profile, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, &profile.ParseError{Offset: 0, Err: profile.ErrEmpty}
	}
	if f := detect(data); f != nil {
		return f.parse(data, opts)
	}
	for _, f := range Formats {
		if f.In && f.Sniff == nil {
			p, err := f.parse(data, opts)
			if err == nil {
				return p, nil
			}
			if !errors.Is(err, profile.ErrUnrecognized) {
				// The reader recognised its format and says what is wrong
				// (a pprof heap profile has no time sample type).
				return nil, err
			}
		}
	}
	return nil, &profile.ParseError{Offset: int64(len(data) - len(trimmed)), Err: fmt.Errorf("%w: want %s", profile.ErrUnrecognized, Supported)}
}

// detect returns the readable format whose Sniff claims head: the formats
// with a signature first, in table order, then the fallbacks; nil when none
// does.
func detect(head []byte) *Info {
	for _, fallback := range []bool{false, true} {
		for i := range Formats {
			f := &Formats[i]
			if f.In && f.Sniff != nil && f.Fallback == fallback && f.Sniff(head) {
				return f
			}
		}
	}
	return nil
}
