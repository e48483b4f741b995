package gcov

import (
	"reflect"
	"testing"
)

type flowEvent struct {
	tid         int64
	start, last uint64
	leave       bool
}

type flowRecorder struct{ ev []flowEvent }

func (f *flowRecorder) Run(tid int64, start, last uint64) {
	f.ev = append(f.ev, flowEvent{tid: tid, start: start, last: last})
}
func (f *flowRecorder) Leave(tid int64) { f.ev = append(f.ev, flowEvent{tid: tid, leave: true}) }

func replay(c *Counts, ev []flowEvent) {
	for _, e := range ev {
		if e.leave {
			c.Leave(e.tid)
		} else {
			c.Run(e.tid, e.start, e.last)
		}
	}
}

// TestMergeChunks: a flow cut into chunks aggregated separately and merged
// in order gives the same report as the whole flow, as parallel decoding
// of trace chunks needs.
func TestMergeChunks(t *testing.T) {
	for _, name := range []string{"loops", "threads"} {
		bin := buildC(t, t.TempDir(), name, name, "-g", "-O0")
		prog, err := Load(bin)
		if err != nil {
			t.Fatal(err)
		}
		var rec flowRecorder
		qemuFlow(t, bin, programInputs(t, name)[0], &rec)
		whole := NewCounts(prog)
		replay(whole, rec.ev)
		want := prog.Report(whole)
		for _, parts := range []int{2, 7} {
			merged := NewCounts(prog)
			n := len(rec.ev)
			for i := 0; i < parts; i++ {
				c := NewCounts(prog)
				replay(c, rec.ev[i*n/parts:(i+1)*n/parts])
				merged.Merge(c)
			}
			got := prog.Report(merged)
			if !reflect.DeepEqual(lineCounts(got), lineCounts(want)) {
				t.Errorf("%s in %d chunks: line counts differ from the whole flow's", name, parts)
				g, w := lineCounts(got), lineCounts(want)
				for k, v := range w {
					if g[k] != v {
						t.Logf("%s: whole %d merged %d", k, v, g[k])
					}
				}
				for k, v := range g {
					if _, ok := w[k]; !ok {
						t.Logf("%s: only merged %d", k, v)
					}
				}
			}
		}
	}
}

func lineCounts(r *Report) map[string]uint64 {
	m := map[string]uint64{}
	for _, f := range r.Files {
		for _, l := range f.Lines {
			m[f.Name+":"+itoa(uint64(l.Number))] = l.Count
		}
		for _, fn := range f.Functions {
			m[f.Name+":"+fn.Name] = fn.Called
		}
	}
	return m
}
