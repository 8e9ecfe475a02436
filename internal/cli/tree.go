package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
)

const treeUsage = `Usage: jsprof tree [--bottom-up] [--total SEM] [--depth N] [--min PCT] [--json] [--thread SEL] FILE

Prints each thread's call tree, indented, with total and self time in ms and
the total as a share of the thread's time; children are sorted by total
time. On a trace thread it is DevTools' Call Tree: trace events (Layout,
style, paint, GC, compile, timers, event dispatch, …) and JS calls together,
with the panel's default filters. --bottom-up prints the inverted tree
(DevTools' Bottom-Up): functions by self time, each with the callers through
which the time reached it. --depth limits the depth (0: no limit); --min
hides nodes below PCT percent of the thread's time.

--json prints {"threads":[{"pid","tid","name","sampledMs","bottomUp","nodes":
[NODE…]}]}: a flat table, nodes[0] the root, each NODE {"parent","depth",
"name","url","line","col","selfMs","totalMs","calls"} after its parent
("event":true for a trace event). See the README's JSON contracts.
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
	out := report.Tree{Threads: []report.TreeThread{}}
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
			out.Threads = append(out.Threads, report.TreeThread{Thread: reportThread(th), SampledMs: report.Millis(total),
				BottomUp: *bottomUp, Nodes: pr.table()})
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
		fmt.Fprintf(w, "thread pid %d tid %d \"%s\": %s, %s\n", th.PID, th.TID, visible(th.Name), timeLabel(ta), kind)
		pr.u = unitFor(maxTime(nodes[0].Total, total))
		fmt.Fprintf(w, "%10s %6s %10s  %s\n", pr.u.header("total"), "total%", pr.u.header("self"), "function")
		pr.text()
	}
	if *asJSON {
		return writeJSON(w, out)
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
	u     unit        // of the text's times
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
		fmt.Fprintf(&line, "%10s %5.1f%% %10s  %s%s\n", pr.u.fmt(nd.Total), pct(nd.Total, pr.total), pr.u.fmt(nd.Self),
			strings.Repeat("  ", it.depth-1), funcLabel(pr.p, &pr.t.Funcs[nd.Func]))
		io.WriteString(pr.w, line.String())
		push(it.n, it.depth+1)
	}
}

// table returns the visible nodes as a flat table, in the order text
// prints them (depth-first, children largest first), each after its parent.
func (pr *treePrinter) table() []report.TreeNode {
	root := &pr.nodes[0]
	out := []report.TreeNode{{Parent: -1, Function: report.Function{Line: -1, Col: -1}, SelfMs: report.Millis(root.Self), TotalMs: report.Millis(root.Total), Calls: root.Calls}}
	type item struct {
		n      int32
		parent int32 // index in out
		depth  int32
	}
	var stack []item
	push := func(n, at, depth int32) {
		kids := calltree.Children(pr.nodes, n, pr.by)
		for k := len(kids) - 1; k >= 0; k-- {
			if pr.visible(kids[k], int(depth)) {
				stack = append(stack, item{kids[k], at, depth})
			}
		}
	}
	push(0, 0, 1)
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &pr.nodes[it.n]
		out = append(out, report.TreeNode{Parent: it.parent, Depth: it.depth, Function: reportFunction(pr.p, &pr.t.Funcs[nd.Func]),
			SelfMs: report.Millis(nd.Self), TotalMs: report.Millis(nd.Total), Calls: nd.Calls})
		push(it.n, int32(len(out)-1), it.depth+1)
	}
	return out
}
