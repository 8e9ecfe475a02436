package proftest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/proftest"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	lines := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i) + "\n")
		}
		return b.String()
	}
	num := func(i int) string { return fmt.Sprint(i + 1) }
	tests := []struct {
		name, want, got, diff string
	}{
		{name: "equal", want: "a\nb\n", got: "a\nb\n", diff: ""},
		{name: "both empty", want: "", got: "", diff: ""},
		{
			name: "one line changed",
			want: "a\nb\nc\n", got: "a\nB\nc\n",
			diff: "--- want\n+++ got\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
		},
		{
			name: "added to empty",
			want: "", got: "x\n",
			diff: "--- want\n+++ got\n@@ -0,0 +1 @@\n+x\n",
		},
		{
			name: "all removed",
			want: "x\ny\n", got: "",
			diff: "--- want\n+++ got\n@@ -1,2 +0,0 @@\n-x\n-y\n",
		},
		{
			name: "missing final newline",
			want: "a\nb\n", got: "a\nb",
			diff: "--- want\n+++ got\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n",
		},
		{
			// Changes at lines 2 and 19 of 20 are two hunks with three
			// lines of context each.
			name: "two hunks",
			want: lines(20, num),
			got: lines(20, func(i int) string {
				if i == 1 || i == 18 {
					return "x"
				}
				return num(i)
			}),
			diff: "--- want\n+++ got\n@@ -1,5 +1,5 @@\n 1\n-2\n+x\n 3\n 4\n 5\n@@ -16,5 +16,5 @@\n 16\n 17\n 18\n-19\n+x\n 20\n",
		},
		{
			// Changes six lines apart share a hunk.
			name: "one hunk",
			want: lines(12, num),
			got: lines(12, func(i int) string {
				if i == 2 || i == 9 {
					return "x"
				}
				return num(i)
			}),
			diff: "--- want\n+++ got\n@@ -1,12 +1,12 @@\n 1\n 2\n-3\n+x\n 4\n 5\n 6\n 7\n 8\n 9\n-10\n+x\n 11\n 12\n",
		},
		{
			// An inserted line is shown as an insertion, not as the rest
			// of the file changed.
			name: "insertion",
			want: "a\nb\nc\nd\n", got: "a\nb\nnew\nc\nd\n",
			diff: "--- want\n+++ got\n@@ -1,4 +1,5 @@\n a\n b\n+new\n c\n d\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := proftest.Diff("want", "got", []byte(tt.want), []byte(tt.got)); got != tt.diff {
				t.Errorf("got diff\n%s\nwant\n%s", got, tt.diff)
			}
		})
	}
}

// A big rewrite still gives a correct diff (the middle as one hunk): every
// line of want appears as removed or context, every line of got as added or
// context.
func TestDiffLarge(t *testing.T) {
	t.Parallel()
	var want, got strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&want, "w%d\n", i)
		fmt.Fprintf(&got, "g%d\n", i)
	}
	d := proftest.Diff("want", "got", []byte(want.String()), []byte(got.String()))
	var minus, plus int
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "---"), strings.HasPrefix(l, "+++"):
		case strings.HasPrefix(l, "-"):
			minus++
		case strings.HasPrefix(l, "+"):
			plus++
		}
	}
	if minus != 3000 || plus != 3000 || !strings.Contains(d, "@@ -1,3000 +1,3000 @@\n") {
		t.Errorf("got %d removed and %d added lines, want 3000 each; header %.60q", minus, plus, d)
	}
}
