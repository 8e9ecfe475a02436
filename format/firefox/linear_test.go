package firefox_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/jsprof/jsprof/format/firefox"
)

// TestSharedTablesLinear checks that a processed profile whose threads share
// their tables (version 75: strings, functions, frames and stacks under
// "shared") is read in memory linear in its size, and that each thread gets
// the nodes of the stacks its samples reach, not every shared stack. Each
// thread read the shared tables again (its own copy of the strings, every
// function interned again) and made a node for every shared stack: T threads
// sharing S stacks cost T×S, and 2,000 threads sharing a tree of 2,000
// stacks (a 220 KB file) allocated 1.8 GB. It does not run in parallel, to
// measure its allocations alone.
func TestSharedTablesLinear(t *testing.T) {
	const threads, stacks, perThread = 1000, 1000, 3
	// Stack i is function i called by stack (i-1)/2: a binary tree, so that
	// a sample reaches about ten stacks.
	prefix := func(i int) int { return (i - 1) / 2 }
	sampled := func(th, k int) int { return (th*7919 + k*104729) % stacks }
	list := func(n int, f func(int) string) string {
		s := make([]string, n)
		for i := range s {
			s[i] = f(i)
		}
		return strings.Join(s, ",")
	}
	var b strings.Builder
	b.WriteString(`{"meta":{"version":36,"preprocessedProfileVersion":75,"interval":1,"startTime":0},"threads":[`)
	for th := range threads {
		if th > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"t` + strconv.Itoa(th) + `","pid":"1","tid":"` + strconv.Itoa(th+1) +
			`","samples":{"length":` + strconv.Itoa(perThread) +
			`,"stack":[` + list(perThread, func(k int) string { return strconv.Itoa(sampled(th, k)) }) +
			`],"time":[` + list(perThread, strconv.Itoa) + `]}}`)
	}
	b.WriteString(`],"shared":{"stringArray":["https://x.test/a.js",` + list(stacks, func(i int) string { return `"f` + strconv.Itoa(i) + `"` }) + `],` +
		`"sources":{"length":1,"filename":[0]},` +
		`"funcTable":{"length":` + strconv.Itoa(stacks) + `,"name":[` + list(stacks, func(i int) string { return strconv.Itoa(i + 1) }) +
		`],"source":[` + list(stacks, func(int) string { return "0" }) + `],"lineNumber":[` + list(stacks, func(i int) string { return strconv.Itoa(i + 1) }) + `]},` +
		`"frameTable":{"length":` + strconv.Itoa(stacks) + `,"func":[` + list(stacks, strconv.Itoa) + `]},` +
		`"stackTable":{"length":` + strconv.Itoa(stacks) + `,"frame":[` + list(stacks, strconv.Itoa) +
		`],"prefix":[null,` + list(stacks-1, func(i int) string { return strconv.Itoa(prefix(i + 1)) }) + `]}}}`)
	data := []byte(b.String())

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p, err := firefox.ParseBytes(data)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}

	// Each thread's nodes: its root and the stacks its samples reach, each
	// sample's node on the path of its stack.
	wantNodes, wrong := 0, 0
	for th := range threads {
		reached := map[int]bool{}
		for k := range perThread {
			for s := sampled(th, k); !reached[s]; s = prefix(s) {
				reached[s] = true
				if s == 0 {
					break
				}
			}
		}
		wantNodes += 1 + len(reached)
		thr := p.Threads[th]
		if got := int(thr.Nodes.End - thr.Nodes.Start); got != 1+len(reached) {
			if wrong++; wrong == 1 {
				t.Errorf("thread %d: %d nodes, want %d", th, got, 1+len(reached))
			}
		}
		for k := range perThread {
			var got, want []string
			for n := p.Samples.Node[int(thr.Samples.Start)+k]; n != thr.Root(); n = p.Nodes[n].Parent {
				got = append(got, p.Str(p.Frames[p.Nodes[n].Frame].Name))
			}
			for s := sampled(th, k); ; s = prefix(s) {
				want = append(want, "f"+strconv.Itoa(s))
				if s == 0 {
					break
				}
			}
			if strings.Join(got, ";") != strings.Join(want, ";") {
				t.Fatalf("thread %d, sample %d: stack %s, want %s", th, k, strings.Join(got, ";"), strings.Join(want, ";"))
			}
		}
	}
	if wrong > 1 {
		t.Errorf("and %d threads more with the wrong number of nodes", wrong-1)
	}
	if len(p.Nodes) != wantNodes {
		t.Errorf("got %d nodes, want %d (the stacks the samples reach; every shared stack in every thread would be %d)",
			len(p.Nodes), wantNodes, threads*(stacks+1))
	}
	if len(p.Frames) != stacks+1 {
		t.Errorf("got %d frames, want %d", len(p.Frames), stacks+1)
	}
	// Linear: about 70 bytes allocated a byte of input, most of them the
	// decoded JSON values (a number every few bytes here). Reading the
	// shared tables in every thread and making a node for every shared
	// stack: 3,700 here (470 MB). Reading any one of the shared tables
	// again in every thread passes 150: the strings 200, the functions and
	// the stacks (which build the paths of their errors) 900 and 1,300.
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("reading %d bytes allocated %d, %.1f a byte", len(data), alloc, float64(alloc)/float64(len(data)))
	if alloc > 150*uint64(len(data)) {
		t.Errorf("reading %d bytes (%d threads sharing %d stacks) allocated %d bytes, %.0f a byte", len(data), threads, stacks, alloc, float64(alloc)/float64(len(data)))
	}
}
