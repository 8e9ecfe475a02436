package cli

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/jsprof/jsprof/analysis/devtoolsstats"
	"github.com/jsprof/jsprof/internal/jsonw"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/report"
	"github.com/jsprof/jsprof/session"
)

const summaryUsage = `Usage: jsprof summary [--json] [--thread SEL] FILE

Reads FILE, runs the full analysis (DevTools reconstruction, ProfileCalls,
call trees) and prints what the profile holds: format, threads, time span,
samples, sampling interval, nodes, ProfileCalls, and every oddity of the
input that was repaired or dropped.

--json prints one object:
  {"format":…, "file":…, "threads":[{"pid","tid","name","startUs","endUs",
   "samples","profileCalls","sampledMs","nodes","shape","events",
   "processName","meanIntervalUs","medianIntervalUs",
   "categories":{"samples":{"Idle":ms,"Other":ms,"JavaScript":ms,…},
                 "devtools":{"scripting":ms,"rendering":ms,…,"idle":ms}}}],
(categories.devtools, DevTools' Summary over the whole trace, only for traces)
   "diagnostics":[{"code","count","message"}]}
startUs/endUs are the profile's start and end as the file gives them (µs on
the file's clock); sampledMs is the time the samples cover, what the trees
add up to.
`

type threadSummary struct {
	th                     *profile.Thread
	samples, nodes, calls  int
	sampled                profile.Time
	meanIntNS, medianIntNS int64
	categories             []profile.Time // per jsprof category, from the samples
	devtools               devtoolsstats.Stats
}

// wholeTraceStats are the DevTools Summaries of a trace's threads over the
// whole trace, by thread id, computed while the trees are built
// (loadOptions.alongTrees).
type wholeTraceStats []devtoolsstats.Stats

func (w wholeTraceStats) compute(e *env, st *session.Thread) error {
	if !st.IsTrace() {
		return nil
	}
	cs, err := st.Calls(e.ctx)
	if err != nil {
		return err
	}
	p := st.Session().Profile
	w[st.ID] = devtoolsstats.ThreadWholeTrace(p, st.ID, cs, devtoolsstats.TraceBounds(p))
	return nil
}

func summarize(e *env, l *loaded, ta *threadAnalysis, whole wholeTraceStats) (threadSummary, error) {
	th := l.thread(ta)
	cats, err := ta.st.CategoryTimes(e.ctx)
	if err != nil {
		return threadSummary{}, err
	}
	s := threadSummary{th: th, samples: th.Samples.Len(), nodes: th.Nodes.Len(), categories: cats}
	s.sampled = ta.tree.TopDown[0].Total
	s.calls = ta.tree.Calls // a .cpuprofile's tree: one per call, counted without materialising them
	if ta.st.IsTrace() {
		// DevTools' Summary of a bare .cpuprofile is only Scripting and Idle;
		// computing it exactly would materialise every call (1.4 M on the
		// 48 MB DevTools fixture), so it is given for traces only.
		cs, err := ta.st.Calls(e.ctx)
		if err != nil {
			return threadSummary{}, err
		}
		s.calls = len(cs)
		s.devtools = whole[ta.id]
	}
	mean, median := ta.st.SampleIntervals()
	s.meanIntNS, s.medianIntNS = int64(mean), int64(median)
	return s, nil
}

// summarizeAll summarizes every thread, two at a time on two cores, the
// threads of most samples and events first. whole holds the DevTools
// Summaries of a trace's threads, the costly part, made beside the trees.
func summarizeAll(e *env, l *loaded, whole wholeTraceStats) ([]threadSummary, error) {
	out := make([]threadSummary, len(l.threads))
	errs := make([]error, len(l.threads))
	sts := make([]*session.Thread, len(l.threads))
	for i, ta := range l.threads {
		sts[i] = ta.st
	}
	session.EachLargestFirst(sts, func(i int) { out[i], errs[i] = summarize(e, l, l.threads[i], whole) })
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func runSummary(e *env, args []string) error {
	fs := newFlags("summary")
	common := addCommonFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	name, err := parseFlags(e, fs, summaryUsage, args)
	if err != nil {
		return err
	}
	var whole wholeTraceStats
	l, err := load(e, name, loadOptions{trees: true, common: common, allowEmpty: true,
		alongTrees: func(s *session.Session) func(*session.Thread) error {
			whole = make(wholeTraceStats, len(s.Profile.Threads))
			return func(st *session.Thread) error { return whole.compute(e, st) }
		}})
	if err != nil {
		return err
	}
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	p := l.profile
	if *asJSON {
		out := report.Summary{Format: p.Format, File: name, Threads: []report.ThreadSummary{}, Diagnostics: report.Diagnostics(p.Diagnostics)}
		sums, err := summarizeAll(e, l, whole)
		if err != nil {
			return err
		}
		for _, s := range sums {
			ts := report.ThreadSummary{
				Thread:  reportThread(s.th),
				StartUs: report.Micros(s.th.Start), EndUs: report.Micros(s.th.End),
				Samples: s.samples, ProfileCalls: s.calls, SampledMs: report.Millis(s.sampled),
				Nodes: s.nodes, Shape: s.th.Shape.String(), Events: s.th.Events.Len(), ProcessName: s.th.ProcessName, URL: s.th.URL,
				MeanIntervalUs: report.Micros(s.meanIntNS), MedianIntervalUs: report.Micros(s.medianIntNS),
				Categories: report.Categories{Samples: map[string]report.Millis{}},
			}
			for ci, c := range p.Categories {
				ts.Categories.Samples[c.Name] = report.Millis(s.categories[ci])
			}
			if s.devtools != nil {
				ts.Categories.DevTools = map[string]report.Millis{devtoolsstats.Idle: report.Millis(s.devtools[devtoolsstats.Idle])}
				for _, c := range s.devtools.Sorted() {
					ts.Categories.DevTools[c.Category] = report.Millis(c.Time)
				}
			}
			out.Threads = append(out.Threads, ts)
		}
		return writeJSON(w, out)
	}
	fmt.Fprintf(w, "file      %s\n", strconv.Quote(name))
	fmt.Fprintf(w, "format    %s\n", p.Format)
	fmt.Fprintf(w, "frames    %d\n", len(p.Frames))
	if len(l.threads) == 0 {
		fmt.Fprintf(w, "\n%v\n", noThreads(name, p))
	}
	sums, err := summarizeAll(e, l, whole)
	if err != nil {
		return err
	}
	for i, s := range sums {
		ta := l.threads[i]
		fmt.Fprintf(w, "\nthread    pid %d tid %d \"%s\"", s.th.PID, s.th.TID, visible(s.th.Name))
		if s.th.ProcessName != "" {
			fmt.Fprintf(w, " in \"%s\"", visible(s.th.ProcessName))
		}
		fmt.Fprintln(w)
		if s.th.URL != "" {
			fmt.Fprintf(w, "  page      %s\n", visible(s.th.URL))
		}
		if tl := ta.timeline; tl.Times.Len() > 0 {
			fmt.Fprintf(w, "  span      %s from the first sample to the end of the last\n", duration(tl.End-tl.Times.At(0)))
		}
		fmt.Fprintf(w, "  profile   start %s µs, end %s µs (as the file gives them)\n",
			jsonw.Micros(nil, int64(s.th.Start)), jsonw.Micros(nil, int64(s.th.End)))
		fmt.Fprintf(w, "  samples   %d, interval mean %s µs, median %s µs\n", s.samples,
			jsonw.Micros(nil, s.meanIntNS), jsonw.Micros(nil, s.medianIntNS))
		fmt.Fprintf(w, "  sampled   %s\n", duration(s.sampled))
		fmt.Fprintf(w, "  nodes     %d (%s)\n", s.nodes, s.th.Shape)
		fmt.Fprintf(w, "  calls     %d ProfileCalls\n", s.calls)
		if n := s.th.Events.Len(); n > 0 {
			fmt.Fprintf(w, "  events    %d trace events\n", n)
		}
		writeCategoryBars(w, p, s.categories)
		if s.devtools != nil {
			fmt.Fprintf(w, "  DevTools Summary (whole trace)\n")
			u := unitFor(s.devtools.Total())
			for _, c := range s.devtools.Sorted() {
				fmt.Fprintf(w, "    %-12s %10s %s\n", c.Category, u.fmt(c.Time), u.name)
			}
			fmt.Fprintf(w, "    %-12s %10s %s\n", devtoolsstats.Idle, u.fmt(s.devtools[devtoolsstats.Idle]), u.name)
		}
	}
	writeDiagnostics(w, p.Diagnostics)
	return nil
}

// benign holds, per diagnostic code, the plain words for an oddity that is
// normal for its producer and loses nothing; other diagnostics point at
// real losses or repairs and are listed first, under "diagnostics".
var benign = map[string]string{
	"hitcount-mismatch": "V8's per-node hitCounts do not add up to its samples, as is usual in Node and Chrome profiles; " +
		"nothing is lost: jsprof takes times from the samples",
}

// writeDiagnostics prints the diagnostics that point at losses or repairs,
// then, as notes, the benign ones in plain words (each once).
func writeDiagnostics(w io.Writer, ds profile.Diagnostics) {
	var losses, notes []string
	seen := map[string]bool{}
	for _, d := range ds {
		if words, ok := benign[d.Code]; ok {
			if !seen[d.Code] {
				seen[d.Code] = true
				notes = append(notes, words+" ("+d.Message+")")
			}
			continue
		}
		losses = append(losses, d.Message)
	}
	if len(losses) > 0 {
		fmt.Fprintf(w, "\ndiagnostics\n")
		for _, m := range losses {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\nnotes\n")
		for _, m := range notes {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
}

// writeCategoryBars prints time per category with a bar, largest first.
func writeCategoryBars(w io.Writer, p *profile.Profile, times []profile.Time) {
	var total profile.Time
	for _, t := range times {
		total += t
	}
	if total <= 0 {
		return
	}
	order := make([]int, len(times))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(times[b], times[a]) })
	fmt.Fprintf(w, "  categories (from the samples)\n")
	u := unitFor(times[order[0]])
	for _, c := range order {
		if times[c] == 0 {
			continue
		}
		frac := float64(times[c]) / float64(total)
		fmt.Fprintf(w, "    %-12s %10s %s %5.1f%% %s\n", p.Categories[c].Name, u.fmt(times[c]), u.name, 100*frac,
			strings.Repeat("█", int(frac*30+0.5)))
	}
}
