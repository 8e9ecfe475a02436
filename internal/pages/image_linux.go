package pages

import (
	"bytes"
	"os"
	"reflect"
	"strconv"
	"syscall"
)

func releaseExecutable() {
	// A debugger's breakpoints are written into private copies of the
	// code's pages, which the advice would drop: a traced process keeps
	// its pages.
	status, err := os.ReadFile("/proc/self/status")
	if err != nil || traced(status) {
		return
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return
	}
	for _, m := range readOnlyImage(maps, reflect.ValueOf(releaseExecutable).Pointer()) {
		// A private file mapping's pages that were never written are
		// the page cache's: dropping them from this mapping loses nothing.
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, m.lo, m.hi-m.lo, syscall.MADV_DONTNEED)
	}
}

// mapping is a stretch of address space, [lo, hi).
type mapping struct{ lo, hi uintptr }

// readOnlyImage returns, from the text of /proc/self/maps, the read-only
// mappings of the file that holds the code at pc (the lines with its
// device and inode and no w in their permissions), or nil if no file's
// mapping holds pc.
func readOnlyImage(maps []byte, pc uintptr) []mapping {
	type line struct {
		m        mapping
		writable bool
		file     string // device and inode
	}
	var lines []line
	file := ""
	for len(maps) > 0 {
		var l []byte
		l, maps, _ = bytes.Cut(maps, []byte{'\n'})
		f := bytes.Fields(l)
		if len(f) < 6 || string(f[4]) == "0" { // anonymous memory has inode 0
			continue
		}
		los, his, ok := bytes.Cut(f[0], []byte{'-'})
		lo, err1 := strconv.ParseUint(string(los), 16, 64)
		hi, err2 := strconv.ParseUint(string(his), 16, 64)
		if !ok || err1 != nil || err2 != nil || hi <= lo {
			continue
		}
		ln := line{mapping{uintptr(lo), uintptr(hi)}, bytes.IndexByte(f[1], 'w') >= 0, string(f[3]) + " " + string(f[4])}
		if ln.m.lo <= pc && pc < ln.m.hi {
			file = ln.file
		}
		lines = append(lines, ln)
	}
	if file == "" {
		return nil
	}
	var ms []mapping
	for _, ln := range lines {
		if ln.file == file && !ln.writable {
			ms = append(ms, ln.m)
		}
	}
	return ms
}

// traced reports whether the text of /proc/self/status names a tracer
// (or has no TracerPid line to say there is none).
func traced(status []byte) bool {
	_, after, ok := bytes.Cut(status, []byte("\nTracerPid:"))
	if !ok {
		return true
	}
	line, _, _ := bytes.Cut(after, []byte{'\n'})
	return string(bytes.TrimSpace(line)) != "0"
}
