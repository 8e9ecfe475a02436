package record

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultInspectorPort is where a Node process opens its inspector on
// SIGUSR1 unless it was started with --inspect-port (or --inspect=PORT).
const DefaultInspectorPort = 9229

// AttachPID records a running Node process. It opens the process's
// inspector with SIGUSR1 (as node inspect -p does), on the address the
// process's command line or NODE_OPTIONS give (--inspect-port,
// --inspect=[HOST:]PORT; default 127.0.0.1:9229), then records as Attach
// does. The process keeps running; Node closes the inspector it opened
// once the recorder disconnects.
func AttachPID(ctx context.Context, pid int, opts NodeOptions) (*Recording, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("bad pid %d", pid)
	}
	if err := checkProcess(pid); err != nil {
		return nil, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(DefaultInspectorPort))
	if args, ok := procArgs(pid); ok {
		if err := checkNodeArgs(pid, args); err != nil {
			return nil, err
		}
		addr = inspectorAddr(args)
	}
	// Already open (started with --inspect, or signalled before)?
	probe, cancel := context.WithTimeout(ctx, 3*time.Second)
	wsURL, err := nodeTargetURL(probe, addr)
	cancel()
	if err == nil {
		return attachURL(ctx, wsURL, addr, pid, &opts)
	}
	if !isRefused(err) {
		return nil, fmt.Errorf("process %d cannot open its inspector on %s, which another program holds (%v): start it with --inspect-port=PORT", pid, addr, err)
	}
	if err := openInspector(pid); err != nil {
		return nil, err
	}
	if opts.Progress != nil {
		opts.Progress(fmt.Sprintf("sent SIGUSR1 to pid %d; waiting for its inspector on %s", pid, addr))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		probe, cancel := context.WithTimeout(ctx, time.Second)
		wsURL, err = nodeTargetURL(probe, addr)
		cancel()
		if err == nil {
			return attachURL(ctx, wsURL, addr, pid, &opts)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if checkProcess(pid) != nil {
			return nil, fmt.Errorf("process %d ended after SIGUSR1 (was it Node.js?)", pid)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("process %d did not open its inspector on %s within 5 s after SIGUSR1 (started with --disable-sigusr1, or busy in a synchronous loop?)", pid, addr)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func isRefused(err error) bool {
	return strings.Contains(err.Error(), "nothing is listening")
}

// procArgs returns Node's options of pid: those of its command line
// before the script, then the words of its NODE_OPTIONS, from /proc
// (Linux), with argv[0] first; ok is false where /proc is not.
func procArgs(pid int) (args []string, ok bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	raw, err := os.ReadFile(filepath.Join(dir, "cmdline"))
	if err != nil || len(raw) == 0 {
		return nil, false
	}
	var cmdline []string
	for a := range bytes.SplitSeq(bytes.TrimRight(raw, "\x00"), []byte{0}) {
		cmdline = append(cmdline, string(a))
	}
	args = append(args, cmdline[0])
	// Options end at the script (or "--"); a few take the next word.
	takesValue := map[string]bool{"-r": true, "--require": true, "--import": true, "--loader": true,
		"--experimental-loader": true, "-e": true, "--eval": true, "-p": true, "--print": true,
		"--inspect-port": true, "--debug-port": true, "--title": true, "--env-file": true, "-C": true, "--conditions": true}
	for i := 1; i < len(cmdline); i++ {
		a := cmdline[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			break
		}
		args = append(args, a)
		if takesValue[a] && i+1 < len(cmdline) {
			i++
			args = append(args, cmdline[i])
		}
	}
	if env, err := os.ReadFile(filepath.Join(dir, "environ")); err == nil {
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte("NODE_OPTIONS=")); ok {
				args = append(args, strings.Fields(string(v))...)
			}
		}
	}
	return args, true
}

// checkNodeArgs refuses processes that SIGUSR1 would not help: not Node
// (the signal would kill most programs), or Node with SIGUSR1 disabled.
func checkNodeArgs(pid int, args []string) error {
	exe := filepath.Base(args[0])
	if link, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe")); err == nil {
		exe = filepath.Base(link)
	}
	if !strings.Contains(strings.ToLower(exe), "node") && !strings.Contains(strings.ToLower(filepath.Base(args[0])), "node") {
		return fmt.Errorf("process %d (%s) is not Node.js: SIGUSR1 would not open an inspector, and may kill it", pid, exe)
	}
	if slices.Contains(args[1:], "--disable-sigusr1") {
		return fmt.Errorf("process %d runs with --disable-sigusr1: its inspector cannot be opened from outside; restart it with --inspect and use --inspect HOST:PORT", pid)
	}
	return nil
}

// inspectorAddr returns where Node opens its inspector given its options
// (from procArgs): --inspect-port, --inspect[-brk|-wait]=[HOST:]PORT,
// --debug-port; the last one wins, as in Node.
func inspectorAddr(args []string) string {
	host, port := "127.0.0.1", strconv.Itoa(DefaultInspectorPort)
	set := func(v string) {
		if h, p, err := net.SplitHostPort(v); err == nil {
			if h != "" {
				host = h
			}
			port = p
		} else if _, err := strconv.Atoi(v); err == nil {
			port = v
		} else if v != "" {
			host = v
		}
	}
	for i := 1; i < len(args); i++ {
		name, val, hasVal := strings.Cut(args[i], "=")
		switch name {
		case "--inspect-port", "--debug-port":
			if !hasVal && i+1 < len(args) {
				i++
				val = args[i]
			}
			set(val)
		case "--inspect", "--inspect-brk", "--inspect-wait":
			if hasVal {
				set(val)
			}
		}
	}
	if host == "0.0.0.0" || host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
