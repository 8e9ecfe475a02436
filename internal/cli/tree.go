package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/internal/jsonw"
	"github.com/jsprof/jsprof/profile"
)

const treeUsage = `Usage: jsprof tree [--bottom-up] [--total SEM] [--depth N] [--min PCT] [--json] [--thread SEL] FILE

Prints each thread's call tree, indented, with total and self time in ms and
the total as a share of the sampled time; children are sorted by total time.
--bottom-up prints the inverted tree: functions by self time, each with the
callers through which the time reached it. --depth limits the depth (0: no
limit); --min hides nodes below PCT percent of the sampled time.

--json prints {"threads":[{"pid","tid","name","sampledMs","tree":NODE}]}
where NODE is {"name","url","line","col","selfMs","totalMs","calls",
"children":[NODE…]} (the root has no name).
`

func runTree(e *env, args []string) error {
	fs := newFlags("tree")
	common := addCommonFlags(fs)
	transform := addTransformFlags(fs)
	bottomUp := fs.Bool("bottom-up", false, "print the inverted (bottom-up) tree")
	totalSem := fs.String("total", "", "total-time semantics of the bottom-up tree's functions: `devtools`, vscode or xsbug (see top -h); the top-down tree is DevTools'")
	depth := fs.Int("depth", 0, "maximum depth; 0 for no limit")
	minPct := fs.Float64("min", 0, "hide nodes under this percentage of the sampled time")
	asJSON := fs.Bool("json", false, "print JSON")
	name, err := parseFlags(e, fs, treeUsage, args)
	if err != nil {
		return err
	}
	if *depth < 0 || *minPct < 0 || *minPct > 100 {
		return usagef("--depth must be ≥ 0 and --min between 0 and 100")
	}
	l, sems, err := loadTrees(e, name, common, transform, *totalSem)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	if *asJSON {
		w.WriteString(`{"threads":[`)
	}
	for i, ta := range l.threads {
		nodes := ta.tree.TopDown
		if *bottomUp {
			nodes = ta.tree.BottomUp(*depth)
			// The top level is the per-function table, under the semantics.
			for c := nodes[0].FirstChild; c >= 0; c = nodes[c].NextSibling {
				f := &ta.funcs[nodes[c].Func]
				nodes[c].Self, nodes[c].Total = f.Self, f.Total
			}
		}
		total := ta.tree.TopDown[0].Total
		minTime := profile.Time(float64(total) * *minPct / 100)
		pr := treePrinter{w: w, p: l.profile, t: ta.tree, nodes: nodes, total: total, min: minTime, depth: *depth, by: calltree.ByTotal}
		if *bottomUp {
			pr.by = calltree.BySelf
		}
		th := l.thread(ta)
		if *asJSON {
			if i > 0 {
				w.WriteByte(',')
			}
			b := appendThreadHead(nil, th)
			b = append(b, `,"sampledMs":`...)
			b = jsonw.Millis(b, int64(total))
			b = append(b, `,"tree":`...)
			w.Write(b)
			pr.json()
			w.WriteByte('}')
			continue
		}
		if i > 0 {
			fmt.Fprintln(w)
		}
		// A top-down node is a call path: its total is DevTools' whatever the
		// semantics, which apply to the bottom-up tree's functions.
		kind := "top-down (DevTools totals per call path)"
		if *bottomUp {
			kind = "bottom-up; total time: " + sems[i].String()
		}
		fmt.Fprintf(w, "thread pid %d tid %d %q: %.3f ms sampled, %s\n", th.PID, th.TID, th.Name, total.Millis(), kind)
		fmt.Fprintf(w, "%10s %6s %10s  %s\n", "total ms", "total%", "self ms", "function")
		pr.text()
	}
	if *asJSON {
		w.WriteString("]}\n")
	}
	return nil
}

type treePrinter struct {
	w     io.Writer
	p     *profile.Profile
	t     *calltree.Tree
	nodes []calltree.Node
	total profile.Time
	min   profile.Time
	depth int
	by    calltree.By // child order
}

func (pr *treePrinter) visible(n int32, depth int) bool {
	v := pr.nodes[n].Total
	if pr.by == calltree.BySelf {
		v = pr.nodes[n].Self
	}
	return (pr.depth <= 0 || depth <= pr.depth) && v >= pr.min && (pr.nodes[n].Total > 0 || pr.nodes[n].Self > 0)
}

// text prints the tree without recursion.
func (pr *treePrinter) text() {
	type item struct {
		n     int32
		depth int
	}
	var stack []item
	push := func(n int32, depth int) {
		kids := calltree.Children(pr.nodes, n, pr.by)
		for k := len(kids) - 1; k >= 0; k-- {
			if pr.visible(kids[k], depth) {
				stack = append(stack, item{kids[k], depth})
			}
		}
	}
	push(0, 1)
	var line strings.Builder
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &pr.nodes[it.n]
		line.Reset()
		fmt.Fprintf(&line, "%10.3f %5.1f%% %10.3f  %s%s\n", nd.Total.Millis(), pct(nd.Total, pr.total), nd.Self.Millis(),
			strings.Repeat("  ", it.depth-1), funcLabel(pr.p, &pr.t.Funcs[nd.Func]))
		io.WriteString(pr.w, line.String())
		push(it.n, it.depth+1)
	}
}

// json prints the tree as nested objects without recursion.
func (pr *treePrinter) json() {
	type item struct {
		n     int32
		depth int
		close bool
		first bool
	}
	var b []byte
	stack := []item{{n: 0, depth: 0, first: true}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.close {
			b = append(b, "]}"...)
			continue
		}
		if !it.first {
			b = append(b, ',')
		}
		nd := &pr.nodes[it.n]
		b = append(b, '{')
		if it.n != 0 {
			b = appendFuncKey(b, pr.p, &pr.t.Funcs[nd.Func])
			b = append(b, ',')
		}
		b = append(b, `"selfMs":`...)
		b = jsonw.Millis(b, int64(nd.Self))
		b = append(b, `,"totalMs":`...)
		b = jsonw.Millis(b, int64(nd.Total))
		b = fmt.Appendf(b, `,"calls":%d,"children":[`, nd.Calls)
		stack = append(stack, item{close: true})
		kids := calltree.Children(pr.nodes, it.n, pr.by)
		var vis []int32
		for _, k := range kids {
			if pr.visible(k, it.depth+1) {
				vis = append(vis, k)
			}
		}
		for k := len(vis) - 1; k >= 0; k-- {
			stack = append(stack, item{n: vis[k], depth: it.depth + 1, first: k == 0})
		}
		if len(b) > 64<<10 {
			pr.w.Write(b)
			b = b[:0]
		}
	}
	pr.w.Write(b)
}
