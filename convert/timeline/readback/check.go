package readback

import (
	"cmp"
	"fmt"
	"slices"
)

// Checker checks the events of a timeline, fed in file order, for what
// viewers rely on:
//
//   - per track (pid, tid), events come in time order: each event's time
//     (a complete event's end, any other event's timestamp) is not before
//     the previous one's;
//   - an End closes the innermost open Begin of its track, carries its
//     name, and is not before it; nothing is left open at the end;
//   - the slices of a track (Begin/End pairs and complete events) nest:
//     two slices are disjoint or one contains the other.
type Checker struct {
	tracks map[[2]int64]*trackCheck
	// Slices counts the slices seen, Events the events.
	Slices, Events int
}

type trackCheck struct {
	last  uint64
	open  []Event
	spans []span
}

type span struct {
	start, end uint64
	name       string
	at         int64
}

// NewChecker returns an empty Checker.
func NewChecker() *Checker { return &Checker{tracks: map[[2]int64]*trackCheck{}} }

func (c *Checker) track(e *Event) *trackCheck {
	k := [2]int64{e.Pid, e.Tid}
	t := c.tracks[k]
	if t == nil {
		t = &trackCheck{}
		c.tracks[k] = t
	}
	return t
}

// Event checks one event.
func (c *Checker) Event(e *Event) error {
	c.Events++
	t := c.track(e)
	at := e.Ts
	if e.Phase == 'X' {
		at = e.End
	}
	if at < t.last {
		return &Error{Offset: e.Offset, Msg: fmt.Sprintf("%c %q of %d/%d at %d, after an event at %d",
			e.Phase, e.Name, e.Pid, e.Tid, at, t.last)}
	}
	t.last = at
	switch e.Phase {
	case 'B':
		b := *e
		b.Args = nil
		t.open = append(t.open, b)
	case 'E':
		if len(t.open) == 0 {
			return &Error{Offset: e.Offset, Msg: fmt.Sprintf("End %q of %d/%d with no open slice", e.Name, e.Pid, e.Tid)}
		}
		b := t.open[len(t.open)-1]
		t.open = t.open[:len(t.open)-1]
		if b.Name != e.Name {
			return &Error{Offset: e.Offset, Msg: fmt.Sprintf("End %q of %d/%d closes %q", e.Name, e.Pid, e.Tid, b.Name)}
		}
		t.spans = append(t.spans, span{b.Ts, e.Ts, b.Name, b.Offset})
		c.Slices++
	case 'X':
		t.spans = append(t.spans, span{e.Ts, e.End, e.Name, e.Offset})
		c.Slices++
	}
	return nil
}

// Finish checks that nothing is left open and that each track's slices
// nest.
func (c *Checker) Finish() error {
	for k, t := range c.tracks {
		if len(t.open) > 0 {
			b := t.open[len(t.open)-1]
			return &Error{Offset: b.Offset, Msg: fmt.Sprintf("slice %q of %d/%d never ends", b.Name, k[0], k[1])}
		}
		if err := nested(k, t.spans); err != nil {
			return err
		}
	}
	return nil
}

// nested checks that the spans form a tree: sorted by start (longer
// first), each span lies within the innermost span still open at its
// start.
func nested(k [2]int64, spans []span) error {
	slices.SortStableFunc(spans, func(a, b span) int {
		if c := cmp.Compare(a.start, b.start); c != 0 {
			return c
		}
		return cmp.Compare(b.end, a.end)
	})
	var stack []span
	for _, s := range spans {
		for len(stack) > 0 && stack[len(stack)-1].end <= s.start && stack[len(stack)-1].start < s.start {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && s.end > stack[len(stack)-1].end {
			p := stack[len(stack)-1]
			return &Error{Offset: s.at, Msg: fmt.Sprintf("slice %q [%d,%d] of %d/%d overlaps %q [%d,%d]",
				s.name, s.start, s.end, k[0], k[1], p.name, p.start, p.end)}
		}
		stack = append(stack, s)
	}
	return nil
}
