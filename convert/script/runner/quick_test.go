package runner

import (
	"encoding/binary"
	"os"
	"path/filepath"
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
	// A recording whose config disables TNT packets (tnt_dis): perf
	// decodes it in hop mode whatever --itrace says (intel_pt_alloc_queue),
	// and counts periods as usual unless q is given.
	t.Run("tnt-dis", func(t *testing.T) {
		if testing.Short() {
			t.Skip("records programs")
		}
		need(t, "perf", "gcc", "make")
		data := tntDisabled(t, recordPT(t, testprog.Path(t, deterministicProg), record.Options{}, "1"))
		compare(t, data, "--itrace=i100i", "-F", "+period")
		compare(t, data, "--itrace=be", "-F", "+flags,+addr")
		compare(t, data, "--itrace=cr", "-F", "+callindent")
		compare(t, data, "--itrace=i1iq", "-F", "+period")
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

// tntDisabled copies the recording data with the tnt_dis bit (bit 55) set
// in the config of its first event, the intel_pt one (the trace keeps its
// TNT packets: perf, seeing the bit, decodes without them).
func tntDisabled(t *testing.T, data string) string {
	t.Helper()
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	// perf_file_header: magic, size, attr_size, attrs {offset, size}.
	attrs := binary.LittleEndian.Uint64(b[24:])
	if attrs+16 > uint64(len(b)) || binary.LittleEndian.Uint32(b[attrs:]) != 8 {
		t.Fatalf("%s: the first event is not intel_pt (type 8)", data)
	}
	cfg := binary.LittleEndian.Uint64(b[attrs+8:])
	binary.LittleEndian.PutUint64(b[attrs+8:], cfg|1<<55)
	out := filepath.Join(t.TempDir(), "tnt-dis.data")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
