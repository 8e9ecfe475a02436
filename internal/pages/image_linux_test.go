package pages

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

func TestReadOnlyImage(t *testing.T) {
	maps := `00400000-008a8000 r-xp 00000000 fe:00 9980431                            /tmp/w/jsprof
008a8000-00d66000 r--p 004a8000 fe:00 9980431                            /tmp/w/jsprof
00d66000-00dc6000 rw-p 00966000 fe:00 9980431                            /tmp/w/jsprof
00dc6000-02e0a000 rw-p 00000000 00:00 0
c000000000-c004000000 rw-p 00000000 00:00 0
7f0000000000-7f0000100000 r--p 00000000 fe:00 1234                       /tmp/w/input.json
7ffd1000-7ffd2000 r-xp 00000000 00:00 0                                  [vdso]
`
	want := []mapping{{0x400000, 0x8a8000}, {0x8a8000, 0xd66000}}
	if got := readOnlyImage([]byte(maps), 0x492380); !slices.Equal(got, want) {
		t.Errorf("code at 0x492380: got %x, want %x", got, want)
	}
	// The file's other mappings are not the executable's.
	if got := readOnlyImage([]byte(maps), 0x7f0000000010); !slices.Equal(got, []mapping{{0x7f0000000000, 0x7f0000100000}}) {
		t.Errorf("input at 0x7f0000000010: got %x", got)
	}
	for _, pc := range []uintptr{0xc000000010, 0x7ffd1000, 0x100} { // anonymous, vdso, unmapped
		if got := readOnlyImage([]byte(maps), pc); got != nil {
			t.Errorf("pc %x: got %x, want nil", pc, got)
		}
	}
	if got := readOnlyImage([]byte("garbage\nzz-yy r-xp 0 fe:00 1 /x\n"), 0x400000); got != nil {
		t.Errorf("garbage: got %x", got)
	}
}

func TestTraced(t *testing.T) {
	for status, want := range map[string]bool{
		"Name:\tjsprof\nTracerPid:\t0\nUid:\t0\n":    false,
		"Name:\tjsprof\nTracerPid:\t4242\nUid:\t0\n": true,
		"Name:\tjsprof\nTracerPid:\t0":               false,
		"Name:\tjsprof\n":                            true,
	} {
		if got := traced([]byte(status)); got != want {
			t.Errorf("traced(%q) = %v, want %v", status, got, want)
		}
	}
}

// ReleaseExecutable leaves the test binary's code mapping with fewer
// resident pages than before, and the program runs on.
func TestReleaseExecutable(t *testing.T) {
	pc := reflect.ValueOf(TestReleaseExecutable).Pointer()
	before := mappingRssKB(t, pc)
	ReleaseExecutable()
	after := mappingRssKB(t, pc)
	t.Logf("code mapping resident: %d KB before, %d KB after", before, after)
	if after >= before {
		t.Errorf("code mapping resident %d KB after the release, %d KB before", after, before)
	}
	if s := strings.Repeat("x", 3); s != "xxx" { // code runs after the release
		t.Fatal(s)
	}
}

// mappingRssKB returns the Rss of the /proc/self/smaps entry holding pc.
func mappingRssKB(t *testing.T, pc uintptr) int {
	f := smapsLine(t, pc, "Rss:")
	n, err := strconv.Atoi(f[0])
	if err != nil {
		t.Fatalf("Rss: %v", f)
	}
	return n
}

// written tells a private file mapping's page that was written (as a
// debugger's breakpoint or a uprobe is) from those read only.
func TestWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "image")
	if err := os.WriteFile(path, bytes.Repeat([]byte{7}, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := syscall.Mmap(int(f.Fd()), 0, 64<<10, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(b)
	var sum int
	for i := 0; i < len(b); i += pageSize { // every page read, none written
		sum += int(b[i])
	}
	m := []mapping{{uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&b[0])) + uintptr(len(b))}}
	if w, err := written(m); err != nil || w {
		t.Fatalf("pages read only: written %v, %v (sum %d)", w, err, sum)
	}
	b[5*pageSize+3] = 9 // a private copy of page 5
	if w, err := written(m); err != nil || !w {
		t.Fatalf("a page written: written %v, %v", w, err)
	}
}

func TestPrivatePages(t *testing.T) {
	entry := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	file, private, absent := entry(1<<63|1<<61|42), entry(1<<63|42), entry(0)
	for _, c := range []struct {
		entries [][]byte
		want    bool
	}{
		{[][]byte{file, absent, file}, false},
		{[][]byte{absent, private}, true},
		{nil, false},
	} {
		if got := privatePages(bytes.Join(c.entries, nil)); got != c.want {
			t.Errorf("%x: got %v, want %v", c.entries, got, c.want)
		}
	}
}
