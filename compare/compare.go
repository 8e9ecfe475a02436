// Package compare diffs two profiles: per function and per call path, the
// self and total time of a base and a new profile, and the change.
//
// Both sides are read through sessions (package session), with the same
// view, range, transforms and total-time semantics, so that each side's
// numbers are those `jsprof top` and `jsprof tree` print for it.
//
// Matching. Two files of the same program rarely share script ids, and two
// machines put the code in different places, so functions are matched by
// name, URL (with a prefix removed, see Options.Strip), line, column and
// whether they are trace events (Key); DevTools' own key (name, script id,
// line, column) is used only within one side. Several functions of one
// side that fall on one Key are summed. So that a pprof export (jsprof's,
// or Pyroscope's of what jsprof pushed) matches a .cpuprofile, the names
// pprof writers give anonymous functions ("(anonymous) app.js:16") are
// anonymous, and a function whose column is unknown (−1) is the one
// function of its name, URL and line whose column is known, if there is
// exactly one.
//
// Times are int64 nanoseconds. With Options.Normalize the base times are
// scaled so that the base's total equals the new total (pprof's -normalize,
// difffolded.pl -n), rounded to the nanosecond; a delta is new minus
// (scaled) base. A function's share of its profile is its time over that
// side's total (the roots of its threads' trees, unscaled).
package compare

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/totals"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// Options controls Diff. The zero value compares DevTools' trees of every
// given thread, functions only, with URL prefixes removed automatically and
// no normalization.
type Options struct {
	// View holds the view, range and transforms applied to both sides.
	View view.Options
	// Semantics picks the total-time semantics of the per-function table;
	// nil takes each thread's default (session.Thread.Functions).
	Semantics *totals.Semantics
	// Strip lists URL prefixes removed before matching (the first that
	// matches a URL is removed); nil removes each side's common directory
	// prefix of file URLs when the two sides' prefixes differ (AutoStrip),
	// and an empty non-nil slice removes nothing.
	Strip []string
	// Normalize scales the base so that its total equals the new total.
	Normalize bool
	// Paths also compares call paths (top-down tree nodes).
	Paths bool
}

// Side is one side of a comparison: a session's threads (their times are
// summed).
type Side struct {
	Threads []*session.Thread
}

// Key identifies a function across profiles.
type Key struct {
	Name   string
	URL    string // with the prefix removed
	Line   int32  // 0-based, −1 unknown
	Column int32  // 0-based, −1 unknown
	Event  bool   // a trace event (Layout, FunctionCall, …)
}

// Times is a function's or path's self and total time, in ns.
type Times struct {
	Self, Total profile.Time
}

// Status says on which sides a function or path has time.
type Status int

// The statuses.
const (
	Same    Status = iota // the same times on both sides
	Changed               // on both sides, with different times
	Added                 // only in the new profile
	Removed               // only in the base profile
)

// String returns "same", "changed", "added" or "removed".
func (s Status) String() string { return [...]string{"same", "changed", "added", "removed"}[s] }

// Function is one function of either side.
type Function struct {
	Key Key
	// URL is the function's URL as the new side gives it (the base's for a
	// removed function), with no prefix removed.
	URL       string
	Base, New Times // Base is scaled under Options.Normalize
	// InBase and InNew say which side's tree has the function.
	InBase, InNew bool
}

// Status returns the function's status.
func (f *Function) Status() Status { return status(f.Base, f.New, f.InBase, f.InNew) }

// Delta returns new minus base.
func (f *Function) Delta() Times {
	return Times{f.New.Self - f.Base.Self, f.New.Total - f.Base.Total}
}

// Path is one call path (a top-down tree node of either side). Paths are
// linked by index, as a tree: a path is its Parent followed by Func, so
// that a result takes memory linear in the number of paths however deep
// they are; Funcs lists a path's functions.
type Path struct {
	// Func indexes Result.Functions: the path's innermost function.
	Func int32
	// Parent indexes Result.Paths: the path without its innermost
	// function, −1 when the path is Func alone.
	Parent int32
	// Depth is the number of functions on the path.
	Depth         int32
	Base, New     Times
	InBase, InNew bool

	links *pathLinks
}

// pathLinks holds, per row of Result.Paths, the Parent and Func of the row
// as Diff made them, for Path.AppendFuncs.
type pathLinks struct {
	parent, fn []int32
}

// Funcs returns the functions of the path (indexes in Result.Functions),
// root first, in a new slice of Depth elements.
func (p *Path) Funcs() []int32 { return p.AppendFuncs(nil) }

// AppendFuncs appends the functions of the path (indexes in
// Result.Functions), root first, to dst and returns the extended slice. It
// takes time linear in Depth, and holds however Result.Paths is reordered.
func (p *Path) AppendFuncs(dst []int32) []int32 {
	if p.Depth <= 0 {
		return dst
	}
	n := len(dst)
	dst = slices.Grow(dst, int(p.Depth))[:n+int(p.Depth)]
	i := len(dst) - 1
	dst[i] = p.Func
	for q := p.Parent; q >= 0 && i > n; q = p.links.parent[q] {
		i--
		dst[i] = p.links.fn[q]
	}
	return dst
}

// Status returns the path's status.
func (p *Path) Status() Status { return status(p.Base, p.New, p.InBase, p.InNew) }

// Delta returns new minus base.
func (p *Path) Delta() Times { return Times{p.New.Self - p.Base.Self, p.New.Total - p.Base.Total} }

func status(b, n Times, inB, inN bool) Status {
	switch {
	case !inB:
		return Added
	case !inN:
		return Removed
	case b == n:
		return Same
	}
	return Changed
}

// SideInfo describes one side of a result.
type SideInfo struct {
	// Total is the time the side's trees add up to (unscaled), ns.
	Total profile.Time
	// Prefix is the URL prefix removed from this side's URLs ("" none).
	Prefix string
	// Semantics lists the total-time semantics used, one per thread.
	Semantics []totals.Semantics
}

// Result is a comparison.
type Result struct {
	Base, New SideInfo
	// Scale is the factor applied to the base's times (1 without
	// Normalize).
	Scale float64
	// Functions holds every function of either side, the largest absolute
	// change of self time first (then of total time, then the heavier
	// function, then by key).
	Functions []Function
	// Paths holds every call path of either side when Options.Paths is
	// set, the largest absolute change of self time first (then of total
	// time, then the heavier path, then by Funcs). A path's parent is a
	// path too.
	Paths []Path
}

// Pct returns t as a percentage of total (0 when total is 0).
func Pct(t, total profile.Time) float64 {
	if total <= 0 {
		return 0
	}
	return 100 * float64(t) / float64(total)
}

// side is what Diff collects of one side.
type side struct {
	total profile.Time
	sems  []totals.Semantics
	funcs map[int32]Times // by key index
	urls  map[int32]string
	// trees holds, with Options.Paths, each thread's top-down tree and
	// the key index of each of its functions.
	trees []keyedTree
}

// keyedTree is a thread's top-down tree (parents before children) and the
// key index of each of its functions (by calltree.FuncID).
type keyedTree struct {
	nodes []calltree.Node
	key   []int32
}

// Diff compares base with new under opts.
//
//  1. Each side's per-function table (session.Thread.Functions) and, for
//     paths, its top-down tree are computed under the same options.
//  2. URL prefixes are chosen (Options.Strip or AutoStrip) and every
//     function gets its Key; the same Key on one side is summed.
//  3. The base is scaled when normalizing; rows are sorted.
//  4. With Options.Paths, the paths of both sides' trees are interned as a
//     tree (see paths), and sorted.
func Diff(ctx context.Context, base, new Side, opts Options) (*Result, error) {
	res := &Result{Scale: 1}
	var bp, np string
	if opts.Strip == nil {
		bp, np = AutoStrip(base, new)
	}
	res.Base.Prefix, res.New.Prefix = bp, np
	keys := &keyTable{index: map[Key]int32{}}
	b, err := collect(ctx, base, opts, keys, bp)
	if err != nil {
		return nil, err
	}
	n, err := collect(ctx, new, opts, keys, np)
	if err != nil {
		return nil, err
	}
	res.Base.Total, res.New.Total = b.total, n.total
	res.Base.Semantics, res.New.Semantics = b.sems, n.sems
	if opts.Normalize && b.total > 0 {
		res.Scale = float64(n.total) / float64(b.total)
	}
	scale := func(t Times) Times {
		if res.Scale == 1 {
			return t
		}
		return Times{profile.Time(math.Round(float64(t.Self) * res.Scale)), profile.Time(math.Round(float64(t.Total) * res.Scale))}
	}
	// A function whose column one side does not know is the other side's
	// function of that name, URL and line, when there is one.
	remap := looseMatch(keys.keys)
	b.fold(remap)
	n.fold(remap)
	// Functions, in key order; at[id] is the index of key id's function.
	at := make([]int32, len(keys.keys))
	for i, k := range keys.keys {
		at[i] = -1
		if remap[i] != int32(i) {
			continue
		}
		at[i] = int32(len(res.Functions))
		f := Function{Key: k}
		bt, inB := b.funcs[int32(i)]
		nt, inN := n.funcs[int32(i)]
		f.Base, f.New, f.InBase, f.InNew = scale(bt), nt, inB, inN
		f.URL = n.urls[int32(i)]
		if !inN {
			f.URL = b.urls[int32(i)]
		}
		res.Functions = append(res.Functions, f)
	}
	order := make([]int32, len(res.Functions))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(x, y int32) int {
		fx, fy := &res.Functions[x], &res.Functions[y]
		return byChange(fx.Delta(), fy.Delta(), func() int {
			// Equal changes (none, often): the heavier function first.
			return cmp.Or(cmp.Compare(max(fy.New.Self, fy.Base.Self), max(fx.New.Self, fx.Base.Self)),
				cmp.Compare(max(fy.New.Total, fy.Base.Total), max(fx.New.Total, fx.Base.Total)), compareKeys(fx.Key, fy.Key))
		})
	})
	renum := make([]int32, len(order))
	sorted := make([]Function, len(order))
	for to, from := range order {
		renum[from] = int32(to)
		sorted[to] = res.Functions[from]
	}
	res.Functions = sorted
	if opts.Paths {
		res.Paths = paths([2]*side{b, n}, remap, func(k int32) int32 { return renum[at[k]] }, scale)
	}
	return res, nil
}

// byChange orders by the absolute change of self time, then of total
// time, largest first, then by tie.
func byChange(a, b Times, tie func() int) int {
	if c := cmp.Compare(abs(b.Self), abs(a.Self)); c != 0 {
		return c
	}
	if c := cmp.Compare(abs(b.Total), abs(a.Total)); c != 0 {
		return c
	}
	return tie()
}

func abs(t profile.Time) profile.Time {
	if t < 0 {
		return -t
	}
	return t
}

func compareKeys(a, b Key) int {
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.URL, b.URL), cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Column, b.Column), boolCmp(a.Event, b.Event))
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// looseMatch returns, per key id, the id it stands for: itself, or for a
// key with an unknown column (−1, as pprof gives a function whose start
// line no sample is at) the one key of the same name, URL, line and kind
// with a known column, when there is exactly one.
func looseMatch(keys []Key) []int32 {
	remap := make([]int32, len(keys))
	type loose struct {
		name, url string
		line      int32
		event     bool
	}
	known := map[loose]int32{} // the key with a column; −1 when several
	for i, k := range keys {
		remap[i] = int32(i)
		if k.Column < 0 {
			continue
		}
		l := loose{k.Name, k.URL, k.Line, k.Event}
		if _, ok := known[l]; ok {
			known[l] = -1
		} else {
			known[l] = int32(i)
		}
	}
	for i, k := range keys {
		if k.Column >= 0 || k.Line < 0 {
			continue
		}
		if j, ok := known[loose{k.Name, k.URL, k.Line, k.Event}]; ok && j >= 0 {
			remap[i] = j
		}
	}
	return remap
}

// fold moves the times of remapped keys to the keys they stand for.
func (s *side) fold(remap []int32) {
	moved := false
	for id := range s.funcs {
		if remap[id] != id {
			moved = true
			break
		}
	}
	if !moved {
		return
	}
	funcs := make(map[int32]Times, len(s.funcs))
	for id, t := range s.funcs {
		x := funcs[remap[id]]
		funcs[remap[id]] = Times{x.Self + t.Self, x.Total + t.Total}
		if u, ok := s.urls[id]; ok {
			if _, have := s.urls[remap[id]]; !have {
				s.urls[remap[id]] = u
			}
		}
	}
	s.funcs = funcs
}

// keyTable interns keys.
type keyTable struct {
	keys  []Key
	index map[Key]int32
}

func (t *keyTable) id(k Key) int32 {
	if i, ok := t.index[k]; ok {
		return i
	}
	i := int32(len(t.keys))
	t.keys = append(t.keys, k)
	t.index[k] = i
	return i
}

// KeyOf returns the key of frame f of p with prefix removed from its URL.
func KeyOf(p *profile.Profile, f profile.FrameID, prefix string) Key {
	fr := &p.Frames[f]
	if fr.Kind == profile.KindEvent {
		return Key{Name: p.Str(fr.Name), Line: -1, Column: -1, Event: true}
	}
	return Key{Name: anonymous(p.Str(fr.Name)), URL: strings.TrimPrefix(p.Str(fr.URL), prefix), Line: fr.Line, Column: fr.Column}
}

// anonymous returns "" for the names pprof writers give anonymous
// functions ("(anonymous)", and jsprof's "(anonymous) server.js:16",
// "(anonymous) VM12:3", "(anonymous) line 3"), so that a pprof export matches a .cpuprofile;
// other names are returned as they are.
func anonymous(name string) string {
	rest, ok := strings.CutPrefix(name, "(anonymous) ")
	if name == "(anonymous)" || ok && (strings.HasPrefix(rest, "line ") || !strings.ContainsAny(rest, " \t")) {
		return ""
	}
	return name
}

// collect computes one side's functions and paths.
func collect(ctx context.Context, s Side, opts Options, keys *keyTable, prefix string) (*side, error) {
	out := &side{funcs: map[int32]Times{}, urls: map[int32]string{}}
	if len(s.Threads) == 0 {
		return nil, fmt.Errorf("compare: a side has no thread")
	}
	for _, th := range s.Threads {
		p := th.Session().Profile
		tree, err := th.Tree(ctx, opts.View)
		if err != nil {
			return nil, err
		}
		fs, err := th.Functions(ctx, opts.View, opts.Semantics)
		if err != nil {
			return nil, err
		}
		out.sems = append(out.sems, fs.Semantics)
		out.total += tree.TopDown[0].Total
		kid := make([]int32, len(fs.Funcs)) // FuncID → key index
		for i := range fs.Funcs {
			f := &fs.Funcs[i]
			k := keys.id(keyFor(p, f.Frame, opts.Strip, prefix))
			kid[i] = k
			t := out.funcs[k]
			t.Self += f.Self
			t.Total += f.Total
			out.funcs[k] = t
			if _, ok := out.urls[k]; !ok && !f.Key.Event {
				out.urls[k] = p.Str(p.Frames[f.Frame].URL)
			}
		}
		if opts.Paths {
			out.trees = append(out.trees, keyedTree{tree.TopDown, kid})
		}
	}
	return out, nil
}

// keyFor returns the key of a frame: with the first matching prefix of
// strip removed, or with prefix removed when strip is nil.
func keyFor(p *profile.Profile, f profile.FrameID, strip []string, prefix string) Key {
	return KeyOf(p, f, StripFunc(strip, prefix)(p.Str(p.Frames[f].URL)))
}

// StripFunc returns the prefix to remove from a URL under strip (the first
// that matches) or, when strip is nil, the side's automatic prefix.
func StripFunc(strip []string, auto string) func(url string) string {
	return func(u string) string {
		if strip == nil {
			if strings.HasPrefix(u, auto) {
				return auto
			}
			return ""
		}
		for _, s := range strip {
			if s != "" && strings.HasPrefix(u, s) {
				return s
			}
		}
		return ""
	}
}

// AutoStrip returns the prefixes to remove from each side's URLs so that
// the same program installed in two places matches: each side's longest
// common directory prefix of its file URLs (file://… or absolute paths),
// or "" for both when the two are equal (the same place) or a side has no
// file URL.
func AutoStrip(base, new Side) (basePrefix, newPrefix string) {
	bp, bok := commonDir(base)
	np, nok := commonDir(new)
	if !bok || !nok || bp == np {
		return "", ""
	}
	return bp, np
}

// commonDir returns the longest common prefix, ending in '/', of the file
// URLs of the side's profiles.
func commonDir(s Side) (string, bool) {
	var prefix string
	found := false
	seen := map[*profile.Profile]bool{}
	for _, th := range s.Threads {
		p := th.Session().Profile
		if seen[p] {
			continue
		}
		seen[p] = true
		for i := range p.Frames {
			u := p.Str(p.Frames[i].URL)
			if !isFileURL(u) {
				continue
			}
			if !found {
				prefix, found = u, true
				continue
			}
			j := 0
			for j < len(prefix) && j < len(u) && prefix[j] == u[j] {
				j++
			}
			prefix = prefix[:j]
		}
	}
	if !found {
		return "", false
	}
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		return prefix[:i+1], true
	}
	return "", true
}

func isFileURL(u string) bool {
	return strings.HasPrefix(u, "file://") || strings.HasPrefix(u, "/") ||
		len(u) > 2 && u[1] == ':' && (u[2] == '\\' || u[2] == '/')
}

// WithURLs returns a shallow copy of p whose frames' URLs have the prefix
// that strip returns for them removed (p is not modified), for writing a
// side as the comparison matched it (e.g. a pprof pair for
// `go tool pprof -diff_base`).
func WithURLs(p *profile.Profile, strip func(url string) string) *profile.Profile {
	q := *p
	q.Frames = slices.Clone(p.Frames)
	q.Strings = slices.Clip(p.Strings)
	ids := map[profile.StringID]profile.StringID{}
	for i := range q.Frames {
		fr := &q.Frames[i]
		if id, ok := ids[fr.URL]; ok {
			fr.URL = id
			continue
		}
		u := p.Str(fr.URL)
		pre := strip(u)
		if pre == "" {
			ids[fr.URL] = fr.URL
			continue
		}
		id := profile.StringID(len(q.Strings))
		q.Strings = append(q.Strings, strings.TrimPrefix(u, pre))
		ids[fr.URL] = id
		fr.URL = id
	}
	return &q
}

// FrameKeys returns, for each of two profiles, the key of each of its
// frames as Diff matches them across the two: with each side's URL prefix
// removed (strip returns it for a URL), anonymous names as Key has them,
// and a frame of unknown column mapped to the one function of its name,
// URL and line with a known column on either side. It serves outputs that
// match frames themselves, such as a differential flame graph.
func FrameKeys(base, new *profile.Profile, baseStrip, newStrip func(url string) string) (baseKeys, newKeys []Key) {
	keys := &keyTable{index: map[Key]int32{}}
	ids := [2][]int32{}
	for s, side := range []struct {
		p     *profile.Profile
		strip func(string) string
	}{{base, baseStrip}, {new, newStrip}} {
		ids[s] = make([]int32, len(side.p.Frames))
		for f := range side.p.Frames {
			fr := &side.p.Frames[f]
			ids[s][f] = keys.id(KeyOf(side.p, profile.FrameID(f), side.strip(side.p.Str(fr.URL))))
		}
	}
	remap := looseMatch(keys.keys)
	out := [2][]Key{}
	for s := range ids {
		out[s] = make([]Key, len(ids[s]))
		for f, id := range ids[s] {
			out[s][f] = keys.keys[remap[id]]
		}
	}
	return out[0], out[1]
}

// paths returns the call paths of the two sides' trees (base first), as
// Result.Paths gives them: fn maps a key index (one that remap
// keeps) to its index in Result.Functions and scale scales the base.
//
//  1. The paths of both sides are interned in one trie of (parent path,
//     key index) pairs, keys remapped, so that a path costs one entry
//     however deep it is; each tree node adds its times to its path.
//  2. Each path's rank in the order of its function lists (the tie-break
//     of the rows' order) is its place in a walk of the trie, children in
//     the order of their functions.
//  3. The rows are sorted and linked to their parents' rows.
func paths(sides [2]*side, remap []int32, fn func(int32) int32, scale func(Times) Times) []Path {
	// The trie has at least as many paths as the larger side's trees have
	// nodes: made room for at once, its arrays and index are not grown and
	// copied again node by node (diff --tree of the typescript shape: a
	// fifth of the time, much of it the collector waiting on the copies).
	size := 1
	for _, sd := range sides {
		n := 1
		for _, tr := range sd.trees {
			n += len(tr.nodes)
		}
		size = max(size, n)
	}
	// Trie path 0 is the empty path.
	parent, key := make([]int32, 1, size), make([]int32, 1, size)
	parent[0], key[0] = -1, -1
	index := make(map[[2]int32]int32, size)
	type sums struct {
		times [2]Times // base, new
		in    [2]bool
	}
	acc := make([]sums, 1, size)
	for s, sd := range sides {
		for _, tr := range sd.trees {
			id := make([]int32, len(tr.nodes)) // tree node → trie path; the root's is 0
			for v := 1; v < len(tr.nodes); v++ {
				nd := &tr.nodes[v]
				e := [2]int32{id[nd.Parent], remap[tr.key[nd.Func]]}
				p, ok := index[e]
				if !ok {
					p = int32(len(parent))
					index[e] = p
					parent, key = append(parent, e[0]), append(key, e[1])
					acc = append(acc, sums{})
				}
				id[v] = p
				a := &acc[p]
				a.times[s].Self += nd.Self
				a.times[s].Total += nd.Total
				a.in[s] = true
			}
		}
	}
	np := len(parent)
	if np == 1 {
		return nil
	}
	rows := make([]Path, np)
	for p := 1; p < np; p++ {
		r, a := &rows[p], &acc[p]
		r.Func = fn(key[p])
		r.Depth = rows[parent[p]].Depth + 1
		r.Base, r.New, r.InBase, r.InNew = scale(a.times[0]), a.times[1], a.in[0], a.in[1]
	}
	rank := lexRanks(parent, rows)
	order := make([]int32, np-1)
	for i := range order {
		order[i] = int32(i + 1)
	}
	slices.SortFunc(order, func(i, j int32) int {
		x, y := &rows[i], &rows[j]
		return byChange(x.Delta(), y.Delta(), func() int {
			return cmp.Or(cmp.Compare(max(y.New.Self, y.Base.Self), max(x.New.Self, x.Base.Self)),
				cmp.Compare(max(y.New.Total, y.Base.Total), max(x.New.Total, x.Base.Total)), cmp.Compare(rank[i], rank[j]))
		})
	})
	row := make([]int32, np) // trie path → row; the empty path's is −1
	row[0] = -1
	for r, p := range order {
		row[p] = int32(r)
	}
	links := &pathLinks{parent: make([]int32, len(order)), fn: make([]int32, len(order))}
	out := make([]Path, len(order))
	for r, p := range order {
		out[r] = rows[p]
		out[r].Parent = row[parent[p]]
		out[r].links = links
		links.parent[r], links.fn[r] = out[r].Parent, out[r].Func
	}
	return out
}

// lexRanks returns the rank of each trie path in the order of the paths'
// function lists (rows[p].Func along the path), a path before the paths it
// is a prefix of: a preorder walk, each path's children in the order of
// their functions (distinct among siblings).
func lexRanks(parent []int32, rows []Path) []int32 {
	np := len(parent)
	// The children of each path, grouped by parent (CSR), sorted by Func.
	start := make([]int32, np+1)
	for p := 1; p < np; p++ {
		start[parent[p]+1]++
	}
	for p := range np {
		start[p+1] += start[p]
	}
	kids := make([]int32, np-1)
	next := slices.Clone(start[:np])
	for p := 1; p < np; p++ {
		kids[next[parent[p]]] = int32(p)
		next[parent[p]]++
	}
	for p := range np {
		slices.SortFunc(kids[start[p]:start[p+1]], func(a, b int32) int { return cmp.Compare(rows[a].Func, rows[b].Func) })
	}
	rank := make([]int32, np)
	stack := []int32{0}
	for r := int32(0); len(stack) > 0; r++ {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		rank[p] = r
		for k := start[p+1] - 1; k >= start[p]; k-- {
			stack = append(stack, kids[k])
		}
	}
	return rank
}
