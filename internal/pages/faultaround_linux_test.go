package pages

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// wpAsyncKernel reports whether the running kernel is 6.7 or later, which
// has userfaultfd's asynchronous write-protection for any mapping.
func wpAsyncKernel(t *testing.T) bool {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		t.Fatal(err)
	}
	var rel []byte
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		rel = append(rel, byte(c))
	}
	f := strings.FieldsFunc(string(rel), func(r rune) bool { return r < '0' || r > '9' })
	if len(f) < 2 {
		t.Fatalf("kernel release %q", rel)
	}
	major, _ := strconv.Atoi(f[0])
	minor, _ := strconv.Atoi(f[1])
	return major > 6 || major == 6 && minor >= 7
}

// uffdAllowed reports whether this process may open a userfaultfd at all:
// a seccomp filter (Docker's default profile, without CAP_SYS_PTRACE) or a
// kernel built without it refuses, and the registration is then rightly
// not made.
func uffdAllowed(t *testing.T) bool {
	fd, _, e := syscall.Syscall(sysUserfaultfd, syscall.O_CLOEXEC|uffdUserModeOnly, 0, 0)
	if e != 0 {
		t.Logf("userfaultfd refused here: %v", e)
		return false
	}
	syscall.Close(int(fd))
	return true
}

// registrable reports whether the registration is expected to succeed.
func registrable(t *testing.T) bool {
	return sysUserfaultfd != 0 && wpAsyncKernel(t) && uffdAllowed(t)
}

// presentPages counts the pages of b that are mapped (/proc/self/pagemap).
func presentPages(t *testing.T, b []byte) int {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps := uintptr(pageSize)
	entries := make([]byte, 8*(uintptr(len(b))/ps))
	if _, err := f.ReadAt(entries, int64(uintptr(unsafe.Pointer(&b[0]))/ps)*8); err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := 0; i+8 <= len(entries); i += 8 {
		if binary.LittleEndian.Uint64(entries[i:])&(1<<63) != 0 {
			n++
		}
	}
	return n
}

// A fault in a registered mapping of a cached file maps the one page
// touched, where the kernel maps the 64 KB around it in another.
func TestNoFaultAround(t *testing.T) {
	const size = 1 << 20
	path := filepath.Join(t.TempDir(), "image")
	if err := os.WriteFile(path, bytes.Repeat([]byte{7}, size), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(path); err != nil { // every page in the page cache
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	touched := func(register bool) (int, bool) {
		b, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_PRIVATE)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Munmap(b)
		ok := false
		if register {
			lo := uintptr(unsafe.Pointer(&b[0]))
			ok = registerNoFaultAround([]mapping{{lo, lo + size}})
		}
		if b[size/2+100] != 7 {
			t.Fatal("the mapping does not read the file")
		}
		return presentPages(t, b), ok
	}
	around, _ := touched(false)
	one, ok := touched(true)
	t.Logf("pages mapped by one fault: %d, %d in a registered mapping (registered %v)", around, one, ok)
	if around == 1 {
		t.Log("this kernel maps one page per fault anyway (fault_around_bytes)")
	}
	if !registrable(t) {
		if ok {
			t.Error("registered where the system refuses")
		}
		return
	}
	if !ok {
		t.Fatal("not registered on a kernel of 6.7 or later that allows userfaultfd")
	}
	if one != 1 {
		t.Errorf("%d pages mapped by one fault in a registered mapping, want 1", one)
	}
}

// After ReleaseExecutable, the test binary's code is registered: its
// mapping has the uffd-wp flag ("uw" in smaps).
func TestReleaseExecutableNoFaultAround(t *testing.T) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	pc := reflect.ValueOf(TestReleaseExecutableNoFaultAround).Pointer()
	ReleaseExecutable()
	got := smapsFlag(t, pc, "uw")
	if want := registrable(t) && !traced(status); got != want {
		t.Errorf("code mapping registered %v, want %v", got, want)
	}
}

// A debugger writes its breakpoints into registered code as into any
// other read-only private mapping (a write through /proc/self/mem, as
// ptrace's): the page becomes a private copy holding the write. (A file's
// mapping stands in for the test binary's code, whose pages, once
// written, ReleaseExecutable would no longer give back.)
func TestNoFaultAroundWrite(t *testing.T) {
	const size = 256 << 10
	path := filepath.Join(t.TempDir(), "code")
	if err := os.WriteFile(path, bytes.Repeat([]byte{7}, size), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_EXEC, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(b)
	lo := uintptr(unsafe.Pointer(&b[0]))
	if ok := registerNoFaultAround([]mapping{{lo, lo + size}}); ok != registrable(t) {
		t.Fatalf("registered %v on this kernel", ok)
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	at := lo + 3*uintptr(pageSize) + 5
	if _, err := mem.WriteAt([]byte{0xcc}, int64(at)); err != nil {
		t.Fatal(err)
	}
	if got := b[at-lo]; got != 0xcc {
		t.Errorf("read back %#x after the write", got)
	}
	page := at &^ uintptr(pageSize-1)
	if w, err := written([]mapping{{page, page + uintptr(pageSize)}}); err != nil || !w {
		t.Errorf("the written page: a private copy %v, %v", w, err)
	}
	if data, err := os.ReadFile(path); err != nil || data[at-lo] != 7 {
		t.Errorf("the file changed: %v", err)
	}
}
