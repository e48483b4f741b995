package runner

import (
	"bytes"
	"debug/elf"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// lbrRing simulates a CPU's LBR in call-stack mode: a ring of depth
// registers, a call pushes its branch at the next register (the oldest is
// overwritten once the ring is full), a return pops the top one; a sample
// reads the valid registers from the top down, with the top's register
// index (hw_idx).
type lbrRing struct {
	regs  []perfdata.BranchEntry
	top   int // register of the top entry
	valid int
}

func (r *lbrRing) call(from, to uint64) {
	r.top = (r.top + 1) % len(r.regs)
	r.regs[r.top] = perfdata.BranchEntry{From: from, To: to}
	r.valid = min(r.valid+1, len(r.regs))
}

func (r *lbrRing) ret() {
	if r.valid > 0 {
		r.top = (r.top + len(r.regs) - 1) % len(r.regs)
		r.valid--
	}
}

func (r *lbrRing) stack() ([]perfdata.BranchEntry, int64) {
	out := make([]perfdata.BranchEntry, r.valid)
	for k := range out {
		out[k] = r.regs[(r.top-k+len(r.regs))%len(r.regs)]
	}
	return out, int64(r.top)
}

// writeStitchLBR writes a --call-graph lbr recording (branch stacks with
// hw_idx, a CPU with lbrDepth LBR registers in HEADER_CPU_PMU_CAPS) of a
// thread whose calls go deeper than the LBR holds: it descends through
// ten functions of bin, samples at each level, climbs back up part way
// and descends into other functions, so that consecutive stacks share
// registers and perf's stitching can rebuild the calls the LBR lost.
func writeStitchLBR(t *testing.T, bin string, lbrDepth int) string {
	t.Helper()
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var text *elf.Prog
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			text = p
		}
	}
	ef.Close()
	// Functions of some size, by address, to play the callers.
	var fns []elf.Symbol
	seen := map[uint64]bool{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size >= 64 && !seen[s.Value] && s.Value >= text.Vaddr && s.Value < text.Vaddr+text.Memsz {
			seen[s.Value] = true
			fns = append(fns, s)
		}
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].Value < fns[j].Value })
	if len(fns) < 16 {
		t.Fatalf("%s: only %d functions", bin, len(fns))
	}
	fns = fns[:16]

	const pid = 778
	data := filepath.Join(t.TempDir(), "lbr-stitch.data")
	w, err := perfdata.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	w.Features.CPUPMUCaps = []perfdata.PMUCap{{Name: "branches", Value: strconv.Itoa(lbrDepth)}}
	w.Features.Set(perfdata.FeatCPUPMUCaps)
	attr := perfdata.EventAttr{Type: perfdata.AttrTypeHardware, SamplePeriod: 100003,
		SampleType: perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime |
			perfdata.SampleFormatPeriod | perfdata.SampleFormatCallchain | perfdata.SampleFormatBranchStack,
		Flags: perfdata.AttrFlagSampleIDAll | perfdata.AttrFlagExcludeKernel | perfdata.AttrFlagExcludeHV,
		// PERF_SAMPLE_BRANCH_USER | CALL_STACK | NO_FLAGS | NO_CYCLES |
		// HW_INDEX, as perf record --call-graph lbr sets it
		BranchSampleType: 1<<0 | perfdata.BranchSampleCallStack | 1<<14 | 1<<15 | perfdata.BranchSampleHwIndex,
	}
	if _, err := w.AddAttr(attr, []uint64{1}, "cycles:u"); err != nil {
		t.Fatal(err)
	}
	tm := uint64(1000)
	sid := func() perfdata.SampleID { tm++; return perfdata.SampleID{PID: pid, TID: pid, Time: tm} }
	recs := []perfdata.Record{
		&perfdata.RecordComm{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscCommExec, SampleID: sid()},
			PID: pid, TID: pid, Comm: "stitcher"},
		&perfdata.RecordMmap2{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser, SampleID: sid()},
			PID: pid, TID: pid, Addr: text.Vaddr &^ 0xfff, Len: (text.Vaddr+text.Memsz+0xfff)&^0xfff - text.Vaddr&^0xfff,
			PgOff: text.Off &^ 0xfff, Prot: 5, Flags: 2, Filename: bin},
	}
	ring := &lbrRing{regs: make([]perfdata.BranchEntry, lbrDepth), top: lbrDepth - 1}
	var stack []int // the functions called, outermost first
	cur := 0        // the running function
	callSite := func(f int) uint64 { return fns[f].Value + 0x10 + uint64(len(stack)) }
	call := func(f int) {
		ring.call(callSite(cur), fns[f].Value)
		stack = append(stack, cur)
		cur = f
	}
	ret := func() {
		ring.ret()
		cur, stack = stack[len(stack)-1], stack[:len(stack)-1]
	}
	sampleHere := func() {
		bs, hw := ring.stack()
		ip := fns[cur].Value + 0x20
		recs = append(recs, &perfdata.RecordSample{
			RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser, SampleID: sid()},
			IP:           ip, Period: 100003, Callchain: []uint64{perfdata.CallchainUser, ip},
			BranchStack: bs, BranchHwIdx: hw})
	}
	for f := 1; f <= 9; f++ {
		call(f)
		sampleHere()
	}
	for range 3 {
		ret()
		sampleHere()
	}
	for f := 10; f <= 14; f++ {
		call(f)
		sampleHere()
	}
	for len(stack) > 2 {
		ret()
		sampleHere()
	}
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			t.Fatalf("%T: %v", r, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestStitchLBRMatchesPerf: perf script --stitch-lbr on a synthesised
// --call-graph lbr recording whose calls go deeper than the 4 LBR
// registers: chains grow past what one stack holds with the calls
// stitched from earlier stacks (has_stitched_lbr), and perfpt prints
// what perf prints, with and without the option.
func TestStitchLBRMatchesPerf(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join(unwindDir, "cwork-static"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	data := writeStitchLBR(t, bin, 4)
	longest := func(out string) int {
		n := 0
		for _, smp := range strings.Split(strings.TrimSpace(out), "\n\n") {
			n = max(n, strings.Count(smp, "\n"))
		}
		return n
	}
	var plain, stitched bytes.Buffer
	if err := Run(Config{Input: data, Workers: 1}, &plain, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if err := Run(Config{Input: data, Workers: 1, StitchLBR: true}, &stitched, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	// A stack holds the sampled ip, the top branch's target and the four
	// branches' sources; stitching adds the calls below.
	if p, s := longest(plain.String()), longest(stitched.String()); p != 5 || s < 9 {
		t.Errorf("longest chain %d entries without stitching, %d with; want 5 and 9 or more", p, s)
	}
	need(t, "perf")
	for _, args := range [][]string{{"--stitch-lbr"}, {"--stitch-lbr", "-F", "ip,sym"}, nil} {
		compare(t, data, args...)
	}
}
