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
