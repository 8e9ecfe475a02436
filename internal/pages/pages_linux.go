package pages

import (
	"os"
	"syscall"
)

var pageSize = os.Getpagesize()

func discard(b []byte) {
	// Private anonymous memory dropped: read again, it is zero-filled.
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
}

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14), which the syscall
// package does not name.
const madvPopulateWrite = 23

func populate(b []byte) {
	// Faults the pages in as writes would; their contents do not change.
	// An older kernel refuses the advice (EINVAL), and the pages are then
	// faulted in as they are written.
	_ = syscall.Madvise(b, madvPopulateWrite)
}

func huge(b []byte) {
	// Only advice: the memory and its contents are unchanged, and where
	// the system gives no huge pages (transparent_hugepage "never"), it
	// is ignored.
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}
