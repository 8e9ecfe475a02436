package cli

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/record"
	"github.com/jsprof/jsprof/session"
)

const recordUsage = `Usage: jsprof record [-o OUT] [--interval D] [--duration D] (-- node SCRIPT ARGS | --pid PID | --inspect ADDR | --chrome URL)

Records a CPU profile from a live Node.js program or a page in Chromium,
over the DevTools protocol (loopback only), and writes it as V8 or Chromium
produced it.

  jsprof record -- node app.js ARGS…
      starts Node with its inspector on a free loopback port and profiles it
      from before the script runs (start-up included, as --cpu-prof) until
      it exits, --duration elapses or Ctrl-C; the program is stopped if it
      still runs. Worker threads are recorded too, each as its own thread.
  jsprof record --pid PID
      attaches to a running Node process: SIGUSR1 opens its inspector (as
      node inspect -p does) on 127.0.0.1:9229, or where its --inspect-port
      says. Stops on Ctrl-C, after --duration, or when the process exits;
      the process keeps running.
  jsprof record --inspect HOST:PORT|ws://…
      attaches to a Node process already listening (node --inspect).
  jsprof record --chrome URL
      starts Chromium headless (the installed chromium, or --browser PATH)
      with a fresh profile, records a Performance-panel trace of loading
      URL (DevTools' trace categories, JS samples included) until the load
      has settled (1 s after the load event) or for --duration, and writes
      the trace JSON. --chrome-port PORT records in a Chromium already
      running with --remote-debugging-port=PORT instead.

OUT defaults to a timestamped name in the current directory:
node-YYYYMMDD-HHMMSS.cpuprofile (a trace, .json, when workers were
recorded: one file with every thread) or chrome-YYYYMMDD-HHMMSS.json.gz.
An OUT ending in .json or .json.gz holds a Node recording as a trace with
every thread; with workers, -o app.cpuprofile writes the main thread there
and each worker to app.worker-N.cpuprofile (N its threadId). .gz
compresses; "-" writes to standard output (the program's own output then
goes to standard error). Progress and the result go to standard error;
--view then opens the file in jsprof view.
`

// findCommand returns the command named name, or nil. It is set in init
// because record's own entry in commands may not refer to commands.
var findCommand func(name string) *command

func init() {
	findCommand = func(name string) *command {
		for i := range commands {
			if commands[i].name == name {
				return &commands[i]
			}
		}
		return nil
	}
}

func runRecord(e *env, args []string) error {
	fs := newFlags("record")
	out := fs.String("o", "", "write to `OUT` (default: a timestamped name; - for standard output)")
	interval := fs.Duration("interval", record.DefaultInterval, "sampling `interval`; Chromium has two: ~100µs (below 1ms) and 1ms")
	duration := fs.Duration("duration", 0, "stop after this long (0: when the program exits, the page has loaded, or Ctrl-C)")
	pid := fs.Int("pid", 0, "attach to the running Node process `PID` (SIGUSR1)")
	inspect := fs.String("inspect", "", "attach to the Node inspector at `ADDR` (HOST:PORT or a ws:// URL)")
	chrome := fs.String("chrome", "", "record loading `URL` in headless Chromium")
	browser := fs.String("browser", "", "Chromium binary for --chrome (default: $JSPROF_CHROMIUM, then chromium on PATH)")
	chromePort := fs.Int("chrome-port", 0, "with --chrome: record in the Chromium listening on 127.0.0.1:`PORT` (--remote-debugging-port)")
	viewFlag := fs.Bool("view", false, "open the result in jsprof view")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(e.stdout, recordUsage)
			fmt.Fprintln(e.stdout, "\nFlags:")
			fs.SetOutput(e.stdout)
			fs.PrintDefaults()
			return flag.ErrHelp
		}
		return &usageError{err.Error()}
	}
	argv := fs.Args()
	modes := 0
	for _, set := range []bool{len(argv) > 0, *pid != 0, *inspect != "", *chrome != ""} {
		if set {
			modes++
		}
	}
	switch {
	case modes == 0:
		return usagef("nothing to record: want -- node SCRIPT, --pid PID, --inspect ADDR or --chrome URL")
	case modes > 1:
		return usagef("want one of -- node SCRIPT, --pid PID, --inspect ADDR and --chrome URL, not several")
	case *interval <= 0:
		return usagef("--interval %v: want a positive duration such as 100us or 1ms", *interval)
	case *duration < 0:
		return usagef("--duration %v: want a positive duration such as 10s", *duration)
	case (*browser != "" || *chromePort != 0) && *chrome == "":
		return usagef("--browser and --chrome-port go with --chrome URL")
	case *chromePort < 0 || *chromePort > 65535:
		return usagef("--chrome-port %d: want a TCP port", *chromePort)
	case *pid < 0:
		return usagef("--pid %d: want a process id", *pid)
	}
	var viewer *command
	if *viewFlag {
		if viewer = findCommand("view"); viewer == nil {
			return usagef("--view: this jsprof has no viewer yet; run jsprof top or tree on the file")
		}
	}
	if *out != "" && *out != "-" {
		if st, err := os.Stat(filepath.Dir(*out)); err != nil || !st.IsDir() {
			return fmt.Errorf("cannot write %s: no directory %s", *out, filepath.Dir(*out))
		}
	}
	progress := func(msg string) { fmt.Fprintf(e.stderr, "jsprof: %s\n", msg) }
	// JSPROF_DEBUG_PROTOCOL=F logs every DevTools-protocol message to F.
	var protoLog io.Writer
	if name := os.Getenv("JSPROF_DEBUG_PROTOCOL"); name != "" {
		f, err := os.Create(name)
		if err != nil {
			return fmt.Errorf("JSPROF_DEBUG_PROTOCOL: %w", err)
		}
		defer f.Close()
		protoLog = f
	}

	var files []string
	var err error
	if *chrome != "" {
		files, err = recordChrome(e, *chrome, *out, record.ChromeOptions{
			Browser: *browser, Port: *chromePort, Duration: *duration, Interval: *interval, Progress: progress,
			ProtocolLog: protoLog,
		})
	} else {
		files, err = recordNode(e, argv, *pid, *inspect, *out, record.NodeOptions{
			Interval: *interval, Duration: *duration, Progress: progress, ProtocolLog: protoLog,
		})
	}
	if err != nil {
		return err
	}
	if len(files) > 0 && files[0] != "-" {
		if viewer != nil && e.ctx.Err() == nil {
			return viewer.run(e, []string{files[0]})
		}
		fmt.Fprintf(e.stderr, "jsprof: next: jsprof top %s\n", shellQuote(files[0]))
	}
	return nil
}

// recordNode records a Node program or process and writes its files.
func recordNode(e *env, argv []string, pid int, inspect, out string, opts record.NodeOptions) ([]string, error) {
	var rec *record.Recording
	var err error
	switch {
	case len(argv) > 0:
		opts.Stdin = e.stdin
		opts.Stdout, opts.Stderr = e.stdout, e.stderr
		if out == "-" {
			opts.Stdout = e.stderr // standard output carries the profile
		}
		rec, err = record.Node(e.ctx, argv, opts)
	case pid != 0:
		rec, err = record.AttachPID(e.ctx, pid, opts)
	default:
		rec, err = record.Attach(e.ctx, inspect, opts)
	}
	if err != nil {
		return nil, err
	}
	took := roundDur(rec.End.Sub(rec.Start))
	stopped := ""
	if rec.Process != nil {
		stopped = fmt.Sprintf("; %s stopped (%v)", argv[0], rec.Process)
	}
	switch rec.Stopped {
	case record.StopExited:
		if rec.Process != nil {
			fmt.Fprintf(e.stderr, "jsprof: %s ended (%v) after %s\n", rec.Target, rec.Process, took)
		} else {
			fmt.Fprintf(e.stderr, "jsprof: %s exited after %s\n", rec.Target, took)
		}
	case record.StopDuration:
		fmt.Fprintf(e.stderr, "jsprof: stopped after %s%s\n", took, stopped)
	case record.StopInterrupted:
		fmt.Fprintf(e.stderr, "jsprof: interrupted after %s%s\n", took, stopped)
	case record.StopLost:
		if len(rec.Threads) == 0 {
			// V8 hands a profile over only when it stops: nothing came.
			return nil, fmt.Errorf("lost the connection to %s after %s (did the process end?): no profile was received", rec.Target, took)
		}
		fmt.Fprintf(e.stderr, "jsprof: lost the connection to %s after %s; writing the %d thread(s) received\n", rec.Target, took, len(rec.Threads))
	}
	for _, m := range rec.Missing {
		fmt.Fprintf(e.stderr, "jsprof: no profile for %s\n", m)
	}
	if len(rec.Threads) == 0 {
		return nil, fmt.Errorf("no profile was recorded (%s)", rec.Stopped)
	}
	stamp := rec.Start.Format("20060102-150405")
	multi := len(rec.Threads) > 1
	trace := strings.HasSuffix(strings.TrimSuffix(out, ".gz"), ".json") || multi && (out == "" || out == "-")
	switch {
	case out == "" && trace:
		out = freeName("node-"+stamp, ".json")
	case out == "":
		out = freeName("node-"+stamp, ".cpuprofile")
	}
	if trace {
		if err := writeRecorded(e, out, rec.WriteTrace); err != nil {
			return nil, err
		}
		return []string{out}, reportFile(e, out)
	}
	files := []string{out}
	for i, th := range rec.Threads {
		name := out
		if i > 0 {
			name = workerName(out, th.ThreadID)
			files = append(files, name)
		}
		if err := writeRecorded(e, name, func(w io.Writer) error { _, err := w.Write(th.Profile); return err }); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		if err := reportFile(e, f); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// recordChrome records a page load in Chromium into out.
func recordChrome(e *env, pageURL, out string, opts record.ChromeOptions) ([]string, error) {
	if out == "" {
		out = freeName("chrome-"+time.Now().Format("20060102-150405"), ".json.gz")
	}
	opts.Gzip = strings.HasSuffix(out, ".gz")
	var info *record.TraceInfo
	err := writeRecorded(e, out, func(w io.Writer) error {
		var err error
		info, err = record.Chrome(e.ctx, pageURL, w, opts)
		return err
	})
	if err != nil {
		return nil, err
	}
	switch info.Stopped {
	case record.StopDuration:
		fmt.Fprintf(e.stderr, "jsprof: stopped after %s\n", roundDur(info.End.Sub(info.Start)))
	case record.StopInterrupted:
		fmt.Fprintf(e.stderr, "jsprof: interrupted after %s\n", roundDur(info.End.Sub(info.Start)))
	case record.StopLost:
		fmt.Fprintf(e.stderr, "jsprof: lost the connection to the browser (%v); the trace may be cut short\n", info.Lost)
	}
	if info.DataLoss {
		fmt.Fprintln(e.stderr, "jsprof: Chromium's trace buffer overflowed: the trace lacks some events (record for less time)")
	}
	return []string{out}, reportFile(e, out)
}

// writeRecorded creates name ("-": standard output; .gz: gzip unless the
// data already is) and lets write fill it. A file left empty by a failed
// write is removed.
func writeRecorded(e *env, name string, write func(w io.Writer) error) error {
	if name == "-" {
		return write(e.stdout)
	}
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var w io.Writer = bw
	var zw *gzip.Writer
	if strings.HasSuffix(name, ".gz") {
		zw = gzip.NewWriter(bw)
		w = &gzipUnlessGzip{zw: zw, raw: bw}
	}
	err = write(w)
	if zw != nil {
		if g := w.(*gzipUnlessGzip); !g.passthrough {
			err = errors.Join(err, zw.Close())
		}
	}
	err = errors.Join(err, bw.Flush(), f.Close())
	if err != nil {
		if st, serr := os.Stat(name); serr == nil && st.Size() == 0 {
			os.Remove(name)
		}
		return err
	}
	return nil
}

// gzipUnlessGzip compresses what is written to it, unless the first bytes
// are already gzip (Chromium's compressed trace stream), which pass as they
// are.
type gzipUnlessGzip struct {
	zw          *gzip.Writer
	raw         io.Writer
	decided     bool
	passthrough bool
}

func (g *gzipUnlessGzip) Write(p []byte) (int, error) {
	if !g.decided && len(p) > 0 {
		g.decided = true
		g.passthrough = len(p) >= 2 && p[0] == 0x1f && p[1] == 0x8b
	}
	if g.passthrough {
		return g.raw.Write(p)
	}
	return g.zw.Write(p)
}

// reportFile reads a written file back through the session, as every
// command will, and prints one line per thread with samples.
func reportFile(e *env, name string) error {
	if name == "-" {
		return nil // written to standard output: nothing to read back
	}
	st, err := os.Stat(name)
	if err != nil {
		return err
	}
	// After Ctrl-C stopped the recording, reading it back still runs.
	ctx := context.WithoutCancel(e.ctx)
	s, err := session.Load(ctx, name, session.Options{})
	if err != nil {
		return fmt.Errorf("the recorded %s does not read back: %w", name, err)
	}
	fmt.Fprintf(e.stderr, "jsprof: wrote %s (%s)\n", name, sizeString(st.Size()))
	for _, th := range s.Threads() {
		info := th.Info()
		if info.Samples.Len() == 0 {
			continue
		}
		line := fmt.Sprintf("  %s (pid %d tid %d): %d samples", threadLabel(info.Name), info.PID, info.TID, info.Samples.Len())
		tree, err := th.Tree(ctx, view.Options{View: view.JS})
		if err == nil && len(tree.TopDown) > 0 {
			line += fmt.Sprintf(", %s sampled", msString(tree.TopDown[0].Total.Sub(0)))
			for _, id := range tree.Top(calltree.BySelf, 8) {
				f := &tree.Funcs[id]
				fr := &tree.Profile.Frames[f.Frame]
				name := tree.Profile.Str(fr.Name)
				if f.Self <= 0 || strings.HasPrefix(name, "(") {
					continue // (idle), (program), (garbage collector)
				}
				if name == "" {
					name = "(anonymous)"
				}
				line += fmt.Sprintf("; hottest: %s %s self", name, msString(f.Self.Sub(0)))
				break
			}
		}
		fmt.Fprintln(e.stderr, line)
	}
	return nil
}

func threadLabel(name string) string {
	if name == "" {
		return "main"
	}
	return name
}

// workerName is the file of a worker next to out: app.cpuprofile gives
// app.worker-3.cpuprofile.
func workerName(out string, threadID int) string {
	gz := strings.HasSuffix(out, ".gz")
	base := strings.TrimSuffix(out, ".gz")
	ext := filepath.Ext(base)
	name := strings.TrimSuffix(base, ext) + ".worker-" + strconv.Itoa(threadID) + ext
	if gz {
		name += ".gz"
	}
	return name
}

// freeName returns stem+ext, or stem-2+ext, … if that exists.
func freeName(stem, ext string) string {
	name := stem + ext
	for i := 2; ; i++ {
		if _, err := os.Lstat(name); errors.Is(err, os.ErrNotExist) {
			return name
		}
		name = stem + "-" + strconv.Itoa(i) + ext
	}
}

func roundDur(d time.Duration) time.Duration {
	if d > 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

func msString(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) + " ms"
}

func sizeString(n int64) string {
	switch {
	case n >= 10<<20:
		return strconv.FormatInt(n>>20, 10) + " MB"
	case n >= 10<<10:
		return strconv.FormatInt(n>>10, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

func shellQuote(s string) string {
	if strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
