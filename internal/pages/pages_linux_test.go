package pages

import (
	"syscall"
	"testing"
)

// Populate makes fresh pages resident without changing what any byte
// reads, those written before it included. The memory is mapped here, not
// made: a Go array may reuse pages the runtime has zeroed, resident already.
func TestPopulate(t *testing.T) {
	const size = 32 << 20
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(b)
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
	b, err := syscall.Mmap(-1, 0, minPopulate, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(b)
	before := rssKB()
	Populate(b[1:])
	if grew := rssKB() - before; grew > 512 {
		t.Errorf("resident memory grew by %d KB for a stretch below minPopulate", grew)
	}
}
