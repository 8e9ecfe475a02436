package cli

import (
	"bufio"
	"fmt"
	"strconv"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/internal/jsonw"
)

const callsUsage = `Usage: jsprof calls --json [--entries] [--thread SEL] FILE

Prints every estimated JS call (DevTools "ProfileCall") of every thread, in
DevTools' order, one JSON object per line:

  {"pid":1,"tid":1,"ts":…,"dur":…,"self":…,"name":"…","url":"…","line":…,
   "col":…,"scriptId":"…","nodeId":…}

ts, dur and self are µs as DevTools holds them; line and col are 0-based as in
the callFrame (−1 when unknown); nodeId is the profile node's id in FILE. A
bare .cpuprofile is pid 1, tid 1, as in DevTools. This output is a stable
contract. A trace gives every thread that has samples, with its real pid and
tid, including threads DevTools does not show (e.g. Node.js processes).

--entries prints instead the flame-chart entries DevTools draws for each
thread (trace events and calls, depth-first), one JSON object per line:
  {"pid":…,"tid":…,"level":…,"ts":…,"dur":…,"name":"…","profileCall":true}
`

func runCalls(e *env, args []string) error {
	fs := newFlags("calls")
	common := addCommonFlags(fs)
	transform := addTransformFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON lines (required)")
	entries := fs.Bool("entries", false, "print the flame-chart entries DevTools draws instead of the calls")
	name, err := parseFlags(e, fs, callsUsage, args)
	if err != nil {
		return err
	}
	if !*asJSON {
		return usagef("only JSON output is available: pass --json")
	}
	l, err := load(e, name, loadOptions{common: common, calls: true, streamCalls: true, entries: *entries, transform: transform})
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(e.stdout, 256<<10)
	defer w.Flush()
	p := l.profile
	if *entries {
		return writeEntries(w, l)
	}
	var b []byte
	for _, ta := range l.threads {
		th := l.thread(ta)
		head := []byte(`{"pid":`)
		head = strconv.AppendInt(head, th.PID, 10)
		head = append(head, `,"tid":`...)
		head = strconv.AppendInt(head, th.TID, 10)
		err := ta.eachCall(func(c *calls.Call) error {
			nd := &p.Nodes[c.Node]
			f := &p.Frames[nd.Frame]
			b = append(b[:0], head...)
			b = append(b, `,"ts":`...)
			b = jsonw.Micros(b, int64(c.Start))
			b = append(b, `,"dur":`...)
			b = jsonw.Micros(b, int64(c.Dur))
			b = append(b, `,"self":`...)
			b = jsonw.Micros(b, int64(c.Self))
			b = append(b, `,"name":`...)
			b = jsonw.String(b, p.Strings[f.Name])
			b = append(b, `,"url":`...)
			b = jsonw.String(b, p.Strings[f.URL])
			b = append(b, `,"line":`...)
			b = strconv.AppendInt(b, int64(f.Line), 10)
			b = append(b, `,"col":`...)
			b = strconv.AppendInt(b, int64(f.Column), 10)
			b = append(b, `,"scriptId":`...)
			b = jsonw.String(b, p.Strings[f.ScriptID])
			b = append(b, `,"nodeId":`...)
			b = strconv.AppendInt(b, nd.InputID, 10)
			b = append(b, "}\n"...)
			_, err := w.Write(b)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// writeEntries prints each thread's flame-chart entries, one JSON object per
// line: {"pid","tid","level","ts","dur","name","profileCall"}. For a bare
// .cpuprofile the entries are the calls at their depth.
func writeEntries(w *bufio.Writer, l *loaded) error {
	p := l.profile
	var b []byte
	for _, ta := range l.threads {
		th := l.thread(ta)
		emit := func(level int32, start, dur int64, name string, isCall bool) error {
			b = fmt.Appendf(b[:0], `{"pid":%d,"tid":%d,"level":%d,"ts":`, th.PID, th.TID, level)
			b = jsonw.Micros(b, start)
			b = append(b, `,"dur":`...)
			b = jsonw.Micros(b, dur)
			b = append(b, `,"name":`...)
			b = jsonw.String(b, name)
			b = fmt.Appendf(b, `,"profileCall":%t}`+"\n", isCall)
			_, err := w.Write(b)
			return err
		}
		if !ta.st.IsTrace() {
			err := ta.eachCall(func(c *calls.Call) error {
				return emit(c.Depth, int64(c.Start), int64(c.Dur), p.Str(p.NodeFrame(c.Node).Name), true)
			})
			if err != nil {
				return err
			}
			continue
		}
		cs := ta.calls // held for a trace thread: its entries name them
		for _, en := range ta.entries {
			var name string
			isCall := en.Call >= 0
			if isCall {
				name = p.Str(p.NodeFrame(cs[en.Call].Node).Name)
			} else {
				name = p.Str(p.Events[en.Event].Name)
			}
			if err := emit(en.Level, int64(en.Start), int64(en.Dur), name, isCall); err != nil {
				return err
			}
		}
	}
	return nil
}
