package cli_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/report"
)

// TestTreeJSONStreamed checks that tree --json, written a node at a time,
// is the encoding of the report it decodes to, top-down and bottom-up, on
// one thread and on two (the threads' separator).
func TestTreeJSONStreamed(t *testing.T) {
	t.Parallel()
	twoThreads := filepath.Join(proftest.RepoRoot(), "format", "chrometrace", "testdata", "inputs", "top-samples.json")
	for _, args := range [][]string{
		{profilePath("mix")},
		{"--bottom-up", profilePath("recursion")},
		{"--bottom-up", "--total", "vscode", "--depth", "3", profilePath("mix")},
		{twoThreads},
		{"--bottom-up", twoThreads},
	} {
		out := mustRun(t, nil, append([]string{"tree", "--json"}, args...)...)
		var tr report.Tree
		if err := json.Unmarshal([]byte(out), &tr); err != nil {
			t.Fatalf("tree --json %s: %v", strings.Join(args, " "), err)
		}
		var want bytes.Buffer
		if err := json.NewEncoder(&want).Encode(tr); err != nil {
			t.Fatal(err)
		}
		if out != want.String() {
			t.Errorf("tree --json %s: %d bytes, not the %d of its report encoded", strings.Join(args, " "), len(out), want.Len())
		}
		if args[len(args)-1] == twoThreads && len(tr.Threads) != 2 {
			t.Errorf("tree --json %s: %d threads, want 2", strings.Join(args, " "), len(tr.Threads))
		}
		for _, th := range tr.Threads {
			if len(th.Nodes) < 2 {
				t.Errorf("tree --json %s: thread %d has %d nodes", strings.Join(args, " "), th.TID, len(th.Nodes))
			}
		}
	}
}
