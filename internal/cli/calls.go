package cli

import (
	"bufio"
	"strconv"

	"github.com/jsprof/jsprof/internal/jsonw"
)

const callsUsage = `Usage: jsprof calls --json FILE

Prints every estimated JS call (DevTools "ProfileCall") of every thread, in
DevTools' order, one JSON object per line:

  {"pid":1,"tid":1,"ts":…,"dur":…,"self":…,"name":"…","url":"…","line":…,
   "col":…,"scriptId":"…","nodeId":…}

ts, dur and self are µs as DevTools holds them; line and col are 0-based as in
the callFrame (−1 when unknown); nodeId is the profile node's id in FILE. A
bare .cpuprofile is pid 1, tid 1, as in DevTools. This output is a stable
contract.
`

func runCalls(e *env, args []string) error {
	fs := newFlags(e, "calls", callsUsage)
	asJSON := fs.Bool("json", false, "print JSON lines (required)")
	name, err := parseFlags(e, fs, callsUsage, args)
	if err != nil {
		return err
	}
	if !*asJSON {
		return usagef("calls has only a JSON output: pass --json")
	}
	l, err := load(e, name, loadOptions{})
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(e.stdout, 256<<10)
	defer w.Flush()
	p := l.profile
	var b []byte
	for _, ta := range l.threads {
		th := l.thread(ta)
		head := []byte(`{"pid":`)
		head = strconv.AppendInt(head, th.PID, 10)
		head = append(head, `,"tid":`...)
		head = strconv.AppendInt(head, th.TID, 10)
		for _, c := range ta.Calls() {
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
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
	}
	return nil
}
