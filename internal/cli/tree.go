package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

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
	if *asJSON {
		w.WriteString(`{"threads":[`)
	}
	for i, ta := range l.threads {
		total := ta.tree.TopDown[0].Total
		minTime := profile.Time(float64(total) * *minPct / 100)
		pr := treePrinter{w: w, p: l.profile, t: ta.tree, root: ta.tree.TopDown[0], total: total, min: minTime, depth: *depth, by: calltree.ByTotal}
		if *bottomUp {
			// The bottom-up tree is walked, not held: its size is the sum
			// of the top-down nodes' depths (GBs on a deep profile).
			pr.by, pr.funcs, pr.root = calltree.BySelf, ta.funcs, ta.tree.BottomUpRoot()
		}
		th := l.thread(ta)
		if *asJSON {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := pr.json(report.TreeThread{Thread: reportThread(th), SampledMs: report.Millis(total), BottomUp: *bottomUp}); err != nil {
				return err
			}
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
		pr.u = unitFor(maxTime(pr.root.Total, total))
		fmt.Fprintf(w, "%10s %6s %10s  %s\n", pr.u.header("total"), "total%", pr.u.header("self"), "function")
		pr.text()
	}
	if *asJSON {
		w.WriteString("]}\n")
	}
	return nil
}

// treePrinter prints a thread's top-down tree, or with funcs its bottom-up
// tree, as text or JSON.
type treePrinter struct {
	w     *bufio.Writer
	p     *profile.Profile
	t     *calltree.Tree
	root  calltree.Node
	funcs []calltree.Function // the bottom-up tree's functions, under the semantics: nil for the top-down tree
	total profile.Time
	min   profile.Time
	depth int
	by    calltree.By // child order
	u     unit        // of the text's times
}

func (pr *treePrinter) visible(nd *calltree.Node, depth int) bool {
	v := nd.Total
	if pr.by == calltree.BySelf {
		v = nd.Self
	}
	return (pr.depth <= 0 || depth <= pr.depth) && v >= pr.min && (nd.Total > 0 || nd.Self > 0)
}

// walk calls visit for each visible node below the root, depth first,
// children largest first: the top-down tree's nodes, or the bottom-up
// tree's as calltree.Tree.WalkBottomUp makes them, the top level's
// numbers those of its functions under the semantics. A node hidden hides
// its subtree.
func (pr *treePrinter) walk(visit func(nd *calltree.Node, depth int)) {
	if pr.funcs != nil {
		top := func(nd *calltree.Node) {
			f := &pr.funcs[nd.Func]
			nd.Self, nd.Total = f.Self, f.Total
		}
		pr.t.WalkBottomUp(top, func(nd *calltree.Node, depth int) bool {
			if !pr.visible(nd, depth) {
				return false
			}
			visit(nd, depth)
			return true
		})
		return
	}
	nodes := pr.t.TopDown
	type item struct {
		n     int32
		depth int
	}
	var stack []item
	push := func(n int32, depth int) {
		kids := calltree.Children(nodes, n, pr.by)
		for k := len(kids) - 1; k >= 0; k-- {
			if pr.visible(&nodes[kids[k]], depth) {
				stack = append(stack, item{kids[k], depth})
			}
		}
	}
	push(0, 1)
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		visit(&nodes[it.n], it.depth)
		push(it.n, it.depth+1)
	}
}

// text prints the tree, a line per node indented by its depth: the bytes
// of fmt's "%10s %5.1f%% %10s  %s%s\n" (total, percent, self, indent,
// label), made without fmt and each function's label made once (a deep
// profile's bottom-up tree prints gigabytes).
func (pr *treePrinter) text() {
	var line []byte
	var num [32]byte
	labels := make([]string, len(pr.t.Funcs))
	made := make([]bool, len(pr.t.Funcs))
	pr.walk(func(nd *calltree.Node, depth int) {
		if !made[nd.Func] {
			labels[nd.Func], made[nd.Func] = funcLabel(pr.p, &pr.t.Funcs[nd.Func]), true
		}
		line = pr.u.appendPadded(line[:0], nd.Total, 10)
		line = append(line, ' ')
		line = appendPadded(line, strconv.AppendFloat(num[:0], pct(nd.Total, pr.total), 'f', 1, 64), 5)
		line = append(line, "% "...)
		line = pr.u.appendPadded(line, nd.Self, 10)
		line = append(line, "  "...)
		for range depth - 1 {
			line = append(line, "  "...)
		}
		line = append(line, labels[nd.Func]...)
		line = append(line, '\n')
		pr.w.Write(line)
	})
}

// json writes the thread th with its visible nodes as a flat table
// (report.TreeThread), in the order text prints them, each after its
// parent: the bytes json.Marshal makes of the whole, written a node at a
// time, for memory in the input rather than in the output (a deep
// profile's bottom-up table is GBs).
func (pr *treePrinter) json(th report.TreeThread) error {
	th.Nodes = []report.TreeNode{}
	head, err := json.Marshal(th)
	if err != nil {
		return err
	}
	head, ok := bytes.CutSuffix(head, []byte(`"nodes":[]}`))
	if !ok {
		return fmt.Errorf("tree JSON: the nodes are not the thread's last field")
	}
	pr.w.Write(head)
	pr.w.WriteString(`"nodes":[`)
	root := &pr.root
	node := func(n report.TreeNode) {
		b, e := json.Marshal(n)
		if e != nil && err == nil {
			err = e
		}
		pr.w.Write(b)
	}
	node(report.TreeNode{Parent: -1, Function: report.Function{Line: -1, Col: -1}, SelfMs: report.Millis(root.Self), TotalMs: report.Millis(root.Total), Calls: root.Calls})
	// at[d] is the index of the last node written at depth d: the parent
	// of the next node at depth d+1.
	at := []int32{0}
	count := int32(1)
	pr.walk(func(nd *calltree.Node, depth int) {
		at = append(at[:depth], count)
		pr.w.WriteByte(',')
		node(report.TreeNode{Parent: at[depth-1], Depth: int32(depth), Function: reportFunction(pr.p, &pr.t.Funcs[nd.Func]),
			SelfMs: report.Millis(nd.Self), TotalMs: report.Millis(nd.Total), Calls: nd.Calls})
		count++
	})
	pr.w.WriteString("]}")
	return err
}
