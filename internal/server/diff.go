package server

import (
	"github.com/jsprof/jsprof/compare"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

// ViewerDiff answers /api/diff: the page's profile (BASE) compared with
// Options.Diff (NEW) per function, as `jsprof diff --json` does, for the
// selected thread, view, range and transforms.
type ViewerDiff struct {
	Base           string           `json:"base"`
	New            string           `json:"new"`
	BaseTotalMs    report.Millis    `json:"baseTotalMs"`
	NewTotalMs     report.Millis    `json:"newTotalMs"`
	TotalSemantics string           `json:"totalSemantics"`
	Functions      []report.DiffRow `json:"functions"`
}

// diff answers /api/diff: t= is the base thread; the new side's thread is
// the same index when both files have as many threads, else NEW's thread
// with the most samples. Without --diff it answers 404.
func (s *server) diff(q *request) (any, error) {
	if s.opts.Diff == nil {
		return nil, &badRequest{code: 404, msg: "no --diff profile"}
	}
	nsess, err := s.opts.Diff.Wait(q.ctx) // loaded alongside the base
	if err != nil {
		if q.ctx.Err() != nil {
			return nil, q.ctx.Err()
		}
		return nil, badf("--diff %s: %v", s.opts.DiffName, err)
	}
	th, err := q.thread()
	if err != nil {
		return nil, err
	}
	o, err := q.options()
	if err != nil {
		return nil, err
	}
	nth := nsess.Threads()
	if len(nth) == 0 {
		return nil, badf("the --diff profile has no thread")
	}
	var nt *session.Thread
	if bi := threadIndex(q.sess, th); len(nth) == len(q.sess.Threads()) && bi >= 0 {
		nt = nth[bi]
	} else {
		nt = nth[defaultThread(nsess)]
	}
	res, err := compare.Diff(q.ctx, compare.Side{Threads: []*session.Thread{th}}, compare.Side{Threads: []*session.Thread{nt}}, compare.Options{View: o})
	if err != nil {
		return nil, err
	}
	out := ViewerDiff{Base: q.sess.Name, New: nsess.Name, BaseTotalMs: report.Millis(res.Base.Total), NewTotalMs: report.Millis(res.New.Total),
		Functions: []report.DiffRow{}}
	if len(res.Base.Semantics) > 0 {
		out.TotalSemantics = res.Base.Semantics[0].String()
	}
	for i := range res.Functions {
		f := &res.Functions[i]
		out.Functions = append(out.Functions, report.DiffRow{
			Function:  report.Function{Name: f.Key.Name, URL: f.URL, Line: f.Key.Line, Col: f.Key.Column, Event: f.Key.Event},
			DiffTimes: compare.ReportTimes(f.Status(), f.Base, f.New, res)})
	}
	return out, nil
}

// infoAnswer is /api/info's answer: Diff names NEW ("" without --diff);
// EventThreads are the trace's threads without samples (events.go).
type infoAnswer struct {
	report.ViewerInfo
	Diff         string            `json:"diff,omitempty"`
	EventThreads []EventThreadInfo `json:"eventThreads"`
}

func threadIndex(sess *session.Session, th *session.Thread) int {
	for i, x := range sess.Threads() {
		if x == th {
			return i
		}
	}
	return -1
}
