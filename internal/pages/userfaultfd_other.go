//go:build linux && !amd64 && !arm64

package pages

// sysUserfaultfd is 0 where this package does not know the system call's
// number: the executable's mappings keep the kernel's fault-around.
const sysUserfaultfd = 0
