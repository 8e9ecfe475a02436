// Package hostile generates broken and hostile inputs for every reader:
// truncations, wrong types, bad numbers and strings, structural attacks
// (deep nesting, deep stacks, huge lists and strings, gzip bombs), and trace
// oddities. Nothing is stored: each case is built in code.
package hostile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"

	"github.com/jsprof/jsprof/internal/proftest"
)

// Case is one hostile input.
type Case struct {
	Name string
	Data []byte // file contents; nil with Dir
	Dir  bool   // the input is a directory
	// Args are extra flags for jsprof (e.g. a lower --max-input).
	Args []string
	// MaxRSSMB bounds the peak memory of jsprof on it.
	MaxRSSMB int
}

func node(id int, name string, children string) string {
	return fmt.Sprintf(`{"id":%d,"callFrame":{"functionName":%q,"scriptId":"1","url":"u.js","lineNumber":0,"columnNumber":0},"hitCount":1%s}`, id, name, children)
}

// small is a valid little .cpuprofile.
var small = `{"nodes":[` + node(1, "(root)", `,"children":[2]`) + "," + node(2, "main", `,"children":[3]`) + "," + node(3, "f", "") +
	`],"startTime":1000,"endTime":2000,"samples":[2,3,3,2],"timeDeltas":[10,10,10,10]}`

func cpuprofile(nodes, rest string) []byte {
	return []byte(`{"nodes":[` + nodes + `],"startTime":0,"endTime":100` + rest + "}")
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// bomb is gzip of n zero bytes, written in blocks so that it is cheap.
func bomb(n int) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	block := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, len(block))
		w.Write(block[:k])
		n -= k
	}
	w.Close()
	return buf.Bytes()
}

const profileEv = `{"name":"Profile","ph":"P","id":"0x1","pid":1,"tid":1,"ts":0,"args":{"data":{}}}`

func chunk(id string) string {
	return `{"name":"ProfileChunk","ph":"P","id":"` + id + `","pid":1,"tid":2,"ts":0,"args":{"data":{"cpuProfile":{"nodes":[` +
		`{"id":1,"callFrame":{"functionName":"(root)","scriptId":0}},{"id":2,"parent":1,"callFrame":{"functionName":"f","scriptId":1,"url":"a.js"}}],` +
		`"samples":[2,2]},"timeDeltas":[5,5]}}}`
}

// Cases returns every hostile case. The big ones are tens of MB.
func Cases() []Case { return append(SmallCases(), bigCases()...) }

// SmallCases returns the cases that are cheap to build (fuzz seeds).
func SmallCases() []Case {
	var cs []Case
	add := func(name string, data []byte) { cs = append(cs, Case{Name: name, Data: data, MaxRSSMB: 256}) }
	// Not a profile at all.
	add("empty", nil)
	add("white-space", []byte(" \n\t "))
	add("not-json", []byte("hello, profile"))
	add("json-number", []byte("42"))
	add("json-null", []byte("null"))
	add("json-object-empty", []byte("{}"))
	add("binary", []byte{0, 1, 2, 0xff, 0xfe})
	cs = append(cs, Case{Name: "directory", Dir: true, MaxRSSMB: 64})
	// Truncated at many places: inside strings, numbers, arrays, gzip.
	for _, cut := range []int{1, 12, 40, 77, 150, 230, len(small) - 30, len(small) - 2} {
		add(fmt.Sprintf("truncated-at-%d", cut), []byte(small[:cut]))
	}
	full := gz([]byte(small))
	add("gzip-truncated", full[:len(full)/2])
	add("gzip-corrupt", append(append([]byte{}, full[:12]...), bytes.Repeat([]byte{0x55}, 40)...))
	// Bad strings and numbers.
	add("invalid-utf8-name", []byte(strings.Replace(small, `"main"`, "\"ma\xff\xfein\"", 1)))
	add("nan-spelled-out", []byte(strings.Replace(small, `"startTime":1000`, `"startTime":NaN`, 1)))
	add("huge-number", []byte(strings.Replace(small, `"startTime":1000`, `"startTime":1e308`, 1)))
	add("negative-zero", []byte(strings.Replace(small, `"startTime":1000`, `"startTime":-0`, 1)))
	add("id-beyond-int32", []byte(strings.ReplaceAll(small, `"id":3`, `"id":4294967299`)))
	add("id-beyond-int64", []byte(strings.ReplaceAll(small, `"id":3`, `"id":92233720368547758070`)))
	// Wrong types and nulls in every field of the small profile.
	for _, f := range []struct{ from, to string }{
		{`"nodes":[`, `"nodes":"x","y":[`}, {`"samples":[2,3,3,2]`, `"samples":null`}, {`"timeDeltas":[10,10,10,10]`, `"timeDeltas":"10"`},
		{`"functionName":"main"`, `"functionName":7`}, {`"lineNumber":0`, `"lineNumber":"0"`}, {`"hitCount":1`, `"hitCount":true`},
		{`"children":[2]`, `"children":[null]`}, {`"callFrame":{`, `"callFrame":null,"x":{`},
	} {
		add("wrong-type "+f.to, []byte(strings.Replace(small, f.from, f.to, 1)))
	}
	// Structure.
	add("duplicate-ids", cpuprofile(node(1, "(root)", `,"children":[2]`)+","+node(2, "a", "")+","+node(2, "b", ""), `,"samples":[2],"timeDeltas":[1]`))
	add("self-child", cpuprofile(node(1, "(root)", `,"children":[2]`)+","+node(2, "a", `,"children":[2]`), `,"samples":[2],"timeDeltas":[1]`))
	add("parent-cycle", []byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":0}},{"id":2,"parent":3,"callFrame":{"functionName":"a","scriptId":0}},{"id":3,"parent":2,"callFrame":{"functionName":"b","scriptId":0}}],"startTime":0,"endTime":9,"samples":[1],"timeDeltas":[1]}`))
	add("unknown-sample-node", cpuprofile(node(1, "(root)", `,"children":[2]`)+","+node(2, "a", ""), `,"samples":[2,9],"timeDeltas":[1,1]`))
	add("length-mismatch", cpuprofile(node(1, "(root)", `,"children":[2]`)+","+node(2, "a", ""), `,"samples":[2,2],"timeDeltas":[1]`))
	add("negative-deltas", cpuprofile(node(1, "(root)", `,"children":[2]`)+","+node(2, "a", ""), `,"samples":[2,2,2],"timeDeltas":[5,-3,-1]`))
	add("enormous-delta", cpuprofile(node(1, "(root)", `,"children":[2]`)+","+node(2, "a", ""), `,"samples":[2,2],"timeDeltas":[1,9007199254740991]`))
	// Traces.
	add("trace-unbalanced", []byte(`[`+profileEv+`,`+chunk("0x1")+`,{"name":"A","ph":"B","pid":1,"tid":1,"ts":1},{"name":"B","ph":"E","pid":1,"tid":1,"ts":2},{"name":"C","ph":"E","pid":1,"tid":1,"ts":3}]`))
	add("trace-chunk-before-profile", []byte(`[`+chunk("0x1")+`,`+profileEv+`]`))
	add("trace-two-profiles-same-id", []byte(`[`+profileEv+`,`+chunk("0x1")+`,`+profileEv+`,`+chunk("0x1")+`]`))
	add("trace-chunk-unknown-profile", []byte(`[`+profileEv+`,`+chunk("0x1")+`,`+chunk("0x9")+`]`))
	add("trace-no-profile", []byte(`[{"name":"A","ph":"X","pid":1,"tid":1,"ts":1,"dur":2}]`))
	add("trace-truncated", []byte(`[`+profileEv+`,`+chunk("0x1")+`,{"name":"A","ph":"X","pid":1,"ti`))
	add("trace-not-an-event", []byte(`[`+profileEv+`,42]`))
	big := proftest.LargeCPUProfile(3, 2000, 2000)
	add("generated-cut-in-half", big[:len(big)/2])
	return cs
}

// bigCases returns the attacks on size and depth.
func bigCases() []Case {
	var cs []Case
	add := func(name string, data []byte) { cs = append(cs, Case{Name: name, Data: data, MaxRSSMB: 256}) }
	add("nesting-1e6", []byte(`{"nodes":`+strings.Repeat("[", 1_000_000)+strings.Repeat("]", 1_000_000)+"}"))
	var deep strings.Builder
	deep.WriteString(`{"nodes":[`)
	const depth = 1_000_000
	for i := 1; i <= depth; i++ {
		if i > 1 {
			deep.WriteByte(',')
		}
		if i < depth {
			fmt.Fprintf(&deep, `{"id":%d,"callFrame":{"functionName":"f","scriptId":"1","url":"u.js","lineNumber":1,"columnNumber":1},"children":[%d]}`, i, i+1)
		} else {
			fmt.Fprintf(&deep, `{"id":%d,"callFrame":{"functionName":"f","scriptId":"1","url":"u.js","lineNumber":1,"columnNumber":1}}`, i)
		}
	}
	fmt.Fprintf(&deep, `],"startTime":0,"endTime":100,"samples":[%d,%d],"timeDeltas":[1,1]}`, depth, depth/2)
	cs = append(cs, Case{Name: "call-stack-1e6-deep", Data: []byte(deep.String()), MaxRSSMB: 1024})
	var wide strings.Builder
	wide.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0"},"children":[`)
	for i := 0; i < 10_000_000; i++ {
		if i > 0 {
			wide.WriteByte(',')
		}
		fmt.Fprint(&wide, i+2)
	}
	wide.WriteString(`]}],"startTime":0,"endTime":1,"samples":[],"timeDeltas":[]}`)
	cs = append(cs, Case{Name: "children-1e7", Data: []byte(wide.String()), MaxRSSMB: 512})
	cs = append(cs, Case{Name: "string-50MB", Data: []byte(strings.Replace(small, `"main"`, `"`+strings.Repeat("m", 50<<20)+`"`, 1)), MaxRSSMB: 512})
	cs = append(cs, Case{Name: "gzip-bomb", Data: bomb(2 << 30), MaxRSSMB: 1024})
	cs = append(cs, Case{Name: "gzip-bomb-under-limit", Data: bomb(64 << 20), Args: []string{"--max-input", "16M"}, MaxRSSMB: 256})
	return cs
}
