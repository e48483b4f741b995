package pprof

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/perfdata"
)

// lbrBranch is one branch of a synthesised branch stack, by symbol.
type lbrBranch struct {
	from, to string
	mispred  bool
}

// writeLBRData writes a cycles:u perf.data whose samples carry branch
// stacks (no VM here has LBRs): nSamples samples in fib of bin mapped at a
// PIE base, each with the branches of stack. It returns the file.
func writeLBRData(t *testing.T, bin string, nSamples int, stack []lbrBranch) string {
	t.Helper()
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	addr := map[string]uint64{}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			addr[s.Name] = s.Value
		}
	}
	var text *elf.Prog
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			text = p
		}
	}
	if text == nil || addr["fib"] == 0 || addr["main"] == 0 {
		t.Fatal("no text segment, fib or main")
	}
	const base, pid = 0x555555554000, 4242
	at := func(sym string, off uint64) uint64 { return base + addr[sym] + off }

	data := filepath.Join(t.TempDir(), "lbr.data")
	w, err := perfdata.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	attr := perfdata.EventAttr{Type: perfdata.AttrTypeHardware, Config: 0, SamplePeriod: 100003,
		SampleType: perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime |
			perfdata.SampleFormatCPU | perfdata.SampleFormatPeriod | perfdata.SampleFormatBranchStack,
		Flags:            perfdata.AttrFlagSampleIDAll | perfdata.AttrFlagExcludeKernel | perfdata.AttrFlagExcludeHV,
		BranchSampleType: 1<<0 | 1<<3, // PERF_SAMPLE_BRANCH_USER | ANY
	}
	if _, err := w.AddAttr(attr, []uint64{1}, "cycles:u"); err != nil {
		t.Fatal(err)
	}
	sid := func(tm uint64) perfdata.SampleID { return perfdata.SampleID{PID: pid, TID: pid, Time: tm, CPU: 1} }
	vstart := text.Vaddr &^ 0xfff
	recs := []perfdata.Record{
		&perfdata.RecordComm{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscCommExec, SampleID: sid(1000)},
			PID: pid, TID: pid, Comm: "recurse"},
		&perfdata.RecordMmap2{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser, SampleID: sid(1001)},
			PID: pid, TID: pid, Addr: base + vstart, Len: (text.Vaddr+text.Memsz+0xfff)&^0xfff - vstart,
			PgOff: text.Off &^ 0xfff, Prot: 5, Flags: 2, Filename: bin},
	}
	for i := range nSamples {
		var bs []perfdata.BranchEntry
		for j, b := range stack {
			e := perfdata.BranchEntry{From: at(b.from, 4+uint64(j)), To: at(b.to, 0), Flags: 1 << 1}
			if b.mispred {
				e.Flags = 1 << 0
			}
			bs = append(bs, e)
		}
		recs = append(recs, &perfdata.RecordSample{
			RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser, SampleID: sid(2000 + uint64(i))},
			IP:           at("fib", 8), Period: 100003, BranchStack: bs})
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

// TestLBRBranchStacks: every branch stack entry of a sampled recording is a
// branches/count sample with the target as leaf and the source as its
// caller, labelled predicted or mispredicted; the event's own values are
// unchanged; the (source, target) counts equal perf report --branch-stack's.
func TestLBRBranchStacks(t *testing.T) {
	bin := buildShared(t, "recurse")
	stack := []lbrBranch{{"fib", "fib", false}, {"main", "fib", true}, {"fib", "fib", false}, {"is_even", "is_odd", false}}
	const n = 5
	data := writeLBRData(t, bin, n, stack)
	p, err := Convert(data, Options{Granularity: Function})
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, st := range p.SampleType {
		idx[st.Type] = i
	}
	bi, ok := idx["branches"]
	if !ok {
		t.Fatalf("no branches sample type in %v", idx)
	}
	pairs := map[string]int64{}
	labels := map[string]int64{}
	var samples, period int64
	for _, s := range p.Sample {
		samples += s.Value[idx["cycles:u_sample"]]
		period += s.Value[idx["cycles:u_event"]]
		if v := s.Value[bi]; v != 0 {
			if len(s.Location) != 2 {
				t.Fatalf("branch sample with %d locations", len(s.Location))
			}
			to, from := s.Location[0].Line[0].Function.Name, s.Location[1].Line[0].Function.Name
			pairs[from+"->"+to] += v
			labels[strings.Join(s.Label["branch"], ",")] += v
		}
	}
	want := map[string]int64{}
	for _, b := range stack {
		want[b.from+"->"+b.to] += n
	}
	if len(pairs) != len(want) {
		t.Errorf("branch pairs %v, want %v", pairs, want)
	}
	for k, v := range want {
		if pairs[k] != v {
			t.Errorf("branch %s: %d, want %d", k, pairs[k], v)
		}
	}
	if labels["mispredicted"] != n || labels["predicted"] != 3*n {
		t.Errorf("branch labels %v", labels)
	}
	if samples != n || period != n*100003 {
		t.Errorf("cycles:u samples %d period %d, want %d, %d", samples, period, n, n*100003)
	}

	// go tool pprof reads it and shows the branch edges.
	out := filepath.Join(t.TempDir(), "lbr.pb.gz")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if goTool, err := exec.LookPath("go"); err == nil {
		peek, err := exec.Command(goTool, "tool", "pprof", "-peek", "^fib$", "-sample_index=branches", out).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof: %v\n%s", err, peek)
		}
		// Branches to fib: 15, 5 of them from main (pprof leaves out
		// fib's edge to itself).
		if !regexp.MustCompile(`(?m)^\s+15\s.*\| fib$`).Match(peek) || !regexp.MustCompile(`(?m)^\s+5\s.*\|\s+main$`).Match(peek) {
			t.Errorf("go tool pprof -peek fib:\n%s", peek)
		}
	}

	// perf report counts every branch stack entry once.
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed")
	}
	rep, err := exec.Command("perf", "report", "-i", data, "--stdio", "--branch-stack", "-n",
		"--sort", "symbol_from,symbol_to").CombinedOutput()
	if err != nil {
		t.Fatalf("perf report: %v\n%s", err, rep)
	}
	perf := map[string]int64{}
	for _, line := range strings.Split(string(rep), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || strings.HasPrefix(line, "#") {
			continue
		}
		// overhead samples [.] from [.] to
		cnt, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		perf[f[3]+"->"+f[5]] += cnt
	}
	if len(perf) != len(pairs) {
		t.Errorf("perf report --branch-stack: %v, ours %v\n%s", perf, pairs, rep)
	}
	for k, v := range perf {
		if pairs[k] != v {
			t.Errorf("branch %s: ours %d, perf report %d", k, pairs[k], v)
		}
	}
}

// TestLBRFromSampleBranchStack: a branch stack the session hands over in
// sample.Sample is used as it is (no second pass over the file).
func TestLBRFromSampleBranchStack(t *testing.T) {
	bin := buildShared(t, "recurse")
	data := writeLBRData(t, bin, 4, nil)
	s, err := session.Open(data, (&Options{}).session())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := &sampled{b: NewBuilder(Function, nil), m: s.Machine(), events: map[*sample.Event]int{}, brIdx: -1}
	if c.lbr = newLBRReader(s.File()); c.lbr == nil {
		t.Fatal("no branch stack reader for a branch-stack event")
	}
	c.lbr = nil // only what the sample carries
	var fib uint64
	err = s.Run(session.Handler{Sample: func(smp *sample.Sample) {
		fib = smp.IP - 8 // the samples are at fib+8
		smp.BranchStack = []sample.BranchEntry{{From: smp.IP, To: fib, Mispred: true}}
		c.sample(smp)
	}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	bi := len(p.SampleType) - 1
	if p.SampleType[bi].Type != "branches" {
		t.Fatalf("sample types %v", p.SampleType)
	}
	var n int64
	for _, smp := range p.Sample {
		if v := smp.Value[bi]; v != 0 {
			n += v
			if got := smp.Label["branch"]; len(got) != 1 || got[0] != "mispredicted" {
				t.Errorf("branch label %v", got)
			}
			if len(smp.Location) != 2 || smp.Location[0].Line[0].Function.Name != "fib" || smp.Location[1].Line[0].Function.Name != "fib" {
				t.Errorf("branch sample locations %v", smp.Location)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d branches, want 4", n)
	}
}
