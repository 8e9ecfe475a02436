// Package input reads profile inputs: files or stdin, plain or gzip (sniffed
// from the magic bytes, not the name), as a stream or whole, with a size limit
// on the decompressed data.
package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// DefaultMaxBytes bounds the decompressed size of one input (64 GiB): far
// beyond any real profile, it still stops a gzip bomb from running forever.
const DefaultMaxBytes = 64 << 30

// ErrTooLarge is returned when an input exceeds its size limit.
var ErrTooLarge = errors.New("input exceeds the size limit")

// MaxRatio is the largest gzip expansion accepted once the output passes
// RatioFloor: real profiles and traces compress 5 to 40 times, a gzip bomb
// a thousand times.
const (
	MaxRatio   = 200
	RatioFloor = 256 << 20
)

// ErrBomb is returned when gzip input expands more than MaxRatio times.
var ErrBomb = errors.New("gzip input expands suspiciously (a gzip bomb?)")

// Options controls reading. The zero value reads up to DefaultMaxBytes.
type Options struct {
	MaxBytes int64 // decompressed size limit; 0 means DefaultMaxBytes
	// Progress is called now and then with the bytes read from the file so
	// far, from one goroutine at a time, not always the caller's.
	Progress func(read int64)
	// Context, when not nil, cancels the read: the next read from the file
	// after it is done fails with its error.
	Context context.Context
}

// IsGzip reports whether data starts with the gzip magic bytes.
func IsGzip(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

// Stream is an open input: the decompressed bytes, buffered so that readers
// can Peek at the start to sniff the format.
type Stream struct {
	*bufio.Reader
	// SizeHint is the expected decompressed size, or −1 if unknown.
	SizeHint int64
	closers  []io.Closer

	// For Map: the file when it is plain (not compressed), its size and
	// the size limit.
	file     *os.File
	fileSize int64
	max      int64
}

// Close closes the underlying file and decompressor.
func (s *Stream) Close() error {
	var err error
	for _, c := range s.closers {
		if e := c.Close(); e != nil && err == nil {
			err = e
		}
	}
	return err
}

// Open opens the named file ("-" for stdin), decompressing gzip.
func Open(name string, stdin io.Reader, opts Options) (*Stream, error) {
	if name == "-" {
		// Standard input redirected from a file (jsprof summary - < F)
		// is that file, read from its start: mapped like a named one.
		if f, ok := stdin.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
				if off, err := f.Seek(0, io.SeekCurrent); err == nil && off == 0 {
					return openFile(f, st, nil, opts)
				}
			}
		}
		return open(stdin, -1, nil, opts)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "read", Path: name, Err: syscall.EISDIR}
	}
	return openFile(f, st, f, opts)
}

// openFile opens the file f, whose FileInfo is st; c, if not nil, closes
// it with the stream.
func openFile(f *os.File, st fs.FileInfo, c io.Closer, opts Options) (*Stream, error) {
	hint := st.Size()
	gz := false
	// A gzip member ends with ISIZE, the uncompressed size mod 2^32: a good
	// capacity hint that avoids growing a buffer by doubling.
	var head [2]byte
	if n, _ := f.ReadAt(head[:], 0); n == 2 && IsGzip(head[:]) {
		gz = true
	}
	if gz && st.Size() >= 18 {
		var tail [4]byte
		if _, err := f.ReadAt(tail[:], st.Size()-4); err == nil {
			isize := int64(binary.LittleEndian.Uint32(tail[:]))
			for isize < st.Size() { // sizes of 4 GiB and more wrap
				isize += 1 << 32
			}
			hint = isize
		}
	}
	s, err := open(f, hint, c, opts)
	if err == nil && !gz && st.Mode().IsRegular() {
		s.file, s.fileSize = f, st.Size()
	}
	return s, err
}

func open(r io.Reader, sizeHint int64, c io.Closer, opts Options) (*Stream, error) {
	max := opts.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	s := &Stream{SizeHint: sizeHint, max: max}
	if c != nil {
		s.closers = append(s.closers, c)
	}
	cr := &countingReader{r: r, progress: opts.Progress, ctx: opts.Context}
	br := bufio.NewReaderSize(cr, 64<<10)
	head, _ := br.Peek(2)
	var src io.Reader = br
	if IsGzip(head) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("reading gzip header: %w", err)
		}
		// Inflated on a core of its own, ahead of the reader. gzip's
		// Close only reports the error a read already has.
		ahead := newAheadReader(&bombGuard{r: &gzipErrors{r: zr}, in: cr, explicit: opts.MaxBytes > 0})
		s.closers = append(s.closers, ahead)
		src = ahead
	}
	if s.SizeHint > max {
		s.SizeHint = max
	}
	s.Reader = bufio.NewReaderSize(&limitReader{r: src, left: max}, 256<<10)
	return s, nil
}

// ReadAll reads the rest of the stream into memory.
func (s *Stream) ReadAll() ([]byte, error) {
	hint := s.SizeHint
	if hint < 0 {
		hint = 0
	}
	buf := bytes.NewBuffer(make([]byte, 0, hint+bytes.MinRead))
	_, err := buf.ReadFrom(s)
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ReadFile reads the whole named file ("-" for stdin), decompressing gzip.
func ReadFile(name string, stdin io.Reader, opts Options) ([]byte, error) {
	s, err := Open(name, stdin, opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.ReadAll()
}

// Read reads all of r, decompressing gzip. sizeHint is the expected
// decompressed size, or −1.
func Read(r io.Reader, sizeHint int64, opts Options) ([]byte, error) {
	s, err := open(r, sizeHint, nil, opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return s.ReadAll()
}

// limitReader fails with ErrTooLarge past its limit (io.LimitReader would
// end silently, which would look like a truncated input).
type limitReader struct {
	r    io.Reader
	left int64
	read int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var one [1]byte
		if n, _ := l.r.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("%w: stopped after %d decompressed bytes", ErrTooLarge, l.read)
		}
		return l.r.Read(p)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	l.read += int64(n)
	return n, err
}

// bombGuard stops decompression whose output outgrows its input more than
// MaxRatio times (past RatioFloor), unless the caller set its own size limit.
type bombGuard struct {
	r        io.Reader
	in       *countingReader
	out      int64
	explicit bool
}

func (g *bombGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.out += int64(n)
	if !g.explicit && g.out > RatioFloor && g.out > MaxRatio*max(g.in.n, 1) {
		return n, fmt.Errorf("%w: %d bytes of gzip expanded to more than %d; pass --max-input to read it anyway", ErrBomb, g.in.n, g.out)
	}
	return n, err
}

// gzipErrors says where in the output a corrupt or truncated gzip stream broke.
type gzipErrors struct {
	r io.Reader
	n int64
}

func (g *gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	g.n += int64(n)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("decompressing gzip at output byte %d: %w", g.n, err)
	}
	return n, err
}

type countingReader struct {
	r        io.Reader
	n        int64
	progress func(int64)
	ctx      context.Context
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.ctx != nil {
		if err := c.ctx.Err(); err != nil {
			return 0, err
		}
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.progress != nil {
		c.progress(c.n)
	}
	return n, err
}
