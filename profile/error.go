package profile

import (
	"errors"
	"fmt"
	"io/fs"
)

// Sentinel errors that callers branch on.
var (
	// ErrUnrecognized means the input is not in the format a reader handles.
	ErrUnrecognized = errors.New("unrecognized format")
	// ErrEmpty means the input has no data at all.
	ErrEmpty = errors.New("empty input")
	// ErrTruncated means the input ended early.
	ErrTruncated = errors.New("unexpected end of input")
)

// ParseError locates a problem in an input file.
type ParseError struct {
	File   string // file name; "-" for stdin; may be empty inside readers
	Offset int64  // byte offset in the (decompressed) input; −1 if unknown
	Path   string // JSON path of the value, e.g. "nodes[3].callFrame.url"
	Err    error
}

func (e *ParseError) Error() string {
	s := ""
	if e.File != "" {
		s = e.File + ": "
	}
	if e.Offset >= 0 {
		s += fmt.Sprintf("offset %d: ", e.Offset)
	}
	if e.Path != "" {
		s += e.Path + ": "
	}
	return s + e.Err.Error()
}

func (e *ParseError) Unwrap() error { return e.Err }

// WithFile returns err with its file name set, if it is a *ParseError without
// one; other errors are wrapped as "file: err".
func WithFile(err error, file string) error {
	if err == nil {
		return nil
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		if pe.File == "" {
			cp := *pe
			cp.File = file
			return &cp
		}
		return err
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) && pathErr.Path == file {
		return fmt.Errorf("%s: %s: %w", file, pathErr.Op, pathErr.Err)
	}
	return fmt.Errorf("%s: %w", file, err)
}
