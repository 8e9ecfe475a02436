// Command jsprof analyses JavaScript CPU profiles. See doc.go, or run
// "jsprof -h".
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"

	// Imported for its initialiser, which gives the executable's pages back
	// before most packages' initialisers run (Go orders initialisers by
	// dependencies and import path, not by this list; its doc).
	_ "github.com/jsprof/jsprof/cmd/jsprof/internal/startup"
	"github.com/jsprof/jsprof/internal/cli"
	"github.com/jsprof/jsprof/internal/gctune"
	"github.com/jsprof/jsprof/internal/pages"
)

func main() {
	// The runtime records the stack of an allocation every 512 KB for the
	// heap profile, which only JSPROF_DEBUG_HEAPPROFILE writes; each record
	// walks the stack through the binary's pc tables, paged in 64 KB at a
	// time (docs/performance.md §5m). Turned off before the binary's pages
	// are given back: the runtime records one more allocation on each P
	// when the rate changes, and set after, those records faulted the pc
	// tables in again (18 faults of 64 KB on samples-heavy; 4 now, the
	// other P's, whose first allocation comes later; the peak n.s.).
	if os.Getenv("JSPROF_DEBUG_HEAPPROFILE") == "" {
		runtime.MemProfileRate = 0
	}
	// The input buffer is most of the heap and is pointer-free, so collecting
	// more often is cheap, and it keeps peak memory near the input size
	// instead of twice the live heap (the default GOGC=100). But not below
	// a heap of 12 MB: at GOGC=25 the runtime's own floor is 1 MB, and a
	// trace, whose live heap stays small while its reader allocates, was
	// collected 13–25 times (internal/gctune). Process-wide tuning belongs
	// here, not in the library.
	gctune.Floor(25, 12<<20)
	// What the initialisers paged in of the binary since startup's release
	// (a page at a time since then) is given back again: only what this
	// command runs is mapped again (internal/pages, docs/performance.md
	// §5m, §5z).
	pages.ReleaseExecutable()
	// Ctrl-C cancels the context: reading and analyses stop, and Run exits
	// with 130.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
