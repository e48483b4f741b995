package pprof

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// stackCounts sums a profile's instructions per call stack (function
// names, leaf first) and thread, whatever the CPU.
func stackCounts(p *profile.Profile) map[string]int64 {
	m := map[string]int64{}
	for _, s := range p.Sample {
		var b strings.Builder
		for _, l := range s.Location {
			for _, ln := range l.Line {
				if ln.Function != nil {
					b.WriteString(ln.Function.Name)
				}
				b.WriteByte(';')
			}
			if len(l.Line) == 0 {
				b.WriteString("?;")
			}
		}
		b.WriteString(strings.Join(s.Label["comm"], ","))
		for _, v := range s.NumLabel["tid"] {
			b.WriteString(" " + string(rune('0'+v%10)))
		}
		m[b.String()] += s.Value[0]
	}
	return m
}

// TestPerCPUStacks: one emulated flow written per thread and on 1, 2 and 4
// CPUs (threads migrating) gives the same call stacks and counts at -j 1
// and 2: a thread's runs from several CPUs' queues are put together in
// time order, decoded in sequence or in chunks. It pins a decision: a
// migrating thread keeps its whole call stack in the profile, where perf
// report flushes it at each migration and loses the callers (package
// doc).
func TestPerCPUStacks(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	// threads: several threads, decoded in sequence; hot and mix: one
	// thread, whose CPUs' queues decode in parallel chunks at -j 2.
	for _, prog := range [][]string{{"threads-static-O2"}, {"hot-static-O2", "20"}, {"mix-dyn-O2"}} {
		t.Run(prog[0], func(t *testing.T) { perCPUStacks(t, prog[0], prog[1:]...) })
	}
}

func perCPUStacks(t *testing.T, name string, args ...string) {
	bin := testprog.Path(t, name)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	devnull, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	defer devnull.Close()
	opt := record.Options{Output: filepath.Join(dir, "pt.data")}
	opt.BuildIDDir = "-"
	opt.Trace.Stdout = devnull
	res, err := record.Emulate(ctx, append([]string{bin}, args...), opt)
	if err != nil {
		testprog.EmulateFailed(t, bin, err)
	}
	timed := synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
	var want map[string]int64
	for _, cpus := range []int{0, 1, 2, 4} {
		wo := record.WriteOptions{PT: timed, BuildIDDir: "-"}
		if cpus > 0 {
			wo.PerCPU, wo.CPUs, wo.Quantum, wo.Seed = true, cpus, 200, 5
		}
		data := filepath.Join(dir, "w.data")
		if _, err := record.WriteTrace(data, res.Trace.Trace, wo); err != nil {
			t.Fatal(err)
		}
		for _, j := range []int{1, 2} {
			p, err := Convert(data, Options{Workers: j})
			if err != nil {
				t.Fatal(err)
			}
			got := stackCounts(p)
			if want == nil {
				want = got
				continue
			}
			var diff []string
			for k, v := range want {
				if got[k] != v {
					diff = append(diff, k)
				}
			}
			for k := range got {
				if _, ok := want[k]; !ok {
					diff = append(diff, k)
				}
			}
			sort.Strings(diff)
			if len(diff) > 0 {
				t.Errorf("%d CPUs -j %d: %d stacks differ from the per-thread recording's, e.g. %q: %d vs %d", cpus, j, len(diff), diff[0], got[diff[0]], want[diff[0]])
			}
		}
	}
}
