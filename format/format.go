// Package format detects the format of a profile input from its content (not
// its name) and dispatches to the reader for it.
package format

import (
	"bytes"
	"fmt"

	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/profile"
)

// Supported lists the input formats Parse reads, for error messages.
const Supported = "V8 .cpuprofile (current or legacy, XS call graphs)"

// Options controls Parse. The zero value means defaults.
type Options struct {
	Input    input.Options
	V8Limits v8.Limits
}

// ReadFile reads and parses the named file ("-" for stdin), plain or gzip.
// Errors name the file.
func ReadFile(name string, stdin interface{ Read([]byte) (int, error) }, opts Options) (*profile.Profile, error) {
	data, err := input.ReadFile(name, stdin, opts.Input)
	if err != nil {
		return nil, profile.WithFile(err, name)
	}
	p, err := Parse(data, opts)
	return p, profile.WithFile(err, name)
}

// Parse parses a decompressed input held in memory.
func Parse(data []byte, opts Options) (*profile.Profile, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, &profile.ParseError{Offset: 0, Err: profile.ErrEmpty}
	}
	if v8.Sniff(data) {
		return v8.ParseBytes(data, opts.V8Limits)
	}
	if trimmed[0] == '{' {
		// Not recognisably a .cpuprofile: let the reader say what is wrong
		// with it, which is more useful than "unrecognized".
		return v8.ParseBytes(data, opts.V8Limits)
	}
	return nil, &profile.ParseError{Offset: int64(len(data) - len(trimmed)), Err: fmt.Errorf("%w: want %s", profile.ErrUnrecognized, Supported)}
}
