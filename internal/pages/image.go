package pages

// ReleaseExecutable gives back the resident pages of the running
// executable's read-only mappings (its code, read-only data and pc tables;
// nothing where the system has no such call). Where the code runs from a
// file, those pages stay in the page cache and are mapped again, from
// there, as they are next touched.
//
// The kernel maps a file's pages 64 KB at a time around each fault
// (fault-around), so a program whose packages' initialisers touch a few
// lines all over its code holds most of it resident from the start: the
// static jsprof binary 7 MB of its 9.8, before reading a byte of input,
// where a hello-world holds 1.5 MB. Given back once the initialisers have
// run and again at a phase's end, only what the rest of the run touches
// is mapped again (docs/performance.md §5m).
//
// From the first release on, the mappings are mapped again a page at a
// time: they are registered with a userfaultfd for asynchronous
// write-protection, which turns the kernel's fault-around off for them
// (Linux 6.7; faultaround_linux.go). Each phase then holds only the pages
// it runs and the pc tables it reads, not the 64 KB around each: peaks
// 2–3.5 MB lower (docs/performance.md §5z).
//
// Pages that were written are not the file's, and dropping them would
// lose what was written: a debugger's breakpoints, a uprobe's. Nothing is
// given back while the process is traced, or when any page of the
// mappings is a private copy (/proc/self/pagemap).
func ReleaseExecutable() { releaseExecutable() }

// ExecutableFaultAroundOff reports whether the executable's mappings are
// mapped again a page at a time: ReleaseExecutable has registered them
// (false before its first call, and where the system refuses).
func ExecutableFaultAroundOff() bool { return executableFaultAroundOff() }
