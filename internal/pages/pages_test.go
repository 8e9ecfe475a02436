package pages

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// rssKB returns the process's resident memory (Linux), or −1.
func rssKB() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return -1
}

// Discard gives back the whole pages of the stretch, whose bytes then read
// as zeros, and leaves the bytes outside it (and the partial pages at its
// ends) as they were.
func TestDiscard(t *testing.T) {
	const size = 32 << 20
	b := make([]byte, size)
	for i := range b {
		b[i] = 7
	}
	before := rssKB()
	lo, hi := 1000, size-1000 // not page-aligned
	Discard(b[lo:hi])
	after := rssKB()
	if runtime.GOOS == "linux" {
		if before < 0 || after < 0 {
			t.Fatal("no VmRSS in /proc/self/status")
		}
		if gone := before - after; gone < 24<<10 {
			t.Errorf("resident memory fell by %d KB, want about %d KB", gone, (hi-lo)>>10)
		}
	}
	ps := pageSize
	for i, c := range b {
		inside := i >= (lo+ps-1)/ps*ps && i < hi/ps*ps
		switch {
		case inside && runtime.GOOS == "linux" && c != 0:
			t.Fatalf("byte %d is %d after Discard, want 0", i, c)
		case !inside && c != 7:
			t.Fatalf("byte %d outside the whole pages is %d, want 7", i, c)
		}
	}
	runtime.KeepAlive(b)
}

// Discard ignores a stretch shorter than minDiscard.
func TestDiscardSmall(t *testing.T) {
	small := make([]byte, minDiscard-1)
	for i := range small {
		small[i] = 1
	}
	Discard(small)
	for i, c := range small {
		if c != 1 {
			t.Fatalf("byte %d of a stretch below minDiscard changed", i)
		}
	}
}

// Bytes covers a slice's elements exactly.
func TestBytes(t *testing.T) {
	s := make([]struct{ a, b int32 }, 10, 20)
	if got := len(Bytes(s)); got != 80 {
		t.Errorf("len(Bytes) = %d, want 80", got)
	}
	if got := len(Bytes(s[:0])); got != 0 {
		t.Errorf("len(Bytes) of an empty slice = %d", got)
	}
}
