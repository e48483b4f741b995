package perfdata

import "testing"

// TestQueueLimit checks that a small MaxQueueBytes flushes early (perf's
// OE_FLUSH__HALF) and still returns every record in time order when the
// input is ordered.
func TestQueueLimit(t *testing.T) {
	f, err := Open("../testdata/perf/cpu-clock-g.data")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := 0
	rs := f.Records(TimeOrder)
	for rs.Next() {
		want++
	}
	rs = f.Records(TimeOrder)
	rs.MaxQueueBytes = 1024
	n, last := 0, uint64(0)
	for rs.Next() {
		n++
		c := rs.Record.Common()
		if c.Time != 0 && !c.Type.IsUser() {
			if c.Time < last {
				t.Errorf("record %d at %#x: time %d after %d", n, c.Offset, c.Time, last)
			}
			last = c.Time
		}
	}
	if err := rs.Err(); err != nil || n != want {
		t.Fatalf("%d records, want %d, err %v", n, want, err)
	}
	if len(rs.queue.h) != 0 {
		t.Errorf("queue not empty")
	}
}
