// Command jsprof analyses JavaScript CPU profiles. See doc.go, or run
// "jsprof -h".
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/jsprof/jsprof/internal/cli"
)

func main() {
	// The input buffer is most of the heap and is pointer-free, so collecting
	// more often is cheap, and it keeps peak memory near the input size
	// instead of twice the live heap (the default GOGC=100).
	debug.SetGCPercent(25)
	// Nothing below Run watches for cancellation yet: stop on the first Ctrl-C.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	go func() {
		<-sig
		fmt.Fprintln(os.Stderr, "jsprof: interrupted")
		os.Exit(130)
	}()
	os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
