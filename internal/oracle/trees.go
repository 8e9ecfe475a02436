package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// TreesDump is what dump-trees.mjs computes for one file: the trace bounds
// and, per thread, the top Bottom-up and Call tree rows and the Summary
// category breakdown. Times are milliseconds, rounded to 0.001 by the script
// except the bounds.
type TreesDump struct {
	File     string `json:"file"`
	BoundsMs struct {
		Min   Number `json:"min"`
		Max   Number `json:"max"`
		Range Number `json:"range"`
	} `json:"boundsMs"`
	Threads []TreesThread `json:"threads"`
}

// TreesThread is one thread of a TreesDump.
type TreesThread struct {
	PID          ID         `json:"pid"`
	TID          ID         `json:"tid"`
	Name         string     `json:"name"`
	BottomUpTop  []TreeNode `json:"bottomUpTop"`  // top N bottom-up nodes by self time
	TopDownRoots []TreeNode `json:"topDownRoots"` // top N top-down roots by total time
	// CategoryMs is the time per DevTools category id over the full
	// window, idle included.
	CategoryMs map[string]Number `json:"categoryMs"`
}

// TreeNode is one aggregated node of a tree.
type TreeNode struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	SelfMs  Number `json:"selfMs"`
	TotalMs Number `json:"totalMs"`
	Events  int64  `json:"events"` // number of aggregated events
}

// Number is a JSON number that may be null (JSON.stringify writes NaN and
// ±Infinity as null): null reads as NaN.
type Number float64

// UnmarshalJSON implements json.Unmarshaler.
func (n *Number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Number(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*n = Number(f)
	return err
}

// ID is a pid or tid, which traces write as numbers or strings; a string
// that is not a number reads as 0.
type ID int64

// UnmarshalJSON implements json.Unmarshaler.
func (id *ID) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	switch v := v.(type) {
	case float64:
		*id = ID(v)
	case string:
		n, _ := strconv.ParseInt(v, 0, 64)
		*id = ID(n)
	}
	return nil
}

// RunTrees runs dump-trees.mjs on file, with extra arguments (e.g. "--top",
// "5", "--all-threads"), and parses its output. tmpDir receives the dump.
func RunTrees(file, tmpDir string, extra ...string) (*TreesDump, error) {
	if err := Install(); err != nil {
		return nil, err
	}
	out := filepath.Join(tmpDir, filepath.Base(file)+".trees.json")
	// The script wants the file as its first argument.
	args := append([]string{"--max-old-space-size=8192", filepath.Join(Dir(), "dump-trees.mjs"), file, "--out", out}, extra...)
	cmd := exec.Command("node", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("dump-trees on %s: %w\n%s", file, err, stderr.String())
	}
	data, err := os.ReadFile(out)
	os.Remove(out)
	if err != nil {
		return nil, err
	}
	d := &TreesDump{}
	if err := json.Unmarshal(data, d); err != nil {
		return nil, fmt.Errorf("reading the dump-trees output for %s: %w", file, err)
	}
	return d, nil
}
