// Package pages gives the whole pages of a consumed array back to the
// system while the array is still allocated.
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
	if len(b) < minDiscard {
		return
	}
	ps := uintptr(pageSize)
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (lo + ps - 1) &^ (ps - 1)
	end := (lo + uintptr(len(b))) &^ (ps - 1)
	if end <= start {
		return
	}
	discard(b[start-lo : end-lo])
}
