package pprof

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/convert/session"
)

// stackKey names a sample's stack by function names, leaf first.
func stackKey(s *profile.Sample) string {
	var b strings.Builder
	for _, l := range s.Location {
		for _, ln := range l.Line {
			b.WriteString(ln.Function.Name)
			b.WriteByte(';')
		}
	}
	return b.String()
}

// TestPTCPULabelPerSample replays a recording's runs as if the thread had
// moved from CPU 0 to CPU 1 halfway: every sample carries the CPU its
// instructions ran on, each CPU's instructions add up to its runs', and
// the call stacks are those of the unsplit replay (the stack survives the
// move).
func TestPTCPULabelPerSample(t *testing.T) {
	if testing.Short() {
		t.Skip("records a program")
	}
	bin := buildShared(t, "recurse")
	data, _ := emulatePT(t, bin, "8", "2")
	o := Options{Granularity: Function, Workers: 1}
	s, err := session.Open(data, o.session())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The batches, copied: the session reuses them.
	var batches []session.RunBatch
	if err := s.Run(session.Handler{Runs: func(rb *session.RunBatch) {
		c := *rb
		c.Runs, c.Marks = slices.Clone(rb.Runs), slices.Clone(rb.Marks)
		batches = append(batches, c)
	}}); err != nil {
		t.Fatal(err)
	}
	if len(batches) < 4 {
		t.Fatalf("%d batches", len(batches))
	}
	replay := func(cpuOf func(i int) int32) *profile.Profile {
		a := newAgg(s, &o)
		for i := range batches {
			rb := batches[i]
			rb.CPU = cpuOf(i)
			a.Runs(&rb)
		}
		p, err := profileOf(s, a, Function)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	half := len(batches) / 2
	want := [2]int64{}
	for i, rb := range batches {
		for _, r := range rb.Runs {
			want[min(i/half, 1)] += int64(r.NInsn)
		}
	}
	split := replay(func(i int) int32 { return int32(min(i/half, 1)) })
	whole := replay(func(int) int32 { return -1 })

	got := [2]int64{}
	splitStacks, wholeStacks := map[string]int64{}, map[string]int64{}
	for _, smp := range split.Sample {
		c := smp.NumLabel["cpu"]
		if len(c) != 1 || c[0] < 0 || c[0] > 1 {
			t.Fatalf("sample with cpu label %v", c)
		}
		got[c[0]] += smp.Value[0]
		splitStacks[stackKey(smp)] += smp.Value[0]
	}
	if got != want {
		t.Errorf("instructions per CPU %v, want %v", got, want)
	}
	for _, smp := range whole.Sample {
		if c, ok := smp.NumLabel["cpu"]; ok {
			t.Fatalf("unknown CPU labelled %v", c)
		}
		wholeStacks[stackKey(smp)] += smp.Value[0]
	}
	if len(splitStacks) != len(wholeStacks) {
		t.Errorf("%d stacks split by CPU, %d unsplit", len(splitStacks), len(wholeStacks))
	}
	for k, v := range wholeStacks {
		if splitStacks[k] != v {
			t.Errorf("stack %s: %d instructions split by CPU, %d unsplit", k, splitStacks[k], v)
		}
	}
}
