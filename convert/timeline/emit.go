package timeline

import "math/bits"

// opKind is what an op of a thread's queue does.
type opKind uint8

const (
	opBegin    opKind = iota // a slice begins (cat, name, info's arguments)
	opEnd                    // the innermost slice ends (cat: why)
	opInferred               // an inferred frame ends: a complete slice from its epoch's start
	opInstant                // a moment (cat, name, args in the thread's pool)
	opCounter                // counter values (args in the pool)
	opEpoch                  // a new stack epoch starts: inferred frames start from here
	opPoint                  // a timing point: t is the time at pos
)

// op is one step of a thread's timeline, queued until its time is known.
// pos is the instruction boundary where it happens (the number of the
// thread's instructions executed before it); t its time once resolved, or
// from the start for points and timed ops.
type op struct {
	kind  opKind
	gap   bool // opPoint: the time jumps here (a trace restart)
	timed bool // t is known (a sample's time), pos only orders it
	depth int32
	k     int32 // opInferred: the frame's rank in its epoch (1: innermost)
	cat   Str
	name  Str
	pos   uint64
	t     uint64
	info  *fnInfo // opBegin, opInferred: the function (its name, if set, is the op's)
	a0    int32   // opInstant, opCounter: args in clock.args[a0:a1]
	a1    int32
}

// clock turns a thread's queue of ops into timed events: an op waits until
// the next timing point, then the instructions since the previous point
// share the interval evenly (an op at instruction boundary p between
// points (P0, T0) and (P1, T1) happens at T0 + (T1-T0)(p-P0)/(P1-P0)).
//
// The points are the times the decoder reported, where they changed
// (TSC, MTC and CYC packets, as perf computes them): a run's time is the
// time of the branch that preceded it, so a change of time at a run is a
// point at the boundary before it. Where the trace stopped (a syscall, an
// interrupt, lost data) the decoder's time at the stop is not in the runs
// (the next run's time is the restart's): the instructions since the last
// point are placed at that point's time, so that nothing is placed after
// the stop really happened (perf's time of the stop is at most one timing
// packet later). At the end of a thread's data they run at the thread's
// last measured pace (nanoseconds per instruction over the last interval
// without a stop). Recordings without timestamps count instructions: an
// op's time is its boundary.
type clock struct {
	q        []op
	args     []Arg // the instants' arguments
	havePt   bool
	p0, t0   uint64 // the last point
	rate     uint64 // ns per instruction, 16.16 fixed point
	timeless bool
}

// maxPending bounds a thread's queue: past it, the ops are timed at the
// last pace without waiting for the next point.
const maxPending = 1 << 16

// interp is T0 + (T1-T0)(p-P0)/(P1-P0) without overflow.
func interp(t0, t1, p0, p1, p uint64) uint64 {
	if p1 <= p0 || p <= p0 || t1 <= t0 {
		return t0
	}
	if p >= p1 {
		return t1
	}
	hi, lo := bits.Mul64(t1-t0, p-p0)
	q, _ := bits.Div64(hi, lo, p1-p0)
	return t0 + q
}

// span is interp over one interval, for many boundaries: the division
// by P1-P0 is a multiplication by its reciprocal, corrected to the exact
// quotient (a division costs tens of cycles; most intervals hold tens of
// ops).
type span struct {
	t0, t1, p0, p1 uint64
	dp, dt         uint64
	inv            uint64 // floor((2^64-1) / dp)
	ok             bool   // the interval is not empty (else interp gives t0)
}

func newSpan(t0, t1, p0, p1 uint64) span {
	s := span{t0: t0, t1: t1, p0: p0, p1: p1}
	if p1 > p0 && t1 > t0 {
		s.ok, s.dp, s.dt = true, p1-p0, t1-t0
		s.inv = ^uint64(0) / s.dp
	}
	return s
}

// at is interp(t0, t1, p0, p1, p) (fxtFast has it inline).
func (s *span) at(p uint64) uint64 {
	if !s.ok || p <= s.p0 || p >= s.p1 {
		return s.exact(p)
	}
	hi, n := bits.Mul64(s.dt, p-s.p0)
	if hi != 0 || n>>63 != 0 {
		return s.exact(p)
	}
	// q is n/dp or one less: inv > (2^64-1-dp)/dp, so n*inv/2^64 >
	// n/dp - n(1+dp)/(dp 2^64) >= n/dp - 1 (n < 2^63).
	q, _ := bits.Mul64(n, s.inv)
	if n-q*s.dp >= s.dp {
		q++
	}
	return s.t0 + q
}

// exact is interp(t0, t1, p0, p1, p), for at.
func (s *span) exact(p uint64) uint64 { return interp(s.t0, s.t1, s.p0, s.p1, p) }

// paced is the time of boundary p at the last pace, not past limit (0:
// none).
func (c *clock) paced(p, limit uint64) uint64 {
	t := c.t0
	if p > c.p0 {
		hi, lo := bits.Mul64(c.rate, p-c.p0)
		t += hi<<48 | lo>>16
	}
	if limit != 0 && t > limit {
		t = limit
	}
	return t
}

// resolve times the queued ops with point pt (nil: at the pace, as at the
// end) and hands them to out in order.
func (c *clock) resolve(pt *op, out *output) {
	c.resolveOps(pt, out)
	if pt != nil {
		c.point(pt)
	}
}

// resolveOps is resolve but for making pt the last point (thread.runs
// calls it ahead of a point it knows).
func (c *clock) resolveOps(pt *op, out *output) {
	if pt != nil && c.havePt && !pt.gap && !c.timeless && (out.tl.fxt != nil || out.tl.json != nil) && out.tl.direct {
		// Most points: the ops between two points, straight out.
		out.between(c.q, c.t0, pt.t, c.p0, pt.pos)
		c.q = c.q[:0]
		c.args = c.args[:0]
		return
	}
	for i := range c.q {
		o := &c.q[i]
		if o.timed {
			out.emit(o)
			continue
		}
		switch {
		case c.timeless:
			o.t = o.pos
		case !c.havePt:
			if pt != nil {
				o.t = pt.t
			}
		case pt == nil:
			o.t = c.paced(o.pos, 0)
		case pt.gap:
			// The time the trace stopped is not known: the
			// instructions since the last point take none.
			o.t = c.t0
		default:
			o.t = interp(c.t0, pt.t, c.p0, pt.pos, o.pos)
		}
		out.emit(o)
	}
	c.q = c.q[:0]
	c.args = c.args[:0]
}

// point makes pt the last point, once the ops before it are timed.
func (c *clock) point(pt *op) {
	if c.havePt && !pt.gap && pt.pos > c.p0 && pt.t >= c.t0 {
		c.rate = (pt.t - c.t0) << 16 / (pt.pos - c.p0)
	}
	if !c.havePt || pt.t >= c.t0 {
		c.p0, c.t0, c.havePt = pt.pos, pt.t, true
	} else {
		c.p0 = pt.pos // the time went back: keep the later one
	}
}

// push queues o, or with a point, times the queue.
func (c *clock) push(o *op, out *output) {
	if o.kind == opPoint {
		if !c.timeless {
			c.resolve(o, out)
		}
		return
	}
	c.q = append(c.q, *o)
	if c.timeless || o.timed && len(c.q) == 1 {
		c.resolve(nil, out)
		return
	}
	c.queued(out)
}

// queued is push's end for an untimed op that is not a point, just
// queued.
func (c *clock) queued(out *output) {
	if c.timeless || len(c.q) >= maxPending {
		c.resolve(nil, out)
	}
}
