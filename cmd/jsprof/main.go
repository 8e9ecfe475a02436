// Command jsprof analyses JavaScript CPU profiles. See doc.go, or run
// "jsprof -h".
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/jsprof/jsprof/internal/cli"
)

func main() {
	// The input buffer is most of the heap and is pointer-free, so collecting
	// more often is cheap, and it keeps peak memory near the input size
	// instead of twice the live heap (the default GOGC=100). Process-wide
	// tuning belongs here, not in the library.
	debug.SetGCPercent(25)
	// Ctrl-C cancels the context: reading and analyses stop, and Run exits
	// with 130.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
