package pipew

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestWriter writes data in pieces of random sizes (strings and bytes,
// some larger than a block): what reaches the writer must be the data, in
// order.
func TestWriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, blockSize - 1, blockSize, blockSize + 1, 10*blockSize + 17} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(rng.IntN(256))
		}
		var out bytes.Buffer
		pw := New(&out)
		for rest := data; len(rest) > 0; {
			k := min(len(rest), rng.IntN(3*blockSize/2)+1)
			var err error
			if k%2 == 0 {
				_, err = pw.WriteString(string(rest[:k]))
			} else {
				_, err = pw.Write(rest[:k])
			}
			if err != nil {
				t.Fatal(err)
			}
			rest = rest[k:]
		}
		if err := pw.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("%d bytes: %d written, equal %v", size, out.Len(), bytes.Equal(out.Bytes(), data))
		}
		if _, err := pw.Write([]byte("x")); err == nil {
			t.Fatal("Write after Close succeeded")
		}
	}
}

type failing struct{ n int }

var errFull = errors.New("disk full")

func (f *failing) Write(p []byte) (int, error) {
	if f.n += len(p); f.n > 3*blockSize {
		return 0, errFull
	}
	return len(p), nil
}

// TestWriterError checks that an error of the writer comes back from a
// later Write or from Close, and that Close returns it again.
func TestWriterError(t *testing.T) {
	pw := New(&failing{})
	chunk := make([]byte, blockSize)
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		_, err = pw.Write(chunk)
	}
	if cerr := pw.Close(); !errors.Is(cerr, errFull) || err != nil && !errors.Is(err, errFull) {
		t.Fatalf("Write: %v, Close: %v; want %v", err, cerr, errFull)
	}
	if err := pw.Close(); !errors.Is(err, errFull) {
		t.Fatalf("second Close: %v", err)
	}
}
