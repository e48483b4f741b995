package session

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
)

// straightLine prints an instruction sample with IP ip as straightText
// does.
func straightLine(out *bytes.Buffer, smp *sample.Sample, ip uint64) {
	name := ""
	if smp.IPLoc.Sym != nil {
		name = smp.IPLoc.Sym.Name
	}
	fmt.Fprintf(out, "%d/%d %d %d %d %x %v %s %s\n", smp.PID, smp.TID, smp.CPU, smp.Time, smp.Period, ip,
		smp.IPLoc.HasMap, smp.IPLoc.DSO, name)
}

// straightRun checks an IPRun call and prints its samples; it returns
// how many.
func straightRun(out *bytes.Buffer, smp *sample.Sample, ips []uint64) (int, error) {
	if smp.IP != ips[0] {
		return 0, fmt.Errorf("IPRun: sample IP %#x, first of the run %#x", smp.IP, ips[0])
	}
	for _, ip := range ips {
		straightLine(out, smp, ip)
	}
	return len(ips), nil
}

// straightSeg is a RunSegment printing as straightText does; n counts
// the samples it had in runs (for all the segments of a session).
type straightSeg struct {
	buf bytes.Buffer
	out *bytes.Buffer
	n   *atomic.Int64
	err *atomic.Value
}

func (g *straightSeg) Sample(smp *sample.Sample)     { straightLine(&g.buf, smp, smp.IP) }
func (g *straightSeg) Error(e *sample.ErrorLine)     { printError(&g.buf, e) }
func (g *straightSeg) Len() int                      { return g.buf.Len() }
func (g *straightSeg) Emit(from, to int)             { g.out.Write(g.buf.Bytes()[from:to]) }
func (g *straightSeg) Reset()                        { g.buf.Reset() }
func (g *straightSeg) IPRunOK(ev *sample.Event) bool { return true }
func (g *straightSeg) IPRun(smp *sample.Sample, ips []uint64) {
	n, err := straightRun(&g.buf, smp, ips)
	if err != nil {
		g.err.Store(err)
	}
	g.n.Add(int64(n))
}

// straightText decodes data with --itrace=i0nse and prints every
// instruction sample (thread, CPU, time, IP, the IP's map address and
// symbol) and error, through Handler.IPRun where the decode walks
// straight runs, and with fork through the RunSegments of parallel
// chunks (Handler.Fork); it returns the text, how many samples IPRun had
// and how many the segments had.
func straightText(t *testing.T, data string, workers int, fork bool) ([]byte, int, int) {
	t.Helper()
	s := openItrace(t, data, "i0nse", Options{Workers: workers})
	var out bytes.Buffer
	var n int
	h := Handler{
		Sample: func(smp *sample.Sample) { straightLine(&out, smp, smp.IP) },
		Error:  func(e *sample.ErrorLine) { printError(&out, e) },
		IPRun: func(smp *sample.Sample, ips []uint64) {
			k, err := straightRun(&out, smp, ips)
			if err != nil {
				t.Fatal(err)
			}
			n += k
		},
		IPRunOK: func(*sample.Event) bool { return true },
	}
	var segN atomic.Int64
	var segErr atomic.Value
	if fork {
		h.Fork = func() Segment { return &straightSeg{out: &out, n: &segN, err: &segErr} }
	}
	if err := s.Run(h); err != nil {
		t.Fatal(err)
	}
	if err, _ := segErr.Load().(error); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), n, int(segN.Load())
}

// sameStraight compares the samples delivered with straight runs and
// without (straightOff), at each number of workers; workers < 0 means -j
// -workers with the chunks decoded ahead formatted on the workers
// (Handler.Fork). It returns how many samples straight runs had, and how
// many of them the chunks' segments had.
func sameStraight(t *testing.T, data string, workers ...int) (total, inSegs int) {
	t.Helper()
	for _, j := range workers {
		fork := j < 0
		j = max(j, -j)
		straightOff = true
		want, none, segNone := straightText(t, data, j, fork)
		straightOff = false
		got, n, segN := straightText(t, data, j, fork)
		if none != 0 || segNone != 0 {
			t.Fatalf("-j %d: straight runs walked with straightOff", j)
		}
		total += n + segN
		inSegs += segN
		if !bytes.Equal(got, want) {
			t.Fatalf("%s -j %d (fork %v): straight runs differ%s", filepath.Base(data), j, fork, firstDiff(got, want))
		}
	}
	t.Logf("%d samples in straight runs, %d in parallel chunks' segments", total, inSegs)
	return total, inSegs
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
	total, inSegs := 0, 0
	add := func(n, segs int) { total, inSegs = total+n, inSegs+segs }
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*", "*.data"))
	for _, f := range files {
		if !hasAux(t, f) {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) { add(sameStraight(t, f, 1, -2)) })
	}
	cfgs := timingConfigs
	recorded := false // a recording subtest ran (they skip under -short or without gcc)
	for _, prog := range []string{"mix-dyn-O2", "threads-dyn-O2"} {
		for _, c := range cfgs {
			t.Run(prog+"/"+c.name, func(t *testing.T) {
				data := recordPTOpt(t, prog, c.wo)
				recorded = true
				add(sameStraight(t, data, 1, 2, -4))
				add(sameStraight(t, corruptAux(t, data, 0x55, 8, 0.4), 1, -2))
			})
		}
	}
	if recorded && (total == 0 || inSegs == 0) {
		t.Fatalf("%d samples in straight runs, %d of them in parallel chunks' segments", total, inSegs)
	}
	t.Logf("%d samples in straight runs, %d of them in parallel chunks' segments", total, inSegs)
}
