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

func summarize(e *env, l *loaded, ta *threadAnalysis) (threadSummary, error) {
	th := l.thread(ta)
	cats, err := ta.st.CategoryTimes(e.ctx)
	if err != nil {
		return threadSummary{}, err
	}
	s := threadSummary{th: th, samples: th.Samples.Len(), nodes: th.Nodes.Len(), categories: cats}
	if ta.timeline.IsTrace() {
		// DevTools' Summary of a bare .cpuprofile is only Scripting and Idle;
		// computing it exactly would materialise every call (1.4 M on the
		// 48 MB DevTools fixture), so it is given for traces only.
		evs := devtoolsstats.ThreadEvents(l.profile, ta.id, ta.Calls())
		s.devtools = devtoolsstats.WholeTrace(evs, devtoolsstats.TraceBounds(l.profile))
	}
	s.calls = len(ta.calls)
	if ta.tree != nil {
		s.sampled = ta.tree.TopDown[0].Total
	}
	times := l.profile.ThreadSamples(ta.id).Time
	if n := len(times); n > 1 {
		s.meanIntNS = int64(times[n-1]-times[0]) / int64(n-1)
		d := make([]int64, 0, n-1)
		for i := 1; i < n; i++ {
			if dt := int64(times[i] - times[i-1]); dt > 0 {
				d = append(d, dt)
			}
		}
		if len(d) > 0 {
			slices.Sort(d)
			s.medianIntNS = d[len(d)/2]
		}
	}
	return s, nil
}

func runSummary(e *env, args []string) error {
	fs := newFlags("summary")
	common := addCommonFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	name, err := parseFlags(e, fs, summaryUsage, args)
	if err != nil {
		return err
	}
	l, err := load(e, name, loadOptions{trees: true, calls: true, common: common})
	if err != nil {
		return err
	}
	w := bufio.NewWriter(e.stdout)
	defer w.Flush()
	p := l.profile
	if *asJSON {
		b := []byte(`{"format":`)
		b = jsonw.String(b, p.Format)
		b = append(b, `,"file":`...)
		b = jsonw.String(b, name)
		b = append(b, `,"threads":[`...)
		for i, ta := range l.threads {
			s, err := summarize(e, l, ta)
			if err != nil {
				return err
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, `{"pid":%d,"tid":%d,"name":`, s.th.PID, s.th.TID)
			b = jsonw.String(b, s.th.Name)
			b = append(b, `,"startUs":`...)
			b = jsonw.Micros(b, int64(s.th.Start))
			b = append(b, `,"endUs":`...)
			b = jsonw.Micros(b, int64(s.th.End))
			b = fmt.Appendf(b, `,"samples":%d,"profileCalls":%d,"sampledMs":`, s.samples, s.calls)
			b = jsonw.Millis(b, int64(s.sampled))
			b = fmt.Appendf(b, `,"nodes":%d,"shape":"%s","events":%d,"processName":`, s.nodes, s.th.Shape, s.th.Events.Len())
			b = jsonw.String(b, s.th.ProcessName)
			b = append(b, `,"meanIntervalUs":`...)
			b = jsonw.Micros(b, s.meanIntNS)
			b = append(b, `,"medianIntervalUs":`...)
			b = jsonw.Micros(b, s.medianIntNS)
			b = append(b, `,"categories":{"samples":{`...)
			for ci, c := range p.Categories {
				if ci > 0 {
					b = append(b, ',')
				}
				b = jsonw.String(b, c.Name)
				b = append(b, ':')
				b = jsonw.Millis(b, int64(s.categories[ci]))
			}
			b = append(b, '}')
			if s.devtools != nil {
				b = append(b, `,"devtools":{`...)
				for _, c := range s.devtools.Sorted() {
					b = jsonw.String(b, c.Category)
					b = append(b, ':')
					b = jsonw.Millis(b, int64(c.Time))
					b = append(b, ',')
				}
				b = append(b, `"idle":`...)
				b = jsonw.Millis(b, int64(s.devtools[devtoolsstats.Idle]))
				b = append(b, '}')
			}
			b = append(b, "}}"...)
		}
		b = append(b, `],"diagnostics":[`...)
		for i, d := range p.Diagnostics {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"code":`...)
			b = jsonw.String(b, d.Code)
			b = fmt.Appendf(b, `,"count":%d,"message":`, d.Count)
			b = jsonw.String(b, d.Message)
			b = append(b, '}')
		}
		b = append(b, "]}\n"...)
		_, err := w.Write(b)
		return err
	}
	fmt.Fprintf(w, "file      %s\n", strconv.Quote(name))
	fmt.Fprintf(w, "format    %s\n", p.Format)
	fmt.Fprintf(w, "frames    %d\n", len(p.Frames))
	for _, ta := range l.threads {
		s, err := summarize(e, l, ta)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\nthread    pid %d tid %d %q", s.th.PID, s.th.TID, s.th.Name)
		if s.th.ProcessName != "" {
			fmt.Fprintf(w, " in %q", s.th.ProcessName)
		}
		fmt.Fprintln(w)
		if ts := ta.timeline.Times; len(ts) > 0 {
			fmt.Fprintf(w, "  span      %.3f ms from the first sample to the end of the last\n", (ts[len(ts)-1] - ts[0]).Millis())
		}
		fmt.Fprintf(w, "  profile   start %s µs, end %s µs (as the file gives them)\n",
			jsonw.Micros(nil, int64(s.th.Start)), jsonw.Micros(nil, int64(s.th.End)))
		fmt.Fprintf(w, "  samples   %d, interval mean %s µs, median %s µs\n", s.samples,
			jsonw.Micros(nil, s.meanIntNS), jsonw.Micros(nil, s.medianIntNS))
		fmt.Fprintf(w, "  sampled   %.3f ms\n", s.sampled.Millis())
		fmt.Fprintf(w, "  nodes     %d (%s)\n", s.nodes, s.th.Shape)
		fmt.Fprintf(w, "  calls     %d ProfileCalls\n", s.calls)
		if n := s.th.Events.Len(); n > 0 {
			fmt.Fprintf(w, "  events    %d trace events\n", n)
		}
		writeCategoryBars(w, p, s.categories)
		if s.devtools != nil {
			fmt.Fprintf(w, "  DevTools Summary (whole trace)\n")
			for _, c := range s.devtools.Sorted() {
				fmt.Fprintf(w, "    %-12s %10.3f ms\n", c.Category, c.Time.Millis())
			}
			fmt.Fprintf(w, "    %-12s %10.3f ms\n", devtoolsstats.Idle, s.devtools[devtoolsstats.Idle].Millis())
		}
	}
	if len(p.Diagnostics) > 0 {
		fmt.Fprintf(w, "\ndiagnostics\n")
		for _, d := range p.Diagnostics {
			fmt.Fprintf(w, "  %s\n", d.Message)
		}
	}
	return nil
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
	for _, c := range order {
		if times[c] == 0 {
			continue
		}
		frac := float64(times[c]) / float64(total)
		fmt.Fprintf(w, "    %-12s %10.3f ms %5.1f%% %s\n", p.Categories[c].Name, times[c].Millis(), 100*frac,
			strings.Repeat("█", int(frac*30+0.5)))
	}
}
