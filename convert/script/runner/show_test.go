package runner

import "testing"

// TestShowEvents records with perf the side-band records that
// --show-*-events print (context switches, namespaces, a system-wide
// recording with per-CPU switch records and lost records) and compares
// perfpt script with perf script on them, in perf's order among the
// samples and in file order with --show-round-events.
func TestShowEvents(t *testing.T) {
	compareRecorded(t, false, []recorded{
		{"switch", []string{"--switch-events", "-e", "cpu-clock", "-c", "100000"}, [][]string{
			{"--show-switch-events"}, {"--show-task-events", "-F", "comm,tid,time"},
			{"--header"}, {"--header-only", "-I"}, {"-I"},
			{"--show-switch-events", "--show-task-events", "--show-round-events", "-G"},
			{"--show-lost-events", "--show-namespace-events", "--show-cgroup-events", "--show-bpf-events"},
		}},
		{"namespaces", []string{"--namespaces", "-e", "cpu-clock", "-c", "100000", "-g"}, [][]string{
			{"--show-namespace-events"}, {"--show-namespace-events", "--show-task-events", "-F", "tid,time,event,ip"},
		}},
		// Whatever else runs on the machine is in it: no symbols.
		{"system-wide", []string{"-a", "--switch-events", "-e", "cpu-clock", "-c", "200000"}, [][]string{
			{"--show-switch-events", "-F", "pid,tid,cpu,time,event,ip"},
			{"--show-switch-events", "-C", "1", "-F", "tid,cpu,time,period"},
			{"--show-lost-events", "-F", "tid,time,ip"},
			{"--show-switch-events", "--show-round-events", "-F", "tid,cpu,time,ip"},
		}},
	})
}
