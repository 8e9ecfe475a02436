package v8

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/fuzzcheck"
	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// plainNode is a node as V8 writes it, for the variants below.
const plainNode = `{"id":2,"callFrame":{"functionName":"f","scriptId":"3","url":"file:///a.js","lineNumber":4,"columnNumber":5},"hitCount":6,"children":[3]}`

// plainDoc is a profile of three nodes, the second given.
func plainDoc(node string) []byte {
	return []byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]},` +
		node + `,{"id":3,"callFrame":{"functionName":"g","scriptId":"3","url":"file:///a.js","lineNumber":9,"columnNumber":1},"hitCount":1}],` +
		`"startTime":0,"endTime":100,"samples":[2,3,3],"timeDeltas":[1,2,3]}`)
}

// savedNode is a node as a trace's ProfileChunk holds it, and DevTools
// saves it.
const savedNode = `{"callFrame":{"codeType":"JS","columnNumber":5,"functionName":"f","lineNumber":4,"scriptId":3,"url":"file:///a.js"},"id":2,"parent":1}`

// savedDoc is a profile of three nodes in that form, the second given.
func savedDoc(node string) []byte {
	return []byte("{\"nodes\": [\n  {\"callFrame\":{\"codeType\":\"other\",\"functionName\":\"(root)\",\"scriptId\":0,\"url\":\"\"},\"id\":1},\n  " +
		node + ",\n  {\"callFrame\":{\"codeType\":\"JS\",\"columnNumber\":1,\"functionName\":\"g\",\"lineNumber\":9,\"scriptId\":3,\"url\":\"file:///a.js\"},\"id\":3,\"parent\":2}\n],\n" +
		"\"startTime\": 0,\n\"endTime\": 100,\n\"samples\": [2,3,3],\n\"timeDeltas\": [1,2,3]}")
}

var savedVariants = map[string]string{
	"as saved":                savedNode,
	"no line and column":      strings.Replace(savedNode, `"columnNumber":5,"functionName":"f","lineNumber":4,`, `"functionName":"f",`, 1),
	"no url":                  strings.Replace(savedNode, `,"url":"file:///a.js"`, ``, 1),
	"string script id":        strings.Replace(savedNode, `"scriptId":3`, `"scriptId":"3"`, 1),
	"no parent":               strings.Replace(savedNode, `,"parent":1`, ``, 1),
	"column without line":     strings.Replace(savedNode, `"lineNumber":4,`, ``, 1),
	"line without column":     strings.Replace(savedNode, `"columnNumber":5,`, ``, 1),
	"script id fraction":      strings.Replace(savedNode, `"scriptId":3`, `"scriptId":3.5`, 1),
	"script id negative":      strings.Replace(savedNode, `"scriptId":3`, `"scriptId":-3`, 1),
	"script id null":          strings.Replace(savedNode, `"scriptId":3`, `"scriptId":null`, 1),
	"script id escaped":       strings.Replace(savedNode, `"scriptId":3`, `"scriptId":"\u0033"`, 1),
	"url escaped":             strings.Replace(savedNode, `"file:///a.js"`, `"file:\/\/\/a.js"`, 1),
	"codeType escaped":        strings.Replace(savedNode, `"JS"`, `"J\u0053"`, 1),
	"codeType null":           strings.Replace(savedNode, `"codeType":"JS"`, `"codeType":null`, 1),
	"name escaped":            strings.Replace(savedNode, `"f"`, `"f\n"`, 1),
	"line beyond int32":       strings.Replace(savedNode, `"lineNumber":4`, `"lineNumber":2147483648`, 1),
	"column below int32":      strings.Replace(savedNode, `"columnNumber":5`, `"columnNumber":-2147483649`, 1),
	"line null":               strings.Replace(savedNode, `"lineNumber":4`, `"lineNumber":null`, 1),
	"string id":               strings.Replace(savedNode, `"id":2`, `"id":"2"`, 1),
	"parent null":             strings.Replace(savedNode, `"parent":1`, `"parent":null`, 1),
	"parent fraction":         strings.Replace(savedNode, `"parent":1`, `"parent":1.5`, 1),
	"parent unknown":          strings.Replace(savedNode, `"parent":1`, `"parent":9`, 1),
	"hitCount after":          strings.Replace(savedNode, `"parent":1}`, `"parent":1,"hitCount":3}`, 1),
	"id twice":                strings.Replace(savedNode, `"parent":1}`, `"parent":1,"id":7}`, 1),
	"extra call frame member": strings.Replace(savedNode, `"file:///a.js"}`, `"file:///a.js","x":1}`, 1),
	"space in the call frame": strings.Replace(savedNode, `"url":`, `"url": `, 1),
	"space after id":          strings.Replace(savedNode, `"id":2`, `"id": 2`, 1),
	"keys reordered":          `{"id":2,"parent":1,"callFrame":{"functionName":"f","codeType":"JS","scriptId":3,"url":"file:///a.js","lineNumber":4,"columnNumber":5}}`,
	"call frame not closed":   strings.Replace(savedNode, `"file:///a.js"},`, `"file:///a.js",`, 1),
}

// TestPlainNodes reads every .cpuprofile of testdata and the corpus, the
// generated shapes, and nodes written in every way that V8's form allows
// a reader to mistake (each member changed in turn: white space, escapes,
// other value forms, keys, order, values out of range, cut short) with
// readPlainMembers and without it: the profiles, string tables included,
// or the errors must be the same. It checks that the variants that are
// V8's form are read by it.
func TestPlainNodes(t *testing.T) {
	type doc struct {
		name string
		data []byte
	}
	var docs []doc
	root := proftest.RepoRoot()
	for _, p := range proftest.Files(t, ".cpuprofile") {
		data, err := input.ReadFile(p, nil, input.Options{})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc{strings.TrimPrefix(p, root), data})
	}
	for _, sh := range proftest.Shapes {
		var buf bytes.Buffer
		if err := proftest.WriteShapedCPUProfile(&buf, sh, 0.01, 5); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc{"shape " + sh.Name, buf.Bytes()})
	}
	variants := map[string]string{
		"as V8 writes it":         plainNode,
		"no children":             strings.Replace(plainNode, `,"children":[3]`, ``, 1),
		"empty children":          strings.Replace(plainNode, `"children":[3]`, `"children":[],"parent":1`, 1),
		"positionTicks after":     strings.Replace(plainNode, `[3]}`, `[3],"positionTicks":[{"line":5,"ticks":6}]}`, 1),
		"deoptReason after":       strings.Replace(plainNode, `[3]}`, `[3],"deoptReason":"x"}`, 1),
		"ticks":                   strings.Replace(plainNode, `[3]}`, `[3],"positionTicks":[{"line":5,"ticks":6},{"line":0,"ticks":-1},{"line":2147483647,"ticks":9223372036854775}]}`, 1),
		"ticks reordered":         strings.Replace(plainNode, `[3]}`, `[3],"positionTicks":[{"line":5,"ticks":6},{"ticks":1,"line":7}]}`, 1),
		"tick line negative":      strings.Replace(plainNode, `[3]}`, `[3],"positionTicks":[{"line":-5,"ticks":6}]}`, 1),
		"tick line beyond int32":  strings.Replace(plainNode, `[3]}`, `[3],"positionTicks":[{"line":2147483648,"ticks":6}]}`, 1),
		"tick of a fraction":      strings.Replace(plainNode, `[3]}`, `[3],"positionTicks":[{"line":5,"ticks":6.5}]}`, 1),
		"tick with another key":   strings.Replace(plainNode, `[3]}`, `[3],"positionTicks":[{"line":5,"ticks":6,"x":1}]}`, 1),
		"tick with a space":       strings.Replace(plainNode, `[3]}`, `[3],"positionTicks":[{"line":5, "ticks":6}]}`, 1),
		"tick key twice":          strings.Replace(plainNode, `[3]}`, `[3],"positionTicks":[{"line":5,"line":6,"ticks":6}]}`, 1),
		"tick not an object":      strings.Replace(plainNode, `[3]}`, `[3],"positionTicks":[5]}`, 1),
		"ticks cut":               strings.Replace(plainNode, `[3]}`, `[3],"positionTicks":[{"line":5,"ticks":6`, 1),
		"codeType":                strings.Replace(plainNode, `"columnNumber":5}`, `"columnNumber":5,"codeType":"JS"}`, 1),
		"escape in the name":      strings.Replace(plainNode, `"f"`, `"f\"\u00e9"`, 1),
		"escape in the url":       strings.Replace(plainNode, `"file:///a.js"`, `"file:\/\/\/a.js"`, 1),
		"control byte in a name":  strings.Replace(plainNode, `"f"`, "\"f\x01\"", 1),
		"invalid UTF-8 name":      strings.Replace(plainNode, `"f"`, "\"f\xff\"", 1),
		"numeric script id":       strings.Replace(plainNode, `"scriptId":"3"`, `"scriptId":3`, 1),
		"string id":               strings.Replace(plainNode, `"id":2`, `"id":"2"`, 1),
		"id with a fraction":      strings.Replace(plainNode, `"id":2`, `"id":2.5`, 1),
		"id with an exponent":     strings.Replace(plainNode, `"id":2`, `"id":2e0`, 1),
		"id with a leading zero":  strings.Replace(plainNode, `"id":2`, `"id":02`, 1),
		"id of 19 digits":         strings.Replace(plainNode, `"id":2`, `"id":2000000000000000000`, 1),
		"id -0":                   strings.Replace(plainNode, `"id":2`, `"id":-0`, 1),
		"id -":                    strings.Replace(plainNode, `"id":2`, `"id":-`, 1),
		"null hitCount":           strings.Replace(plainNode, `"hitCount":6`, `"hitCount":null`, 1),
		"negative hitCount":       strings.Replace(plainNode, `"hitCount":6`, `"hitCount":-6`, 1),
		"null line":               strings.Replace(plainNode, `"lineNumber":4`, `"lineNumber":null`, 1),
		"line beyond int32":       strings.Replace(plainNode, `"lineNumber":4`, `"lineNumber":2147483648`, 1),
		"line at int32's end":     strings.Replace(plainNode, `"lineNumber":4`, `"lineNumber":2147483647`, 1),
		"column below int32":      strings.Replace(plainNode, `"columnNumber":5`, `"columnNumber":-2147483649`, 1),
		"column at int32's start": strings.Replace(plainNode, `"columnNumber":5`, `"columnNumber":-2147483648`, 1),
		"null children":           strings.Replace(plainNode, `"children":[3]`, `"children":null,"parent":1`, 1),
		"child with a fraction":   strings.Replace(plainNode, `"children":[3]`, `"children":[3.0]`, 1),
		"child as a string":       strings.Replace(plainNode, `"children":[3]`, `"children":["3"]`, 1),
		"children twice":          strings.Replace(plainNode, `"children":[3]`, `"children":[1],"children":[3]`, 1),
		"id twice":                strings.Replace(plainNode, `[3]}`, `[3],"id":7}`, 1),
		"callFrame twice":         strings.Replace(plainNode, `[3]}`, `[3],"callFrame":{"functionName":"h"}}`, 1),
		"children not closed":     strings.Replace(plainNode, `"children":[3]}`, `"children":[3}`, 1),
		"children cut":            strings.Replace(plainNode, `"children":[3]}`, `"children":[3,`, 1),
		"space after id":          strings.Replace(plainNode, `"id":2`, `"id": 2`, 1),
		"space in the call frame": strings.Replace(plainNode, `"url":`, `"url" :`, 1),
		"space in children":       strings.Replace(plainNode, `[3]`, `[ 3 ]`, 1),
		"keys reordered":          `{"callFrame":{"url":"file:///a.js","functionName":"f","scriptId":"3","lineNumber":4,"columnNumber":5},"id":2,"children":[3],"hitCount":6}`,
		"url before scriptId":     strings.Replace(plainNode, `"scriptId":"3","url":"file:///a.js"`, `"url":"file:///a.js","scriptId":"3"`, 1),
		"call frame not an object": strings.Replace(plainNode, `"callFrame":{"functionName":"f","scriptId":"3","url":"file:///a.js","lineNumber":4,"columnNumber":5}`,
			`"callFrame":[]`, 1),
	}
	for name, node := range variants {
		docs = append(docs, doc{name, plainDoc(node)})
	}
	for name, node := range savedVariants {
		docs = append(docs, doc{"saved: " + name, savedDoc(node)})
	}
	// The input cut after every byte of the node.
	for _, node := range []string{plainNode, savedNode} {
		whole := plainDoc(node)
		at := bytes.Index(whole, []byte(node))
		for i := at; i <= at+len(node); i++ {
			docs = append(docs, doc{"cut", whole[:i]})
		}
	}
	defer func(on bool, n int) { plainNodes, splitNodesBytes = on, n }(plainNodes, splitNodesBytes)
	splitNodesBytes = 1 << 62 // one parser, whose counts tell
	for _, d := range docs {
		plainNodes = false
		want, werr := ParseBytes(d.data, Limits{})
		plainNodes = true
		got, gerr := ParseBytes(d.data, Limits{})
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Errorf("%s: error %v read plainly, %v member by member", d.name, gerr, werr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the profile read plainly differs from the one read member by member", d.name)
		}
	}
	// The variants in V8's form (and DevTools' saved form) are read by
	// readPlainMembers.
	for _, name := range []string{"as saved", "no line and column", "no url", "string script id", "no parent"} {
		checkReadPlainly(t, "saved: "+name, savedDoc(savedVariants[name]))
	}
	for _, name := range []string{"as V8 writes it", "no children", "positionTicks after", "deoptReason after", "ticks", "line at int32's end", "column at int32's start"} {
		checkReadPlainly(t, name, plainDoc(variants[name]))
	}
}

// checkReadPlainly checks that the three call frames of data are read
// plainly.
func checkReadPlainly(t *testing.T, name string, data []byte) {
	t.Helper()
	var hits, misses int
	plainCounts = func(h, m int) { hits, misses = h, m }
	defer func() { plainCounts = nil }()
	if _, err := ParseBytes(data, Limits{}); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if hits != 3 || misses != 0 {
		t.Errorf("%s: %d call frames read plainly, %d not; want 3 and 0", name, hits, misses)
	}
}

// addSmallProfiles adds testdata's .cpuprofiles of less than 64 KB to the
// seed corpus of f.
func addSmallProfiles(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(proftest.RepoRoot(), "testdata", "node", "*.cpuprofile"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
}

// FuzzPlainNodes checks that readPlainMembers reads any input as the
// member-by-member loop does.
func FuzzPlainNodes(f *testing.F) {
	addSmallProfiles(f)
	f.Add(plainDoc(plainNode))
	f.Add(savedDoc(savedNode))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer func(on bool) { plainNodes = on }(plainNodes)
		plainNodes = false
		want, werr := ParseBytes(data, Limits{})
		plainNodes = true
		got, gerr := fuzzcheck.Parse(t, data, func(data []byte) (*profile.Profile, error) { return ParseBytes(data, Limits{}) })
		if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
			t.Fatalf("error %v read plainly, %v member by member", gerr, werr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatal("the profile read plainly differs from the one read member by member")
		}
	})
}
