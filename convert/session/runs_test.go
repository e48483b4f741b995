package session

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/testprog"

	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/record/synth"
)

// TestRuns checks that Handler.Runs says what Handler.Block says, thread
// by thread: the same runs with the same flags, successors, times and
// cycles, while samples and errors are delivered in between.
func TestRuns(t *testing.T) {
	for _, c := range []struct {
		prog   string
		cfg    synth.Config
		perCPU bool
	}{
		{"threads-static-O2", synth.Config{TSC: true, MTC: true, CYC: true}, false},
		{"threads-dyn-O2", synth.Config{TSC: true, MTC: true}, true},
		{"mix-dyn-O2", synth.Config{}, false},
	} {
		t.Run(c.prog, func(t *testing.T) {
			var data string
			if c.perCPU {
				data = recordPerCPU(t, c.prog, c.cfg)
			} else {
				data = recordPT(t, c.prog, c.cfg)
			}
			type key struct{ pid, tid int32 }
			wantLean := map[key][]string{}
			run := func(runs bool) (map[key][]string, int) {
				it, err := script.ParseItrace("cre")
				if err != nil {
					t.Fatal(err)
				}
				s, err := Open(data, Options{Itrace: it, BuildIDDir: "-"})
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				out := map[key][]string{}
				taken := 0
				h := Handler{Sample: func(*script.Sample) {}, Error: func(*script.ErrorLine) {}}
				if runs {
					h.Runs = func(b *RunBatch) {
						if len(b.Runs) == 0 || len(b.Runs) > blockBatch {
							t.Fatalf("batch of %d runs", len(b.Runs))
						}
						tm := b.Time
						for _, r := range b.Runs {
							var cyc uint64
							if r.Mark != 0 {
								m := b.Marks[r.Mark-1]
								tm, cyc = m.Time, m.Cycles
							}
							to := r.To
							if r.Flags == 0 && to != 0 && to > r.End {
								to = r.End + 1 // Block's mark of a run continued in the next map
							}
							if r.Flags&RunTaken != 0 {
								taken++
							}
							k := key{b.PID, b.TID}
							out[k] = append(out[k], fmt.Sprintf("%d %d %x-%x %d %#x %x %d", b.CPU, tm, r.Start, r.End,
								r.NInsn, r.Flags&^RunTaken, to, cyc))
						}
					}
				} else {
					h.Block = func(b *Block) {
						k := key{b.PID, b.TID}
						out[k] = append(out[k], fmt.Sprintf("%d %d %x-%x %d %#x %x %d", b.CPU, b.Time, b.Start, b.End,
							b.NInsn, b.Flags, b.To, b.Cycles))
						wantLean[k] = append(wantLean[k], fmt.Sprintf("%x-%x %d %#x", b.Start, b.End, b.NInsn,
							b.Flags&^script.FlagTraceEnd))
					}
				}
				if err := s.Run(h); err != nil {
					t.Fatal(err)
				}
				return out, taken
			}
			want, _ := run(false)
			got, taken := run(true)
			n := 0
			for k, w := range want {
				g := got[k]
				n += len(w)
				if len(g) != len(w) {
					t.Errorf("thread %v: %d runs, %d blocks", k, len(g), len(w))
				}
				for i := range min(len(g), len(w)) {
					if g[i] != w[i] {
						t.Fatalf("thread %v, run %d:\n runs:   %s\n blocks: %s", k, i, g[i], w[i])
					}
				}
			}
			if len(got) != len(want) {
				t.Errorf("%d threads with runs, %d with blocks", len(got), len(want))
			}
			if taken == 0 {
				t.Error("no taken conditional")
			}
			lean := runLean(t, data)
			for k, w := range wantLean {
				g := lean[k]
				if len(g) != len(w) {
					t.Fatalf("LeanRuns, thread %v: %d runs, %d blocks", k, len(g), len(w))
				}
				for i := range g {
					if g[i] != w[i] {
						t.Fatalf("LeanRuns, thread %v, run %d: %s, block %s", k, i, g[i], w[i])
					}
				}
			}
			t.Logf("%d runs in %d threads identical to the blocks (%d taken conditionals)", n, len(want), taken)
		})
	}
}

// recordPerCPU records a test program in per-CPU mode (SWITCH records, one
// queue per CPU), or skips.
func recordPerCPU(t *testing.T, name string, pt synth.Config) string {
	t.Helper()
	if testing.Short() {
		t.Skip("records programs")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, name+".data")
	opt := record.Options{Output: data, WriteOptions: record.WriteOptions{PT: pt, PerCPU: true}}
	opt.BuildIDDir = filepath.Join(dir, "debug")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := record.Emulate(ctx, []string{testprog.Path(t, name)}, opt); err != nil {
		t.Skipf("emulated recording of %s failed: %v", name, err)
	}
	return data
}

// runLean returns the LeanRuns of data by thread: range, count and flags.
func runLean(t *testing.T, data string) map[struct{ pid, tid int32 }][]string {
	it, err := script.ParseItrace("cre")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(data, Options{Itrace: it, BuildIDDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := map[struct{ pid, tid int32 }][]string{}
	h := Handler{Sample: func(*script.Sample) {}, LeanRuns: true, Runs: func(b *RunBatch) {
		if len(b.Marks) != 0 {
			t.Fatalf("LeanRuns batch with %d marks", len(b.Marks))
		}
		for _, r := range b.Runs {
			k := struct{ pid, tid int32 }{b.PID, b.TID}
			out[k] = append(out[k], fmt.Sprintf("%x-%x %d %#x", r.Start, r.End, r.NInsn, r.Flags))
		}
	}}
	if err := s.Run(h); err != nil {
		t.Fatal(err)
	}
	return out
}
