package machine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// TestKernelMapFixedUp: the recorded kernel MMAP ends at _etext, but once
// the kernel's symbols are loaded from kallsyms the kernel map spans them
// all (perf's map__fixup_start/end in dso__load_kernel_sym), so
// .init.text addresses (start_kernel in the boot CPU's idle stacks)
// resolve to their symbols, as perf script prints them; before that load
// they have no map, as in perf; past the last symbol's end, none either.
func TestKernelMapFixedUp(t *testing.T) {
	ks := filepath.Join(t.TempDir(), "kallsyms")
	const text = `ffffffff81000000 T _text
ffffffff81000000 T _stext
ffffffff81000100 T default_idle
ffffffff81000200 t cpu_startup_entry
ffffffff82000000 T _etext
ffffffff83000000 T _sinittext
ffffffff83000100 T start_kernel
ffffffff83000800 T x86_64_start_kernel
ffffffff83001000 T _einittext
`
	if err := os.WriteFile(ks, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m := New(nil, ks)
	m.ProcessMmap(-1, 0, 0xffffffff81000000, 0x1000000, 0xffffffff81000000, "[kernel.kallsyms]_text", nil, perfdata.MiscKernel, true)
	const initAddr = 0xffffffff8300023d
	if l := m.Resolve(nil, true, initAddr); l.HasMap {
		t.Errorf("before the kernel's symbols are loaded: %#x resolved to %+v, want no map (perf's maps__find)", uint64(initAddr), l)
	}
	if l := m.Resolve(nil, true, 0xffffffff81000105); l.Sym == nil || l.Sym.Name != "default_idle" {
		t.Fatalf("kernel text: got %+v, want default_idle", l)
	}
	var ro ROCache
	for _, c := range []struct {
		addr uint64
		sym  string
	}{
		{initAddr, "start_kernel"},
		{0xffffffff83000921, "x86_64_start_kernel"},
		{0xffffffff81000205, "cpu_startup_entry"},
	} {
		l := m.Resolve(nil, true, c.addr)
		if !l.HasMap || l.DSO != "[kernel.kallsyms]" || l.Sym == nil || l.Sym.Name != c.sym {
			t.Errorf("%#x: got %+v, want %s in [kernel.kallsyms]", c.addr, l, c.sym)
		}
		if mp, sym, _ := m.ResolveRO(&ro, nil, true, c.addr); mp == nil || sym == nil || sym.Name != c.sym {
			t.Errorf("ResolveRO %#x: got map %v symbol %v, want %s", c.addr, mp, sym, c.sym)
		}
	}
	// The last core symbol ends a page later (kallsyms' end fix-up): past
	// that, no map.
	if l := m.Resolve(nil, true, 0xffffffff83003000); l.HasMap {
		t.Errorf("past the last symbol: got %+v, want no map", l)
	}
}

// TestKernelMapShrunk: a kernel MMAP larger than the kallsyms' span
// (simpleperf writes [0, ~0) for [kernel.kallsyms]; a recording of another
// machine read with this one's kallsyms) shrinks to that span when the
// symbols load (map__fixup_start/end): the address whose lookup loads
// them still has the kernel map, as perf's thread__find_map keeps the map
// it found before map__load, later ones outside the span have none
// (perf script's "[unknown] ([unknown])", perf report -D's "dso: <not
// found>").
func TestKernelMapShrunk(t *testing.T) {
	ks := filepath.Join(t.TempDir(), "kallsyms")
	const text = `ffffffff81000000 T _text
ffffffff81000100 T default_idle
ffffffff81000200 t cpu_startup_entry
`
	if err := os.WriteFile(ks, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m := New(nil, ks)
	m.ProcessMmap(-1, 0, 0, ^uint64(0), 0, "[kernel.kallsyms]", nil, perfdata.MiscKernel, true)
	const arm = 0xffffffc000984270
	if l := m.Resolve(nil, true, arm); !l.HasMap || l.DSO != "[kernel.kallsyms]" || l.Sym != nil {
		t.Errorf("first lookup (loads the symbols): got %+v, want the kernel map without a symbol", l)
	}
	for _, addr := range []uint64{arm, 0x1000, 0xffffffff81003000} {
		if l := m.Resolve(nil, true, addr); l.HasMap {
			t.Errorf("%#x after the load: got %+v, want no map", addr, l)
		}
		if mp := m.FindKernelMap(addr); mp != nil {
			t.Errorf("FindKernelMap(%#x) after the load: got %+v, want nil", addr, mp)
		}
		var ro ROCache
		if mp, _, _ := m.ResolveRO(&ro, nil, true, addr); mp != nil {
			t.Errorf("ResolveRO(%#x) after the load: got map %+v, want nil", addr, mp)
		}
	}
	if l := m.Resolve(nil, true, 0xffffffff81000105); l.Sym == nil || l.Sym.Name != "default_idle" {
		t.Errorf("kernel text: got %+v, want default_idle", l)
	}
}
