// Command rechunk rewrites a trace written by `jsprof convert --format
// trace`, whose first ProfileChunk holds every node of its profile, into
// the form Chrome writes: each node in the first chunk whose samples reach
// it, after its ancestors not yet written (nodes never sampled go into the
// last chunk), each written as Chrome writes a chunk's node (a codeType,
// the script id a number, no hit count, no line and column when there are
// none, no empty URL):
//
//	{"callFrame":{"codeType":"JS","columnNumber":5,"functionName":"f","lineNumber":4,"scriptId":3,"url":"a.js"},"id":2,"parent":1}
//
// It keeps everything else as it is. For the benchmarks of a
// trace of a large profile (docs/performance.md §5s):
//
//	jsprof convert --format trace big.cpuprofile > big.trace.json
//	go run ./internal/proftest/rechunk big.trace.json chrome-shaped.json
//
// The input is one event a line, as jsprof writes it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
)

type node = map[string]any

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: rechunk IN.json OUT.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	var chunks []map[string]any
	var at []int // the line of each chunk
	for i, ln := range lines {
		s := bytes.TrimRight(bytes.TrimSpace(ln), ",")
		if !bytes.HasPrefix(s, []byte(`{"name":"ProfileChunk"`)) {
			continue
		}
		var ev map[string]any
		if err := json.Unmarshal(s, &ev); err != nil {
			fail(fmt.Errorf("line %d: %w", i+1, err))
		}
		chunks, at = append(chunks, ev), append(at, i)
	}
	if len(chunks) == 0 {
		fail(fmt.Errorf("%s: no ProfileChunk event", os.Args[1]))
	}
	profileOf := func(ev map[string]any) map[string]any {
		return ev["args"].(map[string]any)["data"].(map[string]any)["cpuProfile"].(map[string]any)
	}
	nodes := map[float64]node{}
	parent := map[float64]float64{}
	for _, ev := range chunks {
		ns, _ := profileOf(ev)["nodes"].([]any)
		for _, n := range ns {
			n := n.(node)
			id := n["id"].(float64)
			nodes[id] = n
			if p, ok := n["parent"].(float64); ok {
				parent[id] = p
			}
		}
	}
	written := map[float64]bool{}
	write := func(out *[]any, id float64) {
		var path []float64
		for ok := true; ok && !written[id]; id, ok = parent[id] {
			path = append(path, id)
		}
		for _, k := range slices.Backward(path) {
			written[k] = true
			*out = append(*out, chromeNode(nodes[k]))
		}
	}
	for _, ev := range chunks {
		cp := profileOf(ev)
		out := []any{}
		samples, _ := cp["samples"].([]any)
		for _, s := range samples {
			write(&out, s.(float64))
		}
		cp["nodes"] = out
	}
	last := profileOf(chunks[len(chunks)-1])
	rest := last["nodes"].([]any)
	var ids []float64
	for id := range nodes {
		if !written[id] {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		write(&rest, id)
	}
	last["nodes"] = rest
	for k, ev := range chunks {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // as Chrome writes "<" and "&"
		if err := enc.Encode(ev); err != nil {
			fail(err)
		}
		b := bytes.TrimSpace(buf.Bytes())
		if bytes.HasSuffix(bytes.TrimSpace(lines[at[k]]), []byte(",")) {
			b = append(b, ',')
		}
		lines[at[k]] = b
	}
	f, err := os.Create(os.Args[2])
	if err != nil {
		fail(err)
	}
	w := bufio.NewWriter(f)
	w.Write(bytes.Join(lines, []byte("\n")))
	if err := w.Flush(); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

// chromeNode returns n as Chrome writes a ProfileChunk's node (encoding/json
// writes a map's keys sorted, as Chrome does these).
func chromeNode(n node) node {
	cf := n["callFrame"].(map[string]any)
	out := map[string]any{}
	name, _ := cf["functionName"].(string)
	out["functionName"] = name
	out["codeType"] = "JS"
	switch name {
	case "(root)", "(program)", "(idle)", "(garbage collector)":
		out["codeType"] = "other"
	}
	if sid, ok := cf["scriptId"].(string); ok {
		if v, err := strconv.Atoi(sid); err == nil {
			out["scriptId"] = v
		} else {
			out["scriptId"] = sid
		}
	} else {
		out["scriptId"] = cf["scriptId"]
	}
	for _, k := range []string{"lineNumber", "columnNumber"} {
		if v, ok := cf[k].(float64); ok && v >= 0 {
			out[k] = v
		}
	}
	if u, _ := cf["url"].(string); u != "" {
		out["url"] = u
	}
	c := node{"callFrame": out, "id": n["id"]}
	if p, ok := n["parent"]; ok {
		c["parent"] = p
	}
	return c
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "rechunk:", err)
	os.Exit(1)
}
