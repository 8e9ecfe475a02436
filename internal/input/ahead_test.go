package input

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"testing"
	"testing/iotest"
	"time"
)

// TestAheadReader reads streams through an aheadReader in reads of odd
// sizes: the bytes and the error that ends them must be the source's, the
// error after every byte before it.
func TestAheadReader(t *testing.T) {
	boom := errors.New("boom")
	for _, size := range []int{0, 1, aheadSize - 1, aheadSize, aheadSize + 1, 3*aheadSize + 17, 11 * aheadSize} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(i * 7)
		}
		for _, end := range []error{io.EOF, boom} {
			var src io.Reader = iotest.HalfReader(bytes.NewReader(data))
			if end != io.EOF {
				src = io.MultiReader(src, iotest.ErrReader(end))
			}
			a := newAheadReader(src)
			var got []byte
			buf := make([]byte, 1000)
			var err error
			for i := 0; err == nil; i++ {
				var n int
				n, err = a.Read(buf[:1+i%len(buf)])
				got = append(got, buf[:n]...)
			}
			a.Close()
			if !bytes.Equal(got, data) || err != end {
				t.Fatalf("%d bytes ending in %v: read %d bytes, same %v, then %v", size, end, len(got), bytes.Equal(got, data), err)
			}
			if n, err := a.Read(buf); n != 0 || err != end {
				t.Fatalf("read after the end: %d, %v", n, err)
			}
		}
	}
}

// TestAheadReaderClose closes an aheadReader its reader has left half read:
// its goroutine must end.
func TestAheadReaderClose(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 20 {
		a := newAheadReader(bytes.NewReader(make([]byte, 20*aheadSize)))
		a.Read(make([]byte, 10))
		a.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
