package session_test

import (
	"context"
	"testing"

	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/session"
)

// BenchmarkTreeFromEntries measures the tree of a trace thread built from
// its entries (its calls merged with its trace events) on the largest
// thread of each large DevTools trace of the corpus.
func BenchmarkTreeFromEntries(b *testing.B) {
	ctx := context.Background()
	for _, name := range proftest.LargeTraces {
		b.Run(name, func(b *testing.B) {
			s, err := session.Load(ctx, proftest.Corpus(b, "devtools/"+name+".json.gz"), session.Options{})
			if err != nil {
				b.Fatal(err)
			}
			th := s.Threads()[proftest.LargestThread(s.Profile)]
			es, err := th.TreeEntries(ctx)
			if err != nil {
				b.Fatal(err)
			}
			from, to, err := th.Window(ctx)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				calltree.FromEntries(s.Profile, th.ID, es, from, to)
			}
		})
	}
}
