package report

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// documented maps the type named after a README example's "json" info
// string to the type it documents.
var documented = map[string]any{
	"report.Summary": Summary{},
	"report.Top":     Top{},
	"report.Lines":   Lines{},
	"report.Tree":    Tree{},
	"report.Call":    Call{},
	"report.Entry":   Entry{},
	"report.Diff":    Diff{},
	// The viewer's API (report/viewer.go).
	"report.ViewerStatus":    ViewerStatus{},
	"report.ViewerInfo":      ViewerInfo{},
	"report.FlameBoxes":      FlameBoxes{},
	"report.FlameEntry":      FlameEntry{},
	"report.Activity":        Activity{},
	"report.ViewerStack":     ViewerStack{},
	"report.ViewerTree":      ViewerTree{},
	"report.ViewerFunctions": ViewerFunctions{},
	"report.ViewerFunction":  ViewerFunction{},
	"report.FlameGraph":      FlameGraph{},
	"report.ViewerSource":    ViewerSource{},
	"report.ViewerSummary":   ViewerSummary{},
}

// TestREADMEContracts checks the README's "JSON contracts" section against
// the types: each type has an example (a fenced block "```json
// report.Name"), and each example decodes into its type with no unknown
// field, shows every field of the type (but flags written only when true)
// and reads the same when the type writes it back.
func TestREADMEContracts(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "\n### JSON contracts\n")
	if !ok {
		t.Fatal(`README.md has no "### JSON contracts" section`)
	}
	if i := strings.Index(sec, "\n## "); i >= 0 {
		sec = sec[:i]
	}
	blocks := regexp.MustCompile("(?s)```json ([A-Za-z.]+)\n(.*?)```").FindAllStringSubmatch(sec, -1)
	seen := map[string]bool{}
	for _, b := range blocks {
		name, body := b[1], b[2]
		proto, ok := documented[name]
		if !ok {
			t.Errorf("README example for %s: no such type", name)
			continue
		}
		seen[name] = true
		v := reflect.New(reflect.TypeOf(proto))
		dec := json.NewDecoder(strings.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v.Interface()); err != nil {
			t.Errorf("README example for %s: %v", name, err)
			continue
		}
		var doc any
		if err := json.Unmarshal([]byte(body), &doc); err != nil {
			t.Fatal(err)
		}
		for _, path := range fieldPaths(reflect.TypeOf(proto), "") {
			if !hasPath(doc, strings.Split(path, ".")) {
				t.Errorf("README example for %s does not show %s", name, path)
			}
		}
		// What the type writes back reads the same.
		out, err := json.Marshal(v.Interface())
		if err != nil {
			t.Fatal(err)
		}
		var back any
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatal(err)
		}
		if a, b := canonical(t, doc), canonical(t, back); !bytes.Equal(a, b) {
			t.Errorf("README example for %s changes when written back:\n%s\n%s", name, a, b)
		}
	}
	for name := range documented {
		if !seen[name] {
			t.Errorf("the README's JSON contracts have no example for %s", name)
		}
	}
}

// fieldPaths lists the JSON member paths of a struct type: "a", "a.b"
// through nested structs, slices and maps (a map's members are not listed).
func fieldPaths(typ reflect.Type, prefix string) []string {
	for typ.Kind() == reflect.Slice || typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Anonymous {
			out = append(out, fieldPaths(f.Type, prefix)...)
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || opts == "omitempty" && f.Type.Kind() == reflect.Bool {
			continue // a false flag is not written
		}
		out = append(out, prefix+name)
		out = append(out, fieldPaths(f.Type, prefix+name+".")...)
	}
	return out
}

// hasPath reports whether some element of doc (descending into arrays) has
// the member path.
func hasPath(doc any, path []string) bool {
	switch v := doc.(type) {
	case []any:
		return slices.ContainsFunc(v, func(e any) bool { return hasPath(e, path) })
	case map[string]any:
		if len(path) == 0 {
			return true
		}
		m, ok := v[path[0]]
		return ok && hasPath(m, path[1:])
	}
	return len(path) == 0
}

func canonical(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
