package pages

import (
	"bufio"
	"bytes"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
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
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skipf("no /proc/self/smaps: %v", err)
	}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			lo, hi, _ := strings.Cut(f[0], "-")
			l, _ := strconv.ParseUint(lo, 16, 64)
			h, _ := strconv.ParseUint(hi, 16, 64)
			in = uintptr(l) <= pc && pc < uintptr(h)
			continue
		}
		if in && len(f) >= 2 && f[0] == "Rss:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatalf("no smaps entry holds pc %x", pc)
	return 0
}
