package v8_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format/v8"
)

// TestInternCaches reads call frames whose script ids and URLs take every
// path of internScript and internURL (small numbers as strings and as
// numbers, leading zeros, numbers past the cache, non-numbers; URLs that
// change within a script, before any script id, and in a legacy node's
// any order) and checks each node's frame against what the node says.
func TestInternCaches(t *testing.T) {
	type cf struct {
		Name   string `json:"functionName"`
		Script any    `json:"scriptId,omitempty"`
		URL    string `json:"url"`
	}
	frames := []cf{
		{"(root)", "0", ""},
		{"a", "20", "file:///a.js"}, {"b", 20, "file:///a.js"}, {"c", "020", "file:///a.js"},
		{"d", "20", "file:///b.js"}, {"e", "20", "file:///a.js"}, {"f", "00", "file:///a.js"},
		{"g", "0", "file:///c.js"}, {"h", "65535", "file:///d.js"}, {"i", "65536", "file:///e.js"},
		{"j", "99999999", "file:///d.js"}, {"k", "-1", "file:///d.js"}, {"l", json.Number("1e2"), "file:///f.js"},
		{"m", "x7", "file:///a.js"}, {"n", nil, "file:///g.js"}, {"o", "", "file:///a.js"},
		{"p", "7", ""}, {"q", "7", "file:///h.js"}, {"r", "1", "file:///a.js"}, {"s", "20", "file:///b.js"},
	}
	var nodes []string
	kids := make([]string, 0, len(frames))
	for i := 2; i <= len(frames); i++ {
		kids = append(kids, fmt.Sprint(i))
	}
	for i, f := range frames {
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		ch := ""
		if i == 0 {
			ch = `,"children":[` + strings.Join(kids, ",") + `]`
		}
		nodes = append(nodes, fmt.Sprintf(`{"id":%d,"callFrame":%s%s}`, i+1, b, ch))
	}
	doc := `{"nodes":[` + strings.Join(nodes, ",") + `],"startTime":0,"endTime":10,"samples":[2],"timeDeltas":[1]}`
	p, err := v8.ParseBytes([]byte(doc), v8.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range p.Nodes {
		f := p.Frames[n.Frame]
		w := frames[n.InputID-1]
		script := ""
		switch v := w.Script.(type) {
		case string:
			script = v
		case int:
			script = fmt.Sprint(v)
		case json.Number:
			script = string(v) // as written: a number's bytes are its id
		}
		if got := [3]string{p.Str(f.Name), p.Str(f.ScriptID), p.Str(f.URL)}; got != [3]string{w.Name, script, w.URL} {
			t.Errorf("node %d: frame %q, want %q", i, got, [3]string{w.Name, script, w.URL})
		}
	}
	if len(p.Nodes) != len(frames) {
		t.Fatalf("%d nodes, want %d", len(p.Nodes), len(frames))
	}

	// A legacy node keeps its members in any order: the URL before the
	// script id, which then cannot name it.
	legacy := `{"head":{"functionName":"(root)","url":"","id":1,"scriptId":0,"children":[
		{"url":"file:///x.js","functionName":"u","id":2,"scriptId":3,"children":[]},
		{"functionName":"v","id":3,"scriptId":3,"url":"file:///y.js","children":[]},
		{"url":"file:///z.js","functionName":"w","id":4,"scriptId":3,"children":[]}]},
		"startTime":1,"endTime":2,"samples":[2],"timestamps":[1000000]}`
	p, err = v8.ParseBytes([]byte(legacy), v8.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"u": "file:///x.js", "v": "file:///y.js", "w": "file:///z.js"}
	for _, n := range p.Nodes {
		f := p.Frames[n.Frame]
		if u, ok := want[p.Str(f.Name)]; ok && p.Str(f.URL) != u {
			t.Errorf("%s: url %q, want %q", p.Str(f.Name), p.Str(f.URL), u)
		}
	}
}
