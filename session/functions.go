package session

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/totals"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/profile"
)

// ErrSemanticsWithView reports VS Code or xsbug total-time semantics asked
// for with a view, range or transform: they are defined on the whole
// profile's nodes, not on transformed call paths.
var ErrSemanticsWithView = errors.New("VS Code and xsbug totals apply to the whole profile: they do not combine with a view, range or transform")

// Functions is a thread's per-function table under a total-time semantics.
type Functions struct {
	// Funcs is the tree's function table (the same FuncIDs) with Total under
	// Semantics. It is shared: do not modify it.
	Funcs     []calltree.Function
	Semantics totals.Semantics
	// Reason says why Semantics was chosen when the caller did not ask for
	// one ("" when it did).
	Reason string
}

// Functions returns the per-function table of the thread's tree under opts
// (with, under VS Code or xsbug semantics, the functions of a call graph
// that receive time without being on any sample's stack) with totals under
// sem, or under the thread's default semantics when sem
// is nil: DevTools' for a tree (and for any view, range or transform, and
// for a trace thread, whose tree holds trace events), xsbug's for an XS
// call graph (totals.Default).
func (t *Thread) Functions(ctx context.Context, opts view.Options, sem *totals.Semantics) (Functions, error) {
	tree, err := t.Tree(ctx, opts)
	if err != nil {
		return Functions{}, err
	}
	plain := opts.IsZero()
	s, reason := totals.Default(t.s.Profile, t.ID)
	switch {
	case sem != nil:
		s, reason = *sem, ""
		if s != totals.DevTools && !plain {
			return Functions{}, ErrSemanticsWithView
		}
	case !plain:
		s, reason = totals.DevTools, "views and transforms use DevTools semantics"
	case s != totals.DevTools && t.IsTrace():
		s, reason = totals.DevTools, "a trace thread's tree holds trace events"
	}
	out := Functions{Funcs: tree.Funcs, Semantics: s, Reason: reason}
	if s == totals.DevTools {
		return out, nil
	}
	key := fmt.Sprintf("functions|%v", s)
	t.mu.Lock()
	if t.funcs == nil {
		t.funcs = map[string]*lazy[[]calltree.Function]{}
	}
	l, ok := t.funcs[key]
	if !ok {
		l = &lazy[[]calltree.Function]{}
		t.funcs[key] = l
	}
	t.mu.Unlock()
	out.Funcs, err = l.get(ctx, func() ([]calltree.Function, error) {
		rows, err := totals.Functions(t.s.Profile, t.ID, s)
		if err != nil {
			return nil, fmt.Errorf("%s: %s total time: %w", t.s.Name, s, err)
		}
		byKey := make(map[profile.FunctionKey]int, len(rows))
		for j, r := range rows {
			byKey[r.Key] = j
		}
		// The cached tree is shared: these totals go to a copy.
		fs := slices.Clone(tree.Funcs)
		inTree := make(map[profile.FunctionKey]bool, len(fs))
		for j := range fs {
			f := &fs[j]
			inTree[f.Key] = true
			if k, ok := byKey[f.Key]; ok {
				f.Self, f.Total = rows[k].Self, rows[k].Total
			} else {
				f.Self, f.Total = 0, 0
			}
		}
		// A function of a call graph on no sample's stack still receives
		// time under xsbug's propagation (and VS Code's sums): list it too,
		// after the tree's functions (its FuncID has no tree node).
		for _, r := range rows {
			if !inTree[r.Key] && (r.Self != 0 || r.Total != 0) {
				fs = append(fs, calltree.Function{Key: r.Key, Frame: r.Frame, Self: r.Self, Total: r.Total})
			}
		}
		return fs, nil
	})
	return out, err
}
