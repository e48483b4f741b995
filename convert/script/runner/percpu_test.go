package runner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// perCPU rewrites a timed per-thread recording as a per-CPU one: the AUX
// stream of the i-th thread becomes CPU i's, every record carries its
// thread's CPU, and SWITCH records (in when the thread starts tracing, out
// before it exits) tell which thread runs on each CPU.
func perCPU(t *testing.T, data string) string {
	t.Helper()
	f, err := perfdata.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := filepath.Join(t.TempDir(), "percpu.data")
	if d := os.Getenv("PERFPT_DUMP"); d != "" {
		out = filepath.Join(d, "percpu.data")
	}
	w, err := perfdata.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	attrs := map[*perfdata.Attr]*perfdata.Attr{}
	for _, a := range f.Attrs {
		ea := a.EventAttr
		ea.SampleType |= perfdata.SampleFormatCPU
		ea.Flags |= perfdata.AttrFlagContextSwitch
		na, err := w.AddAttr(ea, a.IDs, a.Name)
		if err != nil {
			t.Fatal(err)
		}
		attrs[a] = na
	}
	// First pass: which CPU each traced thread gets.
	cpuOf := map[int32]uint32{}
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		if r, ok := rs.Record.(*perfdata.RecordAuxtrace); ok {
			if _, seen := cpuOf[r.TID]; !seen {
				cpuOf[r.TID] = r.Idx
			}
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	rs = f.Records(perfdata.FileOrder)
	for rs.Next() {
		r := rs.Record
		c := r.Common()
		if c.Attr != nil {
			c.Attr = attrs[c.Attr]
		}
		if cpu, ok := cpuOf[c.TID]; ok {
			c.CPU = cpu
		}
		c.Format |= perfdata.SampleFormatCPU
		switch rr := r.(type) {
		case *perfdata.RecordAuxtraceInfo:
			info, err := perfdata.ParseIntelPTInfo(rr.Priv)
			if err != nil {
				t.Fatal(err)
			}
			info.PerCPUMmaps = 1
			info.HaveSchedSwitch = 2
			rr.Priv = info.Priv()
		case *perfdata.RecordAuxtrace:
			rr.CPU = int32(cpuOf[rr.TID])
			rr.TID = -1
		case *perfdata.RecordItraceStart:
			if err := w.WriteRecord(r); err != nil {
				t.Fatal(err)
			}
			sw := &perfdata.RecordSwitch{RecordCommon: *c}
			sw.Type = perfdata.RecordTypeSwitch
			sw.Misc = 0
			r = sw
		case *perfdata.RecordExit:
			if _, ok := cpuOf[rr.TID]; ok {
				sw := &perfdata.RecordSwitch{RecordCommon: *c}
				sw.Type = perfdata.RecordTypeSwitch
				sw.Misc = perfdata.MiscSwitchOut
				if err := w.WriteRecord(sw); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if feats, err := f.Features(); err == nil {
		w.Features = *feats
		w.Features.AuxtraceIndex = nil
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPTPerCPU compares per-CPU recordings with SWITCH records.
func TestPTPerCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	opt := record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}}}
	names := []string{"mix-dyn-O0", "threads-static-O2"}
	if os.Getenv("PERFPT_FULL") != "" {
		names = append(names, "threads-dyn-O0")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data := perCPU(t, recordPT(t, testprog.Path(t, name), opt))
			compare(t, data)
			compare(t, data, "--ns")
			compare(t, data, "--itrace=b", "-F", "+flags,+addr")
			compare(t, data, "--itrace=i0ns", "-F", "comm,tid,ip,sym,symoff,dso")
			compare(t, data, "-C", "1")
		})
	}
}
