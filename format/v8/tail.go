package v8

import (
	"errors"
	"runtime/debug"
	"sync/atomic"

	"github.com/jsprof/jsprof/internal/input"
	"github.com/jsprof/jsprof/internal/jsonscan"
)

// Reading a .cpuprofile on two cores.
//
// Node and Chrome write the samples and timeDeltas arrays last, and on a
// long recording they are most of the file (a 21 MB profile of 3 M samples:
// 90%). Arrays of numbers hold no strings, so they can be found by scanning
// back from the end of the input without parsing what comes before: each is
// read on a goroutine of its own while the node table is parsed, and the
// parser takes the result when it reaches that member at that offset. A
// guess that does not hold (other members last, a syntax error, another
// layout) is dropped and the member read in order, which gives the same
// result and the same errors.
//
// Where the node table before them is large enough to be read in two
// halves (splitNodes), the arrays are not read at the start: there they
// shared the second core with the table's second half, which then ended
// after the first in three runs of four. They are left to whichever core
// is done with its half first (tailArrays.later), or to the parser when it
// reaches them (docs/performance.md §5w).

// parallelTailBytes is the input size from which the arrays are read ahead
// (a variable for tests).
var parallelTailBytes = 4 << 20

// tailReleaseStep returns how much of an input of n bytes an array read
// ahead holds before giving it back (jsonscan.Scanner.ReleaseStep). A long
// recording's arrays are most of its file, both read at once: a 64th of
// it each, from 256 KB to the megabyte the other readers hold (a step is
// a system call and, on two cores, the other's TLB flushed: by 256 KB,
// the 246 MB recording's conversion took 3% longer; docs/performance.md
// §5r).
func tailReleaseStep(n int) int { return min(max(n/64, 256<<10), jsonscan.ReleaseEvery) }

// tailTaken counts the arrays the parser took read ahead, and
// tailReadLater those of them left to be read later (for tests).
var tailTaken, tailReadLater atomic.Int64

// tailArrays holds the arrays read ahead.
type tailArrays struct {
	samples, deltas tailArray
	// later: the arrays are not read at once but by the first core to be
	// idle (runLater), by the parser when it reaches them, or at once
	// after all when the node table is not read in halves (startNow).
	later bool
}

// tailArray is one array read ahead: at is the offset of its '[' (−1: not
// found), end the offset after its ']', and done is closed when vals and
// err are set.
type tailArray struct {
	at, end int64
	elems   int  // its elements, counted while its '[' was searched for
	vals    ints // samples in the narrowest width that holds them, deltas as readDeltas gives them
	err     error
	done    chan struct{}
	// read reads the array when it is left to whichever core is idle
	// first (tailArrays.later); claimed says one has taken it.
	read    func()
	claimed atomic.Bool
}

// readTailArrays finds the samples and timeDeltas members at the end of
// data and starts reading them, or leaves them to be read later when what
// comes before them is a node table large enough to be read in two halves
// (see tailArrays.later).
func (p *parser) readTailArrays(data []byte) *tailArrays {
	t := &tailArrays{samples: tailArray{at: -1}, deltas: tailArray{at: -1}}
	end := len(data)
	i := jsonscan.SkipSpaceBack(data, end-1)
	if i < 0 || data[i] != '}' {
		return t
	}
	i--
	// Each array is read as soon as its '[' is found (the timeDeltas
	// array, last, while the samples' '[' is searched for), unless both
	// are left for later.
	start := func(a *tailArray, read func(*jsonscan.Scanner) (ints, error)) {
		a.done = make(chan struct{})
		body := func() {
			s := jsonscan.New(data)
			s.SetOffset(a.at)
			s.Release, s.Drop = p.release, p.drop
			s.ReleaseStep = tailReleaseStep(len(data))
			s.SetReleaseFrom(a.at)
			s.SetCount(a.at, a.elems)
			a.vals, a.err = read(s)
			a.end = s.Offset()
			if a.err == nil {
				s.ReleaseRest() // the array's last stretch, shorter than a step
			}
		}
		if t.later {
			a.read = func() {
				defer close(a.done)
				p.guarded(&a.err, body)
			}
			return
		}
		p.goAhead(a.done, &a.err, body)
	}
	readDeltas := func(s *jsonscan.Scanner) (ints, error) { return p.readDeltas(s, "timeDeltas") }
	for n := 0; n < 2; n++ {
		i = jsonscan.SkipSpaceBack(data, i)
		if i < 0 || data[i] != ']' {
			return t
		}
		// The array's '[': the last one before its ']'. Its elements are
		// not checked here: the parser takes the array only if it reaches
		// that member's value at that very offset, and then reading it from
		// there is what the parser would do. The array is counted on the
		// way back, for its reader to size its slice, and the stretches
		// passed over are given back (ArrayOpenBack).
		open, elems := jsonscan.ArrayOpenBack(data, i, p.drop)
		if open < 0 {
			return t
		}
		i = jsonscan.SkipSpaceBack(data, open-1)
		if i < 0 || data[i] != ':' {
			return t
		}
		i = jsonscan.SkipSpaceBack(data, i-1)
		if i < 0 || data[i] != '"' {
			return t
		}
		k := i - 1
		for k >= 0 && data[k] != '"' && data[k] != '\\' {
			k--
		}
		if k < 0 || data[k] != '"' {
			return t
		}
		if n == 0 {
			// The other array holds as many numbers, each of at most
			// maxTailNumber bytes with its comma: a node table that
			// takes the rest even so is read in halves (splitPoint).
			t.later = int64(open)-int64(elems)*maxTailNumber >= 2*int64(splitNodesBytes)
		}
		switch string(data[k+1 : i]) {
		case "samples":
			if t.samples.at >= 0 {
				return t // a second samples member: the later one is read ahead
			}
			t.samples.at, t.samples.elems = int64(open), elems
			start(&t.samples, readIds)
		case "timeDeltas":
			if t.deltas.at >= 0 {
				return t
			}
			t.deltas.at, t.deltas.elems = int64(open), elems
			start(&t.deltas, readDeltas)
		default:
			return t
		}
		i = jsonscan.SkipSpaceBack(data, k-1)
		if i < 0 || data[i] != ',' {
			break
		}
		i--
	}
	return t
}

// take returns the values of the samples (or timeDeltas) array when it was
// read ahead from the offset s is at (after skipping white space), moving s
// past it; ok is false when the parser must read the member itself.
func (t *tailArrays) take(s *jsonscan.Scanner, deltas bool) (vals ints, ok bool) {
	if t == nil {
		return ints{}, false
	}
	a := &t.samples
	if deltas {
		a = &t.deltas
	}
	if a.at < 0 || s.Peek() != '[' || s.Offset() != a.at {
		return ints{}, false
	}
	a.run() // if no core has taken it yet
	<-a.done
	if a.err != nil {
		return ints{}, false
	}
	s.SetOffset(a.end)
	if s.Release != nil {
		// The array's reader gave its pages back as it read them, but
		// the parser has just read its member's name, before its '[':
		// on a file just written, the kernel maps that page's whole large
		// folio (up to 2 MB, 968 KB on samples-heavy), which stayed
		// resident to the end of the reading. What lies before the array
		// the parser has read, and the array has been read: both go back.
		_ = s.Release(max(0, a.at-tailFolio), a.end)
	}
	tailTaken.Add(1)
	return a.vals, true
}

// tailFolio is the most the kernel maps around a page of a file (a huge
// page's worth), which take gives back before an array it takes.
const tailFolio = 2 << 20

// wait waits for the goroutines still reading, so that none outlives the
// parse (a guess the parser never took).
func (t *tailArrays) wait() {
	if t == nil {
		return
	}
	for _, a := range []*tailArray{&t.samples, &t.deltas} {
		if a.claim() {
			a.err = errTailNotRead // never read: the parse ended before
			close(a.done)
		}
		if a.done != nil {
			<-a.done
		}
	}
}

// maxTailNumber is the bytes a sample id or time delta is taken to hold
// at most with its comma, for readTailArrays' guess of the other array's
// size: 7 digits, ids below ten million and deltas below ten seconds. A
// guess too low only leaves the arrays to startNow, which starts them
// once the node table is found too small to split, right after.
const maxTailNumber = 8

// startNow starts reading on goroutines of their own the arrays left to be
// read later, when the node table is not read in halves after all.
func (t *tailArrays) startNow() {
	if t == nil {
		return
	}
	for _, a := range []*tailArray{&t.samples, &t.deltas} {
		if a.claim() {
			go a.read()
		}
	}
}

// claim reports whether the array is left to be read later and the
// caller is the first to take it (to read it, or to close it unread).
func (a *tailArray) claim() bool {
	return a.read != nil && a.claimed.CompareAndSwap(false, true)
}

// errTailNotRead is the error of an array left to be read later that the
// parse ended before.
var errTailNotRead = errors.New("the array was not read")

// run reads the array if it is left to be read later and no core has
// taken it yet, and reports whether it did.
func (a *tailArray) run() bool {
	if !a.claim() {
		return false
	}
	a.read()
	tailReadLater.Add(1)
	return true
}

// runLater reads the arrays left to be read later that no core has taken
// yet: what a core does once it has read its half of the node table and
// the other's is still being read (take, splitNodes), where reading them
// at the start had slowed the second half's reader, which shared its core
// with them (docs/performance.md §5w).
func (t *tailArrays) runLater() {
	if t == nil {
		return
	}
	t.deltas.run()
	t.samples.run()
}

// goAhead runs read on a goroutine of its own and closes done when it
// returns. Reading a mapped file, a fault (the file cut meanwhile) is set
// in *err instead of crashing.
func (p *parser) goAhead(done chan struct{}, err *error, read func()) {
	go func() {
		defer close(done)
		p.guarded(err, read)
	}()
}

// guarded runs read; reading a mapped file, a fault (the file cut
// meanwhile) is set in *err instead of crashing.
func (p *parser) guarded(err *error, read func()) {
	if p.release != nil {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if r := recover(); r != nil {
				*err = input.FaultError(r)
			}
		}()
	}
	read()
}
