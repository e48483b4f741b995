package session

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
)

// straightText decodes data with --itrace=i0nse and prints every
// instruction sample (thread, CPU, time, IP, the IP's map address and
// symbol) and error, through Handler.IPRun where the decode walks
// straight runs; it returns the text and how many samples IPRun had.
func straightText(t *testing.T, data string, workers int) ([]byte, int) {
	t.Helper()
	s := openItrace(t, data, "i0nse", Options{Workers: workers})
	var out bytes.Buffer
	line := func(smp *sample.Sample, ip uint64) {
		name := ""
		if smp.IPLoc.Sym != nil {
			name = smp.IPLoc.Sym.Name
		}
		fmt.Fprintf(&out, "%d/%d %d %d %d %x %v %s %s\n", smp.PID, smp.TID, smp.CPU, smp.Time, smp.Period, ip,
			smp.IPLoc.HasMap, smp.IPLoc.DSO, name)
	}
	var n int
	h := Handler{
		Sample: func(smp *sample.Sample) { line(smp, smp.IP) },
		Error:  func(e *sample.ErrorLine) { printError(&out, e) },
		IPRun: func(smp *sample.Sample, ips []uint64) {
			if smp.IP != ips[0] {
				t.Fatalf("IPRun: sample IP %#x, first of the run %#x", smp.IP, ips[0])
			}
			n += len(ips)
			for _, ip := range ips {
				line(smp, ip)
			}
		},
		IPRunOK: func(*sample.Event) bool { return true },
	}
	if err := s.Run(h); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), n
}

// sameStraight compares the samples delivered with straight runs and
// without (straightOff), at each number of workers.
func sameStraight(t *testing.T, data string, workers ...int) int {
	t.Helper()
	total := 0
	for _, j := range workers {
		straightOff = true
		want, none := straightText(t, data, j)
		straightOff = false
		got, n := straightText(t, data, j)
		if none != 0 {
			t.Fatalf("-j %d: straight runs walked with straightOff", j)
		}
		total += n
		if !bytes.Equal(got, want) {
			t.Fatalf("%s -j %d: straight runs differ%s", filepath.Base(data), j, firstDiff(got, want))
		}
	}
	return total
}

// timingConfigs are recordings' timing settings, per thread and per CPU.
var timingConfigs = []struct {
	name string
	wo   record.WriteOptions
}{
	{"untimed", record.WriteOptions{PT: synth.Config{PSBPeriod: 512}}},
	{"mtc", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, MTCPeriod: 3}}},
	{"cyc", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true, CYC: true}}},
	{"cpus", record.WriteOptions{PT: synth.Config{TSC: true, MTC: true}, PerCPU: true, CPUs: 3, Quantum: 40}},
}

// TestStraightSameSamples checks that straight runs (straight.go) deliver
// exactly the instruction samples and errors of the state-by-state
// decode, on the PT recordings of testdata and on test programs recorded
// per thread and per CPU with several timing settings, whole and damaged.
func TestStraightSameSamples(t *testing.T) {
	defer func(old bool) { straightOff = old }(straightOff)
	total := 0
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*", "*.data"))
	for _, f := range files {
		if !hasAux(t, f) {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) { total += sameStraight(t, f, 1, 2) })
	}
	cfgs := timingConfigs
	for _, prog := range []string{"mix-dyn-O2", "threads-dyn-O2"} {
		for _, c := range cfgs {
			t.Run(prog+"/"+c.name, func(t *testing.T) {
				data := recordPTOpt(t, prog, c.wo)
				total += sameStraight(t, data, 1, 2)
				total += sameStraight(t, corruptAux(t, data, 0x55, 8, 0.4), 1)
			})
		}
	}
	if total == 0 {
		t.Fatal("no straight run walked")
	}
	t.Logf("%d samples in straight runs", total)
}
