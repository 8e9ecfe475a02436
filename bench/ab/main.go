// Command ab times two or more jsprof binaries on the same files, whole
// processes in a shuffled order, and writes one benchstat file per binary
// (sec/op, the CPU time of all cores as cpu-sec/op and the peak RSS as
// peak-B), so that a change's effect on the whole process is claimed with
// benchstat's test rather than from a few runs:
//
//	go run ./bench/ab -n 12 -o /tmp/ab -args summary old/jsprof new/jsprof -- a.cpuprofile b.json
//	benchstat /tmp/ab/0.txt /tmp/ab/1.txt
//
// Each round runs every (binary, file) pair once, in a new random order, so
// that the machine's drift over minutes reaches all binaries alike. A binary
// given as NAME=VALUE,...:PATH runs with those environment variables set
// (the same binary under two settings). The output of the runs goes to
// /dev/null; a run that fails stops the command with its stderr.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 10, "rounds: runs of each binary on each file")
	out := flag.String("o", "", "directory for the benchstat files 0.txt, 1.txt, … (required)")
	args := flag.String("args", "summary", "the jsprof arguments before the file, space-separated")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: ab [-n N] -o DIR [-args 'summary'] BINARY... -- FILE...")
		flag.PrintDefaults()
	}
	flag.Parse()
	rest := flag.Args()
	sep := -1
	for i, a := range rest {
		if a == "--" {
			sep = i
			break
		}
	}
	if *out == "" || sep < 1 || sep == len(rest)-1 || *n < 1 {
		flag.Usage()
		os.Exit(2)
	}
	bins, files := rest[:sep], rest[sep+1:]
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fail(err)
	}
	type pair struct{ bin, file int }
	var pairs []pair
	for b := range bins {
		for f := range files {
			pairs = append(pairs, pair{b, f})
		}
	}
	lines := make([][]string, len(bins))
	for round := range *n {
		rand.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
		for _, p := range pairs {
			r, err := run(bins[p.bin], strings.Fields(*args), files[p.file])
			if err != nil {
				fail(fmt.Errorf("round %d, %s on %s: %w", round+1, bins[p.bin], files[p.file], err))
			}
			lines[p.bin] = append(lines[p.bin], fmt.Sprintf("BenchmarkProcess/%s 1 %d ns/op %d cpu-ns/op %d peak-B",
				filepath.Base(files[p.file]), r.wall.Nanoseconds(), r.cpu.Nanoseconds(), r.rss))
		}
		fmt.Fprintf(os.Stderr, "\rround %d of %d", round+1, *n)
	}
	fmt.Fprintln(os.Stderr)
	for b, bin := range bins {
		name := filepath.Join(*out, fmt.Sprintf("%d.txt", b))
		text := fmt.Sprintf("# %s\n%s\n", bin, strings.Join(lines[b], "\n"))
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			fail(err)
		}
		fmt.Printf("%s: %s\n", name, bin)
	}
}

// result is what run measures of a process.
type result struct {
	wall, cpu time.Duration // cpu: user and system time, on all cores
	rss       int64         // peak RSS, bytes
}

// run runs bin (ENV=V,...:PATH or a path) with args and file, and returns
// what it measured.
func run(bin string, args []string, file string) (result, error) {
	path, env := bin, os.Environ()
	if k, p, ok := strings.Cut(bin, ":"); ok && strings.Contains(k, "=") {
		path = p
		env = append(env, strings.Split(k, ",")...)
	}
	cmd := exec.Command(path, append(args, file)...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return result{}, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	r := result{wall: d, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = ru.Maxrss * 1024 // Linux reports kilobytes
	}
	return r, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ab:", err)
	os.Exit(1)
}
