package jsonscan

import (
	"compress/gzip"
	"io"
	"math/rand/v2"
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

// checkCompactKey checks compactKey at every offset of data, both ways of
// first: where it reads a member, nextKey must read the same key and
// stop at the same offset.
func checkCompactKey(t *testing.T, data []byte) (hits int) {
	t.Helper()
	for off := range len(data) + 1 {
		for _, first := range []bool{true, false} {
			fast := New(data)
			fast.SetOffset(int64(off))
			key, ok := fast.compactKey(first)
			if !ok {
				if fast.Offset() != int64(off) {
					t.Fatalf("%q at %d (first %v): compactKey moved to %d and read nothing", data, off, first, fast.Offset())
				}
				continue
			}
			hits++
			slow := New(data)
			slow.SetOffset(int64(off))
			want, wok, err := slow.nextKey(first)
			if err != nil || !wok || string(key) != string(want) || fast.Offset() != slow.Offset() {
				t.Fatalf("%q at %d (first %v): compactKey read %q to %d; nextKey %q, %v, %v to %d",
					data, off, first, key, fast.Offset(), want, wok, err, slow.Offset())
			}
		}
	}
	return hits
}

// TestCompactKey holds compactKey to nextKey on objects whose members are
// written compactly and otherwise: keys of 0 to 9 bytes, escapes, control
// bytes, white space around each token, cut at the end.
func TestCompactKey(t *testing.T) {
	keys := []string{``, `a`, `ph`, `args`, `tdur`, `1234567`, `12345678`, `123456789`, `a\"b`, `a\\`, `\u0070h`, "a\tb", "a\x01", `é`}
	seps := []string{``, ` `, "\n  "}
	r := rand.New(rand.NewPCG(3, 4))
	hits := 0
	for range 400 {
		var b strings.Builder
		b.WriteString("{")
		for m := range 1 + r.IntN(4) {
			if m > 0 {
				b.WriteString(seps[r.IntN(len(seps))] + ",")
			}
			b.WriteString(seps[r.IntN(len(seps))] + `"` + keys[r.IntN(len(keys))] + `"` + seps[r.IntN(len(seps))] + ":" + seps[r.IntN(len(seps))] + "1")
		}
		b.WriteString("}")
		data := []byte(b.String())
		hits += checkCompactKey(t, data[:len(data)-r.IntN(min(len(data), 12))])
	}
	if hits < 100 {
		t.Errorf("compactKey read %d members of 400 objects, want the compact ones", hits)
	}
	// An event as DevTools saves it: every member compact, the eight-byte
	// key (selfTime) left to nextKey.
	ev := New([]byte(`{"args":{},"cat":"x","dur":1,"name":"n","ph":"X","pid":1,"tdur":0,"tid":2,"ts":5,"tts":4,"selfTime":1}`))
	ev.pos = 1
	var read []string
	for first := true; ; first = false {
		key, ok := ev.compactKey(first)
		if !ok {
			break
		}
		read = append(read, string(key))
		if err := ev.Skip(); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(read, " "); got != "args cat dur name ph pid tdur tid ts tts" {
		t.Errorf("compactKey read %q of a saved event", got)
	}
}

// FuzzCompactKey checks compactKey against nextKey on any input.
func FuzzCompactKey(f *testing.F) {
	f.Add([]byte(`{"args":{},"cat":"x","ph":"X","tdur":1}`))
	f.Add([]byte(`,"12345678":1,"1234567":2,"a\"":3`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256 {
			data = data[:256]
		}
		checkCompactKey(t, data)
	})
}
