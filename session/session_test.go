package session_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/totals"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/profile"
	"github.com/jsprof/jsprof/session"
)

// A library user loads a profile and prints its hottest functions.
func Example() {
	s, err := session.Load(context.Background(), "../testdata/node/mix.cpuprofile", session.Options{})
	if err != nil {
		panic(err)
	}
	p := s.Profile
	for _, th := range s.Threads() {
		tree, err := th.Tree(context.Background(), view.Options{})
		if err != nil {
			panic(err)
		}
		for _, id := range tree.Top(calltree.BySelf, 3) {
			f := &tree.Funcs[id]
			fmt.Printf("%-22s self %8.3f ms  total %8.3f ms\n", p.Str(f.Key.Name), f.Self.Millis(), f.Total.Millis())
		}
	}
	// Output:
	// (garbage collector)    self  316.846 ms  total  316.846 ms
	// allocate               self  267.534 ms  total  480.850 ms
	// jsonRoundTrip          self   95.494 ms  total  127.327 ms
}

// TestConcurrent asks one session for the same and different results from
// many goroutines at once (go test -race checks the sharing) and requires
// every answer to equal the one computed alone.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	load := func() *session.Session {
		s, err := session.Load(ctx, "../testdata/node/mix.cpuprofile", session.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	opts := []view.Options{{}, {View: view.JS}, {CollapseRecursion: true}, {Focus: []view.Matcher{{Name: "allocate"}}}, {From: 100e6, To: 300e6}}
	type answer struct {
		total   int64
		funcs   int
		stacks  int64
		catIdle int64
	}
	compute := func(s *session.Session, o view.Options) answer {
		th := s.Threads()[0]
		tree, err := th.Tree(ctx, o)
		if err != nil {
			t.Error(err)
			return answer{}
		}
		ts, err := th.Stacks(ctx, o)
		if err != nil {
			t.Error(err)
			return answer{}
		}
		var w int64
		for st := range ts.Stacks {
			w += int64(st.Weight)
		}
		cats, err := th.CategoryTimes(ctx)
		if err != nil {
			t.Error(err)
			return answer{}
		}
		return answer{int64(tree.TopDown[0].Total), len(tree.Funcs), w, int64(cats[0])}
	}
	want := make([]answer, len(opts))
	for i, o := range opts {
		want[i] = compute(load(), o)
	}
	s := load()
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := g % len(opts)
			if got := compute(s, opts[i]); got != want[i] {
				t.Errorf("options %d: got %+v concurrently, want %+v", i, got, want[i])
			}
		}()
	}
	wg.Wait()
}

// TestCancel requires a cancelled context to stop a load and an analysis,
// and a later call with a live context to compute the result.
func TestCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := session.Load(ctx, "../testdata/node/mix.cpuprofile", session.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Load with a cancelled context: got %v, want context.Canceled", err)
	}
	s, err := session.Load(context.Background(), "../testdata/node/mix.cpuprofile", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	th := s.Threads()[0]
	if _, err := th.Tree(ctx, view.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Tree with a cancelled context: got %v, want context.Canceled", err)
	}
	tree, err := th.Tree(context.Background(), view.Options{})
	if err != nil || tree.TopDown[0].Total <= 0 {
		t.Fatalf("Tree after a cancelled call: got %v, %v; want the tree", tree, err)
	}
}

// TestReadOnly requires the reader's profile to stay as it was: the
// session adds event frames and categories to its own copy.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	s, err := session.Load(context.Background(), "../testdata/node/mix.cpuprofile", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := s.Profile.String()
	q := session.New("again", s.Profile, session.Options{})
	if err := q.Categories(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Threads()[0].Tree(context.Background(), view.Options{View: view.JS}); err != nil {
		t.Fatal(err)
	}
	if s.Profile.Samples.Category != nil {
		t.Errorf("the first session's categories were set by the second")
	}
	if after := s.Profile.String(); after != before {
		t.Errorf("the profile changed under a session")
	}
}

// TestXSBugListsEveryFunction requires the xsbug table of the corpus XS
// profile to list callerB, which is on no sample's stack but receives half
// of helper's time (258.189 ms in xsbug).
func TestXSBugListsEveryFunction(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "..", "shared", "corpus", "xs", "xs_workload.cpuprofile")
	if _, err := os.Stat(path); err != nil {
		t.Skip("../shared/corpus is absent: no XS profile")
	}
	s, err := session.Load(context.Background(), path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	xs := totals.XSBug
	fs, err := s.Threads()[0].Functions(context.Background(), view.Options{}, &xs)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs.Funcs {
		if s.Profile.Str(f.Key.Name) == "callerB" {
			if got := f.Total.Millis(); got < 258.188 || got > 258.190 {
				t.Errorf("callerB: xsbug total %.3f ms, want 258.189", got)
			}
			return
		}
	}
	t.Errorf("callerB is missing from the xsbug table")
}

// TestTreeCacheBounded requires a thread to keep a bounded number of trees
// (a viewer asks for a new range at every drag) and to give the same
// answer for an evicted one.
func TestTreeCacheBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := session.Load(ctx, "../testdata/node/mix.cpuprofile", session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	th := s.Threads()[0]
	first, err := th.Tree(ctx, view.Options{From: 1e6, To: 2e6})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, err := th.Tree(ctx, view.Options{From: profile.Time(i+2) * 1e6, To: profile.Time(i+3) * 1e6}); err != nil {
			t.Fatal(err)
		}
	}
	if n := th.CachedTrees(); n > 32 {
		t.Errorf("%d trees cached, want at most 32", n)
	}
	again, err := th.Tree(ctx, view.Options{From: 1e6, To: 2e6})
	if err != nil {
		t.Fatal(err)
	}
	if again == first || again.TopDown[0].Total != first.TopDown[0].Total || len(again.Funcs) != len(first.Funcs) {
		t.Errorf("the evicted tree, computed again: %d ns, %d functions (same object %v); want %d, %d",
			again.TopDown[0].Total, len(again.Funcs), again == first, first.TopDown[0].Total, len(first.Funcs))
	}
}

// TestTreesParallel checks that the trees Trees builds in parallel for a
// multi-thread trace equal those built one thread at a time (and go test
// -race checks the sharing).
func TestTreesParallel(t *testing.T) {
	ctx := context.Background()
	path := proftest.Corpus(t, "devtools/two-workers.json.gz")
	load := func() *session.Session {
		s, err := session.Load(ctx, path, session.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, o := range []view.Options{{}, {View: view.JS}} {
		seq := load()
		par := load()
		// then runs beside the trees and asks for what they compute.
		calls := make([]int, len(par.Threads()))
		trees, err := par.TreesThen(ctx, par.Threads(), o, func(th *session.Thread) error {
			cs, err := th.Calls(ctx)
			calls[th.ID] = len(cs)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(trees) < 2 {
			t.Fatalf("%d threads, want a multi-thread trace", len(trees))
		}
		for i, th := range seq.Threads() {
			want, err := th.Tree(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if cs, err := th.Calls(ctx); err != nil || len(cs) != calls[i] {
				t.Errorf("thread %d: then saw %d calls, want %d (%v)", i, calls[i], len(cs), err)
			}
			got := trees[i]
			if got.TopDown[0].Total != want.TopDown[0].Total || len(got.TopDown) != len(want.TopDown) || len(got.Funcs) != len(want.Funcs) || got.Calls != want.Calls {
				t.Errorf("view %v thread %d: parallel total %d, %d nodes, %d functions, %d calls; alone %d, %d, %d, %d", o.View, i,
					got.TopDown[0].Total, len(got.TopDown), len(got.Funcs), got.Calls, want.TopDown[0].Total, len(want.TopDown), len(want.Funcs), want.Calls)
			}
		}
	}
}

// TestTreeStreamed checks that a trace thread's tree built from its entries
// as they are merged (nothing held yet) is the one built from the entries
// held (TreeEntries asked first).
func TestTreeStreamed(t *testing.T) {
	path := generatedTrace(t)
	ctx := context.Background()
	streamed, held := loadTrace(t, path, session.Options{}), loadTrace(t, path, session.Options{})
	for i, th := range held.Threads() {
		if _, err := th.TreeEntries(ctx); err != nil {
			t.Fatal(err)
		}
		want, err := th.Tree(ctx, view.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := streamed.Threads()[i].Tree(ctx, view.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(want.TopDown) < 2 {
			t.Errorf("thread %d: an empty tree", i)
		}
		if !reflect.DeepEqual(got.TopDown, want.TopDown) || !reflect.DeepEqual(got.Funcs, want.Funcs) || !reflect.DeepEqual(got.NodeSelf, want.NodeSelf) || got.Calls != want.Calls {
			t.Errorf("thread %d: the tree built as the entries are merged differs from the one built from them held", i)
		}
	}
}

// generatedTrace writes a small generated trace and returns its path.
func generatedTrace(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := proftest.WriteLargeTrace(f, 7, 2<<20); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func loadTrace(t *testing.T, path string, opts session.Options) *session.Session {
	t.Helper()
	s, err := session.Load(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Threads()) == 0 {
		t.Fatal("the generated trace has no sampled thread")
	}
	return s
}

// TestFlameEntriesLater checks that a trace's flame-chart entries asked for
// after its calls were integrated without them (Options.FlameEntries unset,
// as a summary loads) are the ones the single pass gives, and the calls the
// same either way.
func TestFlameEntriesLater(t *testing.T) {
	path := generatedTrace(t)
	ctx := context.Background()
	one, later := loadTrace(t, path, session.Options{FlameEntries: true}), loadTrace(t, path, session.Options{})
	for i, th := range one.Threads() {
		lt := later.Threads()[i]
		wantCalls, err := th.Calls(ctx)
		if err != nil {
			t.Fatal(err)
		}
		gotCalls, err := lt.Calls(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, err := th.FlameEntries(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := lt.FlameEntries(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			t.Errorf("thread %d: no flame entries in one pass", i)
		}
		if !slices.Equal(gotCalls, wantCalls) || !slices.Equal(got, want) {
			t.Errorf("thread %d: later: %d calls, %d entries; one pass: %d calls, %d entries, or they differ",
				i, len(gotCalls), len(got), len(wantCalls), len(want))
		}
	}
}

// TestLargestFirst checks the order in which threads are analysed on
// several cores: most samples and events first, ties in thread order.
func TestLargestFirst(t *testing.T) {
	p := &profile.Profile{Threads: []profile.Thread{
		{Samples: profile.Range{Start: 0, End: 10}},
		{Samples: profile.Range{Start: 10, End: 15}, Events: profile.Range{Start: 0, End: 100}},
		{Samples: profile.Range{Start: 15, End: 25}},
		{Events: profile.Range{Start: 100, End: 130}},
	}}
	s := session.New("test", p, session.Options{})
	if got, want := session.LargestFirst(s.Threads()), []int{1, 3, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("LargestFirst = %v, want %v", got, want)
	}
	var mu sync.Mutex
	calls := make([]int, len(p.Threads))
	session.EachLargestFirst(s.Threads(), func(i int) {
		mu.Lock()
		calls[i]++
		mu.Unlock()
	})
	if !slices.Equal(calls, []int{1, 1, 1, 1}) {
		t.Errorf("EachLargestFirst calls per thread = %v, want one each", calls)
	}
	// Then: f and g once per thread.
	var fs, gs []int
	session.EachLargestFirstThen(s.Threads(), func(i int) {
		mu.Lock()
		fs = append(fs, i)
		mu.Unlock()
	}, func(i int) {
		mu.Lock()
		gs = append(gs, i)
		mu.Unlock()
	})
	slices.Sort(fs)
	slices.Sort(gs)
	if !slices.Equal(fs, []int{0, 1, 2, 3}) || !slices.Equal(gs, []int{0, 1, 2, 3}) {
		t.Errorf("EachLargestFirstThen: f of %v, g of %v, want each thread once", fs, gs)
	}
}

// TestSelectErrorLong checks that a selection error names at most 20
// threads: a trace of thousands made an error line of as many.
func TestSelectErrorLong(t *testing.T) {
	var have []string
	for i := range 1000 {
		have = append(have, fmt.Sprintf("1:%d %q", i, "w"))
	}
	msg := (&session.SelectError{Sel: "x", Have: have}).Error()
	want := `no thread matches "x"; the sampled threads are: 1:0 "w", `
	if len(msg) > 400 || !strings.HasPrefix(msg, want) || !strings.Contains(msg, `1:19 "w" and 980 more`) || strings.Contains(msg, `1:20 "w"`) {
		t.Errorf("got %q", msg)
	}
	if msg := (&session.SelectError{Sel: "x", Have: have[:2]}).Error(); msg != `no thread matches "x"; the sampled threads are: 1:0 "w", 1:1 "w"` {
		t.Errorf("two threads: got %q", msg)
	}
}
