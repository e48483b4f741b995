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
	if rs.queue.len() != 0 {
		t.Errorf("queue not empty")
	}
}

// TestQueueRunAndHeap pushes times that run in order for a while and then
// go back (as per-CPU buffers read one after the other do), with rounds
// and half flushes between, and checks that the records come out sorted
// by time, ties in push order, as from one heap.
func TestQueueRunAndHeap(t *testing.T) {
	q := newOrderedQueue()
	seed := uint64(1)
	rnd := func(n uint64) uint64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return (seed >> 33) % n
	}
	type rec struct{ time, seq uint64 }
	var pushed, got []rec
	var out []RawRecord
	take := func() {
		for _, r := range out {
			got = append(got, rec{uint64(r.Offset) >> 32, uint64(r.Offset) & (1<<32 - 1)})
		}
		out = out[:0]
	}
	base := uint64(1000)
	for i := uint64(0); i < 20000; i++ {
		switch rnd(500) {
		case 0:
			out = q.round(out)
			take()
		case 1:
			out = q.half(out)
			take()
		case 2, 3, 4:
			base -= rnd(base / 2) // back in time: the next CPU's buffer
		}
		base += rnd(3) // equal times too
		if base < q.lastFlush {
			base = q.lastFlush
		}
		raw := RawRecord{Offset: int64(base<<32 | i), Data: []byte{byte(i)}}
		q.push(base, &raw, true)
		pushed = append(pushed, rec{base, i})
	}
	out = q.final(out)
	take()
	if len(got) != len(pushed) {
		t.Fatalf("%d records out, %d in", len(got), len(pushed))
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if b.time < a.time || b.time == a.time && b.seq < a.seq {
			// Only a record pushed after a flush at a later time may
			// come out of order (perf's unordered records); none is here.
			t.Fatalf("record %d: %v after %v", i, b, a)
		}
	}
	if q.len() != 0 {
		t.Errorf("queue not empty")
	}
}
