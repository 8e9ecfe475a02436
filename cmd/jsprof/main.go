// Command jsprof analyses JavaScript CPU profiles. See doc.go, or run
// "jsprof -h".
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/jsprof/jsprof/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
