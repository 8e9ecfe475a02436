package proftest

import (
	"fmt"
	"strings"
)

// maxDiffCells bounds the line-matching table of Diff (lines of want × lines
// of got, after the common head and tail are taken off). Beyond it, the
// differing middle is shown as one hunk, all removed then all added.
const maxDiffCells = 4 << 20

// Diff returns a unified diff (3 lines of context) that turns want into got,
// with the given names in its header, or "" when they are equal. A final
// line without a newline is marked as diff marks it.
func Diff(wantName, gotName string, want, got []byte) string {
	if string(want) == string(got) {
		return ""
	}
	a, b := splitLines(string(want)), splitLines(string(got))
	ops := diffLines(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", wantName, gotName)
	const context = 3
	// Walk the edit script, collecting hunks: runs of changes with up to
	// 2×context equal lines between them.
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(0, i-context) // after the previous hunk: hunks are more than 2×context apart
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(end+context, run)
				break
			}
			end = run
		}
		h := ops[start:end]
		aStart, bStart := h[0].a, h[0].b
		var aLen, bLen int
		for _, op := range h {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, op := range h {
			var line string
			if op.kind == '-' {
				line = a[op.a]
			} else {
				line = b[op.b]
			}
			out.WriteByte(op.kind)
			out.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = end
	}
	return out.String()
}

// hunkRange formats the start (0-based) and length of a hunk side.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines splits s after each newline; the last line may lack one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// diffOp is one line of an edit script: ' ' (in both), '-' (want only) or
// '+' (got only), with the line's indexes in want and got (for '-' and '+',
// the index it would have in the other).
type diffOp struct {
	kind byte
	a, b int
}

// diffLines returns an edit script from a to b: a longest common
// subsequence of lines, computed after the common head and tail are set
// aside.
func diffLines(a, b []string) []diffOp {
	var ops []diffOp
	head := 0
	for head < len(a) && head < len(b) && a[head] == b[head] {
		ops = append(ops, diffOp{' ', head, head})
		head++
	}
	tail := 0
	for tail < len(a)-head && tail < len(b)-head && a[len(a)-1-tail] == b[len(b)-1-tail] {
		tail++
	}
	ma, mb := a[head:len(a)-tail], b[head:len(b)-tail]
	if len(ma)*len(mb) > maxDiffCells {
		for i := range ma {
			ops = append(ops, diffOp{'-', head + i, head})
		}
		for j := range mb {
			ops = append(ops, diffOp{'+', head + len(ma), head + j})
		}
	} else {
		// lcs[i][j] is the LCS length of ma[i:] and mb[j:].
		w := len(mb) + 1
		lcs := make([]int32, (len(ma)+1)*w)
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
				} else {
					lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				ops = append(ops, diffOp{' ', head + i, head + j})
				i++
				j++
			case i < len(ma) && (j == len(mb) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
				ops = append(ops, diffOp{'-', head + i, head + j})
				i++
			default:
				ops = append(ops, diffOp{'+', head + i, head + j})
				j++
			}
		}
	}
	for k := range tail {
		ops = append(ops, diffOp{' ', len(a) - tail + k, len(b) - tail + k})
	}
	return ops
}
