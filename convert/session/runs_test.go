package session

import (
	"fmt"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
)

// openItrace opens data with --itrace=itrace and the options o (its
// Itrace and BuildIDDir set here); the session is closed when t ends.
func openItrace(t *testing.T, data, itrace string, o Options) *Session {
	t.Helper()
	it, err := sample.ParseItrace(itrace)
	if err != nil {
		t.Fatal(err)
	}
	o.Itrace, o.BuildIDDir = it, "-"
	s, err := Open(data, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// threadKey identifies a thread's sequence of runs.
type threadKey struct{ pid, tid int32 }

// flowByThread decodes data with --itrace=cre (samples and errors delivered
// in between) and returns the flow, thread by thread, as lines: through
// Handler.Block (full and lean lines), or Handler.Runs (lean: LeanRuns),
// and the number of conditional runs with RunTaken.
func flowByThread(t *testing.T, data string, runs, lean bool) (full, leanOut map[threadKey][]string, taken int) {
	s := openItrace(t, data, "cre", Options{})
	full, leanOut = map[threadKey][]string{}, map[threadKey][]string{}
	h := Handler{Sample: func(*sample.Sample) {}, Error: func(*sample.ErrorLine) {}}
	add := func(k threadKey, cpu int32, tm uint64, start, end, n uint64, flags uint32, to, cyc uint64) {
		full[k] = append(full[k], fmt.Sprintf("%d %d %x-%x %d %#x %x %d", cpu, tm, start, end, n, flags, to, cyc))
		leanOut[k] = append(leanOut[k], fmt.Sprintf("%x-%x %d %#x", start, end, n, flags&^sample.FlagTraceEnd))
	}
	if runs {
		h.LeanRuns = lean
		h.Runs = func(b *RunBatch) {
			if len(b.Runs) == 0 || len(b.Runs) > runBatch || lean && len(b.Marks) != 0 {
				t.Fatalf("batch of %d runs, %d marks", len(b.Runs), len(b.Marks))
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
				// RunTaken: a taken conditional, or another branch
				// that went somewhere.
				branch := r.Flags&sample.FlagBranch != 0
				cond := r.Flags&sample.FlagConditional != 0
				switch isTaken := r.Flags&RunTaken != 0; {
				case isTaken && (!branch || r.To == 0):
					t.Fatalf("RunTaken on run %x-%x flags %#x to %x", r.Start, r.End, r.Flags, r.To)
				case !isTaken && branch && !cond && r.To != 0:
					t.Fatalf("no RunTaken on run %x-%x flags %#x to %x", r.Start, r.End, r.Flags, r.To)
				case isTaken && cond:
					taken++
				}
				add(threadKey{b.PID, b.TID}, b.CPU, tm, r.Start, r.End, uint64(r.NInsn), uint32(r.Flags&^RunTaken), to, cyc)
			}
		}
	} else {
		h.Block = func(b *Block) {
			add(threadKey{b.PID, b.TID}, b.CPU, b.Time, b.Start, b.End, b.NInsn, b.Flags, b.To, b.Cycles)
		}
	}
	if err := s.Run(h); err != nil {
		t.Fatal(err)
	}
	return full, leanOut, taken
}

// sameFlow fails unless got has want's lines, thread by thread.
func sameFlow(t *testing.T, what string, got, want map[threadKey][]string) int {
	t.Helper()
	n := 0
	for k, w := range want {
		g := got[k]
		n += len(w)
		if len(g) != len(w) {
			t.Errorf("%s, thread %v: %d runs, %d blocks", what, k, len(g), len(w))
		}
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("%s, thread %v, run %d:\n runs:   %s\n blocks: %s", what, k, i, g[i], w[i])
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d threads with runs, %d with blocks", what, len(got), len(want))
	}
	return n
}

// TestRuns checks that Handler.Runs says what Handler.Block says, thread
// by thread: the same runs with the same flags, successors, times and
// cycles, while samples and errors are delivered in between; and that
// LeanRuns gives the same runs and branch kinds.
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
			data := recordPTOpt(t, c.prog, record.WriteOptions{PT: c.cfg, PerCPU: c.perCPU})
			want, wantLean, _ := flowByThread(t, data, false, false)
			got, _, taken := flowByThread(t, data, true, false)
			n := sameFlow(t, "Runs", got, want)
			if taken == 0 {
				t.Error("no taken conditional")
			}
			_, lean, _ := flowByThread(t, data, true, true)
			sameFlow(t, "LeanRuns", lean, wantLean)
			t.Logf("%d runs in %d threads identical to the blocks (%d taken conditionals)", n, len(want), taken)
		})
	}
}
