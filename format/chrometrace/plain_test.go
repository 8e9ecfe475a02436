package chrometrace

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// samePlain reads data streamed and whole with parseEvent's values read in
// place and without, and reports how the profiles or errors differ ("" if
// they do not).
func samePlain(data []byte) string {
	defer func(on bool) { plainValues = on }(plainValues)
	for _, whole := range []bool{false, true} {
		read := func() (*profile.Profile, error) {
			if whole {
				return ParseBytes(data, Options{KeepArgs: true})
			}
			return Parse(bytes.NewReader(data), Options{MaxEventBytes: 1 << 20})
		}
		plainValues = false
		want, werr := read()
		plainValues = true
		got, gerr := read()
		switch {
		case (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error():
			return fmt.Sprintf("whole %v: error %s with values read in place, %s without", whole, errString(gerr), errString(werr))
		case !reflect.DeepEqual(got, want):
			return fmt.Sprintf("whole %v: the profile differs with values read in place", whole)
		}
	}
	return ""
}

// TestPlainValues reads the traces of testdata and the corpus, a generated
// one, and variants of its first and last events whose values take either
// way (white space, a string for a number and a number for a string,
// escapes, null, fractions and exponents, a leading zero, a value cut at
// the end), with the values read in place and without: the profiles and
// errors must be the same.
func TestPlainValues(t *testing.T) {
	type doc struct {
		name string
		data []byte
	}
	var docs []doc
	if !testing.Short() {
		for _, p := range proftest.Files(t, ".json", filepath.Join("format", "chrometrace", "testdata")) {
			data, err := input.ReadFile(p, nil, input.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if trace, _ := Sniff(data[:min(len(data), 256<<10)]); trace {
				docs = append(docs, doc{p, data})
			}
		}
	}
	var gen bytes.Buffer
	if _, _, err := proftest.WriteLargeTrace(&gen, 3, 300_000); err != nil {
		t.Fatal(err)
	}
	base := gen.Bytes()
	docs = append(docs, doc{"generated", base})
	variants := [][2]string{
		{`"ph":"X"`, `"ph": "X"`}, {`"ph":"X"`, `"ph":"XY"`}, {`"ph":"X"`, `"ph":""`}, {`"ph":"X"`, `"ph":"\u0058"`},
		{`"ph":"X"`, `"ph":"\n"`}, {`"ph":"X"`, "\"ph\":\"\x01\""}, {`"ph":"X"`, `"ph":"é"`}, {`"ph":"X"`, `"ph":null`},
		{`"ph":"X"`, `"ph":"\"`}, {`"ph":"X"`, `"ph":"`}, {`"ph":"X"`, `"ph":1`},
		{`"pid":4242`, `"pid":"4242"`}, {`"pid":4242`, `"pid": 4242`}, {`"pid":4242`, `"pid":4242.0`},
		{`"pid":4242`, `"pid":04242`}, {`"pid":4242`, `"pid":-0`}, {`"pid":4242`, `"pid":4242e0`},
		{`"pid":4242`, `"pid":-`}, {`"pid":4242`, `"pid":1234567890123456789012`}, {`"tid":259`, `"tid":null`},
		{`"tid":259`, `"tid":{"a":1}`},
		{`"name":"`, `"name": "`}, {`"name":"`, `"name":"\u0050`}, {`"name":"`, `"name":null,"x":"`},
		{`"name":"`, "\"name\":\"\t"}, {`"cat":"`, `"cat":"\"`}, {`"cat":"`, `"cat":null,"y":"`},
		{`"ts":`, `"ts": `}, {`"ts":`, `"ts":"1`}, {`"ts":`, `"ts":-`}, {`"ts":`, `"ts":0`}, {`"ts":`, `"ts":1e`},
		{`"ts":`, `"ts":null,"z":`}, {`"ts":`, `"ts":99999999999999999999`}, {`"ts":`, `"dur":-0.5e1,"ts":`},
		{`"ts":`, `"dur":1.,"ts":`}, {`"args":{}`, `"args": {}`}, {`"args":{}`, `"args":{ }`}, {`"args":{}`, `"args":{}}`},
		{`"args":{}`, `"args":{`}, {`"args":{}`, `"args":[]`},
		{`"ph":"X"`, `"p\u0068":"X"`}, {`"ph":"X"`, `"ph" :"X"`}, {`,"ph":`, `, "ph":`}, {`,"ph":`, ",\n\t\"ph\":"},
		{`"pid":4242`, `"pid":4242,"pid":7`}, {`"tid":259`, `"tidx":259`}, {`"ts":`, `"t":1,"ts":`},
		{`"name":"`, `"selfTime":1,"scope":"s","id2":{"local":"0x1"},"bp":"e","name":"`}, {`"cat":"`, `"catx":"`}, {`"ts":`, `"dur": 7,"ts":`}, {`"ts":`, `"dur":7,"ts":`},
	}
	cut := func(b []byte) []byte { return b[:len(b)-30] }
	for _, v := range variants {
		if bytes.Contains(base, []byte(v[0])) {
			docs = append(docs,
				doc{fmt.Sprintf("first %s as %q", v[0], v[1]), bytes.Replace(base, []byte(v[0]), []byte(v[1]), 1)},
				doc{fmt.Sprintf("last %s as %q", v[0], v[1]), replaceLast(base, v[0], v[1])},
				doc{fmt.Sprintf("cut, last %s as %q", v[0], v[1]), cut(replaceLast(base, v[0], v[1]))})
		} else {
			t.Errorf("no %q in the generated trace", v[0])
		}
	}
	errs := 0
	for _, d := range docs {
		if diff := samePlain(d.data); diff != "" {
			t.Errorf("%s: %s", d.name, diff)
		}
		if _, err := ParseBytes(d.data, Options{}); err != nil {
			errs++
		}
	}
	t.Logf("%d inputs, %d of them errors", len(docs), errs)
	if errs == 0 || errs == len(docs) {
		t.Errorf("%d errors in %d inputs: the variants do not reach both ways", errs, len(docs))
	}
}

// replaceLast returns b with the last occurrence of old replaced by new.
func replaceLast(b []byte, old, new string) []byte {
	i := bytes.LastIndex(b, []byte(old))
	return append(append(append([]byte{}, b[:i]...), new...), b[i+len(old):]...)
}

// FuzzPlainValues checks parseEvent's values read in place against the
// general reading, on any input.
func FuzzPlainValues(f *testing.F) {
	f.Add([]byte(`{"traceEvents":[{"args":{},"cat":"c","dur":5,"name":"RunTask","ph":"X","pid":1,"tid":2,"ts":10}]}`))
	f.Add([]byte(`[{"ph": "B","pid":"1","tid":-0,"ts":1.5,"name":null,"cat":"\u0041"},{"ph":"E","ts":"2"}]`))
	var small bytes.Buffer
	if _, _, err := proftest.WriteLargeTrace(&small, 5, 20_000); err != nil {
		f.Fatal(err)
	}
	f.Add(small.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		if diff := samePlain(data); diff != "" {
			t.Fatal(strings.TrimSpace(diff))
		}
	})
}

// TestArgsRange checks the range of an event's args that the reader
// keeps (KeepArgs) and reads again: from just after the ':', white space
// included, to the end of the value, however the event is written.
func TestArgsRange(t *testing.T) {
	defer func(on bool) { plainValues = on }(plainValues)
	for _, c := range []struct{ event, args string }{
		{`{"args":{},"ph":"X"}`, `{}`},
		{`{"args": {} ,"ph":"X"}`, ` {}`},
		{"{\n  \"args\":\n    { \"data\": {\"a\": 1} },\n  \"ph\": \"X\"\n}", "\n    { \"data\": {\"a\": 1} }"},
		{`{"ph":"X","args":{"sampleTraceId":5}}`, `{"sampleTraceId":5}`},
	} {
		for _, on := range []bool{false, true} {
			plainValues = on
			r := newReader(Options{})
			r.s.Reset([]byte(c.event))
			var e ev
			if err := r.parseEvent(&e); err != nil {
				t.Fatalf("%q: %v", c.event, err)
			}
			if got := c.event[e.args0:e.args1]; got != c.args {
				t.Errorf("%q, values in place %v: args %q, want %q", c.event, on, got, c.args)
			}
		}
	}
}
