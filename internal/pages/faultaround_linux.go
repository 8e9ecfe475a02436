package pages

import (
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Fault-around turned off for the executable's read-only mappings.
//
// On a fault in a file's pages the kernel maps up to 16 of its cached
// pages around the one asked for (fault_around_bytes, 64 KB), to save
// the faults a sequential reader would take next. Code is not read in
// sequence: the functions a phase runs, and the pc tables the runtime
// reads to grow and scan their stacks, lie a few lines here and a few
// there over 10 MB of the binary, and each line touched maps the 64 KB
// around it. After ReleaseExecutable gave them back, a trace's reading
// mapped 3.5–4 MB of the binary again (docs/performance.md §5m, §5y),
// a third of what 0.5× the input allows a 21 MB trace.
//
// The kernel does no fault-around in a mapping registered with a
// userfaultfd for write-protection (should_fault_around in mm/memory.c:
// a fault there must stay a single page for the write-protection to be
// tracked). In the asynchronous mode (UFFD_FEATURE_WP_ASYNC, Linux 6.7)
// the kernel resolves any such fault itself, with nothing to read from
// the descriptor, and a mapping of any kind may be registered; and as
// nothing is ever write-protected through it, a write (none is made to
// these mappings but a debugger's) is an ordinary copy-on-write. Only the
// registration is wanted: each fault then maps the one page touched.
// The descriptor is kept open for the life of the process (closing it
// would undo the registration).

const (
	uffdUserModeOnly   = 1 // UFFD_USER_MODE_ONLY: what an unprivileged process may ask
	uffdAPI            = 0xAA
	uffdFeatureWPAsync = 1 << 15
	uffdioAPI          = 0xC018AA3F // _IOWR(0xAA, 0x3F, struct uffdio_api)
	uffdioRegister     = 0xC020AA00 // _IOWR(0xAA, 0x00, struct uffdio_register)
	uffdRegisterWP     = 1 << 1
)

var (
	noFaultAroundOnce sync.Once
	faultAroundOff    atomic.Bool // the executable's mappings are registered
)

// noFaultAround registers ms (the executable's read-only mappings) once.
func noFaultAround(ms []mapping) {
	noFaultAroundOnce.Do(func() { faultAroundOff.Store(registerNoFaultAround(ms)) })
}

func executableFaultAroundOff() bool { return faultAroundOff.Load() }

// registerNoFaultAround registers ms with a new userfaultfd for
// write-protection, asynchronous, and reports whether any was; the
// descriptor stays open. It does nothing where the system refuses: a
// kernel before 6.7, no userfaultfd (CONFIG_USERFAULTFD, a seccomp
// filter), an architecture whose system call this package does not know.
func registerNoFaultAround(ms []mapping) bool {
	if sysUserfaultfd == 0 || len(ms) == 0 {
		return false
	}
	fd, _, e := syscall.Syscall(sysUserfaultfd, syscall.O_CLOEXEC|syscall.O_NONBLOCK|uffdUserModeOnly, 0, 0)
	if e != 0 {
		return false
	}
	api := struct{ api, features, ioctls uint64 }{api: uffdAPI, features: uffdFeatureWPAsync}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, uffdioAPI, uintptr(unsafe.Pointer(&api))); e != 0 || api.features&uffdFeatureWPAsync == 0 {
		syscall.Close(int(fd))
		return false
	}
	registered := false
	for _, m := range ms {
		reg := struct{ start, len, mode, ioctls uint64 }{start: uint64(m.lo), len: uint64(m.hi - m.lo), mode: uffdRegisterWP}
		_, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, uffdioRegister, uintptr(unsafe.Pointer(&reg)))
		registered = registered || e == 0
	}
	if !registered {
		syscall.Close(int(fd))
	}
	return registered
}
