package session_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/linediff"

	"github.com/perfpt/perfpt/convert/script/runner"
	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
)

// needTools skips without the tools a perf comparison needs.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("compares with perf")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
}

// emulateOpt records a test program with the emulated recorder and the
// given write options (PT config, PerCPU), or skips.
func emulateOpt(t *testing.T, name string, wo record.WriteOptions) string {
	t.Helper()
	needTools(t, "perf", "gcc", "make")
	return session.RecordPTOpt(t, name, wo)
}

// perfCompare runs perf script and perfpt's runner with the same
// arguments (--itrace=..., -F ..., --ns, -j N for perfpt only) and fails
// on the first differing line.
func perfCompare(t *testing.T, data string, workers int, args ...string) {
	t.Helper()
	want, err := exec.Command("perf", append([]string{"script", "-i", data}, args...)...).Output()
	if err != nil {
		t.Fatalf("perf script %v: %v", args, err)
	}
	cfg := runner.Config{Input: data, Workers: workers}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-F":
			i++
			cfg.Fields = append(cfg.Fields, args[i])
		case a == "--ns":
			cfg.Nanosecs = true
		case strings.HasPrefix(a, "--symfs="):
			cfg.Symfs = a[len("--symfs="):]
		case strings.HasPrefix(a, "--itrace"):
			cfg.ItraceSet = true
			cfg.Itrace = strings.TrimPrefix(strings.TrimPrefix(a, "--itrace"), "=")
		default:
			t.Fatalf("perfCompare: argument %q", a)
		}
	}
	var got, stderr bytes.Buffer
	if err := runner.Run(cfg, &got, &stderr); err != nil {
		t.Fatalf("perfpt script %v: %v\n%s", args, err, stderr.String())
	}
	if bytes.Equal(got.Bytes(), want) {
		t.Logf("%v -j %d: %d lines identical (%d with IPC)", args, workers, bytes.Count(want, []byte{'\n'}),
			bytes.Count(want, []byte("IPC: ")))
		return
	}
	r := linediff.Compare(got.String(), string(want))
	if os.Getenv("PERFPT_KEEP") != "" {
		os.WriteFile("/tmp/perfcmp.got", got.Bytes(), 0o644)
		os.WriteFile("/tmp/perfcmp.want", want, 0o644)
		if b, err := os.ReadFile(data); err == nil {
			os.WriteFile("/tmp/perfcmp.data", b, 0o644)
		}
	}
	t.Fatalf("perfpt script %v -j %d: %d of %d lines differ; first, %s", args, workers, r.N, r.Lines, r.String("perfpt", "perf"))
}

// TestCYCPerf compares, on recordings with CYC packets (and with MTC
// only, where perf estimates cycles from MTC and CBR), the IPC perf
// reports on branch and instruction samples, and the timestamps that CYC
// packets refine.
func TestCYCPerf(t *testing.T) {
	cfgs := []struct {
		name   string
		cfg    synth.Config
		perCPU bool
	}{
		{"cyc", synth.Config{TSC: true, MTC: true, MTCPeriod: 3, CYC: true}, false},
		{"cyc-noretcomp", synth.Config{TSC: true, MTC: true, CYC: true, NoRetComp: true}, false},
		{"mtc", synth.Config{TSC: true, MTC: true, MTCPeriod: 3}, false},
		{"percpu-cyc", synth.Config{TSC: true, MTC: true, MTCPeriod: 3, CYC: true}, true},
	}
	progs := []string{"tiny", "mix-static-O2"}
	if os.Getenv("PERFPT_FULL") != "" {
		progs = append(progs, "mix-dyn-O0", "threads-static-O2")
	}
	for _, c := range cfgs {
		for _, prog := range progs {
			t.Run(c.name+"/"+prog, func(t *testing.T) {
				data := emulateOpt(t, prog, record.WriteOptions{PT: c.cfg, PerCPU: c.perCPU})
				perfCompare(t, data, 1)
				perfCompare(t, data, 1, "--ns")
				perfCompare(t, data, 1, "--itrace=b", "-F", "+ipc,+flags", "--ns")
				perfCompare(t, data, 1, "--itrace=i100i", "-F", "+ipc")
				perfCompare(t, data, 1, "--itrace=cr", "-F", "+ipc")
				perfCompare(t, data, 1, "--itrace=bA", "-F", "+ipc")
				perfCompare(t, data, 1, "--itrace=i10iA", "-F", "+ipc")
				// Options.IPC: decoded sequentially at -j 2 too.
				perfCompare(t, data, 2, "--itrace=i0ns", "-F", "+ipc")
			})
		}
	}
}

// TestPTWTSXPerf compares --itrace=w (PTWRITE), x (transactions) and the
// branch flags inside transactions on the recorder's PTWRITE/TSX fixtures
// (testdata/ptwtsx: PTW with and without FUP, CYC, per-CPU and per-thread).
func TestPTWTSXPerf(t *testing.T) {
	needTools(t, "perf")
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "ptwtsx"))
	if err != nil {
		t.Fatal(err)
	}
	symfs := "--symfs=" + filepath.Join(dir, "symfs")
	for _, name := range []string{"ptw-fup", "ptw-cyc", "tsx", "rtmroll"} {
		t.Run(name, func(t *testing.T) {
			data := filepath.Join(dir, name+".perf.data")
			if _, err := os.Stat(data); err != nil {
				t.Fatalf("committed fixture missing: %v", err)
			}
			for _, inv := range [][]string{
				{"--itrace=w"}, {"--itrace=x"}, {"--itrace=w", "--ns"}, {"--itrace=x", "--ns"},
				{"--itrace=wxb", "-F", "+flags,+addr"}, {"--itrace=wx", "-F", "+flags,+ipc"},
				{"--itrace=bi0ns", "-F", "+flags"}, {"--itrace=bi100i", "-F", "+flags,+ipc"}, {},
			} {
				perfCompare(t, data, 1, append(inv, symfs)...)
			}
		})
	}
}

// TestRefusedInsnPerf: code that perf 6.1's instruction decoder refuses
// (SSE4a's EXTRQ and INSERTQ, which libipt decodes) ends perf's walk with
// "instruction trace error type 1 ... code 5: Failed to get instruction"
// and a resync, and perfpt's walk the same way, in every output (we
// decoded on, as libipt does: 23 of 115 default lines differed, 230 of
// 1159 with --itrace=i1i). Per-thread and per-CPU, sequential and in
// parallel chunks.
func TestRefusedInsnPerf(t *testing.T) {
	needTools(t, "perf")
	if b, err := os.ReadFile("/proc/cpuinfo"); err != nil || !bytes.Contains(b, []byte(" sse4a")) {
		t.Skip("the CPU has no SSE4a (AMD's EXTRQ and INSERTQ) to run the test program")
	}
	for _, perCPU := range []bool{false, true} {
		t.Run(fmt.Sprintf("percpu=%v", perCPU), func(t *testing.T) {
			data := emulateOpt(t, "sse4a", record.WriteOptions{PerCPU: perCPU})
			for _, j := range []int{1, 2} {
				perfCompare(t, data, j)
				perfCompare(t, data, j, "--itrace=i1ie", "-F", "+insn,+insnlen,+flags")
				perfCompare(t, data, j, "--itrace=b", "-F", "+flags,+addr")
				perfCompare(t, data, j, "--itrace=cr", "-F", "+callindent")
			}
		})
	}
}
