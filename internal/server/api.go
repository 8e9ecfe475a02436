package server

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/totals"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

// threadCache holds the server's per-thread indexes, built once.
type threadCache struct {
	flameOnce sync.Once
	flame     *flameIndex
	flameErr  error

	actOnce sync.Once
	act     *activityIndex
	actErr  error

	mu       sync.Mutex
	bottomUp map[*calltree.Tree]*bottomUp
}

func (s *server) cache(th *session.Thread) *threadCache {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.threads[th]
	if !ok {
		c = &threadCache{bottomUp: map[*calltree.Tree]*bottomUp{}}
		s.threads[th] = c
	}
	return c
}

func (c *threadCache) flameIndex(ctx context.Context, th *session.Thread) (*flameIndex, error) {
	c.flameOnce.Do(func() { c.flame, c.flameErr = buildFlame(context.WithoutCancel(ctx), th) })
	return c.flame, c.flameErr
}

func (c *threadCache) activity(ctx context.Context, th *session.Thread) (*activityIndex, error) {
	c.actOnce.Do(func() { c.act, c.actErr = buildActivity(context.WithoutCancel(ctx), th) })
	return c.act, c.actErr
}

// bottomUpOf returns the tree's lazily built bottom-up tree. The session
// caches every tree it builds, so this keeps one bottom-up tree per tree:
// node ids stay valid for the life of the server.
func (c *threadCache) bottomUpOf(t *calltree.Tree) *bottomUp {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.bottomUp[t]; ok {
		return b
	}
	b := newBottomUp(t)
	c.bottomUp[t] = b
	return b
}

// Warm computes the analyses the page asks for first (the default
// thread's flame chart, activity graph and tree), so that the first
// requests find them ready. It is safe to call concurrently with requests.
func Warm(ctx context.Context, h http.Handler) {
	s, ok := h.(*server)
	if !ok {
		return
	}
	_, sess := s.pending.status()
	if sess == nil {
		return
	}
	th := sess.Threads()[defaultThread(sess)]
	c := s.cache(th)
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = c.flameIndex(ctx, th) })
	wg.Go(func() { _, _ = c.activity(ctx, th) })
	wg.Go(func() { _, _ = th.Tree(ctx, view.Options{}) })
	wg.Wait()
}

// defaultThread is the thread with the most samples.
func defaultThread(sess *session.Session) int {
	best, n := 0, -1
	for i, th := range sess.Threads() {
		if k := th.Info().Samples.Len(); k > n {
			best, n = i, k
		}
	}
	return best
}

// api registers the JSON endpoints.
func (s *server) api(mux *http.ServeMux) {
	for path, h := range map[string]func(*request) (any, error){
		"/api/info":       s.info,
		"/api/flame":      s.flameBoxes,
		"/api/entry":      s.entry,
		"/api/activity":   s.activityBins,
		"/api/stack":      s.stack,
		"/api/tree":       s.tree,
		"/api/functions":  s.functions,
		"/api/function":   s.function,
		"/api/flamegraph": s.flameGraph,
		"/api/summary":    s.summary,
		"/api/source":     s.source,
		"/api/diff":       s.diff,
		"/api/events":     s.eventBoxes,
		"/api/event":      s.eventEntry,
	} {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			st, sess := s.pending.status()
			if sess == nil {
				writeJSON(w, http.StatusServiceUnavailable, st)
				return
			}
			v, err := h(&request{r: r, ctx: r.Context(), sess: sess, q: r.URL.Query()})
			if err != nil {
				code := http.StatusInternalServerError
				var be *badRequest
				switch {
				case errors.As(err, &be):
					code = be.code
				case errors.Is(err, context.Canceled):
					return
				}
				writeError(w, code, err.Error())
				return
			}
			writeJSON(w, http.StatusOK, v)
		})
	}
}

// request is one API request.
type request struct {
	r    *http.Request
	ctx  context.Context
	sess *session.Session
	q    map[string][]string
}

// badRequest is an error answered with its code (400 unless set).
type badRequest struct {
	code int
	msg  string
}

func (e *badRequest) Error() string { return e.msg }

func badf(format string, args ...any) error {
	return &badRequest{code: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func (q *request) get(name string) string {
	if v := q.q[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (q *request) int(name string, def, lo, hi int) (int, error) {
	v := q.get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, badf("%s=%q: want an integer from %d to %d", name, v, lo, hi)
	}
	return n, nil
}

// float parses a finite number; ok is false when the parameter is absent.
func (q *request) float(name string) (v float64, ok bool, err error) {
	s := q.get(name)
	if s == "" {
		return 0, false, nil
	}
	v, err = strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e15 {
		return 0, false, badf("%s=%q: want a number", name, s)
	}
	return v, true, nil
}

// thread returns the thread of t= (default: the default thread).
func (q *request) thread() (*session.Thread, error) {
	ths := q.sess.Threads()
	if len(ths) == 0 {
		return nil, badf("the profile has no thread")
	}
	i, err := q.int("t", defaultThread(q.sess), 0, len(ths)-1)
	if err != nil {
		return nil, err
	}
	return ths[i], nil
}

// window returns the absolute window [from, to) of from=/to= (µs from the
// thread's origin; default: the thread's window) and width= in pixels.
func (q *request) window(th *session.Thread) (from, to, origin profile.Time, width int, err error) {
	wf, wt, err := th.Window(q.ctx)
	if err != nil {
		return
	}
	if origin, err = th.Origin(q.ctx); err != nil {
		return
	}
	from, to = wf, wt
	if v, ok, e := q.float("from"); e != nil {
		err = e
		return
	} else if ok {
		from = origin + profile.Time(math.Round(v*1e3))
	}
	if v, ok, e := q.float("to"); e != nil {
		err = e
		return
	} else if ok {
		to = origin + profile.Time(math.Round(v*1e3))
	}
	if to <= from {
		to = from + 1
	}
	width, err = q.int("width", 1000, 1, 20000)
	return
}

// options returns the view, range and transforms of the request: view=,
// rfrom=/rto= (ms from the first sample, as --from/--to), focus=, merge=,
// drop= (repeatable, as the flags) and cr=1 (collapse recursion).
func (q *request) options() (view.Options, error) {
	var o view.Options
	var err error
	if o.View, err = view.ParseView(q.get("view")); err != nil {
		return o, badf("view: %v", err)
	}
	rf, _, err := q.float("rfrom")
	if err != nil {
		return o, err
	}
	rt, _, err := q.float("rto")
	if err != nil {
		return o, err
	}
	if rf < 0 || rt < 0 || (rt > 0 && rt <= rf) {
		return o, badf("rfrom and rto must be ≥ 0 with the end after the start")
	}
	o.From, o.To = profile.Time(math.Round(rf*1e6)), profile.Time(math.Round(rt*1e6))
	o.CollapseRecursion = q.get("cr") == "1"
	for _, x := range []struct {
		name string
		out  *[]view.Matcher
	}{{"focus", &o.Focus}, {"merge", &o.Merge}, {"drop", &o.Drop}} {
		for _, s := range q.q[x.name] {
			m, err := view.ParseMatcher(s)
			if err != nil {
				return o, badf("%s=%s: %v", x.name, strconv.Quote(s), err)
			}
			*x.out = append(*x.out, m)
		}
	}
	// As the CLI: a name no function has may be a regular expression; a
	// matcher that matches nothing says which names are closest.
	if err := view.Resolve(q.sess.Profile, &o); err != nil {
		return o, badf("%v", err)
	}
	return o, nil
}

func (s *server) info(q *request) (any, error) {
	p := q.sess.Profile
	out := report.ViewerInfo{File: q.sess.Name, Format: p.Format, Threads: []report.ViewerThread{}, Categories: []report.ViewerCategory{},
		Diagnostics: report.Diagnostics(p.Diagnostics), Default: defaultThread(q.sess)}
	for i, th := range q.sess.Threads() {
		in := th.Info()
		vt := report.ViewerThread{Thread: report.Thread{PID: in.PID, TID: in.TID, Name: in.Name}, Index: i, ProcessName: in.ProcessName,
			Trace: th.IsTrace(), Samples: in.Samples.Len()}
		if from, to, err := th.Window(q.ctx); err == nil {
			if origin, err := th.Origin(q.ctx); err == nil {
				vt.FromUs, vt.ToUs, vt.OriginUs = report.Micros(from-origin), report.Micros(to-origin), report.Micros(origin)
			}
		}
		out.Threads = append(out.Threads, vt)
	}
	for _, c := range p.Categories {
		out.Categories = append(out.Categories, report.ViewerCategory{Name: c.Name, Color: c.Color})
	}
	a := infoAnswer{ViewerInfo: out, EventThreads: eventThreadsInfo(q.sess)}
	if s.opts.Diff != nil {
		a.Diff = s.opts.DiffName
	}
	return a, nil
}

func (s *server) flameBoxes(q *request) (any, error) {
	th, err := q.thread()
	if err != nil {
		return nil, err
	}
	from, to, origin, width, err := q.window(th)
	if err != nil {
		return nil, err
	}
	fx, err := s.cache(th).flameIndex(q.ctx, th)
	if err != nil {
		return nil, err
	}
	return fx.boxes(from, to, origin, width), nil
}

func (s *server) entry(q *request) (any, error) {
	th, err := q.thread()
	if err != nil {
		return nil, err
	}
	fx, err := s.cache(th).flameIndex(q.ctx, th)
	if err != nil {
		return nil, err
	}
	out, err := flameEntry(q, th, fx)
	if err != nil {
		return nil, err
	}
	p := q.sess.Profile
	out.Function = frameFunction(p, fx.frame(out.ID))
	out.Name = p.Str(fx.name(out.ID))
	return out, nil
}

// flameEntry reads the entry id= of index fx and gives what every entry
// answer has: its id, times from thread th's origin, level and category
// (the caller names its function).
func flameEntry(q *request, th *session.Thread, fx *flameIndex) (report.FlameEntry, error) {
	id, err := q.int("id", -1, 0, fx.len()-1)
	if err != nil || id < 0 {
		return report.FlameEntry{}, badf("id: want an entry id from 0 to %d", fx.len()-1)
	}
	origin, err := th.Origin(q.ctx)
	if err != nil {
		return report.FlameEntry{}, err
	}
	p := q.sess.Profile
	e := int32(id)
	out := report.FlameEntry{ID: e, StartUs: report.Micros(fx.start(e) - origin),
		DurUs: report.Micros(fx.dur(e)), SelfUs: report.Micros(fx.selfTime(e)), Level: fx.level(e)}
	if c := int(fx.cat(e)); c < len(p.Categories) {
		out.Category = p.Categories[c].Name
	}
	return out, nil
}

// frameFunction names a frame for JSON output.
func frameFunction(p *profile.Profile, f profile.FrameID) report.Function {
	if f < 0 || int(f) >= len(p.Frames) {
		return report.Function{Line: -1, Col: -1}
	}
	fr := &p.Frames[f]
	ev := fr.Kind == profile.KindEvent
	return report.Function{Name: p.Str(fr.Name), URL: p.Str(fr.URL), Line: fr.Line, Col: fr.Column, Event: ev}
}

func (s *server) activityBins(q *request) (any, error) {
	th, err := q.thread()
	if err != nil {
		return nil, err
	}
	from, to, origin, width, err := q.window(th)
	if err != nil {
		return nil, err
	}
	ax, err := s.cache(th).activity(q.ctx, th)
	if err != nil {
		return nil, err
	}
	return ax.bins(from, to, origin, width), nil
}

func (s *server) stack(q *request) (any, error) {
	th, err := q.thread()
	if err != nil {
		return nil, err
	}
	ax, err := s.cache(th).activity(q.ctx, th)
	if err != nil {
		return nil, err
	}
	id, err := q.int("id", -1, 0, len(ax.tl.Parent)-1)
	if err != nil || id < 0 {
		return nil, badf("id: want a stack id from 0 to %d", len(ax.tl.Parent)-1)
	}
	out := report.ViewerStack{Frames: ax.stack(q.sess.Profile, int32(id))}
	return out, nil
}

// treeOf returns the thread's tree under the request's options.
func (q *request) treeOf() (*session.Thread, *calltree.Tree, view.Options, error) {
	th, err := q.thread()
	if err != nil {
		return nil, nil, view.Options{}, err
	}
	o, err := q.options()
	if err != nil {
		return nil, nil, o, err
	}
	t, err := th.Tree(q.ctx, o)
	return th, t, o, err
}

func row(p *profile.Profile, t *calltree.Tree, nodes []calltree.Node, id int32) report.ViewerRow {
	return nodeRow(p, t, id, &nodes[id])
}

// nodeRow is the row of node id of a tree.
func nodeRow(p *profile.Profile, t *calltree.Tree, id int32, nd *calltree.Node) report.ViewerRow {
	r := report.ViewerRow{ID: id, Parent: nd.Parent, Func: int32(nd.Func), SelfMs: report.Millis(nd.Self), TotalMs: report.Millis(nd.Total),
		Calls: nd.Calls, Children: nd.FirstChild >= 0}
	if nd.Func >= 0 {
		r.Function = funcOf(p, &t.Funcs[nd.Func])
	} else {
		r.Line, r.Col = -1, -1
	}
	return r
}

// funcOf names a function as the CLI's JSON does.
func funcOf(p *profile.Profile, f *calltree.Function) report.Function {
	k := f.Key
	return report.Function{Name: p.Str(k.Name), URL: p.Str(p.Frames[f.Frame].URL), Line: k.Line, Col: k.Column, Event: k.Event}
}

func (s *server) tree(q *request) (any, error) {
	th, t, _, err := q.treeOf()
	if err != nil {
		return nil, err
	}
	bu := q.get("bu") == "1"
	var b *bottomUp
	nodes := t.TopDown
	// children returns a node's children (ids, nodes, whether each has
	// children).
	children := func(n int32) ([]int32, []calltree.Node, []bool) {
		ids := calltree.Children(nodes, n, calltree.ByTotal)
		ns, ks := make([]calltree.Node, len(ids)), make([]bool, len(ids))
		for i, c := range ids {
			ns[i], ks[i] = nodes[c], nodes[c].FirstChild >= 0
		}
		return ids, ns, ks
	}
	if bu {
		b = s.cache(th).bottomUpOf(t)
		children = b.children
	}
	limit, err := q.int("limit", 300, 1, 100000)
	if err != nil {
		return nil, err
	}
	open := []int32{0}
	for _, v := range strings.Split(q.get("open"), ",") {
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		ok := err == nil && n >= 0
		if ok && bu {
			ok = b.has(int32(n))
		} else if ok {
			ok = n < len(nodes)
		}
		if !ok {
			return nil, badf("open: %q is not a node id", v)
		}
		open = append(open, int32(n))
	}
	p := q.sess.Profile
	out := report.ViewerTree{TotalMs: report.Millis(t.TopDown[0].Total), BottomUp: bu, Rows: []report.ViewerRow{}}
	// all=1 opens every node (up to maxAllRows rows): "expand all".
	all := q.get("all") == "1"
	const maxAllRows = 200000
	seen := map[int32]bool{}
	for k := 0; k < len(open); k++ {
		n := open[k]
		if seen[n] {
			continue
		}
		seen[n] = true
		if all && len(out.Rows) >= maxAllRows {
			break
		}
		ids, kidNodes, hasKids := children(n)
		shown := 0
		for i, c := range ids {
			nd := &kidNodes[i]
			if nd.Total <= 0 && nd.Self <= 0 {
				continue
			}
			if shown == limit {
				out.Rows[len(out.Rows)-1].More++
				continue
			}
			r := nodeRow(p, t, c, nd)
			r.Children = hasKids[i]
			out.Rows = append(out.Rows, r)
			shown++
			if all && r.Children {
				open = append(open, c)
			}
		}
	}
	return out, nil
}

func (s *server) functions(q *request) (any, error) {
	th, t, o, err := q.treeOf()
	if err != nil {
		return nil, err
	}
	var sem *totals.Semantics
	if v := q.get("total"); v != "" {
		x, err := totals.ParseSemantics(v)
		if err != nil {
			return nil, badf("total: %v", err)
		}
		sem = &x
	}
	fs, err := th.Functions(q.ctx, o, sem)
	if errors.Is(err, session.ErrSemanticsWithView) {
		return nil, badf("total=%s: %v", q.get("total"), err)
	}
	if err != nil {
		return nil, err
	}
	limit, err := q.int("limit", 500, 1, 1000000)
	if err != nil {
		return nil, err
	}
	by := calltree.BySelf
	if q.get("by") == "total" {
		by = calltree.ByTotal
	}
	search := strings.ToLower(q.get("q"))
	p := q.sess.Profile
	out := report.ViewerFunctions{TotalMs: report.Millis(t.TopDown[0].Total), TotalSemantics: fs.Semantics.String(), Rows: []report.ViewerRow{}}
	for _, id := range calltree.Top(p, fs.Funcs, by, 0) {
		f := &fs.Funcs[id]
		if f.Self == 0 && f.Total == 0 {
			continue
		}
		fn := funcOf(p, f)
		if search != "" && !strings.Contains(strings.ToLower(fn.Name), search) && !strings.Contains(strings.ToLower(fn.URL), search) {
			continue
		}
		if len(out.Rows) == limit {
			out.Rows[len(out.Rows)-1].More++
			continue
		}
		out.Rows = append(out.Rows, report.ViewerRow{ID: int32(id), Parent: -1, Func: int32(id), Function: fn,
			SelfMs: report.Millis(f.Self), TotalMs: report.Millis(f.Total), Calls: f.Calls})
	}
	return out, nil
}

func (s *server) function(q *request) (any, error) {
	th, t, _, err := q.treeOf()
	if err != nil {
		return nil, err
	}
	fid, err := q.int("f", -1, 0, len(t.Funcs)-1)
	if err != nil || fid < 0 {
		return nil, badf("f: want a function id from 0 to %d", len(t.Funcs)-1)
	}
	p := q.sess.Profile
	f := &t.Funcs[fid]
	out := report.ViewerFunction{Function: report.ViewerRow{ID: int32(fid), Parent: -1, Func: int32(fid), Function: funcOf(p, f),
		SelfMs: report.Millis(f.Self), TotalMs: report.Millis(f.Total), Calls: f.Calls},
		Callers: []report.ViewerRow{}, Callees: []report.ViewerRow{}, Lines: []report.LineRow{}}
	// Callers: the children of the function's bottom-up node.
	b := s.cache(th).bottomUpOf(t)
	top, topNodes, _ := b.children(0)
	for i, c := range top {
		if topNodes[i].Func != calltree.FuncID(fid) {
			continue
		}
		callers, nodes, _ := b.children(c)
		for k, id := range callers {
			r := nodeRow(p, t, id, &nodes[k])
			r.Parent, r.ID, r.Children = -1, r.Func, false
			out.Callers = append(out.Callers, r)
		}
		sortRows(out.Callers)
		break
	}
	// Callees: the children of its outermost calls, merged by function.
	td := t.TopDown
	type agg struct{ self, total profile.Time }
	byFunc := map[calltree.FuncID]*agg{}
	var order []calltree.FuncID
	for n := int32(1); n < int32(len(td)); n++ {
		if td[n].Func != calltree.FuncID(fid) || !outermost(td, n) {
			continue
		}
		for c := td[n].FirstChild; c >= 0; c = td[c].NextSibling {
			a, ok := byFunc[td[c].Func]
			if !ok {
				a = &agg{}
				byFunc[td[c].Func] = a
				order = append(order, td[c].Func)
			}
			a.self += td[c].Self
			a.total += td[c].Total
		}
	}
	for _, g := range order {
		a := byFunc[g]
		out.Callees = append(out.Callees, report.ViewerRow{ID: int32(g), Parent: -1, Func: int32(g), Function: funcOf(p, &t.Funcs[g]),
			SelfMs: report.Millis(a.self), TotalMs: report.Millis(a.total)})
	}
	sortRows(out.Callees)
	for _, l := range t.Lines() {
		if l.Func == calltree.FuncID(fid) {
			out.Lines = append(out.Lines, report.LineRow{Function: out.Function.Function, SourceLine: l.Line, Ticks: l.Ticks, SelfMs: report.Millis(l.Self)})
		}
	}
	return out, nil
}

// outermost reports whether no ancestor of top-down node n has its
// function.
func outermost(td []calltree.Node, n int32) bool {
	for a := td[n].Parent; a > 0; a = td[a].Parent {
		if td[a].Func == td[n].Func {
			return false
		}
	}
	return true
}

func sortRows(rows []report.ViewerRow) {
	// Largest total first, then by name: stable for equal times.
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && (rows[j].TotalMs > rows[j-1].TotalMs || rows[j].TotalMs == rows[j-1].TotalMs && rows[j].Name < rows[j-1].Name); j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
}

func (s *server) flameGraph(q *request) (any, error) {
	_, t, _, err := q.treeOf()
	if err != nil {
		return nil, err
	}
	td := t.TopDown
	root, err := q.int("root", 0, 0, len(td)-1)
	if err != nil {
		return nil, err
	}
	width, err := q.int("width", 1000, 1, 20000)
	if err != nil {
		return nil, err
	}
	p := q.sess.Profile
	min := td[root].Total / profile.Time(width)
	out := report.FlameGraph{TotalMs: report.Millis(td[root].Total), Root: int32(root), Rows: []report.ViewerRow{row(p, t, td, int32(root))}}
	const maxRows = 30000
	stack := []int32{int32(root)}
	for len(stack) > 0 && len(out.Rows) < maxRows {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n != int32(root) {
			out.Rows = append(out.Rows, row(p, t, td, n))
		}
		kids := calltree.Children(td, n, calltree.ByTotal)
		for k := len(kids) - 1; k >= 0; k-- {
			if td[kids[k]].Total > min && td[kids[k]].Total > 0 {
				stack = append(stack, kids[k])
			}
		}
	}
	return out, nil
}

func (s *server) summary(q *request) (any, error) {
	p := q.sess.Profile
	out := report.ViewerSummary{Threads: []report.ViewerThreadSummary{}, Diagnostics: report.Diagnostics(p.Diagnostics)}
	for _, th := range q.sess.Threads() {
		in := th.Info()
		t, err := th.Tree(q.ctx, view.Options{})
		if err != nil {
			return nil, err
		}
		cats, err := th.CategoryTimes(q.ctx)
		if err != nil {
			return nil, err
		}
		mean, median := th.SampleIntervals()
		ts := report.ViewerThreadSummary{Thread: report.Thread{PID: in.PID, TID: in.TID, Name: in.Name}, SampledMs: report.Millis(t.TopDown[0].Total),
			Samples: in.Samples.Len(), Nodes: in.Nodes.Len(), Events: in.Events.Len(), MeanIntervalUs: report.Micros(mean),
			MedianIntervalUs: report.Micros(median), Categories: map[string]report.Millis{}}
		for c, v := range cats {
			if v > 0 && c < len(p.Categories) {
				ts.Categories[p.Categories[c].Name] = report.Millis(v)
			}
		}
		out.Threads = append(out.Threads, ts)
	}
	return out, nil
}
