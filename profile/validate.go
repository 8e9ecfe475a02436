package profile

import (
	"errors"
	"fmt"
	"slices"
)

// Validate checks every invariant of the model: ids in range, each thread's
// nodes a contiguous preorder range starting with its root, parents before
// children, sample columns of equal length, samples inside their thread's node
// range and sorted by time.
func (p *Profile) Validate() error {
	if len(p.Strings) == 0 || p.Strings[0] != "" {
		return errors.New("profile: Strings[0] must be the empty string")
	}
	ns := StringID(len(p.Strings))
	for i, f := range p.Frames {
		for _, s := range [...]StringID{f.Name, f.URL, f.ScriptID, f.CodeType} {
			if s < 0 || s >= ns {
				return fmt.Errorf("profile: frame %d: string id %d out of range", i, s)
			}
		}
		if f.Kind > KindEvent {
			return fmt.Errorf("profile: frame %d: invalid kind %d", i, f.Kind)
		}
		if int(f.Category) >= len(p.Categories) {
			return fmt.Errorf("profile: frame %d: category %d out of range", i, f.Category)
		}
	}
	nf := FrameID(len(p.Frames))
	s := &p.Samples
	if s.Time.Len() != s.Node.Len() || (s.Line != nil && len(s.Line) != s.Node.Len()) ||
		(s.Column != nil && len(s.Column) != s.Node.Len()) ||
		(s.Category != nil && len(s.Category) != s.Node.Len()) || (s.Subcategory != nil && len(s.Subcategory) != s.Node.Len()) {
		return errors.New("profile: sample columns differ in length")
	}
	var nextNode, nextSample int32
	for ti, t := range p.Threads {
		if t.Nodes.Start != nextNode || t.Nodes.End <= t.Nodes.Start {
			return fmt.Errorf("profile: thread %d: node range [%d,%d) not contiguous after %d", ti, t.Nodes.Start, t.Nodes.End, nextNode)
		}
		if t.Samples.Start != nextSample || t.Samples.End < t.Samples.Start {
			return fmt.Errorf("profile: thread %d: sample range [%d,%d) not contiguous after %d", ti, t.Samples.Start, t.Samples.End, nextSample)
		}
		if int(t.Nodes.End) > len(p.Nodes) || int(t.Samples.End) > s.Node.Len() {
			return fmt.Errorf("profile: thread %d: range beyond table", ti)
		}
		nextNode, nextSample = t.Nodes.End, t.Samples.End
		for i := t.Nodes.Start; i < t.Nodes.End; i++ {
			n := &p.Nodes[i]
			if n.Frame < 0 || n.Frame >= nf {
				return fmt.Errorf("profile: node %d: frame %d out of range", i, n.Frame)
			}
			if n.DeoptReason < 0 || n.DeoptReason >= ns {
				return fmt.Errorf("profile: node %d: deopt reason string out of range", i)
			}
			if i == t.Nodes.Start {
				if n.Parent != NoNode {
					return fmt.Errorf("profile: node %d: thread root has a parent", i)
				}
			} else if n.Parent < NodeID(t.Nodes.Start) || n.Parent >= NodeID(i) {
				return fmt.Errorf("profile: node %d: parent %d not before it in its thread", i, n.Parent)
			}
		}
		if lo, hi := s.Node.Slice(int(t.Samples.Start), int(t.Samples.End)).bounds(); lo < NodeID(t.Nodes.Start) || hi >= NodeID(t.Nodes.End) {
			for i := t.Samples.Start; i < t.Samples.End; i++ {
				if n := s.Node.At(int(i)); n < NodeID(t.Nodes.Start) || n >= NodeID(t.Nodes.End) {
					return fmt.Errorf("profile: sample %d: node %d outside thread %d", i, n, ti)
				}
			}
		}
		if _, i := s.Time.Decreases(int(t.Samples.Start), int(t.Samples.End)); i >= 0 {
			return fmt.Errorf("profile: sample %d: time goes backwards", i)
		}
	}
	var nextEvent int32
	for ti, t := range p.Threads {
		if t.Events.Start != nextEvent || t.Events.End < t.Events.Start || int(t.Events.End) > len(p.Events) {
			return fmt.Errorf("profile: thread %d: event range [%d,%d) not contiguous after %d", ti, t.Events.Start, t.Events.End, nextEvent)
		}
		nextEvent = t.Events.End
		for i := t.Events.Start; i < t.Events.End; i++ {
			e := &p.Events[i]
			if e.Thread != ThreadID(ti) || e.Name < 0 || e.Name >= ns || e.Cat < 0 || e.Cat >= ns || (e.Phase != 'X' && e.Phase != 'I') || e.Dur < 0 {
				return fmt.Errorf("profile: event %d: invalid (thread %d, phase %q, dur %d)", i, e.Thread, e.Phase, e.Dur)
			}
			if i > t.Events.Start && e.Start < p.Events[i-1].Start {
				return fmt.Errorf("profile: event %d: not sorted by start", i)
			}
		}
	}
	if p.EventArgs != nil && len(p.EventArgs) != len(p.Events) {
		return errors.New("profile: EventArgs and Events differ in length")
	}
	if int(nextEvent) != len(p.Events) {
		return errors.New("profile: events outside every thread")
	}
	if int(nextNode) != len(p.Nodes) || int(nextSample) != s.Node.Len() {
		return errors.New("profile: nodes or samples outside every thread")
	}
	for i, e := range p.Edges {
		th := p.threadOfNode(e.From)
		if th < 0 || th != p.threadOfNode(e.To) {
			return fmt.Errorf("profile: edge %d: nodes %d→%d not in one thread", i, e.From, e.To)
		}
	}
	for i, c := range s.Category {
		if int(c) >= len(p.Categories) || s.Subcategory != nil && int(s.Subcategory[i]) >= len(p.Categories[c].Subcategories) {
			return fmt.Errorf("profile: sample %d: category %d out of range", i, c)
		}
	}
	for i, x := range p.TraceIDs {
		if x.Thread < 0 || int(x.Thread) >= len(p.Threads) || p.threadOfNode(x.Node) != int(x.Thread) {
			return fmt.Errorf("profile: trace id %d: node %d not in thread %d", i, x.Node, x.Thread)
		}
	}
	for i, lt := range p.LineTicks {
		if lt.Node < 0 || int(lt.Node) >= len(p.Nodes) {
			return fmt.Errorf("profile: line tick %d: node out of range", i)
		}
	}
	return nil
}

// threadOfNode returns the thread whose nodes hold n, or −1. The threads'
// node ranges are contiguous and ascending (Validate checks it first), so
// it is the first thread whose range ends after n, found by bisection: a
// scan of the threads for each edge and trace id was quadratic in a trace
// of many profiles.
func (p *Profile) threadOfNode(n NodeID) int {
	i, _ := slices.BinarySearchFunc(p.Threads, n, func(t Thread, n NodeID) int {
		if NodeID(t.Nodes.End) <= n {
			return -1
		}
		return 1
	})
	if i < len(p.Threads) && n >= NodeID(p.Threads[i].Nodes.Start) {
		return i
	}
	return -1
}
