package jsonscan

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// skipCases are values for the two skips: valid ones of every kind, white
// space, deep nesting, and what skipChecked rejects.
var skipCases = []string{
	``, ` `, `null`, ` true `, `false`, `0`, `-0`, `-1.5e+3`, `1e400`, `01`, `1.`, `-`, `+1`, `.5`,
	`""`, `"a\"b\\c\/\b\f\n\r\t"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, "\"\xff\"", `"\q"`, `"\u12"`, `"\u12zz"`,
	"\"a\x01\"", `"abc`, `"abcdefghijklmnop\"`,
	`[]`, `[ ]`, `[1,2,3]`, `[1,]`, `[1 2]`, `{}`, `{ }`, `{"a":1}`, `{"a" : 1 , "b":[ ]}`,
	`{"a":[1,{"b":null}],"c":"d"}`, `{"a" 1}`, `{"a":1,}`, `{,}`, `{"a":1 "b":2}`, `{1:2}`,
	`[[[[[[[[[[]]]]]]]]]]`, `{"a":{"b":{"c":{}}}}`, "[1\x00]", `nul`, `tru`, `fals`, `nullx`, `[1]x`, `[1}`, `{"a":1]`,
	`[tru]`, `[nul]`, `{"a":"\u0041\/"}`, "[\n\t\r 1 \n]",
	strings.Repeat("[", 63) + strings.Repeat("]", 63), strings.Repeat("[", 64) + strings.Repeat("]", 64),
	strings.Repeat("[", 65) + strings.Repeat("]", 65), strings.Repeat(`{"a":`, 70) + "1" + strings.Repeat("}", 70),
	`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2]}],"samples":[1],"timeDeltas":[12.5]}`,
}

// checkSkips requires skipValid to accept only what skipChecked accepts,
// ending where it ends, at each depth limit given.
func checkSkips(t *testing.T, data []byte, depths ...int) {
	t.Helper()
	for _, depth := range depths {
		end, ok := skipValid(data, 0, depth)
		s := New(data)
		s.MaxDepth = depth
		err := s.skipChecked()
		if ok && err != nil {
			t.Fatalf("%q (MaxDepth %d): skipValid ends at %d, skipChecked fails: %v", data, depth, end, err)
		}
		if ok && end != int(s.Offset()) {
			t.Fatalf("%q (MaxDepth %d): skipValid ends at %d, skipChecked at %d", data, depth, end, s.Offset())
		}
	}
}

// TestSkipValid checks skipValid against skipChecked on skipCases, and that
// it takes the valid values of at most 64 levels itself.
func TestSkipValid(t *testing.T) {
	for _, c := range skipCases {
		checkSkips(t, []byte(c), 1, 2, 3, 10, 64, 65, DefaultMaxDepth)
	}
	for _, c := range []string{`null`, `{"a":[1,{"b":null}],"c":"d"}`, `"\u00e9\ud83d\ude00"`, strings.Repeat("[", 64) + strings.Repeat("]", 64), "[\n\t\r 1 \n]"} {
		if _, ok := skipValid([]byte(c), 0, DefaultMaxDepth); !ok {
			t.Errorf("skipValid does not take %q", c)
		}
	}
	if _, ok := skipValid([]byte(strings.Repeat("[", 65)+strings.Repeat("]", 65)), 0, DefaultMaxDepth); ok {
		t.Error("skipValid takes 65 levels, which its bits do not hold")
	}
}

// FuzzSkipValid checks skipValid against skipChecked on any input and depth
// limit.
func FuzzSkipValid(f *testing.F) {
	for _, c := range skipCases {
		f.Add([]byte(c), uint8(10))
	}
	f.Fuzz(func(t *testing.T, data []byte, depth uint8) {
		checkSkips(t, data, int(depth%70)+1, DefaultMaxDepth)
	})
}

// BenchmarkSkip skips a whole trace of the corpus (web-dev-screenshot-source-ids,
// 33 MB, whose
// events' arguments are mostly skipped when read): the checked skip and
// the one-loop one.
func BenchmarkSkip(b *testing.B) {
	data := benchTrace(b)
	b.Run("checked", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if err := New(data).skipChecked(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("valid", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, ok := skipValid(data, 0, DefaultMaxDepth); !ok {
				b.Fatal("not taken")
			}
		}
	})
}

// benchTrace returns the corpus trace web-dev-screenshot-source-ids, decompressed, or skips.
func benchTrace(b *testing.B) []byte {
	f, err := os.Open(filepath.Join("..", "..", "..", "shared", "corpus", "devtools", "web-dev-screenshot-source-ids.json.gz"))
	if err != nil {
		b.Skip("../shared/corpus is absent: no trace to skip")
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(z)
	if err != nil {
		b.Fatal(err)
	}
	return data
}
