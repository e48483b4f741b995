package session

import (
	"testing"

	"github.com/perfpt/perfpt/convert/machine"
)

// TestSetCurTIDMakesThread: a thread that only the switch records name
// (no COMM or FORK of it in the recording) is made with their pid, as
// machine__set_current_tid does with machine__findnew_thread, so a
// per-CPU queue that decodes for it has its pid (quipper's
// perf.data.intel_pt-4.14: thread 1760 printed pid 3174, the previous
// thread's, with -F pid); a negative CPU makes none (-EINVAL in perf).
func TestSetCurTIDMakesThread(t *testing.T) {
	m := machine.New(nil, "")
	p := &ptState{s: &Session{m: m}, curTID: map[int32][2]int32{}}
	p.setCurTID(3, 1760, 1760)
	th := m.FindThread(1760)
	if th == nil || th.PID != 1760 || th.Comm != ":1760" {
		t.Fatalf("thread 1760: %+v, want pid 1760 named :1760", th)
	}
	q := &ptQueue{pt: p, qcpu: 3, cpu: 3, qtid: -1, pid: 3174, tid: 3174}
	p.sched = 3
	p.setPidTidCPU(q)
	if q.pid != 1760 || q.tid != 1760 {
		t.Errorf("queue decodes for %d/%d, want 1760/1760", q.pid, q.tid)
	}
	p.setCurTID(-1, 42, 42)
	if m.FindThread(42) != nil {
		t.Errorf("a negative CPU made thread 42")
	}
}
