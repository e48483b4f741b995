package machine

import (
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// TestForkClonesMaps: a new process gets a copy of its parent's maps
// (thread__clone_maps), but not when perf synthesised the FORK for a task
// that ran before the recording (PERF_RECORD_MISC_FORK_EXEC): its own
// synthesised MMAPs follow. Seen on a -a recording: a compiler's cc1plus,
// forked by g++ before the recording, had a call chain address in its
// unrecorded read-only segment at 0x410000, inside g++'s text, which perf
// prints [unknown] ([unknown]).
func TestForkClonesMaps(t *testing.T) {
	for _, c := range []struct {
		misc   uint16
		cloned bool
	}{{0, true}, {perfdata.MiscForkExec, false}} {
		m := New(nil, "")
		m.ProcessMmap(100, 100, 0x403000, 0x9a000, 0x3000, "/usr/bin/g++", nil, perfdata.MiscUser, true)
		m.ProcessFork(&perfdata.RecordFork{RecordCommon: perfdata.RecordCommon{Type: perfdata.RecordTypeFork, Misc: c.misc},
			PID: 101, PPID: 100, TID: 101, PTID: 100})
		m.ProcessMmap(101, 101, 0x658000, 0x1533000, 0x258000, "/usr/lib/gcc/cc1plus", nil, perfdata.MiscUser, true)
		child := m.FindThread(101)
		if got := child.Maps.Find(0x410000) != nil; got != c.cloned {
			t.Errorf("misc %#x: child has the parent's map: %v, want %v", c.misc, got, c.cloned)
		}
		if child.Maps.Find(0x700000) == nil {
			t.Errorf("misc %#x: child lacks its own map", c.misc)
		}
	}
}
