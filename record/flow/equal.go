package flow

import "fmt"

// Equal compares two traces of one program. The vdso's clock_gettime
// retries its seqlock when the clock moved under it, which depends on
// timing: a difference inside the vdso is skipped until both flows leave
// it, and from then on times (and the instruction count of the first event
// after) are not compared. Thread and process ids are not compared. It
// returns "" when the traces agree, else where they first differ.
func Equal(a, b *Trace) string {
	if len(a.Threads) != len(b.Threads) {
		return fmt.Sprintf("threads: %d vs %d", len(a.Threads), len(b.Threads))
	}
	inVdso := func(ip uint64) bool {
		return len(a.Vdso) > 0 && ip >= a.VdsoAddr && ip < a.VdsoAddr+uint64(len(a.Vdso))
	}
	resynced := false
	for n := range a.Threads {
		ea, eb := a.Threads[n].Events, b.Threads[n].Events
		i, j, loose := 0, 0, false
		for i < len(ea) && j < len(eb) {
			x, y := ea[i], eb[j]
			if resynced {
				x.Time, y.Time = 0, 0
				if x.Kind != PTWrite { // a PTWrite's Back is its payload
					x.Back, y.Back = 0, 0
				}
			}
			if loose {
				x.Insns, y.Insns = 0, 0
			}
			if x == y {
				i, j, loose = i+1, j+1, false
				continue
			}
			if inVdso(x.From) && inVdso(y.From) {
				for i < len(ea) && inVdso(ea[i].From) {
					i++
				}
				for j < len(eb) && inVdso(eb[j].From) {
					j++
				}
				resynced, loose = true, true
				continue
			}
			return fmt.Sprintf("thread %d: event %d/%d: %v vs %v", n, i, j, x, y)
		}
		if i != len(ea) || j != len(eb) {
			return fmt.Sprintf("thread %d: %d/%d events left over", n, len(ea)-i, len(eb)-j)
		}
	}
	if len(a.Side) != len(b.Side) {
		return fmt.Sprintf("sideband: %d vs %d records", len(a.Side), len(b.Side))
	}
	for i := range a.Side {
		sa, sb := a.Side[i], b.Side[i]
		sa.Pid, sa.Tid, sa.PPid, sa.PTid = 0, 0, 0, 0
		sb.Pid, sb.Tid, sb.PPid, sb.PTid = 0, 0, 0, 0
		if resynced {
			sa.Time, sb.Time = 0, 0
		}
		if sa != sb {
			return fmt.Sprintf("sideband %d: %+v vs %+v", i, sa, sb)
		}
	}
	return ""
}
