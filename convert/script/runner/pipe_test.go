package runner

import "testing"

// TestPipeMode compares perfpt script with perf script on recordings
// written to a pipe (perf record -o -): the attrs arrive as records, so
// perf checks each new type's fields as it comes (process_attr: no CPU
// column without PERF_SAMPLE_CPU), keeps callchains on, and sizes the
// event column from the attrs seen when it prints the first name. The
// group lines name the first event as perf script does on a pipe.
func TestPipeMode(t *testing.T) {
	compareRecorded(t, true, []recorded{
		{"callchain", []string{"-g", "-e", "cpu-clock", "-c", "100000"}, [][]string{
			nil, {"-G"}, {"-F", "comm,tid,time,event,ip,sym"}, {"--show-task-events", "--show-mmap-events", "-F", "tid,time,ip"},
			// The header block, then the features as their records go by.
			{"--header"}, {"--header-only"}, {"-I", "-G"}, {"--header", "-I"},
		}},
		{"no-cpu", []string{"-e", "cpu-clock", "-e", "task-clock", "-c", "100000"}, [][]string{
			nil, {"-F", "+period,+event"}, {"-F", "tid,time,event,ip,dso"},
		}},
		// The group lines: perf script reading a pipe names the first
		// event by its attr ("cpu-clock:uH"), the others by their
		// recorded names.
		{"groups", []string{"-e", "{cpu-clock:u,page-faults:k}", "-e", "{task-clock/name=foo/,minor-faults/name=bar/}", "-c", "100000"}, [][]string{
			{"-I", "-G"}, {"--header-only"},
		}},
	})
}
