package machine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/perfdata"
)

// TestKmodName names module DSOs as perf's __kmod_path__parse does.
func TestKmodName(t *testing.T) {
	for path, want := range map[string]string{
		"[ext4]": "[ext4]",
		"/lib/modules/4.14.18/kernel/drivers/net/usb/cdc_ether.ko": "[cdc_ether]",
		"/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko.xz":             "[ext4]",
		"/lib/modules/6.1.0/kernel/net/nf-tables.ko.gz":            "[nf_tables]",
		// perf 6.1 cannot decompress zstd: not a module name then.
		"/lib/modules/6.8.0/kernel/fs/ext4/ext4.ko.zst": "ext4.ko.zst",
		"/usr/lib/x.so":  "x.so",
		"/boot/vmlinux":  "vmlinux",
		"/a.gz":          "a.gz",
		"[aaa.bbb-c]":    "[aaa.bbb-c]",
		"/x/.ko":         ".ko",
		"/x/my-mod.kobj": "[my_mod]",
	} {
		if got := kmodName(path); got != want {
			t.Errorf("kmodName(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestModuleMaps: a kernel mmap of a module is a map of the kernel's
// address space with the module's DSO, addresses as offsets from its
// start; the kernel's own map is unchanged.
func TestModuleMaps(t *testing.T) {
	m := New(nil, "")
	m.ProcessMmap(-1, 0, 0xffffffffb4200000, 0xbfb0000, 0xffffffffb4200000, "[kernel.kallsyms]_text", nil, perfdata.MiscKernel, true)
	m.ProcessMmap(-1, 0, 0xffffffffc01b0000, 0x4000, 0, "/lib/modules/4.14.18/kernel/drivers/net/usb/cdc_ether.ko", nil, perfdata.MiscKernel, true)
	m.ProcessMmap(-1, 0, 0xffffffffc0671000, 0xfd000, 0, "[ext4]", nil, perfdata.MiscKernel, true)
	for _, c := range []struct {
		addr uint64
		dso  string
		off  uint64
	}{
		{0xffffffffc0696904, "[ext4]", 0x25904},
		{0xffffffffc01b0010, "[cdc_ether]", 0x10},
		{0xffffffffb4208e16, "[kernel.kallsyms]", 0xffffffffb4208e16},
	} {
		l := m.Resolve(nil, true, c.addr)
		if !l.HasMap || l.DSO != c.dso || l.Addr != c.off || (l.Sym != nil && c.dso != "[kernel.kallsyms]") {
			t.Errorf("%#x: got %+v, want %s+%#x without a symbol", c.addr, l, c.dso, c.off)
		}
	}
}

// TestKernelNamedByBuildID: the first kernel entry of the BUILD_ID table
// that is not a module names the kernel's DSO (a vmlinux path), as
// machine__process_kernel_mmap_event takes it for the kernel map.
func TestKernelNamedByBuildID(t *testing.T) {
	const vmlinux = "/lib/modules/6.1.67-1-lts/build/vmlinux"
	for _, c := range []struct {
		table []perfdata.BuildID
		want  string
	}{
		{[]perfdata.BuildID{{Misc: perfdata.MiscKernel, Filename: "/lib/modules/6.1.67-1-lts/kernel/fs/ext4/ext4.ko.xz"},
			{Misc: perfdata.MiscKernel, Filename: vmlinux}, {Misc: perfdata.MiscKernel, Filename: "[kernel.kallsyms]"}}, vmlinux},
		{[]perfdata.BuildID{{Misc: perfdata.MiscKernel, Filename: "[kernel.kallsyms]"}, {Misc: perfdata.MiscKernel, Filename: vmlinux}}, "[kernel.kallsyms]"},
		{[]perfdata.BuildID{{Misc: perfdata.MiscUser, Filename: vmlinux}}, "[kernel.kallsyms]"},
	} {
		m := New(nil, "/nonexistent")
		for _, b := range c.table {
			m.AddBuildID(b)
		}
		m.ProcessMmap(-1, 0, 0xffffffff81000000, 0x1000000, 0xffffffff81000000, "[kernel.kallsyms]_text", nil, perfdata.MiscKernel, true)
		if l := m.Resolve(nil, true, 0xffffffff81000010); l.DSO != c.want {
			t.Errorf("%+v: kernel DSO %q, want %q", c.table, l.DSO, c.want)
		}
	}
}

// TestModuleNamedByBuildID: a module in the BUILD_ID table keeps the
// table's path as its DSO's name (perf's findnew_module_dso finds that DSO
// by its short name), and a module without an entry is its short name.
func TestModuleNamedByBuildID(t *testing.T) {
	const igb = "/lib/modules/5.11.0-41-generic/kernel/drivers/net/ethernet/intel/igb/igb.ko"
	m := New(nil, "/nonexistent")
	m.AddBuildID(perfdata.BuildID{Misc: perfdata.MiscKernel, Filename: igb, BuildID: []byte{1, 2}})
	m.ProcessMmap(-1, 0, 0xffffffffc03c0000, 0x40000, 0, "[igb]", nil, perfdata.MiscKernel, true)
	m.ProcessMmap(-1, 0, 0xffffffffc0671000, 0xfd000, 0, "/lib/modules/5.11.0-41-generic/kernel/fs/ext4/ext4.ko", nil, perfdata.MiscKernel, true)
	if l := m.Resolve(nil, true, 0xffffffffc03e4702); l.DSO != igb {
		t.Errorf("igb: DSO %q, want %q", l.DSO, igb)
	}
	if l := m.Resolve(nil, true, 0xffffffffc0671010); l.DSO != "[ext4]" {
		t.Errorf("ext4: DSO %q, want [ext4]", l.DSO)
	}
	// -F srcline without line information: the module's short name,
	// as perf prints "[sunrpc][c038]" for dkuo123/lockfree's
	// test/perf.data.
	for short, want := range map[string]string{"[igb]": "[igb][24702]", "[ext4]": "[ext4][24702]"} {
		if got := m.dsos[short].srclineFallback(0x24702); got != want {
			t.Errorf("%s: srcline fallback %q, want %q", short, got, want)
		}
	}
}

// TestVdsoMapOffset: a [vdso] map starts at offset 0 of the vdso whatever
// the MMAP says (map__new), as kernels before 3.x gave its address as the
// offset (quipper's perf.data.forkexit-3.4).
func TestVdsoMapOffset(t *testing.T) {
	m := New(nil, "")
	m.ProcessMmap(7, 7, 0x7fff7e2b4000, 0x2000, 0x7fff7e2b4000, "[vdso]", nil, perfdata.MiscUser, true)
	l := m.Resolve(m.FindNewThread(7, 7), false, 0x7fff7e2b4a31)
	if !l.HasMap || l.DSO != "[vdso]" || l.Addr != 0xa31 {
		t.Fatalf("got %+v, want [vdso]+0xa31", l)
	}
}

// TestKernelBuildIDFromMmap2: a kernel MMAP2 with a build id (perf record
// --buildid-mmap, no BUILD_ID table entry) gives the kernel's build id, as
// machine__process_kernel_mmap_event sets it: a kernel that is not the
// running one and is not in the build-id cache has no symbols, with
// perf's error line, instead of this machine's kallsyms.
func TestKernelBuildIDFromMmap2(t *testing.T) {
	defer func(n string) { hostNotes = n }(hostNotes)
	hostNotes = filepath.Join(t.TempDir(), "notes") // no running kernel's build id
	bid := []byte{0x18, 0x8d, 0x2a, 0x27, 0x94, 0xaa, 0x24, 0x92, 0xa4, 0x3e, 0x3e, 0x31, 0xf4, 0x9f, 0x52, 0xb4, 0x80, 0x83, 0x3e, 0x34}
	for _, c := range []struct {
		bid  []byte
		warn string
	}{
		{bid, "No kallsyms or vmlinux with build-id 188d2a2794aa2492a43e3e31f49f52b480833e34 was found"},
		{make([]byte, 20), ""}, // build_id__is_defined: all zeros is none
	} {
		m := New(&symbol.Options{BuildIDDir: t.TempDir()}, "")
		var warns []string
		m.Warn = func(s string) { warns = append(warns, s) }
		m.ProcessMmap(-1, 0, 0xffffffff9b000000, 0x2560440, 0xffffffff9b000000, "[kernel.kallsyms]_text", c.bid, perfdata.MiscKernel, true)
		if got := m.kernelSymbolsPath(); c.warn != "" && got != "" || c.warn == "" && got != hostKallsyms {
			t.Errorf("build id %x: kernel symbols from %q", c.bid, got)
		}
		if c.warn != "" && (len(warns) != 1 || warns[0] != c.warn) {
			t.Errorf("build id %x: warnings %q, want %q", c.bid, warns, c.warn)
		}
	}
}

// TestModuleSymbolsFromKallsyms: with the kernel's symbols from a kallsyms
// file and no kcore, a module's map gets the symbols kallsyms lists for it
// ("name\t[module]"), relative to the map, as dso__split_kallsyms moves
// them into the map of that name; also when the module is looked up
// before any kernel address. Before, module maps never had symbols here,
// and perfpt printed "[unknown] ([ptmod])" where perf printed
// "ptmod_read+0x0 ([ptmod])" (TestPTKernelModule's modules-mismatch case,
// when a trace began in the module).
func TestModuleSymbolsFromKallsyms(t *testing.T) {
	kallsyms := filepath.Join(t.TempDir(), "kallsyms")
	if err := os.WriteFile(kallsyms, []byte("ffffffff81000000 T _text\nffffffff81000000 T _stext\nffffffff81000100 T start_kernel\n"+
		"ffffffff81000200 T _etext\nffffffffc0a00000 t ptmod_ioctl\t[ptmod]\nffffffffc0a00030 t ptmod_read\t[ptmod]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kernelFirst := range []bool{false, true} {
		m := New(nil, kallsyms)
		m.ProcessMmap(-1, 0, 0xffffffff81000000, 0x200, 0xffffffff81000000, "[kernel.kallsyms]_text", nil, perfdata.MiscKernel, true)
		m.ProcessMmap(-1, 0, 0xffffffffc0a00000, 0x1000, 0, "/lib/modules/6.1.0/extra/ptmod.ko", nil, perfdata.MiscKernel, true)
		if kernelFirst {
			if l := m.Resolve(nil, true, 0xffffffff81000104); l.Sym == nil || l.Sym.Name != "start_kernel" {
				t.Fatalf("kernel address: %+v, want start_kernel", l)
			}
		}
		l := m.Resolve(nil, true, 0xffffffffc0a00034)
		if l.DSO != "[ptmod]" || l.Addr != 0x34 || l.Sym == nil || l.Sym.Name != "ptmod_read" || l.Sym.Start != 0x30 {
			t.Errorf("kernel first %v: module address: %+v, want [ptmod]+0x34 in ptmod_read at 0x30", kernelFirst, l)
		}
	}
}
