package runner

import (
	"bytes"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfpt/perfpt/internal/buildidcache"
	"github.com/perfpt/perfpt/perfdata"
)

// unwindDir holds recordings made with perf record --call-graph dwarf and
// the programs they sampled (see its README).
const unwindDir = "../../../testdata/unwind"

// TestDwarfUnwindMatchesPerf compares perfpt script with perf script on
// --call-graph dwarf recordings: user stacks unwound from the sampled
// registers and stack, kernel frames first, inlined frames, signal
// frames, cut stacks, C++ (virtual calls, templates, exceptions thrown
// through frames, and samples taken inside libstdc++'s and libgcc's
// exception unwinder) and Rust, names demangled as perf demangles them.
func TestDwarfUnwindMatchesPerf(t *testing.T) {
	need(t, "perf")
	buildidcache.Home(t, unwindDir, "cwork-dyn", "cwork-static", "cppwork", "cppthrow", "cclone", "rustwork")
	for _, data := range []string{"cwork-dyn.data", "cwork-static.data", "cwork-small.data", "cppwork.data",
		"cppthrow.data", "cclone.data", "rustwork.data"} {
		for _, args := range [][]string{
			nil,
			{"-G"},
			{"-F", "ip,sym"},
			{"--no-inline"},
			{"--max-stack", "4"},
			// source lines of chain entries: an inlined-frame entry's
			// own (addr2line's record), others looked up when printed
			{"-F", "+srcline"},
			{"-G", "-F", "+srcline"},
		} {
			t.Run(data+" "+filepath.Join(args...), func(t *testing.T) {
				compare(t, filepath.Join(unwindDir, data), args...)
			})
		}
	}
}

// TestDwarfNotFirstMatchesPerf records cwork-dyn with perf, the DWARF
// event second: perf record then records no read-only mappings (only the
// first event asks for data mmaps), its unwinder cannot read .eh_frame_hdr
// and .eh_frame through them and stops after the sampled ip, which perfpt
// matches (machine's ThreadSpace.reach). With the DWARF event first the
// stacks are whole. Recorded here, compared with perf script on the same
// files: no corpus needed.
func TestDwarfNotFirstMatchesPerf(t *testing.T) {
	need(t, "perf")
	bin, err := filepath.Abs(filepath.Join(unwindDir, "cwork-dyn"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		events []string
	}{
		{"dwarf second", []string{"-e", "cpu-clock", "-e", "page-faults/call-graph=dwarf,stack-size=4096/"}},
		{"dwarf second cpu-clock", []string{"-e", "page-faults", "-e", "cpu-clock/call-graph=dwarf,stack-size=4096/"}},
		{"dwarf first", []string{"-e", "page-faults/call-graph=dwarf,stack-size=4096/", "-e", "cpu-clock"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "perf.data")
			perfRecord(t, append(append([]string{"-q", "-F", "500", "-o", data}, c.events...), bin, "3000000")...)
			compare(t, data)
			compare(t, data, "-F", "ip,sym")
		})
	}
}

// TestDebugFrameOnlyMatchesPerf records cwork built without unwind tables
// (gcc -fno-asynchronous-unwind-tables -fno-unwind-tables -g: its
// functions' CFI is in .debug_frame only) with --call-graph dwarf: perf
// 6.1 as installed is built without libunwind's dwarf_find_debug_frame,
// so it unwinds them with libunwind's heuristics (frames skipped, a
// garbage last frame), as perfpt does (machine's unwindTable). Recorded
// here, compared with perf script on the same files.
func TestDebugFrameOnlyMatchesPerf(t *testing.T) {
	need(t, "perf", "gcc")
	dir := t.TempDir()
	src, err := filepath.Abs(filepath.Join(unwindDir, "cwork.c"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "cwork-df")
	if out, err := exec.Command("gcc", "-O2", "-g", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-pthread", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "perf.data")
	perfRecord(t, "-q", "-F", "500", "--call-graph", "dwarf,4096", "-o", data, bin, "3000000")
	compare(t, data)
}

// perfRecord runs perf record with args; it skips the test when perf may
// not record here.
func perfRecord(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("perf", append([]string{"record"}, args...)...).CombinedOutput(); err != nil {
		if bytes.Contains(out, []byte("perf_event_paranoid")) || bytes.Contains(out, []byte("ermission")) {
			t.Skipf("perf record may not record here: %v\n%s", err, out)
		}
		t.Fatalf("perf record %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// execRecords are the COMM and MMAP2 records of process pid running bin,
// whose code segment is text, as perf record writes them at its exec.
func execRecords(pid int32, comm, bin string, text *elf.Prog) []perfdata.Record {
	sid := func(tm uint64) perfdata.SampleID { return perfdata.SampleID{PID: pid, TID: pid, Time: tm} }
	return []perfdata.Record{
		&perfdata.RecordComm{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscCommExec, SampleID: sid(1000)},
			PID: pid, TID: pid, Comm: comm},
		&perfdata.RecordMmap2{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser, SampleID: sid(1001)},
			PID: pid, TID: pid, Addr: text.Vaddr &^ 0xfff, Len: (text.Vaddr+text.Memsz+0xfff)&^0xfff - text.Vaddr&^0xfff,
			PgOff: text.Off &^ 0xfff, Prot: 5, Flags: 2, Filename: bin},
	}
}

// writeLBRCallStack writes a perf.data like perf record --call-graph lbr
// makes (CALLCHAIN with the user context marker, an LBR call stack in
// BRANCH_STACK) for the static cwork program, sampled in leaf called
// through recurse, worker, main and __libc_start_call_main: nSamples
// samples, the k-th with its innermost k%4 LBR entries only.
func writeLBRCallStack(t *testing.T, bin string, nSamples int) string {
	t.Helper()
	ef, syms := openELF(t, bin)
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
	calls := []string{"leaf", "recurse", "worker", "main", "__libc_start_call_main"}
	for _, c := range calls {
		if addr[c] == 0 {
			t.Fatalf("%s: no symbol %s", bin, c)
		}
	}
	const pid = 777
	data := filepath.Join(t.TempDir(), "lbr-callstack.data")
	w, err := perfdata.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	attr := perfdata.EventAttr{Type: perfdata.AttrTypeHardware, SamplePeriod: 100003,
		SampleType: perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime |
			perfdata.SampleFormatPeriod | perfdata.SampleFormatCallchain | perfdata.SampleFormatBranchStack,
		Flags: perfdata.AttrFlagSampleIDAll | perfdata.AttrFlagExcludeKernel | perfdata.AttrFlagExcludeHV,
		// PERF_SAMPLE_BRANCH_USER | CALL_STACK | NO_FLAGS | NO_CYCLES, as perf record sets it
		BranchSampleType: 1<<0 | perfdata.BranchSampleCallStack | 1<<14 | 1<<15,
	}
	if _, err := w.AddAttr(attr, []uint64{1}, "cycles:u"); err != nil {
		t.Fatal(err)
	}
	sid := func(tm uint64) perfdata.SampleID { return perfdata.SampleID{PID: pid, TID: pid, Time: tm} }
	recs := execRecords(pid, "cwork-static", bin, text)
	for i := range nSamples {
		ip := addr["leaf"] + 0x10 + uint64(i%3)
		var bs []perfdata.BranchEntry
		for j := 0; j < i%4+1 && j+1 < len(calls); j++ {
			// the call in calls[j+1] (at a made-up offset) to calls[j]
			bs = append(bs, perfdata.BranchEntry{From: addr[calls[j+1]] + 0x9 + uint64(j), To: addr[calls[j]]})
		}
		recs = append(recs, &perfdata.RecordSample{
			RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser, SampleID: sid(2000 + uint64(i))},
			IP:           ip, Period: 100003, Callchain: []uint64{perfdata.CallchainUser, ip}, BranchStack: bs})
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

// TestLBRCallStackMatchesPerf: perf's resolve_lbr_callchain_sample (the
// first branch's target, then every branch's source) on a synthesised
// --call-graph lbr recording; the chain follows the known call sequence,
// and perfpt prints what perf prints.
func TestLBRCallStackMatchesPerf(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join(unwindDir, "cwork-static"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	data := writeLBRCallStack(t, bin, 8)
	var out, stderr bytes.Buffer
	if err := Run(Config{Input: data, Workers: 1, Fields: []string{"ip,sym"}}, &out, &stderr); err != nil {
		t.Fatal(err, stderr.String())
	}
	// The fourth sample (four LBR entries) shows leaf, the first branch's
	// target (the kernel part is the user context marker alone), then the
	// four branch sources.
	samples := strings.Split(strings.TrimSpace(out.String()), "\n\n")
	if len(samples) != 8 {
		t.Fatalf("%d samples:\n%s", len(samples), out.String())
	}
	var names []string
	for _, l := range strings.Split(samples[3], "\n") {
		if f := strings.Fields(l); len(f) >= 2 {
			names = append(names, f[1])
		}
	}
	want := []string{"leaf", "recurse", "worker", "main", "__libc_start_call_main"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("chain %q, want %q", names, want)
	}
	need(t, "perf")
	for _, args := range [][]string{nil, {"-F", "ip,sym"}, {"-G"}} {
		compare(t, data, args...)
	}
}

// BenchmarkScriptDwarf prints the --call-graph dwarf recordings of
// testdata/unwind in this process (unwinding every sample, inlined frames
// included), their binaries laid out as a build-id cache; cwork-small and
// rustwork have no kernel frames, so that what it measures is the
// DWARF-specific work (CFI, unwinding, addr2line's answers) and not the
// loading of kallsyms. BenchmarkDwarfVsPerf compares with perf.
func BenchmarkScriptDwarf(b *testing.B) {
	buildidcache.Home(b, unwindDir, "cwork-dyn", "cwork-static", "cppwork", "rustwork")
	for _, data := range []string{"cwork-small.data", "rustwork.data", "cwork-dyn.data", "cppwork.data"} {
		b.Run(data, func(b *testing.B) {
			b.ReportAllocs()
			cfg := Config{Input: filepath.Join(unwindDir, data), Workers: 1}
			for i := 0; i < b.N; i++ {
				if err := Run(cfg, io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDwarfVsPerf runs perf script and perfpt script, and perf report
// and perfpt pprof, as processes on the --call-graph dwarf recordings of
// testdata/unwind, each under perf stat, and reports the CPU time of each
// (task-clock, which counts perf's addr2line processes too) and the
// ratios perf/perfpt, measured in the same run, interleaved.
func BenchmarkDwarfVsPerf(b *testing.B) {
	for _, tool := range []string{"perf", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s not installed", tool)
		}
	}
	buildidcache.Home(b, unwindDir, "cwork-dyn", "cwork-static", "cppwork", "rustwork")
	dir := b.TempDir()
	bin := filepath.Join(dir, "perfpt")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/perfpt/perfpt/cmd/perfpt").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	stat := filepath.Join(dir, "stat")
	cpu := func(args ...string) time.Duration {
		cmd := exec.Command("perf", append([]string{"stat", "-x,", "-e", "task-clock", "-o", stat, "--"}, args...)...)
		var errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &errb
		if err := cmd.Run(); err != nil {
			b.Fatalf("perf stat %v: %v\n%s", args, err, errb.Bytes())
		}
		s, err := os.ReadFile(stat)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range strings.Split(string(s), "\n") {
			if f := strings.Split(l, ","); len(f) > 2 && f[2] == "task-clock" {
				ms, err := strconv.ParseFloat(f[0], 64)
				if err != nil {
					b.Fatalf("perf stat: %q", l)
				}
				return time.Duration(ms * float64(time.Millisecond))
			}
		}
		b.Fatalf("perf stat: no task-clock in %q", s)
		return 0
	}
	prof := filepath.Join(dir, "p.pb.gz")
	for _, name := range []string{"cwork-dyn", "cwork-small", "cppwork", "rustwork"} {
		data := filepath.Join(unwindDir, name+".data")
		for _, c := range []struct {
			name       string
			perf, ours []string
		}{
			{"script", []string{"perf", "script", "-i", data}, []string{bin, "script", "-i", data}},
			{"report", []string{"perf", "report", "--stdio", "-i", data}, []string{bin, "pprof", "-i", data, "-o", prof}},
		} {
			b.Run(name+"/"+c.name, func(b *testing.B) {
				var perfCPU, ourCPU time.Duration
				for i := 0; i < b.N; i++ {
					perfCPU += cpu(c.perf...)
					ourCPU += cpu(c.ours...)
				}
				b.ReportMetric(float64(perfCPU)/float64(b.N)/1e6, "perf-cpu-ms/op")
				b.ReportMetric(float64(ourCPU)/float64(b.N)/1e6, "perfpt-cpu-ms/op")
				b.ReportMetric(float64(perfCPU)/float64(ourCPU), "ratio")
			})
		}
	}
}

// openELF opens the ELF file path, closed when the test ends, and reads
// its symbols.
func openELF(t *testing.T, path string) (*elf.File, []elf.Symbol) {
	t.Helper()
	ef, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ef.Close() })
	syms, err := ef.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	return ef, syms
}
