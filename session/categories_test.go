package session

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jsprof/jsprof/analysis/category"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
)

// TestCategoryTimesFromTree requires a thread's category times to be the
// same whether they are summed over its samples (category.TimesIn) or
// over the nodes of its tree made from the samples (Tree.SampleTimes):
// on every profile of testdata and the corpus, on the generated shapes,
// and on profiles with samples at the root, GC samples, an end before the
// last sample's extrapolated end (a clipped tree) and a last sample past
// the end. It also requires the nodes' sums to have been used, so that a
// tree that stopped offering them fails.
func TestCategoryTimesFromTree(t *testing.T) {
	ctx := context.Background()
	type input struct {
		name string
		p    *profile.Profile
	}
	var inputs []input
	add := func(name string, data []byte) {
		p, err := v8.Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		inputs = append(inputs, input{name, p})
	}
	for _, file := range oracleFiles(t) {
		s, err := Load(ctx, file, Options{})
		if err != nil {
			continue // TestOracleTrees reports what cannot be read
		}
		inputs = append(inputs, input{filepath.Base(file), s.Profile})
	}
	for _, name := range []string{"typescript", "many-nodes", "samples-heavy"} {
		sh, _ := proftest.ShapeByName(name)
		var buf bytes.Buffer
		if err := proftest.WriteShapedCPUProfile(&buf, sh, 0.02, 3); err != nil {
			t.Fatal(err)
		}
		add(name, buf.Bytes())
	}
	add("large", proftest.LargeCPUProfile(7, 3000, 20000))
	// Node 1 is the root, 2 (program), 3 (garbage collector), 4 and 5 a
	// call; samples at the root, GC samples after different stacks.
	nodes := `{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[2,3,4]},
{"id":2,"callFrame":{"functionName":"(program)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},
{"id":3,"callFrame":{"functionName":"(garbage collector)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}},
{"id":4,"callFrame":{"functionName":"f","scriptId":"1","url":"a.js","lineNumber":1,"columnNumber":2},"children":[5]},
{"id":5,"callFrame":{"functionName":"g","scriptId":"1","url":"a.js","lineNumber":3,"columnNumber":4}}`
	samples := `[1,1,4,3,5,3,3,2,1,5,4,3,1]`
	deltas := `[10,100,250,90,130,70,70,200,55,66,77,88,99]`
	// The sum of the deltas is 1305 µs from startTime 1000.
	for _, end := range []int{2400, 2305, 2200, 2000, 1500} {
		add(fmt.Sprintf("root-and-gc end %d", end), fmt.Appendf(nil,
			`{"nodes":[%s],"startTime":1000,"endTime":%d,"samples":%s,"timeDeltas":%s}`, nodes, end, samples, deltas))
	}

	used := 0
	for _, in := range inputs {
		s := New(in.name, in.p, Options{})
		for _, th := range s.Threads() {
			where := fmt.Sprintf("%s thread %d", in.name, th.ID)
			tl, err := th.Timeline(ctx)
			if err != nil {
				t.Fatal(err)
			}
			from, to, err := th.Window(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Categories(ctx); err != nil {
				t.Fatal(err)
			}
			want := category.TimesIn(s.Profile, tl, from, to)
			tree, err := th.Tree(ctx, view.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if nodes, root, ok := tree.SampleTimes(); ok {
				if _, ok := category.TimesOfNodes(s.Profile, tl, nodes, root); ok {
					used++
				}
			}
			got, err := th.CategoryTimes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: category times from the tree %v, from the samples %v", where, got, want)
			}
		}
	}
	if used < 8 {
		t.Errorf("the category times came from the tree on %d threads, want the generated profiles' at least", used)
	}
}
