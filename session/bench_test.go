package session_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/jsprof/jsprof/analysis/calls"
	"github.com/jsprof/jsprof/analysis/calltree"
	"github.com/jsprof/jsprof/analysis/category"
	"github.com/jsprof/jsprof/analysis/devtoolsstats"
	"github.com/jsprof/jsprof/analysis/view"
	"github.com/jsprof/jsprof/format/v8"
	"github.com/jsprof/jsprof/internal/proftest"
	"github.com/jsprof/jsprof/session"
)

// The benchmarks of a trace thread's analyses run on the largest thread of
// each large DevTools trace of the corpus (proftest.LargeTraces).
func eachLargeTrace(b *testing.B, bench func(b *testing.B, s *session.Session, th *session.Thread)) {
	for _, name := range proftest.LargeTraces {
		b.Run(name, func(b *testing.B) {
			s, err := session.Load(context.Background(), proftest.Corpus(b, "devtools/"+name+".json.gz"), session.Options{})
			if err != nil {
				b.Fatal(err)
			}
			ths := s.Threads()
			bench(b, s, ths[session.LargestFirst(ths)[0]])
		})
	}
}

// BenchmarkIntegrate measures DevTools' ProfileCalls of a trace thread
// (buildProfileCalls and treify).
func BenchmarkIntegrate(b *testing.B) {
	eachLargeTrace(b, func(b *testing.B, s *session.Session, th *session.Thread) {
		tl, err := th.Timeline(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		proftest.BenchCount(b, "calls/op", func() int { return len(tl.Integrate(calls.IntegrateOptions{})) })
	})
}

// BenchmarkThreadWholeTrace measures the DevTools Summary of the whole
// trace (the thread's events merged with its calls).
func BenchmarkThreadWholeTrace(b *testing.B) {
	eachLargeTrace(b, func(b *testing.B, s *session.Session, th *session.Thread) {
		cs, err := th.Calls(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		bounds := devtoolsstats.TraceBounds(s.Profile)
		b.ReportAllocs()
		for b.Loop() {
			devtoolsstats.ThreadWholeTrace(s.Profile, th.ID, cs, bounds)
		}
	})
}

// BenchmarkTreeFromEntries measures the tree of a trace thread built from
// its entries (its calls merged with its trace events).
func BenchmarkTreeFromEntries(b *testing.B) {
	eachLargeTrace(b, func(b *testing.B, s *session.Session, th *session.Thread) {
		ctx := context.Background()
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

// BenchmarkCategoryTimes measures a .cpuprofile thread's category times
// summed over its samples (category.TimesIn) and over the nodes of its
// tree (Thread.CategoryTimes once the tree is built), on the generated
// shapes.
func BenchmarkCategoryTimes(b *testing.B) {
	ctx := context.Background()
	for _, shape := range []string{"typescript", "many-nodes", "samples-heavy"} {
		p, err := v8.Parse(bytes.NewReader(proftest.ShapeBytes(b, shape)))
		if err != nil {
			b.Fatal(err)
		}
		s := session.New(shape, p, session.Options{})
		th := s.Threads()[0]
		if _, err := th.Tree(ctx, view.Options{}); err != nil {
			b.Fatal(err)
		}
		tl, err := th.Timeline(ctx)
		if err != nil {
			b.Fatal(err)
		}
		from, to, err := th.Window(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("samples/"+shape, func(b *testing.B) {
			for b.Loop() {
				category.TimesIn(p, tl, from, to)
			}
		})
		b.Run("tree/"+shape, func(b *testing.B) {
			for b.Loop() {
				if _, err := th.CategoryTimes(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
