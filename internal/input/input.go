// Package input reads whole profile inputs into memory: files, stdin, plain or
// gzip (sniffed from the magic bytes, not the name), with size limits.
package input

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// DefaultMaxBytes bounds the decompressed size of one input (8 GiB).
const DefaultMaxBytes = 8 << 30

// ErrTooLarge is returned when an input exceeds its size limit.
var ErrTooLarge = errors.New("input exceeds the size limit")

// Options controls reading. The zero value reads up to DefaultMaxBytes.
type Options struct {
	MaxBytes int64            // decompressed size limit; 0 means DefaultMaxBytes
	Progress func(read int64) // called now and then with the compressed bytes read so far
}

// IsGzip reports whether data starts with the gzip magic bytes.
func IsGzip(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

// ReadFile reads the named file ("-" for stdin), decompressing gzip.
func ReadFile(name string, stdin io.Reader, opts Options) ([]byte, error) {
	if name == "-" {
		return Read(stdin, -1, opts)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", name)
	}
	hint := st.Size()
	// A gzip member ends with ISIZE, the uncompressed size mod 2^32: a good
	// capacity hint that avoids growing the buffer by doubling.
	var head [2]byte
	if n, _ := f.ReadAt(head[:], 0); n == 2 && IsGzip(head[:]) && st.Size() >= 18 {
		var tail [4]byte
		if _, err := f.ReadAt(tail[:], st.Size()-4); err == nil {
			isize := int64(binary.LittleEndian.Uint32(tail[:]))
			for isize < st.Size() { // sizes of 4 GiB and more wrap
				isize += 1 << 32
			}
			hint = isize
		}
	}
	return Read(f, hint, opts)
}

// Read reads all of r, decompressing gzip. sizeHint is the expected
// decompressed size, or −1.
func Read(r io.Reader, sizeHint int64, opts Options) ([]byte, error) {
	max := opts.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	cr := &countingReader{r: r, progress: opts.Progress}
	br := bufio.NewReaderSize(cr, 64<<10)
	head, _ := br.Peek(2)
	var src io.Reader = br
	if IsGzip(head) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("reading gzip header: %w", err)
		}
		defer zr.Close()
		src = zr
	}
	if sizeHint < 0 || sizeHint > max {
		sizeHint = 0
	}
	buf := bytes.NewBuffer(make([]byte, 0, sizeHint+bytes.MinRead))
	n, err := buf.ReadFrom(io.LimitReader(src, max+1))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
			return nil, fmt.Errorf("decompressing gzip at output byte %d: %w", n, err)
		}
		return nil, err
	}
	if n > max {
		return nil, fmt.Errorf("%w (%d bytes)", ErrTooLarge, max)
	}
	return buf.Bytes(), nil
}

type countingReader struct {
	r        io.Reader
	n        int64
	progress func(int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.progress != nil {
		c.progress(c.n)
	}
	return n, err
}
