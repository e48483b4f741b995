package runner

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/ksynth"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// recordKernel records prog as a kernel+user trace whose syscalls and
// signals walk the stand-in kernel of testdata/programs/kernel.S, written
// as perf record --kcore writes it: a perf.data directory with kcore_dir.
func recordKernel(t *testing.T, prog string, wo record.WriteOptions, args ...string) string {
	t.Helper()
	k, err := ksynth.Load(testprog.Path(t, "kernel"))
	if err != nil {
		t.Fatal(err)
	}
	wo.Kernel, wo.KernelSeed = k, 3
	return recordPT(t, prog, record.Options{WriteOptions: wo}, args...)
}

// TestPTKernelKcore compares kernel+user recordings (three programs, five
// with PERFPT_FULL=1; PIP packets in PSB+ and at each change of process,
// VMCS too in one mode) read from a perf.data directory: the kernel's code
// from kcore_dir/kcore, its symbols from kcore_dir/kallsyms, syscalls as indirect branches into the kernel and
// SYSRET back, signals as FUP+TIP to the interrupt entry and IRET back.
func TestPTKernelKcore(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	timed := synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
	vmcs := synth.Config{TSC: true, MTC: true, MTCPeriod: 2, CYC: true, VMCS: 0x7f3a_5000}
	progs := []string{"tiny", "mix-dyn-O2", "threads-static-O2"}
	if os.Getenv("PERFPT_FULL") != "" {
		progs = append(progs, "mix-static-O0", "forkexec-dyn-O2")
	}
	for _, name := range progs {
		for _, mode := range []struct {
			name string
			wo   record.WriteOptions
		}{{"per-thread", record.WriteOptions{}}, {"per-cpu", record.WriteOptions{PT: timed, PerCPU: true}},
			{"2cpus", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 300, Seed: 9}},
			// A KVM host's trace: VMCS (and PIP, as in all kernel
			// recordings) in every PSB+.
			{"vmcs", record.WriteOptions{PT: vmcs, PerCPU: true, CPUs: 2, Quantum: 200, Seed: 7}}} {
			t.Run(name+"/"+mode.name, func(t *testing.T) {
				var args []string
				if strings.HasPrefix(name, "forkexec") {
					args = []string{testprog.Path(t, "tiny")}
				}
				dir := recordKernel(t, testprog.Path(t, name), mode.wo, args...)
				compare(t, dir)
				compare(t, dir, "--itrace=i0ns")
				compare(t, dir, "--itrace=b", "-F", "+flags,+addr")
				compare(t, dir, "--itrace=cr", "-F", "+callindent")
			})
		}
	}
}

// TestPTSystemWide compares system-wide kernel+user recordings
// (perf record -a: ksynth.System) of 1 to 4 emulated CPUs, whose context
// switches go through the stand-in kernel's schedule and __switch_to, the
// idle task between the threads' turns: perf turns its sync_switch on
// (the kernel has a global __switch_to), so each CPU's queue changes
// threads at the branch to __switch_to, before or after the switch
// record; at -j 1, 2 and 4, with the binaries present and hidden.
func TestPTSystemWide(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	empty := t.TempDir()
	progs := []string{"tiny", "mix-dyn-O2", "threads-static-O2"}
	if os.Getenv("PERFPT_FULL") != "" {
		progs = append(progs, "mix-static-O0", "threads-dyn-O0", "forkexec-dyn-O2", "crash")
	}
	for i, name := range progs {
		cpus := 1 + i%4
		t.Run(fmt.Sprintf("%s/%dcpus", name, cpus), func(t *testing.T) {
			var args []string
			if strings.HasPrefix(name, "forkexec") {
				args = []string{testprog.Path(t, "tiny")}
			}
			pt := synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
			if i%2 == 1 {
				pt.CYC = true
			}
			dir := recordKernel(t, testprog.Path(t, name), record.WriteOptions{PT: pt, PerCPU: true, CPUs: cpus,
				Quantum: 200 + 100*i, Seed: uint32(5 + i), SystemWide: true}, args...)
			compare(t, dir)
			compare(t, dir, "--itrace=i0ns", "-F", "comm,tid,ip,sym,symoff,dso")
			compare(t, dir, "--itrace=i0ns", "-F", "ip,sym")
			compare(t, dir, "--itrace=b", "-F", "+flags,+addr")
			compare(t, dir, "--itrace=cr", "-F", "+callindent")
			compare(t, dir, "--symfs="+empty, "--itrace=be")
		})
	}
}

// TestPTKernelBadKcore: a kcore without the segment the trace needs (here
// one that stops before the syscall entry's code), and a kcore_dir whose
// kallsyms does not match the recorded kernel: every kernel walk fails as
// perf's do, the user part decodes on.
func TestPTKernelBadKcore(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	dir := recordKernel(t, testprog.Path(t, "mix-dyn-O2"), record.WriteOptions{})
	kcore := filepath.Join(dir, "kcore_dir", "kcore")
	b, err := os.ReadFile(kcore)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("no-segment", func(t *testing.T) {
		d := copyDir(t, dir)
		// p_vaddr of the one PT_LOAD moved 1 MiB up: no code at the
		// kernel's addresses.
		c := append([]byte(nil), b...)
		v := uint64(c[64+16]) | uint64(c[64+17])<<8 | uint64(c[64+18])<<16 | uint64(c[64+19])<<24 |
			uint64(c[64+20])<<32 | uint64(c[64+21])<<40 | uint64(c[64+22])<<48 | uint64(c[64+23])<<56
		v += 1 << 20
		for i := range 8 {
			c[64+16+i] = byte(v >> (8 * i))
		}
		if err := os.WriteFile(filepath.Join(d, "kcore_dir", "kcore"), c, 0o644); err != nil {
			t.Fatal(err)
		}
		compare(t, d)
		compare(t, d, "--itrace=be")
	})
	t.Run("no-kcore", func(t *testing.T) {
		d := copyDir(t, dir)
		if err := os.Remove(filepath.Join(d, "kcore_dir", "kcore")); err != nil {
			t.Fatal(err)
		}
		compare(t, d, "--itrace=be")
	})
	t.Run("no-modules", func(t *testing.T) {
		d := copyDir(t, dir)
		if err := os.Remove(filepath.Join(d, "kcore_dir", "modules")); err != nil {
			t.Fatal(err)
		}
		compare(t, d, "--itrace=be")
	})
}

// copyDir copies a perf.data directory (data and kcore_dir) into a new
// temporary directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "perf.data")
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestPTKernelVmlinux compares kernel+user recordings decoded with
// -k/--vmlinux (the stand-in kernel's ELF): perf then takes the kernel's
// symbols and code from that file only (dso__load_vmlinux; the kcore_dir
// is not read), the kernel map remapped onto its .text. Per-thread,
// 2-CPU and system-wide recordings, as directories and as their data
// file alone; a stripped vmlinux and one with another build id, which
// perf does not load (no kernel symbols, every kernel walk fails).
func TestPTKernelVmlinux(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make", "strip")
	vmlinux := testprog.Path(t, "kernel")
	timed := synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
	tmp := t.TempDir()
	stripped := filepath.Join(tmp, "stripped")
	if out, err := exec.Command("strip", "-o", stripped, vmlinux).CombinedOutput(); err != nil {
		t.Fatalf("strip: %v\n%s", err, out)
	}
	_, c := otherBuildID(t, vmlinux)
	other := filepath.Join(tmp, "other")
	if err := os.WriteFile(other, c, 0o644); err != nil {
		t.Fatal(err)
	}
	mangled := filepath.Join(tmp, "mangled")
	mangledKernel(t, vmlinux, mangled)
	for _, mode := range []struct {
		name string
		wo   record.WriteOptions
	}{{"per-thread", record.WriteOptions{}},
		{"2cpus", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 300, Seed: 9}},
		{"system", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 250, Seed: 4, SystemWide: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			dir := recordKernel(t, testprog.Path(t, "mix-dyn-O2"), mode.wo)
			for _, in := range []string{dir, filepath.Join(dir, "data")} {
				compare(t, in, "-k", vmlinux)
				compare(t, in, "--vmlinux", vmlinux, "--itrace=i0ns", "-F", "comm,tid,ip,sym,symoff,dso")
				compare(t, in, "-k", vmlinux, "--itrace=b", "-F", "+flags,+addr")
				compare(t, in, "-k", vmlinux, "--itrace=cr", "-F", "+callindent")
			}
			for _, k := range []string{stripped, other} {
				compare(t, dir, "-k", k, "--itrace=be", "-F", "+flags,+addr")
			}
			if mode.name == "per-thread" {
				// A kernel ELF's symbols are demangled with
				// --demangle-kernel only (perf's want_demangle).
				compare(t, dir, "-k", mangled, "--itrace=be", "-F", "+flags,+addr")
				compare(t, dir, "-k", mangled, "--demangle-kernel", "--itrace=be", "-F", "+flags,+addr")
				cfg := configOf(t, dir, "-k", mangled, "--demangle-kernel", "--itrace=be", "-F", "+flags,+addr")
				var out, stderr bytes.Buffer
				if err := Run(cfg, &out, &stderr); err != nil {
					t.Fatalf("perfpt script --demangle-kernel: %v\n%s", err, stderr.String())
				}
				if !bytes.Contains(out.Bytes(), []byte("a::bc+")) {
					t.Error("--demangle-kernel: no branch names the demangled sys_other (a::bc): the comparison shows nothing")
				}
			}
		})
	}
}

// mangledKernel writes to dst a copy of the kernel ELF at path whose
// sys_other symbol is named _ZN1a2bcE (a::bc), a name of the same length.
func mangledKernel(t *testing.T, path, dst string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old, repl := []byte("\x00sys_other\x00"), []byte("\x00_ZN1a2bcE\x00")
	if bytes.Count(b, old) != 1 {
		t.Fatalf("%s: sys_other is not named once in the string table", path)
	}
	if err := os.WriteFile(dst, bytes.Replace(b, old, repl, 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// otherBuildID returns the bytes of the ELF at path and a copy whose build
// id differs.
func otherBuildID(t *testing.T, path string) (orig, other []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bid := symbol.ReadBuildID(path)
	i := bytes.Index(b, bid)
	if len(bid) == 0 || i < 0 {
		t.Fatalf("%s: no build id", path)
	}
	other = append([]byte(nil), b...)
	other[i] ^= 0xff
	return b, other
}

// TestPTKernelVmlinuxPath: without -k, --kallsyms or a perf.data
// directory's kallsyms, perf looks for the kernel in its vmlinux path
// (dso__load_vmlinux_path) before kallsyms: a "vmlinux" in the working
// directory, or under --symfs, whose build id is the recorded kernel's
// gives the kernel's symbols and the code PT decodes; one with another
// build id is passed over (and with no kallsyms for the recorded kernel
// every kernel walk fails). Recordings decoded from their data file alone
// (a directory's kcore_dir/kallsyms names the kernel's symbols). And -k
// with an absolute path and --symfs: perf loads the symbols from the file
// itself and reads the code from the symfs (its copy is not there: every
// kernel walk fails).
func TestPTKernelVmlinuxPath(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	vmlinux := testprog.Path(t, "kernel")
	b, other := otherBuildID(t, vmlinux)
	timed := synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
	var datas []string
	for _, wo := range []record.WriteOptions{{}, {PT: timed, PerCPU: true, CPUs: 2, Quantum: 300, Seed: 9}} {
		datas = append(datas, filepath.Join(recordKernel(t, testprog.Path(t, "mix-dyn-O2"), wo), "data"))
	}
	cwd, symfs := t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	for _, c := range []struct {
		name string
		file []byte
	}{{"same", b}, {"other", other}} {
		t.Run(c.name, func(t *testing.T) {
			for _, d := range []string{cwd, symfs} {
				if err := os.WriteFile(filepath.Join(d, "vmlinux"), c.file, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, data := range datas {
				compare(t, data)
				compare(t, data, "--itrace=be", "-F", "+flags,+addr")
				compare(t, data, "--itrace=i0ns", "-F", "comm,tid,ip,sym,symoff,dso")
				compare(t, data, "--symfs="+symfs, "--itrace=be")
				// -k with an absolute path is not under --symfs
				// (dso__load_vmlinux).
				compare(t, data, "-k", vmlinux, "--symfs="+symfs, "--itrace=be")
			}
		})
	}
}

// TestPTKernelKASLR: a kernel booted above its link address (the stand-in
// kernel slid by 0x1e00000, as KASLR moves it): its kcore_dir's kallsyms
// and kcore are at the new addresses, and perf relocates a -k vmlinux
// (linked at the old ones) by the recorded _text (the kernel MMAP's pgoff)
// minus the file's, for the symbols and for the code PT decodes; and so
// for a vmlinux found in its vmlinux path. Per-thread and 2-CPU
// recordings.
func TestPTKernelKASLR(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	vmlinux := testprog.Path(t, "kernel")
	k, err := ksynth.Load(vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	k = k.Slid(0x1e00000)
	timed := synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
	cwd := t.TempDir()
	for _, mode := range []struct {
		name string
		wo   record.WriteOptions
	}{{"per-thread", record.WriteOptions{}},
		{"2cpus", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 300, Seed: 9}}} {
		t.Run(mode.name, func(t *testing.T) {
			wo := mode.wo
			wo.Kernel, wo.KernelSeed = k, 3
			dir := recordPT(t, testprog.Path(t, "mix-dyn-O2"), record.Options{WriteOptions: wo})
			data := filepath.Join(dir, "data")
			compare(t, dir, "--itrace=be", "-F", "+flags,+addr")
			compare(t, data, "-k", vmlinux)
			compare(t, data, "-k", vmlinux, "--itrace=i0ns", "-F", "comm,tid,ip,sym,symoff,dso")
			compare(t, dir, "-k", vmlinux, "--itrace=be", "-F", "+flags,+addr")
			compare(t, dir, "-k", vmlinux, "--itrace=cr", "-F", "+callindent")
			b, err := os.ReadFile(vmlinux)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cwd, "vmlinux"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Chdir(cwd)
			compare(t, data, "--itrace=be")
		})
	}
}

// recordKernelModule records prog as recordKernel does, with the stand-in
// module of testdata/programs/kmod.S loaded ("ptmod"): the kernel's
// indirect calls go into its code too, it has a module MMAP (named
// testprog.ModulePath), a /proc/modules line in kcore_dir/modules, its
// symbols in kcore_dir/kallsyms and its text in a segment of
// kcore_dir/kcore.
func recordKernelModule(t *testing.T, prog string, wo record.WriteOptions) (string, *ksynth.Kernel) {
	t.Helper()
	k := testprog.KernelWithModule(t)
	wo.Kernel, wo.KernelSeed = k, 3
	return recordPT(t, prog, record.Options{WriteOptions: wo}), k
}

// TestPTKernelModule compares kernel+user recordings whose kernel walks
// into a loaded module's code (the stand-in "ptmod"): with the module's
// text in kcore_dir/kcore, perf's dso__load_kcore validates the module
// maps against kcore_dir/modules, drops them, and decodes the module's
// code from the kcore with kallsyms' symbols, in the kernel's DSO; with a
// kcore that lacks the module's segment, every walk into the module fails
// and the rest decodes on; with a modules file that does not list the
// module (at its address) the kcore is not used at all; decoded from the
// data file alone with -k, the module's code is looked for in its .ko
// (testprog.ModulePath, not on this machine): every walk into it fails, the module's
// addresses print in its own DSO. Per-thread and 2-CPU recordings.
func TestPTKernelModule(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	vmlinux := testprog.Path(t, "kernel")
	timed := synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
	for _, mode := range []struct {
		name string
		wo   record.WriteOptions
	}{{"per-thread", record.WriteOptions{}},
		{"2cpus", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 300, Seed: 9}}} {
		t.Run(mode.name, func(t *testing.T) {
			dir, k := recordKernelModule(t, testprog.Path(t, "mix-dyn-O2"), mode.wo)
			t.Run("kcore", func(t *testing.T) {
				compare(t, dir)
				compare(t, dir, "--itrace=b", "-F", "+flags,+addr")
				compare(t, dir, "--itrace=cr", "-F", "+callindent")
				// The trace walks the module: its calls and
				// returns, in the kernel's DSO.
				out := scriptOutput(t, dir, "--itrace=b")
				for _, want := range []string{"=> ffffffffc0a00000 ptmod_ioctl+0x0 ([kernel.kallsyms])",
					"=> ffffffffc0a00020 ptmod_work+0x0 ([kernel.kallsyms])", "=> ffffffffc0a00030 ptmod_read+0x0 ([kernel.kallsyms])"} {
					if !strings.Contains(out, want) {
						t.Errorf("no branch to %q: the trace does not walk the module", want)
					}
				}
			})
			t.Run("no-module-segment", func(t *testing.T) {
				d := copyDir(t, dir)
				nomod := *k
				nomod.Modules = nil
				if err := os.WriteFile(filepath.Join(d, "kcore_dir", "kcore"), nomod.Kcore(), 0o644); err != nil {
					t.Fatal(err)
				}
				compare(t, d)
				compare(t, d, "--itrace=be", "-F", "+flags,+addr")
				if out := scriptOutput(t, d, "--itrace=e"); !strings.Contains(out, " ip 0xffffffffc0a000") {
					t.Error("no trace error in the module")
				}
			})
			t.Run("modules-mismatch", func(t *testing.T) {
				d := copyDir(t, dir)
				if err := os.WriteFile(filepath.Join(d, "kcore_dir", "modules"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
				compare(t, d, "--itrace=be", "-F", "+flags,+addr")
			})
			t.Run("kallsyms", func(t *testing.T) {
				// The data file alone with --kallsyms naming the
				// kcore_dir's: perf reads the kcore beside it.
				data, kallsyms := filepath.Join(dir, "data"), filepath.Join(dir, "kcore_dir", "kallsyms")
				compare(t, data, "--kallsyms", kallsyms)
				compare(t, data, "--kallsyms", kallsyms, "--itrace=b", "-F", "+flags,+addr")
				if out := scriptOutput(t, data, "--kallsyms", kallsyms, "--itrace=b"); !strings.Contains(out, "ptmod_ioctl+0x0 ([kernel.kallsyms])") {
					t.Error("no branch into the module decoded from the kcore")
				}
			})
			t.Run("vmlinux", func(t *testing.T) {
				data := filepath.Join(dir, "data")
				compare(t, data, "-k", vmlinux)
				compare(t, data, "-k", vmlinux, "--itrace=be", "-F", "+flags,+addr")
				if out := scriptOutput(t, data, "-k", vmlinux, "--itrace=e"); !strings.Contains(out, " ip 0xffffffffc0a000") {
					t.Error("no trace error in the module")
				}
			})
		})
	}
}

// scriptOutput returns perfpt script's output on data (one worker).
func scriptOutput(t *testing.T, data string, args ...string) string {
	t.Helper()
	var out, stderr bytes.Buffer
	if err := Run(configOf(t, data, args...), &out, &stderr); err != nil {
		t.Fatalf("perfpt script %v: %v\n%s", args, err, stderr.String())
	}
	return out.String()
}

// TestPTKernelCorrupted damages the AUX data of kernel+user recordings
// (per-thread, 2 CPUs, system-wide with the scheduler's context switches
// in the kernel) and checks that perf's error lines and
// resynchronisation come out: bytes overwritten in each buffer, and the
// payloads of the first PIP, VMCS, TIP, FUP and TIP.PGD/PGE past 30% of
// each (those the recording has: a per-thread trace enters the kernel by
// TIP, a system-wide one never stops). A PIP whose payload has the NR bit
// set says the code after it is a VMX guest's: perf cannot walk it
// without a guest machine, and filters the samples it makes.
func TestPTKernelCorrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	timed := synth.Config{TSC: true, MTC: true, MTCPeriod: 3, VMCS: 0x7f3a_5000}
	common := []packet.Kind{packet.KindPIP, packet.KindFUP, packet.KindTIP}
	for _, mode := range []struct {
		name  string
		wo    record.WriteOptions
		kinds []packet.Kind
	}{{"per-thread", record.WriteOptions{}, append(common, packet.KindTIPPGD)},
		{"2cpus", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 300, Seed: 9},
			append(common, packet.KindVMCS, packet.KindTIPPGD, packet.KindTIPPGE)},
		{"system", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 250, Seed: 4, SystemWide: true},
			append(common, packet.KindVMCS)}} {
		t.Run(mode.name, func(t *testing.T) {
			wo := mode.wo
			k, err := ksynth.Load(testprog.Path(t, "kernel"))
			if err != nil {
				t.Fatal(err)
			}
			wo.Kernel, wo.KernelSeed = k, 3
			dir := recordPT(t, testprog.Path(t, deterministicProg), record.Options{WriteOptions: wo}, "1")
			// damaged returns a copy of the recording whose data
			// file is bad's.
			damaged := func(t *testing.T, bad func(data string) string) string {
				d := copyDir(t, dir)
				if err := os.Rename(bad(filepath.Join(d, "data")), filepath.Join(d, "data")); err != nil {
					t.Fatal(err)
				}
				return d
			}
			for _, c := range []struct {
				fill byte
				n    int
				at   float64
			}{{0xff, 7, 0.5}, {0x55, 12, 0.7}} {
				t.Run(fmt.Sprintf("%02x@%.1f", c.fill, c.at), func(t *testing.T) {
					d := damaged(t, func(data string) string { return corrupt(t, data, c.fill, c.n, c.at) })
					compare(t, d)
					compare(t, d, "--itrace=be", "-F", "+flags,+addr")
				})
			}
			for _, kind := range mode.kinds {
				fills := []byte{0xff}
				if kind == packet.KindPIP {
					fills = append(fills, 0x00)
				}
				for _, fill := range fills {
					t.Run(fmt.Sprintf("%v-%02x", kind, fill), func(t *testing.T) {
						d := damaged(t, func(data string) string { return testprog.CorruptPacket(t, data, kind, fill, 0.3) })
						compare(t, d, "--itrace=be", "-F", "+flags,+addr")
					})
				}
			}
		})
	}
}

// TestPTKernelGuestPIP: a PIP of a process change (MOV CR3, outside PSB+)
// whose NR bit says the code after it is a VMX guest's: from the next
// branch on perf's samples are split in two where the branch goes between
// host and guest (from the IP to 0, from 0 to the target), the guest's
// are filtered out, and walks in guest code fail; kernel+user recordings
// of a program that forks and execs (two processes) on 2 CPUs, per-CPU
// (the process changes between turns, at TIP.PGE, take the NR at once)
// and system-wide (in the kernel's __switch_to: the next TIP goes from
// host to guest).
func TestPTKernelGuestPIP(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	timed := synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
	for _, mode := range []struct {
		name string
		wo   record.WriteOptions
	}{{"2cpus", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 300, Seed: 9}},
		{"system", record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 250, Seed: 4, SystemWide: true}}} {
		t.Run(mode.name, func(t *testing.T) {
			dir := recordKernel(t, testprog.Path(t, "forkexec-dyn-O2"), mode.wo, testprog.Path(t, "tiny"))
			for _, at := range []float64{0, 0.5} {
				t.Run(fmt.Sprint(at), func(t *testing.T) {
					d := copyDir(t, dir)
					if err := os.Rename(testprog.SetPIPNR(t, filepath.Join(d, "data"), at), filepath.Join(d, "data")); err != nil {
						t.Fatal(err)
					}
					compare(t, d)
					compare(t, d, "--itrace=be", "-F", "+flags,+addr")
					compare(t, d, "--itrace=i0ns", "-F", "comm,tid,ip,sym")
				})
			}
		})
	}
}

// TestPTKernelTrampoline compares kernel+user recordings whose syscalls
// enter the kernel through a PTI entry trampoline (a CPU's copy of
// _entry_trampoline's page in its cpu_entry_area, as on Linux 4.15 to
// 4.19): perf maps every available CPU's trampoline page onto the
// kernel's page at _entry_trampoline (machine__map_x86_64_entry_trampolines)
// and decodes through it, with the code from the kcore or from -k vmlinux;
// a trampoline of a CPU beyond the header's nr_cpus_avail has no map, and
// every syscall's walk fails there as perf's does, unless the recording
// has the trampolines' MMAPs (perf record on a kernel whose kallsyms lists
// them): perf maps them, with -k vmlinux; with the kcore it drops them
// with the other recorded kernel maps.
func TestPTKernelTrampoline(t *testing.T) {
	if testing.Short() {
		t.Skip("records programs")
	}
	need(t, "perf", "gcc", "make")
	vmlinux := testprog.Path(t, "kernel")
	k, err := ksynth.Load(vmlinux)
	if err != nil {
		t.Fatal(err)
	}
	ncpu := runtime.NumCPU() // the recording's nr_cpus_avail (record.Write)
	timed := synth.Config{TSC: true, MTC: true, MTCPeriod: 3}
	for _, mode := range []struct {
		name string
		cpu  int
		maps int // trampoline MMAPs recorded (ksynth.Kernel.TrampolineMaps)
		wo   record.WriteOptions
	}{{"per-thread", ncpu - 1, 0, record.WriteOptions{}},
		{"2cpus", 0, 0, record.WriteOptions{PT: timed, PerCPU: true, CPUs: 2, Quantum: 300, Seed: 9}},
		{"unmapped-cpu", ncpu, 0, record.WriteOptions{}},
		{"recorded-maps", ncpu, ncpu + 1, record.WriteOptions{}},
		{"kcore-holds-them", ncpu, ncpu + 1, record.WriteOptions{}}} {
		t.Run(mode.name, func(t *testing.T) {
			tk, err := k.ThroughTrampoline(mode.cpu)
			if err != nil {
				t.Fatal(err)
			}
			tk.TrampolineMaps = mode.maps
			if mode.name == "kcore-holds-them" {
				// kallsyms lists the trampolines and the kcore holds
				// their pages: perf takes them from the kcore
				// (trampolines_mapped), the CPU beyond
				// nr_cpus_avail's too.
				tk.TrampolinesListed = true
				dir := recordPT(t, testprog.Path(t, "mix-dyn-O2"), record.Options{WriteOptions: record.WriteOptions{Kernel: tk, KernelSeed: 3}})
				compare(t, dir)
				compare(t, dir, "--itrace=b", "-F", "+flags,+addr")
				want := fmt.Sprintf("=> %x __entry_SYSCALL_64_trampoline+0x0 ([kernel.kallsyms])", tk.EntryVA)
				if out := scriptOutput(t, dir, "--itrace=b"); !strings.Contains(out, want) {
					t.Errorf("no %q: the kcore's trampoline is not used", want)
				}
				// This kallsyms alone (no kcore beside it): perf
				// deletes the listed trampoline symbols
				// (maps__split_kallsyms) and the recorded
				// trampoline maps name the branches' targets
				// _entry_trampoline.
				lone := filepath.Join(t.TempDir(), "kallsyms")
				if b, err := os.ReadFile(filepath.Join(dir, "kcore_dir", "kallsyms")); err != nil {
					t.Fatal(err)
				} else if err := os.WriteFile(lone, b, 0o644); err != nil {
					t.Fatal(err)
				}
				data := filepath.Join(dir, "data")
				compare(t, data, "--kallsyms", lone, "--itrace=be", "-F", "+flags,+addr")
				return
			}
			wo := mode.wo
			wo.Kernel, wo.KernelSeed = tk, 3
			dir := recordPT(t, testprog.Path(t, "mix-dyn-O2"), record.Options{WriteOptions: wo})
			data := filepath.Join(dir, "data")
			compare(t, dir)
			if mode.maps == 0 && mode.cpu < ncpu {
				compare(t, dir, "--itrace=i0ns")
			}
			compare(t, dir, "--itrace=b", "-F", "+flags,+addr")
			compare(t, dir, "--itrace=cr", "-F", "+callindent")
			compare(t, data, "-k", vmlinux, "--itrace=b", "-F", "+flags,+addr")
			// Symbols alone (a kallsyms with no kcore beside it): the
			// trampolines resolve, their code cannot be read.
			lone := filepath.Join(t.TempDir(), "kallsyms")
			if b, err := os.ReadFile(filepath.Join(dir, "kcore_dir", "kallsyms")); err != nil {
				t.Fatal(err)
			} else if err := os.WriteFile(lone, b, 0o644); err != nil {
				t.Fatal(err)
			}
			compare(t, data, "--kallsyms", lone, "--itrace=be", "-F", "+flags,+addr")
			out := scriptOutput(t, dir, "--itrace=b")
			want := fmt.Sprintf("=> %x _entry_trampoline+0x0 ([kernel.kallsyms])", tk.EntryVA)
			if mode.cpu >= ncpu {
				want = fmt.Sprintf("=> %x [unknown] ([unknown])", tk.EntryVA)
			}
			if !strings.Contains(out, want) {
				t.Errorf("no %q: the trace does not enter the kernel through the trampoline", want)
			}
			if mode.maps > mode.cpu {
				// With the code from the vmlinux, the recorded maps
				// hold, the CPU's too (with the kcore, perf drops them).
				out := scriptOutput(t, data, "-k", vmlinux, "--itrace=b")
				if want := fmt.Sprintf("=> %x _entry_trampoline+0x0 ([kernel.kallsyms])", tk.EntryVA); !strings.Contains(out, want) {
					t.Errorf("-k vmlinux: no %q: the recorded trampoline map is not used", want)
				}
			}
		})
	}
}
