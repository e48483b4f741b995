package query

import (
	"errors"
	"testing"
)

func TestTNTCache(t *testing.T) {
	var c tntCache
	if !c.empty() {
		t.Fatal("new cache not empty")
	}
	if _, ok := c.take(); ok {
		t.Fatal("take from empty cache")
	}
	// 3 bits: oldest first "!.!", then 2 bits "..".
	if c.add(0b101, 3) != CodeOK || c.add(0b00, 2) != CodeOK {
		t.Fatal("add failed")
	}
	want := []bool{true, false, true, false, false}
	for i, w := range want {
		got, ok := c.take()
		if !ok || got != w {
			t.Fatalf("bit %d: %v,%v want %v", i, got, ok, w)
		}
	}
	if !c.empty() {
		t.Fatal("cache not empty after all bits")
	}
	// A full 64-bit TNT fits; one more bit overflows.
	if c.add(^uint64(0), 64) != CodeOK {
		t.Fatal("add 64 failed")
	}
	if c.add(1, 1) != CodeOverflow {
		t.Fatal("overflow not detected")
	}
	for i := 0; i < 64; i++ {
		if got, ok := c.take(); !ok || !got {
			t.Fatalf("bit %d of 64", i)
		}
	}
	if c.add(0, 0) != CodeOK || !c.empty() {
		t.Fatal("adding no bits")
	}
}

func TestEventQueue(t *testing.T) {
	var q eventQueue
	if q.dequeue(bindAll) != nil || q.pending(bindAll) {
		t.Fatal("empty queue")
	}
	a := q.enqueue(bindTIP)
	a.Type = EventExecMode
	b := q.enqueue(bindFUP)
	b.Type = EventTSX
	c := q.enqueue(bindTIP)
	c.Type = EventAsyncBranch
	if !q.pending(bindFUP) || q.pending(bindPSBEnd) {
		t.Fatal("pending")
	}
	if ev := q.find(bindTIP, EventAsyncBranch); ev == nil || ev.Type != EventAsyncBranch {
		t.Fatal("find")
	}
	if q.find(bindFUP, EventAsyncBranch) != nil {
		t.Fatal("find with wrong binding")
	}
	if ev := q.peek(bindFUP); ev == nil || ev.Type != EventTSX {
		t.Fatal("peek")
	}
	// Dequeue from the middle keeps the order of the rest.
	if ev := q.dequeue(bindFUP); ev == nil || ev.Type != EventTSX {
		t.Fatal("dequeue middle")
	}
	if ev := q.dequeue(bindTIP); ev == nil || ev.Type != EventExecMode {
		t.Fatal("dequeue first")
	}
	if ev := q.dequeue(bindTIP); ev == nil || ev.Type != EventAsyncBranch {
		t.Fatal("dequeue last")
	}
	if q.dequeue(bindAll) != nil {
		t.Fatal("queue not empty")
	}
	// Capacity: evqMax-2 entries fit (one gap, one end slot).
	n := 0
	for q.enqueue(bindTIP) != nil {
		n++
		if n > evqMax {
			t.Fatal("unbounded queue")
		}
	}
	if n != evqMax-2 {
		t.Errorf("capacity %d, want %d", n, evqMax-2)
	}
	// Copying the queue copies its contents.
	q2 := q
	q2.dequeue(bindAll)
	if !q.pending(bindTIP) || q.begin == q2.begin {
		t.Error("copy shares state")
	}
}

func TestCodes(t *testing.T) {
	if CodeEOS.Error() != "reached end of trace stream" || CodeBadCPU.Error() != "unknown cpu" {
		t.Error("messages")
	}
	for c := CodeOK; c < numCodes; c++ {
		if codeText[c] == "" {
			t.Errorf("code %d has no text", c)
		}
	}
	err := error(&Error{Code: CodeBadContext, Offset: 0x20})
	if !errors.Is(err, CodeBadContext) || errors.Is(err, CodeEOS) {
		t.Error("errors.Is")
	}
	if CodeOf(err) != CodeBadContext || CodeOf(nil) != CodeOK || CodeOf(errors.New("x")) != CodeInternal {
		t.Error("CodeOf")
	}
	for ty := EventType(0); ty < numEventTypes; ty++ {
		if ty.String() == "" {
			t.Errorf("event type %d has no name", ty)
		}
	}
}
