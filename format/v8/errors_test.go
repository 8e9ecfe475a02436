package v8_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// TestParseErrors checks the error (or the diagnostics) of each bad input in
// testdata/errors (see proftest.ErrorCase): the message, which must give the
// byte offset and the JSON path of the problem, and the *profile.ParseError
// behind it. format.Parse must give the same answer for an object (other
// top levels may be another format, such as a JSON-array Chrome trace).
func TestParseErrors(t *testing.T) {
	t.Parallel()
	parse := func(data []byte) (*profile.Profile, error) { return v8.ParseBytes(data, v8.Limits{}) }
	proftest.ErrorCases(t, "testdata/errors", parse, proftest.ErrorOptions{JSON: true, Check: checkFormatParse})
}

// checkFormatParse checks that format.Parse accepts what the reader accepts
// and, for an object, rejects what it rejects with the same message.
func checkFormatParse(c proftest.ErrorCase, _ *profile.Profile, err error) []string {
	_, ferr := format.Parse(c.Input, format.Options{})
	if err == nil {
		if ferr != nil {
			return []string{fmt.Sprintf("format.Parse: got error %v, want the input accepted", ferr)}
		}
		return nil
	}
	if trimmed := bytes.TrimSpace(c.Input); len(trimmed) > 0 && trimmed[0] == '{' {
		if ferr == nil || ferr.Error() != err.Error() {
			return []string{fmt.Sprintf("format.Parse: got error %v, want the reader's", ferr)}
		}
	}
	return nil
}

// TestParseErrorsWithFile checks that format.ReadFile puts the file name first.
func TestParseErrorsWithFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.cpuprofile")
	if err := os.WriteFile(path, []byte(`{"nodes":[{"id":1,"hitCount":1.5}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := format.ReadFile(path, nil, format.Options{})
	want := path + ": offset 29: nodes[0].hitCount: want integer, got 1.5"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	var pe *profile.ParseError
	if !errors.As(err, &pe) || pe.File != path || pe.Offset != 29 || pe.Path != "nodes[0].hitCount" {
		t.Errorf("got %#v, want a ParseError for %s at offset 29, nodes[0].hitCount", pe, path)
	}
}

// TestParseLimits checks that Limits turn runaway inputs into errors.
func TestParseLimits(t *testing.T) {
	t.Parallel()
	deepHead := func(depth int) string {
		return `{"head":` + strings.Repeat(`{"children":[`, depth) + `{}` + strings.Repeat(`]}`, depth) + `}`
	}
	tests := []struct {
		name   string
		input  string
		limits v8.Limits
		want   string // the whole message
	}{
		{
			name:   "MaxNodes",
			input:  `{"nodes":[{"id":1,"children":[2,3]},{"id":2},{"id":3}]}`,
			limits: v8.Limits{MaxNodes: 2},
			want:   "offset 45: nodes[2]: more than 2 nodes",
		},
		{
			name:   "MaxNodes legacy",
			input:  `{"head":{"children":[{},{}]}}`,
			limits: v8.Limits{MaxNodes: 2},
			want:   "offset 24: head.children[1]: more than 2 nodes",
		},
		{
			name:   "MaxDepth legacy",
			input:  deepHead(5),
			limits: v8.Limits{MaxDepth: 3},
			want:   "offset 60: head.children[0].children[0].children[0].children[0]: head tree deeper than 3",
		},
		{
			name:   "MaxDepth skipped",
			input:  `{"nodes":[{"id":1}],"x":[[[[1]]]]}`,
			limits: v8.Limits{MaxDepth: 3},
			want:   "offset 27: $.x: nesting deeper than 3",
		},
		{
			name:   "default MaxDepth skipped",
			input:  `{"nodes":[{"id":1}],"x":` + strings.Repeat("[", 200_000) + `}`,
			limits: v8.Limits{},
			want:   "offset 100024: $.x: nesting deeper than 100000",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := v8.ParseBytes([]byte(tt.input), tt.limits)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v, want %s", err, tt.want)
			}
			var pe *profile.ParseError
			if !errors.As(err, &pe) {
				t.Errorf("got %T, want a *profile.ParseError", err)
			}
		})
	}
}

// bugHeadPathQuadratic (fixed): parseHeadNode formatted the JSON path of every legacy
// node eagerly, and a path is as long as the node's depth, so a deep head
// tree cost time and memory quadratic in its depth (a 240 KB input of depth
// 16,000 took seconds; the default MaxDepth of 100,000 allowed minutes).
const bugHeadPathQuadratic = "parseHeadNode formats every node's path eagerly: quadratic in the depth of the head tree"

// TestDeepHeadLinear checks that reading a deep legacy head tree allocates
// memory linear in its size, with or without a selfSize in every node (a
// heap profile, refused once read: the path of the first selfSize names it
// in the error, and formatting every node's path was the same quadratic
// cost). It does not run in parallel, to measure allocations alone.
func TestDeepHeadLinear(t *testing.T) {
	const depth = 3000
	for _, heap := range []bool{false, true} {
		var b bytes.Buffer
		b.WriteString(`{"head":`)
		for range depth {
			b.WriteString(`{"functionName":"f",`)
			if heap {
				b.WriteString(`"selfSize":8,`)
			}
			b.WriteString(`"children":[`)
		}
		b.WriteString(`{}`)
		for range depth {
			b.WriteString(`]}`)
		}
		b.WriteString(`,"samples":[],"startTime":0,"endTime":1}`)
		data := b.Bytes()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p, err := v8.ParseBytes(data, v8.Limits{})
		runtime.ReadMemStats(&after)
		if heap {
			if err == nil || !strings.Contains(err.Error(), "head.selfSize") {
				t.Fatalf("heap profile: got error %v, want one at head.selfSize", err)
			}
		} else if err != nil {
			t.Fatal(err)
		} else if got := len(p.Nodes); got != depth+1 {
			t.Fatalf("got %d nodes, want %d", got, depth+1)
		}
		// Linear: a few hundred bytes per node. Quadratic: ~36 MB here.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
			t.Errorf("a bug fixed before is back: %s (selfSize in every node: %v)\nparsing %d bytes (depth %d) allocated %d bytes", bugHeadPathQuadratic, heap, len(data), depth, alloc)
		}
	}
}
