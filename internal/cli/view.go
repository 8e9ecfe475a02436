package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/internal/server"
	"github.com/jsprof/jsprof/session"
)

const viewUsage = `Usage: jsprof view [--addr HOST:PORT] [--no-open] [--source-root DIR]… [--diff NEW] FILE

Opens FILE in a local web viewer: per thread, the category activity graph
and DevTools' flame chart (zoom with the wheel or W/S, pan by dragging or
A/D, hover for details, click to select), the call tree, bottom-up tree,
function list with callers and callees, flame graph and summary, with
views, ranges and transforms (focus, merge, drop, collapse recursion)
kept in the URL.

The server listens on 127.0.0.1 and a free port unless --addr says
otherwise, prints the URL as the first line of standard output, opens the
system browser unless --no-open (or when there is no display) and serves
until interrupted (Ctrl-C). Requests whose Host header is not the served
address are refused. --source-root DIR (repeatable) lets the page show the
source of scripts found under DIR; nothing outside the roots is read.

--diff NEW compares FILE (the base) with NEW as "jsprof diff" does, for
the shown thread, view, range and transforms: the function and bottom-up
tables gain Δ self and Δ total columns, and the flame graph is coloured by
the change of self time (red more, blue less, grey none).
`

func runView(e *env, args []string) error {
	fs := newFlags("view")
	maxInput := fs.String("max-input", "", "largest decompressed input to read, e.g. `4G` (default 64G)")
	showAll := fs.Bool("show-all-events", false, "keep the \"native V8Runtime\" frames DevTools drops from trace calls")
	fakeMode := fs.Bool("trace-id-fake-mode", false, "use the newer DevTools rule for trace events with a sampleTraceId outside a JS invocation")
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on, `HOST:PORT` (port 0: a free one)")
	noOpen := fs.Bool("no-open", false, "do not open a browser")
	diffName := fs.String("diff", "", "compare FILE with `NEW` (delta columns, differential flame graph colours)")
	var roots listFlag
	fs.Var(&roots, "source-root", "directory `DIR` whose files the source view may show; repeatable")
	name, err := parseFlags(e, fs, viewUsage, args)
	if err != nil {
		return err
	}
	if name == "-" {
		return usagef("view reads a file, not standard input")
	}
	st, err := os.Stat(name)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", name)
	}
	var diffSize int64
	if *diffName != "" {
		dst, err := os.Stat(*diffName)
		if err != nil {
			return err
		}
		if !dst.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", *diffName)
		}
		diffSize = dst.Size()
	}
	for _, r := range roots {
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			return usagef("--source-root %s: not a directory", strconv.Quote(r))
		}
	}
	so := session.Options{FlameEntries: true} // the flame chart draws them
	if *maxInput != "" {
		n, err := parseSize(*maxInput)
		if err != nil {
			return usagef("--max-input: %v", err)
		}
		so.Read.Input.MaxBytes = n
	}
	so.Integrate = calls.IntegrateOptions{ShowAllEvents: *showAll, TraceIDFakeMode: *fakeMode}
	so.EventThreads = true // the tracks of a trace's threads without samples

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	bound := ln.Addr().String()
	host, port, _ := net.SplitHostPort(bound)
	url := "http://" + bound + "/"
	opts := server.Options{Hosts: server.LoopbackHosts(bound), SourceRoots: roots}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		opts.IPHostPort = port
		url = "http://" + net.JoinHostPort("127.0.0.1", port) + "/"
	}
	pending := server.NewPending(st.Size())
	opts.Pending = pending
	if *diffName != "" {
		opts.Diff, opts.DiffName = server.NewPending(diffSize), *diffName
	}
	h := server.New(nil, opts)
	fmt.Fprintln(e.stdout, url)
	if f, ok := e.stdout.(interface{ Flush() error }); ok {
		f.Flush()
	}

	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()

	prog := startProgress(e.stderr, st.Size())
	so.Progress = func(n int64) { prog.setRead(n); pending.Progress(n) }
	start := time.Now()
	loadErr := make(chan error, 1)
	if opts.Diff != nil {
		dso := so
		dso.Progress = nil
		dso.EventThreads = false
		go func() {
			s, err := session.Load(ctx, *diffName, dso)
			opts.Diff.Done(s, err)
			if err != nil {
				fmt.Fprintf(e.stderr, "jsprof view: --diff %s: %v\n", *diffName, err)
			}
		}()
	}
	go func() {
		s, err := session.Load(ctx, name, so)
		prog.stop()
		pending.Done(s, err)
		if err == nil {
			fmt.Fprintf(e.stderr, "jsprof view: %s loaded in %.2fs; serving %s until interrupted\n", name, time.Since(start).Seconds(), url)
			server.Warm(ctx, h)
			debug.FreeOSMemory() // the reader's and the analyses' garbage: the server idles for long
		}
		loadErr <- err
	}()
	if !*noOpen {
		openBrowser(url)
	}
	var result error
	select {
	case err := <-loadErr:
		if err != nil {
			result = err
			if *noOpen {
				break
			}
			// The opened page shows the error (data-state="error") until
			// interrupted.
			fmt.Fprintf(e.stderr, "jsprof view: cannot show %s (the page says why); Ctrl-C to stop\n", name)
			select {
			case <-ctx.Done():
			case <-serveErr:
			}
			break
		}
		select {
		case <-ctx.Done():
		case err := <-serveErr:
			result = err
		}
	case <-ctx.Done():
	case err := <-serveErr:
		result = err
	}
	cancel()
	shutCtx, shutCancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer shutCancel()
	_ = srv.Shutdown(shutCtx)
	if errors.Is(result, http.ErrServerClosed) || errors.Is(result, context.Canceled) {
		result = nil
	}
	return result
}

// openBrowser starts the system browser on url, when there is a display;
// failures are ignored (the URL is printed).
func openBrowser(url string) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return
		}
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err == nil {
		go cmd.Wait()
	}
}
