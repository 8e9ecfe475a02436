// Package format detects the format of a profile input from its content (not
// its name) and dispatches to the reader for it.
package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/jsprof/jsprof/format/chrometrace"
	"github.com/jsprof/jsprof/format/firefox"
	"github.com/jsprof/jsprof/format/folded"
	"github.com/jsprof/jsprof/format/pprof"
	"github.com/jsprof/jsprof/format/speedscope"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/profile"
)

// Supported lists the input formats Parse reads, for error messages.
const Supported = "a V8 .cpuprofile (current or legacy, XS call graphs), a Chrome trace (JSON array or object with traceEvents), speedscope, a Firefox profile (Gecko or processed), pprof or folded stacks"

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
	if trace, _ := chrometrace.Sniff(head); trace {
		return chrometrace.Parse(st, opts.Trace)
	}
	data, err := st.ReadAll()
	if err != nil {
		return nil, err
	}
	return Parse(data, opts)
}

// Parse parses a decompressed input held in memory.
func Parse(data []byte, opts Options) (*profile.Profile, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, &profile.ParseError{Offset: 0, Err: profile.ErrEmpty}
	}
	if trace, _ := chrometrace.Sniff(data); trace {
		return chrometrace.Parse(bytes.NewReader(data), opts.Trace)
	}
	if speedscope.Sniff(data) {
		return speedscope.ParseBytes(data)
	}
	if firefox.Sniff(data) {
		return firefox.ParseBytes(data)
	}
	if trimmed[0] == '{' {
		// A .cpuprofile, or an object that is neither: the reader says what
		// is wrong with it, which helps more than "unrecognized".
		return v8.ParseBytes(data, opts.V8Limits)
	}
	if folded.Sniff(trimmed) {
		return folded.ParseProfile(bytes.NewReader(data))
	}
	if p, err := pprof.Parse(bytes.NewReader(data)); err == nil {
		return p, nil
	}
	return nil, &profile.ParseError{Offset: int64(len(data) - len(trimmed)), Err: fmt.Errorf("%w: want %s", profile.ErrUnrecognized, Supported)}
}
