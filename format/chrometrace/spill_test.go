package chrometrace

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/proftest"
)

// TestWriteSpills writes a profile of many nodes (one event of 2 MB) with
// the event written out as it is made, at every node and at the default
// stretch, and whole: the bytes must be the same. Held whole, the event's
// buffer grew a quarter at a time; written out, Write allocates less than
// its output.
func TestWriteSpills(t *testing.T) {
	p, err := v8.ParseBytes(proftest.LargeCPUProfile(5, 20_000, 2_000), v8.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	write := func(spill int) []byte {
		defer func(old int) { spillBytes = old }(spillBytes)
		spillBytes = spill
		var buf bytes.Buffer
		if err := Write(&buf, p, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	whole := write(1 << 40)
	if len(whole) < 1<<20 {
		t.Fatalf("the trace is %d bytes; the test wants a nodes event of megabytes", len(whole))
	}
	for _, spill := range []int{1, 100, spillBytes} {
		if got := write(spill); !bytes.Equal(got, whole) {
			t.Errorf("written out every %d bytes: %d bytes, not the %d written whole", spill, len(got), len(whole))
		}
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := Write(io.Discard, p, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(whole)) {
		t.Errorf("Write allocated %d bytes for %d of output", alloc, len(whole))
	}
}
