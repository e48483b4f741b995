package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
)

// withBulk runs f with the edge-graph path on or off.
func withBulk(on bool, f func()) {
	defer func(old bool) { bulkOff = old }(bulkOff)
	bulkOff = !on
	f()
}

// sameWithBulk decodes data as pprof and gcov do (decodeRuns: every run,
// successor, flag, time and cycle count, and the errors between them) with
// the edge-graph path and without it, at each number of workers, and
// fails where they differ.
func sameWithBulk(t *testing.T, data string, workers ...int) {
	t.Helper()
	for _, j := range workers {
		for _, lean := range []bool{false, true} {
			var want, got []byte
			var walked uint64
			withBulk(false, func() { want, _ = decodeRunsBulk(t, data, j, lean) })
			withBulk(true, func() { got, walked = decodeRunsBulk(t, data, j, lean) })
			if walked == 0 && j == 1 {
				t.Logf("%s: the edge-graph path walked nothing", filepath.Base(data))
			}
			bulkWalked += walked
			if !bytes.Equal(got, want) {
				t.Fatalf("%s -j %d lean %v: the edge-graph path differs%s", filepath.Base(data), j, lean, firstDiff(got, want))
			}
		}
	}
}

// TestBulkSameRuns checks that the edge-graph path (bulk.go) delivers
// exactly the runs and errors of the step-by-step walk, on the PT
// recordings of testdata and on the test programs recorded with every
// timing and return-compression setting, per thread and per CPU, whole and
// damaged.
func TestBulkSameRuns(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*", "*.data"))
	for _, f := range files {
		if !hasAux(t, f) {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) { sameWithBulk(t, f, 1, 2) })
	}
	cfgs := []struct {
		name string
		wo   record.WriteOptions
	}{
		{"untimed", record.WriteOptions{PT: synth.Config{PSBPeriod: 512}}},
		{"noretcomp", record.WriteOptions{PT: synth.Config{NoRetComp: true}}},
		{"tsc", record.WriteOptions{PT: synth.Config{TSC: true}}},
		{"mtc", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}}},
		{"cyc", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, CYC: true}}},
		{"percpu", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true}, PerCPU: true}},
		{"cpus", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true}, PerCPU: true, CPUs: 3, Quantum: 40}},
	}
	defer func() { t.Logf("%d instructions walked in bulk", bulkWalked) }()
	for _, prog := range []string{"mix-dyn-O2", "mix-static-O0", "threads-dyn-O2"} {
		for _, c := range cfgs {
			t.Run(prog+"/"+c.name, func(t *testing.T) {
				data := recordPTOpt(t, prog, c.wo)
				sameWithBulk(t, data, 1, 2)
				bad := corruptAux(t, data, 0x55, 8, 0.4)
				sameWithBulk(t, bad, 1)
				bad = corruptAux(t, data, 0x00, 3, 0.7)
				sameWithBulk(t, bad, 1)
			})
		}
	}
}

// bulkWalked adds up the instructions walked in bulk by sameWithBulk.
var bulkWalked uint64

// decodeRunsBulk is decodeRuns, returning the instructions walked in bulk.
func decodeRunsBulk(t *testing.T, data string, workers int, lean bool) ([]byte, uint64) {
	t.Helper()
	s := openItrace(t, data, "e", Options{Workers: workers})
	var out bytes.Buffer
	h := Handler{
		LeanRuns: lean,
		Error:    func(e *sample.ErrorLine) { printError(&out, e) },
		Runs: func(b *RunBatch) {
			tm := b.Time
			for _, r := range b.Runs {
				var cyc uint64
				if r.Mark != 0 {
					tm, cyc = b.Marks[r.Mark-1].Time, b.Marks[r.Mark-1].Cycles
				}
				fmt.Fprintf(&out, "%d/%d %d %d %x-%x %d %#x %x %d\n", b.PID, b.TID, b.CPU, tm, r.Start, r.End, r.NInsn, r.Flags, r.To, cyc)
			}
		},
	}
	if err := s.Run(h); err != nil {
		t.Fatal(err)
	}
	var n uint64
	if s.pt != nil {
		n = s.pt.bulkInsns
	}
	return out.Bytes(), n
}

// hasAux reports whether the recording f has AUX data (Intel PT).
func hasAux(t *testing.T, f string) bool {
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(b, []byte("intel_pt"))
}
