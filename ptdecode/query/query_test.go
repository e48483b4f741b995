package query

import (
	"testing"
)

func TestQueryNotSynced(t *testing.T) {
	q := NewQuery(encode(t, head()...), &Config{})
	if _, _, err := q.CondBranch(); CodeOf(err) != CodeNoSync {
		t.Errorf("CondBranch: %v", err)
	}
	if _, _, err := q.IndirectBranch(); CodeOf(err) != CodeNoSync {
		t.Errorf("IndirectBranch: %v", err)
	}
	var ev Event
	if _, err := q.Event(&ev); CodeOf(err) != CodeNoSync {
		t.Errorf("Event: %v", err)
	}
}

func TestQueryFlow(t *testing.T) {
	buf := encode(t, cat(head(), []P{tnt("!."), pip(0xabc000), tnt("!."), tip(0x2000), tsc(0x77), fup(0x2100), tipNone(), tnt("!")})...)
	q := NewQuery(buf, &Config{})
	ip, st, err := q.SyncForward()
	if err != nil || ip != 0x1000 || st != StatusEventPending {
		t.Fatalf("SyncForward: %#x %v %v", ip, st, err)
	}
	var ev Event
	// A branch query fails while events are pending.
	if _, _, err := q.CondBranch(); CodeOf(err) != CodeBadQuery {
		t.Fatalf("CondBranch with event pending: %v", err)
	}
	for _, want := range headEvents {
		st, err := q.Event(&ev)
		if err != nil || formatEvent(&ev) != want {
			t.Fatalf("Event: %q %v, want %q", formatEvent(&ev), err, want)
		}
		if want == headEvents[1] && st != 0 {
			t.Fatalf("status after last PSB+ event: %v", st)
		}
	}
	// An indirect-branch query with a TNT and an event next caches the
	// TNT bits and fails.
	if _, _, err := q.IndirectBranch(); CodeOf(err) != CodeBadQuery {
		t.Fatalf("IndirectBranch before TNT: %v", err)
	}
	if _, err := q.Event(&ev); CodeOf(err) != CodeBadQuery {
		t.Fatalf("Event with TNT cached: %v", err)
	}
	if taken, st, err := q.CondBranch(); err != nil || !taken || st != 0 {
		t.Fatalf("CondBranch 1: %v %v %v", taken, st, err)
	}
	// The event is announced when the last cached bit is used.
	if taken, st, err := q.CondBranch(); err != nil || taken || st != StatusEventPending {
		t.Fatalf("CondBranch 2: %v %v %v", taken, st, err)
	}
	if _, _, err := q.CondBranch(); CodeOf(err) != CodeBadQuery {
		t.Fatalf("CondBranch at event: %v", err)
	}
	if _, err := q.Event(&ev); err != nil || formatEvent(&ev) != "paging cr3=abc000" {
		t.Fatalf("paging: %q %v", formatEvent(&ev), err)
	}
	// An indirect-branch query skips over TNT bits, caching them.
	if ip, st, err := q.IndirectBranch(); err != nil || ip != 0x2000 || st != 0 {
		t.Fatalf("IndirectBranch over TNT: %#x %v %v", ip, st, err)
	}
	if taken, _, err := q.CondBranch(); err != nil || !taken {
		t.Fatalf("CondBranch 3: %v %v", taken, err)
	}
	if taken, st, err := q.CondBranch(); err != nil || taken || st != StatusEventPending {
		t.Fatalf("CondBranch 4: %v %v %v", taken, st, err)
	}
	if _, err := q.Event(&ev); err != nil || formatEvent(&ev) != "async branch from=2100 @77" {
		t.Fatalf("async branch: %q %v", formatEvent(&ev), err)
	}
	if tsc, _, _, err := q.Time(); err != nil || tsc != 0x77 {
		t.Fatalf("Time: %#x %v", tsc, err)
	}
	if _, err := q.CoreBusRatio(); err != CodeNoCBR {
		t.Fatalf("CoreBusRatio: %v", err)
	}
	if taken, st, err := q.CondBranch(); err != nil || !taken || st != StatusEOS {
		t.Fatalf("last CondBranch: %v %v %v", taken, st, err)
	}
	if _, _, err := q.CondBranch(); CodeOf(err) != CodeEOS {
		t.Fatalf("CondBranch at end: %v", err)
	}
}

func TestQuerySuppressed(t *testing.T) {
	buf := encode(t, psb(), cbr(9), psbend(), pge(0x3000), tipNone())
	q := NewQuery(buf, &Config{})
	ip, st, err := q.SyncForward()
	if err != nil || ip != 0 || st != StatusIPSuppressed|StatusEventPending {
		t.Fatalf("SyncForward: %#x %v %v", ip, st, err)
	}
	var ev Event
	for _, want := range []string{"disabled (status)", "cbr 9 (status)", "enabled ip=3000"} {
		if _, err := q.Event(&ev); err != nil || formatEvent(&ev) != want {
			t.Fatalf("Event: %q %v, want %q", formatEvent(&ev), err, want)
		}
	}
	if cbr, err := q.CoreBusRatio(); err != nil || cbr != 9 {
		t.Fatalf("CoreBusRatio: %v %v", cbr, err)
	}
	if _, _, _, err := q.Time(); err != CodeNoTime {
		t.Fatalf("Time without TSC: %v", err)
	}
	if _, st, err := q.IndirectBranch(); err != nil || st != StatusIPSuppressed|StatusEOS {
		t.Fatalf("IndirectBranch: %v %v", st, err)
	}
}

func TestQueryDeferredError(t *testing.T) {
	// The error after the TNT is reported only once its bits are used.
	buf := encode(t, cat(head(), []P{tnt("!"), fupNone(), tip(0x2000)})...)
	q := NewQuery(buf, &Config{})
	if _, _, err := q.SyncForward(); err != nil {
		t.Fatal(err)
	}
	var ev Event
	q.Event(&ev)
	q.Event(&ev)
	if taken, st, err := q.CondBranch(); err != nil || !taken || st != StatusEventPending {
		t.Fatalf("CondBranch: %v %v %v", taken, st, err)
	}
	if _, err := q.Event(&ev); CodeOf(err) != CodeIPSuppressed {
		t.Fatalf("Event: %v", err)
	}
}

func TestQuerySync(t *testing.T) {
	// Three segments; SyncBackward from the end skips the PSB+ that is
	// cut short, SyncSet goes to an offset.
	a := encode(t, cat(head(), []P{tnt("!")})...)
	b := encode(t, cat([]P{psb(), mode64(), fup(0x2000), psbend()}, []P{tnt(".")})...)
	c := encode(t, psb(), mode64())
	buf := append(append(append([]byte{}, a...), b...), c...)
	q := NewQuery(buf, &Config{})
	ip, _, err := q.SyncBackward()
	if err != nil || ip != 0x2000 || q.SyncOffset() != uint64(len(a)) {
		t.Fatalf("SyncBackward: %#x %v at %d", ip, err, q.SyncOffset())
	}
	ip, _, err = q.SyncBackward()
	if err != nil || ip != 0x1000 || q.SyncOffset() != 0 {
		t.Fatalf("second SyncBackward: %#x %v at %d", ip, err, q.SyncOffset())
	}
	if _, _, err = q.SyncBackward(); CodeOf(err) != CodeEOS {
		t.Fatalf("third SyncBackward: %v", err)
	}
	ip, _, err = q.SyncSet(uint64(len(a)))
	if err != nil || ip != 0x2000 {
		t.Fatalf("SyncSet: %#x %v", ip, err)
	}
	if _, _, err = q.SyncSet(3); CodeOf(err) != CodeNoSync {
		t.Fatalf("SyncSet off PSB: %v", err)
	}
	if _, _, err = q.SyncSet(uint64(len(buf) + 1)); CodeOf(err) != CodeEOS {
		t.Fatalf("SyncSet beyond end: %v", err)
	}
	ip, _, err = q.SyncForward()
	if err != nil || ip != 0x1000 {
		t.Fatalf("SyncForward: %#x %v", ip, err)
	}
	ip, _, err = q.SyncForward()
	if err != nil || ip != 0x2000 {
		t.Fatalf("SyncForward 2: %#x %v", ip, err)
	}
	if _, _, err = q.SyncForward(); err == nil {
		t.Fatalf("SyncForward 3 at the cut PSB+ succeeded")
	}
}
