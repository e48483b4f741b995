package runner

import (
	"testing"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// quickInvocations are perf script command lines in the decoder's quick
// modes: hop (q: no TNT walked, IPs from TIP, FUP and PSB+) and leap (qq:
// from PSB to PSB).
var quickInvocations = [][]string{
	{"--itrace=iq"},
	{"--itrace=beq", "-F", "+flags,+addr"},
	{"--itrace=i100iq", "-F", "comm,tid,ip,sym,symoff,dso,period"},
	{"--itrace=crq", "-F", "+callindent"},
	{"--itrace=iqq", "-F", "+period"},
	{"--itrace=beqq", "-F", "+flags,+addr"},
}

// TestPTQuick compares perf script's quick modes (--itrace=q, qq) with
// perfpt's on untimed, timed and per-CPU recordings, and after corrupted
// trace bytes.
func TestPTQuick(t *testing.T) {
	t.Run("untimed", func(t *testing.T) { runPT(t, record.Options{}, quickInvocations) })
	timed := [][]string{{"--itrace=iq", "--ns"}, {"--itrace=bqq", "-F", "+flags,+addr", "--ns"}, {"--itrace=ipq", "--ns"}}
	t.Run("mtc", func(t *testing.T) {
		runPT(t, record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}}}, timed)
	})
	t.Run("percpu", func(t *testing.T) {
		runPT(t, record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{TSC: true}, PerCPU: true}}, timed)
	})
	// A PSB+ every 256 bytes gives leap mode places to land.
	leap := [][]string{{"--itrace=iqq", "--ns"}, {"--itrace=beqq", "-F", "+flags,+addr", "--ns"}, {"--itrace=iq", "--ns"}}
	t.Run("psb256", func(t *testing.T) {
		runPT(t, record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{PSBPeriod: 256, TSC: true}}}, leap)
	})
	t.Run("corrupted", func(t *testing.T) {
		if testing.Short() {
			t.Skip("records programs")
		}
		need(t, "perf", "gcc", "make")
		data := recordPT(t, testprog.Path(t, deterministicProg), record.Options{WriteOptions: record.WriteOptions{PT: synth.Config{TSC: true}}}, "1")
		for _, c := range []struct {
			fill byte
			n    int
			at   float64
		}{{0xff, 7, 0.5}, {0x00, 64, 0.3}, {0x55, 12, 0.7}} {
			bad := corrupt(t, data, c.fill, c.n, c.at)
			compare(t, bad, "--itrace=ieq", "--ns")
			compare(t, bad, "--itrace=beqq", "-F", "+flags,+addr", "--ns")
		}
	})
}
