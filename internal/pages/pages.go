// Package pages gives the whole pages of a consumed array back to the
// system while the array is still allocated, faults in those of an array
// about to be filled or asks huge pages for it, and gives back the pages
// of the running executable's code and read-only data (ReleaseExecutable).
//
// A Go array is freed whole, when nothing refers to it. A reader that has
// moved what it still needs to the front of a large pointer-free array
// (format/v8 compacts its raw nodes so) holds the rest until the array is
// dropped, and that rest is resident at the reading's peak. Discard tells
// the kernel that those pages' contents are no longer needed: they stop
// being resident, and read as zeros if touched again, as a newly
// allocated array does. The runtime never reads a pointer-free object's
// memory, so nothing but the caller sees the change.
package pages

import "unsafe"

// minDiscard is the smallest stretch worth a system call.
const minDiscard = 1 << 20

// Discard gives back the whole pages within b (nothing for less than
// minDiscard bytes, or where the system has no such call). b must lie in
// a pointer-free Go object (or in memory outside the Go heap) whose
// contents there the caller no longer needs: they become zeros.
func Discard(b []byte) {
	if w := wholePages(b); len(b) >= minDiscard && len(w) > 0 {
		discard(w)
	}
}

// wholePages returns the whole pages within b (nil if none).
func wholePages(b []byte) []byte { return aligned(b, uintptr(pageSize)) }

// aligned returns the whole blocks of size within b (a power of two), the
// blocks starting at multiples of size (nil if none).
func aligned(b []byte, size uintptr) []byte {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (lo + size - 1) &^ (size - 1)
	end := (lo + uintptr(len(b))) &^ (size - 1)
	if end <= start {
		return nil
	}
	return b[start-lo : end-lo]
}

// minPopulate is the smallest stretch worth faulting in ahead.
const minPopulate = 1 << 20

// Populate faults in the whole pages within b ahead of their first write
// (nothing for less than minPopulate bytes, or where the system has no
// such call): b must lie in a pointer-free Go object (or in memory
// outside the Go heap), whose contents it does not change. A fresh large
// array's pages are not resident until written; the fault of each (and
// its zeroing by the kernel) is then paid by the loop that fills it.
// Called on an idle core while the caller does other work, it moves that
// cost off the caller's.
func Populate(b []byte) {
	if w := wholePages(b); len(b) >= minPopulate && len(w) > 0 {
		populate(w)
	}
}

// PopulateAhead is Populate on a goroutine of its own, started only when
// b is long enough for Populate to do anything: the caller goes on at once.
func PopulateAhead(b []byte) {
	if len(b) >= minPopulate {
		go Populate(b)
	}
}

// hugePage is the size of a transparent huge page (x86-64, arm64 with 4 KB
// pages).
const hugePage = 2 << 20

// minHuge is the smallest array worth asking huge pages for: one whole
// huge page lies within any stretch of twice its size.
const minHuge = 2 * hugePage

// Huge asks the system to back the whole huge pages within b with huge
// pages as they are first touched (MADV_HUGEPAGE; nothing for less than
// minHuge bytes, or where the system has no such call). b is an array
// about to be filled from its start: a huge page is one fault where 512
// small pages were 512, each with its own trip through the kernel's
// fault path (docs/performance.md §5n). The advice holds for the memory
// after the array is freed, and what the heap puts there later faults in
// huge pages too; it changes no byte.
func Huge(b []byte) {
	if w := aligned(b, hugePage); len(b) >= minHuge && len(w) > 0 {
		huge(w)
	}
}

// Bytes returns the memory of s as bytes, for Discard, Populate and Huge:
// s's element type must hold no pointers.
func Bytes[T any](s []T) []byte {
	var t T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(t)))
}
