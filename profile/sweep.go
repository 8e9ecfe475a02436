package profile

// EventSweep finds, for increasing times, the events that enclose each time
// (start ≤ t < end), outermost first, among a thread's events (sorted by
// start, as Profile.Events are). It makes one pass over the events for a
// whole series of times.
type EventSweep struct {
	events []Event
	keep   func(*Event) bool
	next   int
	open   []int
}

// NewEventSweep returns a sweep over events, considering only those keep
// accepts (nil: all).
func NewEventSweep(events []Event, keep func(*Event) bool) *EventSweep {
	return &EventSweep{events: events, keep: keep}
}

// At returns the indexes (into the events) of the events enclosing t,
// outermost first. t must not decrease between calls; the slice is valid
// until the next call.
func (s *EventSweep) At(t Time) []int {
	for s.next < len(s.events) && s.events[s.next].Start <= t {
		if e := &s.events[s.next]; e.End() > t && (s.keep == nil || s.keep(e)) {
			s.open = append(s.open, s.next)
		}
		s.next++
	}
	// Drop the events that ended, nested or not.
	k := 0
	for _, e := range s.open {
		if s.events[e].End() > t {
			s.open[k] = e
			k++
		}
	}
	s.open = s.open[:k]
	return s.open
}
