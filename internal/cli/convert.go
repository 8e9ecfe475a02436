package cli

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jsprof/jsprof/analysis/totals"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/profile"
)

const convertUsage = `Usage: jsprof convert --to FORMAT [-o OUT] [--thread SEL] FILE

Converts FILE to another format. FORMAT comes from --to, else from the name
of OUT (.cpuprofile, .cpuprofile.gz). -o - (the default) writes to standard
output; an OUT ending in .gz is gzip-compressed.

Formats written so far:
  cpuprofile   V8 .cpuprofile (current form), one thread: the one --thread
               selects, or the only one. A call graph (XS) is made acyclic
               first the way XS does it (back edges of a depth-first walk
               from the root are dropped); the count is reported on stderr.
`

var writers = map[string]string{"cpuprofile": ".cpuprofile"}

func runConvert(e *env, args []string) error {
	fs := newFlags("convert")
	common := addCommonFlags(fs)
	to := fs.String("to", "", "output `FORMAT`: cpuprofile")
	out := fs.String("o", "-", "output file (`OUT`); - for standard output")
	name, err := parseFlags(e, fs, convertUsage, args)
	if err != nil {
		return err
	}
	format := *to
	if format == "" {
		base := strings.TrimSuffix(*out, ".gz")
		for f, ext := range writers {
			if strings.HasSuffix(base, ext) {
				format = f
			}
		}
		if format == "" {
			return usagef("no output format: pass --to cpuprofile, or name the output file *.cpuprofile")
		}
	}
	if _, ok := writers[format]; !ok {
		return usagef("unknown --to %q; want cpuprofile (other formats are not written yet)", format)
	}
	l, err := load(e, name, loadOptions{common: common})
	if err != nil {
		return err
	}
	if len(l.threads) != 1 {
		var have []string
		for _, ta := range l.threads {
			th := l.thread(ta)
			have = append(have, fmt.Sprintf("%d:%d %q", th.PID, th.TID, th.Name))
		}
		return usagef("a .cpuprofile holds one thread and %s has %d: pick one with --thread (%s)", name, len(l.threads), strings.Join(have, ", "))
	}
	ta := l.threads[0]
	opts := v8.WriteOptions{Thread: ta.id}
	if l.thread(ta).Shape == profile.ShapeCallGraph {
		var removed int
		opts.Edges, removed = totals.RemoveCycles(l.profile, ta.id)
		fmt.Fprintf(e.stderr, "jsprof: call graph: %d back edges removed to make it acyclic (as XS does)\n", removed)
	}
	var w io.Writer = e.stdout
	var closers []io.Closer
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		w = f
		closers = append(closers, f)
	}
	if strings.HasSuffix(*out, ".gz") {
		zw := gzip.NewWriter(w)
		w = zw
		closers = append([]io.Closer{zw}, closers...)
	}
	bw := bufio.NewWriter(w)
	err = v8.Write(bw, l.profile, opts)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	for _, c := range closers {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
