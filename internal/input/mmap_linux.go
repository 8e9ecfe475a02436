package input

import (
	"os"
	"syscall"
)

// mapFile maps f (size bytes) read-only.
func mapFile(f *os.File, size int64) (*Mapping, error) {
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	m := &Mapping{Data: data}
	m.release = func(lo, hi int) {
		// Pages of a read-only file mapping dropped from the process's
		// memory; touched again, they are read back from the page cache.
		_ = syscall.Madvise(data[lo:hi], syscall.MADV_DONTNEED)
	}
	m.unmap = func() error { return syscall.Munmap(data) }
	// Read the whole file ahead, asynchronously: faulting a cold file in
	// page by page (or with MADV_SEQUENTIAL) while two goroutines read it at
	// both ends ran at a fraction of the disk's speed (a cold 50 MB
	// profile: 2.0 s, now 0.8 s; dd takes 1.05 s).
	_ = syscall.Madvise(data, syscall.MADV_WILLNEED)
	return m, nil
}
