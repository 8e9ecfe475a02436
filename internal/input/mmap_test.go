package input

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
)

type pipe struct{ r io.Reader }

func (p pipe) Read(b []byte) (int, error) { return p.r.Read(b) }

// TestReadMapped reads streams of sizes around the chunks readAnon reads
// and faults in (plain and gzip) into mapped memory: the bytes must be the
// stream's, and a Release must not lose them.
func TestReadMapped(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{0, 1, 64<<10 - 1, 64 << 10, 64<<10 + 1, 1<<20 + 7, 5<<20 + 3, 9 << 20} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(rng.IntN(7)) + '0' // compressible, not constant
		}
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(data)
		zw.Close()
		for _, src := range [][]byte{data, gz.Bytes()} {
			st, err := Open("-", pipe{bytes.NewReader(src)}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Map(); !errors.Is(err, ErrNotMapped) {
				t.Fatalf("a pipe was mapped as a file: %v", err)
			}
			m, err := st.ReadMapped()
			st.Close()
			if runtime.GOOS != "linux" {
				if !errors.Is(err, ErrNotMapped) {
					t.Fatalf("ReadMapped off Linux: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%d bytes: %v", size, err)
			}
			m.Release(0, int64(len(m.Data)))
			if !bytes.Equal(m.Data, data) {
				t.Fatalf("%d bytes (gzip %v): ReadMapped gave %d other bytes", size, len(src) != size, len(m.Data))
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
