package pages

import (
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// Populate makes fresh pages resident without changing what any byte
// reads, those written before it included. The memory is mapped here, not
// made: a Go array may reuse pages the runtime has zeroed, resident already.
func TestPopulate(t *testing.T) {
	const size = 32 << 20
	b := anonMemory(t, size)
	b[5000] = 7 // a page written before
	before := rssKB()
	Populate(b[1:]) // not page-aligned
	after := rssKB()
	if before < 0 || after < 0 {
		t.Fatal("no VmRSS in /proc/self/status")
	}
	if grew := after - before; grew < 24<<10 {
		t.Errorf("resident memory grew by %d KB, want about %d KB (a kernel before 5.14 refuses the advice)", grew, size>>10)
	}
	for i, c := range b {
		if i == 5000 && c != 7 || i != 5000 && c != 0 {
			t.Fatalf("byte %d is %d after Populate", i, c)
		}
	}
}

// Populate leaves a stretch shorter than minPopulate alone.
func TestPopulateSmall(t *testing.T) {
	b := anonMemory(t, minPopulate)
	before := rssKB()
	Populate(b[1:])
	if grew := rssKB() - before; grew > 512 {
		t.Errorf("resident memory grew by %d KB for a stretch below minPopulate", grew)
	}
}

// Huge marks the whole huge pages within an array for huge pages (the
// smaps entry's VmFlags "hg"), and not the memory around them; where the
// kernel has no transparent huge pages, it does nothing.
func TestHuge(t *testing.T) {
	const size = 16 << 20
	b := anonMemory(t, size)
	lo := uintptr(unsafe.Pointer(&b[0]))
	inner := b[hugePage/2 : size-hugePage/2] // not aligned at either end
	Huge(inner)
	_, thpErr := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled")
	first := (uintptr(unsafe.Pointer(&inner[0])) + hugePage - 1) &^ (hugePage - 1)
	for _, c := range []struct {
		addr uintptr
		want bool
	}{
		{lo, false},            // before the first whole huge page
		{first, thpErr == nil}, // the first whole huge page
		{lo + size - 1, false}, // after the last
	} {
		if got := smapsFlag(t, c.addr, "hg"); got != c.want {
			t.Errorf("address %#x (start %#x): hg %v, want %v (THP sysfs: %v)", c.addr, lo, got, c.want, thpErr)
		}
	}
	b[0], b[size-1] = 1, 2 // still writable
}

// smapsFlag reports whether the /proc/self/smaps entry holding addr has
// flag in its VmFlags.
func smapsFlag(t *testing.T, addr uintptr, flag string) bool {
	return slices.Contains(smapsLine(t, addr, "VmFlags:"), flag)
}

// smapsLine returns the fields after key (such as "Rss:") of the line that
// starts with it in the /proc/self/smaps entry holding addr.
func smapsLine(t *testing.T, addr uintptr, key string) []string {
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, line := range strings.Split(string(smaps), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if m, ok := addressRange([]byte(f[0])); ok {
			in = m.lo <= addr && addr < m.hi
			continue
		}
		if in && f[0] == key {
			return f[1:]
		}
	}
	t.Fatalf("no %s line in the smaps entry holding %#x", key, addr)
	return nil
}

// anonMemory maps size bytes of private anonymous memory outside the Go
// heap, unmapped when the test ends.
func anonMemory(t *testing.T, size int) []byte {
	t.Helper()
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(b) })
	return b
}
