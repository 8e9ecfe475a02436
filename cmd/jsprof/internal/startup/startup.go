// Package startup gives the executable's pages back while the packages are
// still being initialised, for the jsprof command alone (a process-wide
// choice, which no library package makes on import).
//
// main gives them back too (pages.ReleaseExecutable), but only once every
// initialiser has run, and those of the packages linked for the viewer,
// the recorder and push (net/http, crypto, regexp, pprof's tables) touch
// a few lines each all over the binary. Until the first release the kernel
// maps the 64 KB around each fault, so the process's high-water mark was
// 8 MB before it read a byte: the peak of every small input. This package
// needs only internal/pages (and so os), and its initialiser runs right
// after it, before most of the others: from then on they map the pages
// they touch one at a time (internal/pages, faultaround_linux.go), and
// `jsprof --version` peaks at 4.6 MB instead of 7.9 (docs/performance.md
// §5z).
package startup

import "github.com/jsprof/jsprof/internal/pages"

func init() { pages.ReleaseExecutable() }
