package pprof

import (
	"strings"
	"testing"
)

// TestTracepointSampleTypes converts tracepoint and uprobe recordings:
// each event becomes its own sample types (NAME_sample and NAME_event,
// counts per call stack), named from the tracing data, in pipe mode too.
func TestTracepointSampleTypes(t *testing.T) {
	for _, c := range []struct {
		file string
		want []string
	}{
		{"callchain.data", []string{"sched:sched_switch_sample", "sched:sched_wakeup_event", "syscalls:sys_enter_openat_sample"}},
		{"probes-g.data", []string{"probe_perfpt:compute_sample", "probe_perfpt:compute_ret__return_sample", "probe_perfpt:main_sample"}},
		{"pipe.data", []string{"sched:sched_process_exec_sample", "syscalls:sys_exit_openat_sample"}},
	} {
		p, err := Convert("../../testdata/tracepoints/"+c.file, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if err := p.CheckValid(); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		have := map[string]bool{}
		for _, st := range p.SampleType {
			have[st.Type] = true
			if strings.Contains(st.Type, "unknown") {
				t.Errorf("%s: sample type %q", c.file, st.Type)
			}
		}
		for _, w := range c.want {
			if !have[w] {
				t.Errorf("%s: no sample type %s (have %v)", c.file, w, have)
			}
		}
		var total int64
		for _, s := range p.Sample {
			for i, v := range s.Value {
				if p.SampleType[i].Type == c.want[0] {
					total += v
				}
			}
			if len(s.Location) == 0 && c.file != "pipe.data" {
				t.Errorf("%s: a sample without a call stack", c.file)
				break
			}
		}
		if total == 0 {
			t.Errorf("%s: no %s counted", c.file, c.want[0])
		}
	}
}
