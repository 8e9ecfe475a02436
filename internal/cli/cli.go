// Package cli implements the jsprof command line: subcommands, flags, and
// the wiring from inputs through analyses to text or JSON output.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Usage is the top-level help text.
const Usage = `jsprof: fast, DevTools-exact analysis of JavaScript CPU profiles.

Usage:
  jsprof summary [--json] [--thread SEL] FILE  what the profile holds; runs the full analysis
  jsprof top [-n N] [--by self|total] [--total SEM] [--lines] [--json] [--thread SEL] FILE
                                               hottest functions, self and total time
  jsprof tree [--bottom-up] [--total SEM] [--depth N] [--min PCT] [--json] [--thread SEL] FILE
                                               indented call tree
  jsprof calls --json [--entries] [--thread SEL] FILE
                                               every estimated JS call (DevTools ProfileCall), or
                                               flame-chart entry, one JSON object per line
  jsprof convert --format FORMAT [-o OUT] [--thread SEL] FILE
                                               write another format: cpuprofile, trace, speedscope,
                                               firefox, pprof, folded or svg
  jsprof version                               the module version and VCS revision of this binary
  jsprof diff [-n N] [--by self|total] [--normalize] [--tree] [--json] [--thread SEL] FILE FILE
                                               change from the first FILE (base) to the second,
                                               per function or call path; flame graph, pprof pair
  jsprof merge --format FORMAT [-o OUT] [--thread SEL] FILE [FILE]
                                               sum many profiles (time-weighted) into one
  jsprof push --url URL --name SERVICE [--label K=V] [--ingest] [--thread SEL] FILE [FILE]
                                               send profiles to Grafana Pyroscope as pprof
  jsprof record [-o OUT] [--interval D] [--duration D] (-- node SCRIPT ARGS | --pid PID | --inspect ADDR | --chrome URL)
                                               record a live Node program (workers too) or a page
                                               loading in headless Chromium, over the DevTools protocol
  jsprof view [--addr HOST:PORT] [--no-open] [--source-root DIR]… [--diff NEW] FILE
                                               open FILE in a local web viewer (flame chart, trees,
                                               flame graph, transforms) served on 127.0.0.1

FILE is a V8 .cpuprofile (Node --cpu-prof, Chrome DevTools, Deno, XS) or a
Chrome trace (DevTools Performance recording, chrome://tracing; array or
object, chunked or not), plain or gzip; the format is detected from the
content. "-" reads standard input. SEL picks threads: pid:tid or a thread
name. SEM is devtools, vscode or xsbug. top, tree, calls and convert also
take --view js|platform|all, --from/--to MS, --focus/--merge/--drop FUNC
(a name, a regular expression, name@file.js:LINE or file.js:LINE) and
--collapse-recursion. Run "jsprof COMMAND -h" for the flags of a command.

Exit status: 0 on success, 1 for an unreadable or invalid input, 2 for a usage error,
130 when interrupted.
`

// usageError marks errors that exit with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// env carries the streams of one run.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	phases *phaseLog // JSPROF_DEBUG_PHASES; nil otherwise
}

type command struct {
	name  string
	usage string
	run   func(e *env, args []string) error
}

var commands = []command{
	{"summary", summaryUsage, runSummary},
	{"top", topUsage, runTop},
	{"tree", treeUsage, runTree},
	{"calls", callsUsage, runCalls},
	{"convert", convertUsage, runConvert},
	{"diff", diffUsage, runDiff},
	{"merge", mergeUsage, runMerge},
	{"push", pushUsage, runPush},
	{"version", versionUsage, runVersion},
	{"record", recordUsage, runRecord},
	{"view", viewUsage, runView},
}

// Run runs the jsprof command line with args (without the program name) and
// returns the process exit status. Errors go to stderr as "jsprof: …".
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &errWriter{w: stdout}
	e := &env{ctx: ctx, stdin: stdin, stdout: out, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, Usage)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, Usage)
		return 0
	case "-version", "--version":
		args = append([]string{"version"}, args[1:]...)
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		e.phases = newPhaseLog(stderr)
		stopProfile := startCPUProfile(stderr)
		err := c.run(e, args[1:])
		stopProfile()
		e.phases.finish()
		if err == nil && out.err != nil {
			err = fmt.Errorf("writing output: %w", out.err)
		}
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, context.Canceled) && ctx.Err() != nil:
			fmt.Fprintln(stderr, "jsprof: interrupted")
			return 130
		}
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "jsprof %s: %v\n", c.name, err)
			fmt.Fprintf(stderr, "run \"jsprof %s -h\" for usage\n", c.name)
			return 2
		}
		fmt.Fprintf(stderr, "jsprof: %v\n", err)
		return 1
	}
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	fmt.Fprintf(stderr, "jsprof: unknown command %q; want %s\n", args[0], strings.Join(names, ", "))
	return 2
}

// errWriter keeps the first write error (a closed pipe, a full disk) so that
// Run can fail with it instead of exiting 0 with partial output.
type errWriter struct {
	w   io.Writer
	err error
}

func (w *errWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n, err := w.w.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}

// newFlags returns a flag set that reports bad flags as usage errors;
// parseFlags prints the usage on -h.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args, allowing flags after the file name, and returns the
// single positional argument.
func parseFlags(e *env, fs *flag.FlagSet, usage string, args []string) (string, error) {
	pos, err := parsePositional(e, fs, usage, args, 1, "exactly one FILE")
	if err != nil {
		return "", err
	}
	return pos[0], nil
}

// parsePositional parses args, allowing flags after the positional
// arguments, and returns exactly want of them.
func parsePositional(e *env, fs *flag.FlagSet, usage string, args []string, want int, what string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(e.stdout, usage)
				fmt.Fprintln(e.stdout, "\nFlags:")
				fs.SetOutput(e.stdout)
				fs.PrintDefaults()
				return nil, flag.ErrHelp
			}
			return nil, &usageError{err.Error()}
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if want > 0 && len(pos) != want {
		return nil, usagef("want %s, got %d arguments", what, len(pos))
	}
	if want == 0 && len(pos) == 0 {
		return nil, usagef("want %s", what)
	}
	return pos, nil
}
