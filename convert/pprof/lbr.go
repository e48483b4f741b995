package pprof

import (
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/perfdata"
)

// lbrReader finds the branch stacks of the session's samples: the session
// hands out resolved samples without them, so a second iterator walks the
// file's samples in the same (time) order alongside and matches each
// session sample on time, thread and IP. Samples the session filtered out
// are skipped over.
type lbrReader struct {
	rs   *perfdata.Records
	cur  *perfdata.RecordSample // the next sample of the file, not yet matched
	done bool
}

// newLBRReader returns nil when no event of f records branch stacks, or
// when f is a pipe-mode stream (read once: its branch stacks are lost).
func newLBRReader(f *perfdata.File) *lbrReader {
	if f.Pipe {
		return nil
	}
	any := false
	for _, a := range f.Attrs {
		any = any || a.SampleType&perfdata.SampleFormatBranchStack != 0
	}
	if !any {
		return nil
	}
	return &lbrReader{rs: f.Records(perfdata.TimeOrder)}
}

// next moves cur to the file's next sample with a branch stack.
func (l *lbrReader) next() {
	l.cur = nil
	for !l.done && l.rs.Next() {
		if r, ok := l.rs.Record.(*perfdata.RecordSample); ok && r.Attr != nil &&
			r.Attr.SampleType&perfdata.SampleFormatBranchStack != 0 {
			l.cur = r
			return
		}
	}
	l.done = true
}

// find returns the branch stack of smp, or nil. The entries are valid
// until the next call.
func (l *lbrReader) find(smp *sample.Sample) []perfdata.BranchEntry {
	if l.cur == nil && !l.done {
		l.next()
	}
	for l.cur != nil {
		r := l.cur
		if r.Time > smp.Time {
			// Not in the file (or out of order): keep r for later.
			return nil
		}
		l.next()
		if r.Time == smp.Time && r.TID == smp.TID && r.IP == smp.IP {
			return r.BranchStack
		}
	}
	return nil
}

func (l *lbrReader) err() error {
	if l.rs == nil {
		return nil
	}
	return l.rs.Err()
}
