package cli

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/internal/jsonw"
	"github.com/jsprof/jsprof/profile"
)

const topUsage = `Usage: jsprof top [-n N] [--by self|total] [--lines] [--json] [--thread SEL] FILE

Lists the hottest functions of each thread with their self and total time in
ms and as a share of the sampled time. Functions are merged by name, URL, line
and column; total time counts a function once per stack (recursion is not
counted twice), as DevTools does. --lines lists the hottest source lines from
the profile's positionTicks instead.

--json prints:
  {"threads":[{"pid","tid","name","functions":[{"name","url","line","col",
   "selfMs","totalMs"}]}]}
with name/url/line/col as in "jsprof calls" (line and col 0-based), hottest
first; -n 0 lists all. With --lines:
  {"threads":[{"pid","tid","name","lines":[{"name","url","line","col",
   "sourceLine","ticks","selfMs"}]}]}
where line/col are the function's (0-based) and sourceLine the sampled line
(1-based, as in positionTicks).
`

func runTop(e *env, args []string) error {
	fs := newFlags("top")
	common := addCommonFlags(fs)
	transform := addTransformFlags(fs)
	n := fs.Int("n", 20, "number of functions; 0 for all")
	by := fs.String("by", "self", "sort by self or total time")
	lines := fs.Bool("lines", false, "list hot source lines (positionTicks)")
	asJSON := fs.Bool("json", false, "print JSON")
	name, err := parseFlags(e, fs, topUsage, args)
	if err != nil {
		return err
	}
	var order calltree.By
	switch *by {
	case "self":
		order = calltree.BySelf
	case "total":
		order = calltree.ByTotal
	default:
		return usagef("unknown --by %q; want self or total", *by)
	}
	if *n < 0 {
		return usagef("-n must be ≥ 0")
	}
	l, err := load(e, name, loadOptions{trees: true, common: common, transform: transform})
	if err != nil {
		return err
	}
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	if *lines {
		return writeLines(w, l, *n, *asJSON)
	}
	if *asJSON {
		return writeTopJSON(w, l, order, *n)
	}
	p := l.profile
	for i, ta := range l.threads {
		th := l.thread(ta)
		if i > 0 {
			fmt.Fprintln(w)
		}
		total := ta.tree.TopDown[0].Total
		fmt.Fprintf(w, "thread pid %d tid %d %q: %.3f ms sampled\n", th.PID, th.TID, th.Name, total.Millis())
		fmt.Fprintf(w, "%10s %6s %10s %6s  %s\n", "self ms", "self%", "total ms", "total%", "function")
		for _, id := range ta.tree.Top(order, *n) {
			f := &ta.tree.Funcs[id]
			fmt.Fprintf(w, "%10.3f %5.1f%% %10.3f %5.1f%%  %s\n", f.Self.Millis(), pct(f.Self, total),
				f.Total.Millis(), pct(f.Total, total), funcLabel(p, f.Key))
		}
	}
	return nil
}

func pct(x, total profile.Time) float64 {
	if total <= 0 {
		return 0
	}
	return 100 * float64(x) / float64(total)
}

// funcLabel renders a function as "name url:line:col" with 1-based positions
// for people (the JSON keeps the file's 0-based ones).
func funcLabel(p *profile.Profile, k profile.FunctionKey) string {
	name := p.Str(k.Name)
	if name == "" {
		name = "(anonymous)"
	}
	name = strconv.QuoteToGraphic(name)
	name = name[1 : len(name)-1]
	url := p.Str(k.URL)
	if url == "" {
		return name
	}
	url = strconv.QuoteToGraphic(url)
	url = url[1 : len(url)-1]
	if k.Line < 0 {
		return name + "  " + url
	}
	return fmt.Sprintf("%s  %s:%d:%d", name, url, k.Line+1, k.Column+1)
}

func appendThreadHead(b []byte, th *profile.Thread) []byte {
	b = fmt.Appendf(b, `{"pid":%d,"tid":%d,"name":`, th.PID, th.TID)
	return jsonw.String(b, th.Name)
}

func appendFuncKey(b []byte, p *profile.Profile, k profile.FunctionKey) []byte {
	b = append(b, `"name":`...)
	b = jsonw.String(b, p.Str(k.Name))
	b = append(b, `,"url":`...)
	b = jsonw.String(b, p.Str(k.URL))
	return fmt.Appendf(b, `,"line":%d,"col":%d`, k.Line, k.Column)
}

func writeTopJSON(w io.Writer, l *loaded, order calltree.By, n int) error {
	p := l.profile
	b := []byte(`{"threads":[`)
	for i, ta := range l.threads {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendThreadHead(b, l.thread(ta))
		b = append(b, `,"functions":[`...)
		for j, id := range ta.tree.Top(order, n) {
			f := &ta.tree.Funcs[id]
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			b = appendFuncKey(b, p, f.Key)
			b = append(b, `,"selfMs":`...)
			b = jsonw.Millis(b, int64(f.Self))
			b = append(b, `,"totalMs":`...)
			b = jsonw.Millis(b, int64(f.Total))
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	b = append(b, "]}\n"...)
	_, err := w.Write(b)
	return err
}

func writeLines(w io.Writer, l *loaded, n int, asJSON bool) error {
	p := l.profile
	if asJSON {
		b := []byte(`{"threads":[`)
		for i, ta := range l.threads {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendThreadHead(b, l.thread(ta))
			b = append(b, `,"lines":[`...)
			for j, ls := range limit(ta.tree.Lines(), n) {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, '{')
				b = appendFuncKey(b, p, ta.tree.Funcs[ls.Func].Key)
				b = fmt.Appendf(b, `,"sourceLine":%d,"ticks":%d,"selfMs":`, ls.Line, ls.Ticks)
				b = jsonw.Millis(b, int64(ls.Self))
				b = append(b, '}')
			}
			b = append(b, "]}"...)
		}
		b = append(b, "]}\n"...)
		_, err := w.Write(b)
		return err
	}
	for i, ta := range l.threads {
		th := l.thread(ta)
		if i > 0 {
			fmt.Fprintln(w)
		}
		total := ta.tree.TopDown[0].Total
		ls := ta.tree.Lines()
		fmt.Fprintf(w, "thread pid %d tid %d %q: hot lines from positionTicks\n", th.PID, th.TID, th.Name)
		if len(ls) == 0 {
			fmt.Fprintln(w, "  (the profile has no positionTicks)")
			continue
		}
		fmt.Fprintf(w, "%10s %6s %7s  %s\n", "self ms", "self%", "ticks", "line  function")
		for _, x := range limit(ls, n) {
			fmt.Fprintf(w, "%10.3f %5.1f%% %7d  %-5d %s\n", x.Self.Millis(), pct(x.Self, total), x.Ticks, x.Line,
				funcLabel(p, ta.tree.Funcs[x.Func].Key))
		}
	}
	return nil
}

func limit[T any](s []T, n int) []T {
	if n > 0 && n < len(s) {
		return s[:n]
	}
	return s
}
