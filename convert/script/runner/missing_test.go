package runner

import (
	"strings"
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestPTHiddenBinaries decodes every emulated recording again with its
// binaries hidden (--symfs to an empty folder: no file, no build-id
// cache): perf reports a DSO's failure only until its data is marked as
// failed (intel_pt_walk_next_insn), then walks on silently, resyncing at
// each IP packet; perfpt must print perf's lines, untimed and timed, at
// every -j.
func TestPTHiddenBinaries(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	empty := t.TempDir()
	symfs := "--symfs=" + empty
	for _, tc := range []struct {
		name string
		opt  record.Options
	}{
		{"untimed", record.Options{}},
		{"mtc", record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, name := range ptPrograms {
				t.Run(name, func(t *testing.T) {
					var args []string
					if strings.HasPrefix(name, "forkexec") {
						args = []string{testprog.Path(t, "tiny")}
					}
					data := recordPT(t, testprog.Path(t, name), tc.opt, args...)
					compare(t, data, symfs)
					compare(t, data, symfs, "--itrace=be")
					compare(t, data, symfs, "--itrace=i0ns", "-F", "comm,tid,ip,sym,symoff,dso")
					compare(t, data, symfs, "--itrace=i0ns", "-F", "ip,sym")
				})
			}
		})
	}
}
