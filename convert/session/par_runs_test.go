package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/ksynth"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// decodeRuns decodes data with --itrace=e as pprof and gcov do, and
// returns every run of Handler.Runs (lean or not) with its thread, CPU,
// time and cycles, and every error line, as text in the order the handler
// got them (batch boundaries left out: they may differ), with the chunk
// statistics.
func decodeRuns(t *testing.T, data string, workers int, lean bool) ([]byte, [2]int) {
	t.Helper()
	s := openItrace(t, data, "e", Options{Workers: workers})
	var out bytes.Buffer
	h := Handler{
		LeanRuns: lean,
		Error:    func(e *sample.ErrorLine) { printError(&out, e) },
		Runs: func(b *RunBatch) {
			if len(b.Runs) == 0 || len(b.Runs) > runBatch {
				t.Fatalf("batch of %d runs", len(b.Runs))
			}
			tm := b.Time
			for _, r := range b.Runs {
				var cyc uint64
				if r.Mark != 0 {
					tm, cyc = b.Marks[r.Mark-1].Time, b.Marks[r.Mark-1].Cycles
				}
				if lean {
					tm = 0 // lean runs have only their batch's time
				}
				fmt.Fprintf(&out, "%d/%d %d %d %x-%x %d %#x %x %d\n", b.PID, b.TID, b.CPU, tm, r.Start, r.End, r.NInsn, r.Flags, r.To, cyc)
			}
		},
	}
	if err := s.Run(h); err != nil {
		t.Fatal(err)
	}
	var st [2]int
	if s.pt != nil {
		st = s.pt.parStats
	}
	return out.Bytes(), st
}

// byThread sorts decodeRuns' lines by thread (stably: a thread's runs
// stay in order, as do the errors), since threads' runs may come in
// another order.
func byThread(out []byte) []byte {
	lines := bytes.SplitAfter(out, []byte("\n"))
	key := func(l []byte) string {
		if i := bytes.IndexByte(l, ' '); i > 0 && bytes.IndexByte(l[:i], '/') > 0 {
			return string(l[:i])
		}
		return "" // an error line
	}
	slices.SortStableFunc(lines, func(a, b []byte) int { return strings.Compare(key(a), key(b)) })
	return bytes.Join(lines, nil)
}

// checkRunWorkers compares the runs of each number of workers with one
// worker's, thread by thread; some chunks must have been decoded ahead.
func checkRunWorkers(t *testing.T, data string, lean bool, workers ...int) {
	t.Helper()
	checkRunWorkersPar(t, data, lean, true, workers...)
}

func checkRunWorkersPar(t *testing.T, data string, lean, par bool, workers ...int) {
	t.Helper()
	checkSame(t, fmt.Sprintf("runs (lean %v)", lean), par, func(j int) ([]byte, [2]int) {
		out, st := decodeRuns(t, data, j, lean)
		return byThread(out), st
	}, workers...)
}

// TestParallelRuns checks that parallel decoding delivers the sequential
// decode's runs (Handler.Runs, lean or not: every run, successor, flag,
// time and cycle count, in order, and the errors between them): a chunk's
// decoder fills batches that are handed over in order, and the run
// pending at a chunk's start is resolved by what that decoder saw first.
func TestParallelRuns(t *testing.T) {
	defer func(n int) { chunkBytes = n }(chunkBytes)
	cases := append(slices.Clone(parCases), parCase{"noretcomp", "mix-dyn-O2", synth.Config{PSBPeriod: 256, NoRetComp: true}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := recordPT(t, c.prog, c.pt)
			for _, lean := range []bool{false, true} {
				chunkBytes = 1
				checkRunWorkers(t, data, lean, 2, 4)
				chunkBytes = 300
				checkRunWorkers(t, data, lean, 2)
				// (Chunks after the damage may all be redone.)
				bad := corruptAux(t, data, 0x55, 8, 0.4)
				checkRunWorkersPar(t, bad, lean, false, 2)
				parRedo = redoEveryOther()
				checkRunWorkers(t, data, lean, 2)
				parRedo = func(uint64) bool { return false }
			}
		})
	}
}

// TestParallelRunsCYC: with CYC packets full runs carry cycles, which the
// chunks' snapshots do not cover: they decode sequentially. Lean runs,
// which have none, may decode in parallel (but the CYC timing state
// differs at most chunk starts, so most chunks are decoded again).
func TestParallelRunsCYC(t *testing.T) {
	data := recordPT(t, "mix-dyn-O2", synth.Config{PSBPeriod: 256, TSC: true, MTC: true, CYC: true})
	defer func(n int) { chunkBytes = n }(chunkBytes)
	chunkBytes = 1
	if _, st := decodeRuns(t, data, 2, false); st[0] != 0 {
		t.Errorf("runs with cycles: %d chunks taken", st[0])
	}
	checkRunWorkersPar(t, data, true, false, 2)
}

// TestParallelRunsPerCPU: per-CPU queues decode runs in chunks too where
// their CPU runs one process, each chunk following its CPU's thread
// changes by its timestamps (pt_cpus.go); a thread's runs from several
// CPUs reach the handler as in a sequential decode, and a run waiting for
// its successor where its CPU's thread changes keeps none. Recordings of
// 2 and 3 CPUs with migrating threads, user-only and kernel+user (whose
// kallsyms lacks __switch_to, so that sync_switch stays off and the
// thread changes fall between the kernel's branches).
func TestParallelRunsPerCPU(t *testing.T) {
	defer func(n int) { chunkBytes = n }(chunkBytes)
	timed := synth.Config{PSBPeriod: 512, TSC: true, MTC: true, MTCPeriod: 3}
	k, err := ksynth.Load(testprog.Path(t, "kernel"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, prog string
		wo         record.WriteOptions
	}{
		{"threads-2cpus", "threads-static-O2", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 150, Seed: 3}},
		{"mix-3cpus", "mix-dyn-O2", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 3, Quantum: 100, Seed: 4}},
		{"kernel-threads-2cpus", "threads-dyn-O2", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 150, Seed: 5,
			Kernel: k, KernelSeed: 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := recordPTOpt(t, c.prog, c.wo)
			if c.wo.Kernel != nil {
				hideSymbol(t, filepath.Join(data, "kcore_dir", "kallsyms"), "__switch_to")
			}
			for _, lean := range []bool{false, true} {
				chunkBytes = 1
				checkRunWorkers(t, data, lean, 2, 3)
				// With 600-byte chunks the output must still be the
				// sequential one, but whether some chunk can be taken
				// depends on where this recording's thread changes fall
				// (threads' futex wake-ups under the emulator), which
				// differs from run to run: 5 runs of the threads programs in 44 under load
				// had none. The 1-byte chunks above must take some.
				chunkBytes = 600
				checkRunWorkersPar(t, data, lean, !strings.HasPrefix(c.prog, "threads-"), 2)
			}
		})
	}
}

// TestParallelRunsPerCPUDamaged: the runs and errors of per-CPU queues
// whose trace is damaged, decoded in chunks, are the sequential decode's.
// Two ways they were not:
//   - an error sets the queue's time without a stop, past thread changes
//     of its CPU; runDecoder stops at the next state, where the session
//     puts the CPU's next thread, so a chunk's decoder must take that state
//     too (not pass it in a bulk walk, which it did where it found the
//     code's edges cached: it depended on the chunks decoded before) and
//     change its thread there;
//   - a CYC packet read from damaged data in a trace without them moves
//     the time from the CYC reference (the last CBR change), which a
//     chunk's decoder does not know (ptperf's CYCRef).
//
// The recording differs a little from run to run, so the damage is put at
// ten places: in 3 of them one of these showed.
func TestParallelRunsPerCPUDamaged(t *testing.T) {
	defer func(n int) { chunkBytes = n }(chunkBytes)
	chunkBytes = 300
	wo := record.WriteOptions{PT: synth.Config{TSC: true, MTC: true}, PerCPU: true, CPUs: 3, Quantum: 40}
	data := recordPTOpt(t, "mix-dyn-O2", wo)
	for at := 0.05; at < 1; at += 0.1 {
		bad := corruptAux(t, data, 0x55, 8, at)
		for _, lean := range []bool{false, true} {
			checkRunWorkersPar(t, bad, lean, false, 2, 4)
		}
	}
}

// hideSymbol removes the symbol name from a kallsyms file.
func hideSymbol(t *testing.T, path, name string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if f := bytes.Fields(l); len(f) >= 3 && string(f[2]) == name {
			continue
		}
		out = append(out, l...)
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
