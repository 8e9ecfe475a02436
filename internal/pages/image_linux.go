package pages

import (
	"bytes"
	"encoding/binary"
	"os"
	"reflect"
	"strconv"
	"sync"
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
	ms := imageMappings()
	// Nor may it drop pages something wrote (uprobes write their
	// breakpoints so, and a tracer that has detached leaves its own).
	if w, err := written(ms); err != nil || w {
		return
	}
	for _, m := range ms {
		// A private file mapping's pages that were never written are
		// the page cache's: dropping them from this mapping loses nothing.
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, m.lo, m.hi-m.lo, syscall.MADV_DONTNEED)
	}
	// Mapped again a page at a time, not 64 KB (faultaround_linux.go).
	noFaultAround(ms)
}

// imageMappings is readOnlyImage of this process's maps, found once: the
// executable's mappings stay where they are (nil if /proc is not there).
var imageMappings = sync.OnceValue(func() []mapping {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil
	}
	return readOnlyImage(maps, reflect.ValueOf(readOnlyImage).Pointer())
})

// written reports whether any resident page of the mappings is a private
// copy rather than the file's page, from /proc/self/pagemap: an entry of
// 8 bytes a page, bit 63 set if the page is present, bit 61 if it is a
// file page (or shared anonymous memory).
func written(ms []mapping) (bool, error) {
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		return false, err
	}
	defer f.Close()
	ps := uintptr(pageSize)
	for _, m := range ms {
		buf := make([]byte, 8*((m.hi-m.lo+ps-1)/ps))
		if _, err := f.ReadAt(buf, int64(m.lo/ps)*8); err != nil {
			return false, err
		}
		if privatePages(buf) {
			return true, nil
		}
	}
	return false, nil
}

// privatePages reports whether pagemap entries hold a present page that
// is not a file page.
func privatePages(entries []byte) bool {
	for i := 0; i+8 <= len(entries); i += 8 {
		e := binary.LittleEndian.Uint64(entries[i:])
		if e&(1<<63) != 0 && e&(1<<61) == 0 {
			return true
		}
	}
	return false
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
		m, ok := addressRange(f[0])
		if !ok {
			continue
		}
		ln := line{m, bytes.IndexByte(f[1], 'w') >= 0, string(f[3]) + " " + string(f[4])}
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

// addressRange reads the "lo-hi" (hexadecimal) that starts a line of
// /proc/self/maps or smaps.
func addressRange(f []byte) (mapping, bool) {
	los, his, ok := bytes.Cut(f, []byte{'-'})
	lo, err1 := strconv.ParseUint(string(los), 16, 64)
	hi, err2 := strconv.ParseUint(string(his), 16, 64)
	if !ok || err1 != nil || err2 != nil || hi <= lo {
		return mapping{}, false
	}
	return mapping{uintptr(lo), uintptr(hi)}, true
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
