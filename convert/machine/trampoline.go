package machine

import (
	"debug/elf"
	"sync"
)

// The x86_64 cpu_entry_area's layout as perf 6.1 hard-codes it
// (machine.c): each CPU's area, and the offset of the PTI entry
// trampoline's page in it.
const (
	cpuEntryAreaPerCPU = 0xfffffe0000000000
	cpuEntryAreaSize   = 0x2c000
	entryTrampolineOff = 0x6000
	trampolinePage     = 0x1000
	// entryTrampolineName is perf's ENTRY_TRAMPOLINE_NAME: the kallsyms
	// name of the trampolines' copies.
	entryTrampolineName = "__entry_SYSCALL_64_trampoline"
)

// EntryTrampolineVA is the address of cpu's PTI entry trampoline, where
// a syscall enters the kernel on a kernel with page table isolation.
func EntryTrampolineVA(cpu int) uint64 {
	return cpuEntryAreaPerCPU + uint64(cpu)*cpuEntryAreaSize + entryTrampolineOff
}

// trampolines are the extra kernel maps of the PTI entry trampolines
// (trampoline.go), made at the kernel's first load.
type trampolines struct {
	once sync.Once
	// recorded are the trampolines' maps recorded as kernel MMAPs
	// (recordTrampoline), their pgoff the kernel address they map to.
	recorded []*Map
	// syms map each trampoline page to the kernel's symbols, code to the
	// kernel's code (KernelCodeMap), in CPU order.
	syms, code []*Map
}

// entryTrampoline mirrors machine__map_x86_64_entry_trampolines: the
// recorded trampoline maps (recordTrampoline) with their pgoff made an
// address of the kernel DSO; when none was recorded, perf, loading the kernel's symbols (on
// x86_64), finds the first global symbol of the kernel DSO named
// _entry_trampoline, __entry_trampoline_start or
// entry_SYSCALL_64_trampoline (find_entry_trampoline) and maps each
// available CPU's trampoline page (the header's nr_cpus_avail) onto the
// page at that symbol, so that the trace of a syscall entered through a
// trampoline reads the kernel's code there and takes its symbols. A kcore
// whose kallsyms names __entry_SYSCALL_64_trampoline holds the
// trampolines itself (dso__load_kcore's trampolines_mapped): no maps then.
// It returns the symbol map (code false) or the code map of addr, nil
// when there is none.
func (m *Machine) entryTrampoline(addr uint64, code bool) *Map {
	tr := &m.tramp
	if !tr.inRecorded(addr) {
		if addr < cpuEntryAreaPerCPU || m.NrCPUsAvail <= 0 {
			return nil
		}
		d := addr - cpuEntryAreaPerCPU
		cpu, in := d/cpuEntryAreaSize, d%cpuEntryAreaSize
		if cpu >= uint64(m.NrCPUsAvail) || in < entryTrampolineOff || in >= entryTrampolineOff+trampolinePage {
			return nil
		}
	}
	tr.once.Do(m.mapTrampolines)
	maps := tr.syms
	if code {
		maps = tr.code
	}
	for _, mp := range maps {
		if addr >= mp.Start && addr < mp.End {
			return mp
		}
	}
	return nil
}

func (tr *trampolines) inRecorded(addr uint64) bool {
	for _, mp := range tr.recorded {
		if addr >= mp.Start && addr < mp.End {
			return true
		}
	}
	return false
}

// recordTrampoline mirrors machine__process_kernel_mmap_event for a
// kernel MMAP named __entry_SYSCALL_64_trampoline on x86_64
// (perf_event__is_extra_kernel_mmap: perf record writes one per CPU when
// the recording machine's kallsyms lists the trampolines): an extra
// kernel map of the kernel DSO from start, its pgoff the kernel address
// it maps to; other names are passed over, as perf does.
func (m *Machine) recordTrampoline(name string, start, length, pgoff uint64) {
	if name != entryTrampolineName || m.Arch != "" && m.Arch != "x86_64" {
		return
	}
	end := start + length
	if end < start {
		end = ^uint64(0)
	}
	m.tramp.recorded = append(m.tramp.recorded, &Map{Start: start, End: end, PgOff: pgoff})
}

// mapTrampolines makes the trampolines' maps (entryTrampoline).
func (m *Machine) mapTrampolines() {
	if m.Arch != "" && m.Arch != "x86_64" {
		return
	}
	km := m.kernelMap()
	if km == nil || km.DSO == nil {
		return
	}
	tr := &m.tramp
	if m.kcoreMaps() != nil {
		// dso__load_kcore drops the recorded kernel maps, the
		// trampolines' too, and with a kallsyms that names the
		// trampolines takes them from the kcore.
		if _, ok := m.kallsymsFunc(entryTrampolineName); ok {
			return
		}
	} else if len(tr.recorded) > 0 {
		// The recorded maps' pgoff, a kernel address, becomes an
		// address of the DSO of the map holding it.
		for _, r := range tr.recorded {
			dest := m.kmaps.Find(r.PgOff)
			if dest == nil || dest.DSO == nil {
				continue
			}
			tr.syms = append(tr.syms, &Map{Start: r.Start, End: r.End, PgOff: dest.MapIP(r.PgOff), DSO: dest.DSO})
			if cm := m.KernelCodeMap(r.PgOff); cm != nil && cm.DSO != nil {
				tr.code = append(tr.code, &Map{Start: r.Start, End: r.End, PgOff: cm.MapIP(r.PgOff), DSO: cm.DSO})
			}
		}
		return
	}
	var pgoff uint64
	found := false
	for _, s := range km.DSO.Symbols().Symbols() {
		if s.Bind != elf.STB_GLOBAL {
			continue
		}
		if s.Name == "_entry_trampoline" || s.Name == "__entry_trampoline_start" || s.Name == "entry_SYSCALL_64_trampoline" {
			pgoff, found = s.Start, true
			break
		}
	}
	if !found || pgoff == 0 {
		return
	}
	// The code: where the kernel's code map puts the symbol's address.
	va := km.UnmapIP(pgoff)
	cm := m.KernelCodeMap(va)
	for cpu := range m.NrCPUsAvail {
		start := EntryTrampolineVA(cpu)
		tr.syms = append(tr.syms, &Map{Start: start, End: start + trampolinePage, PgOff: pgoff, DSO: km.DSO})
		if cm != nil && cm.DSO != nil {
			tr.code = append(tr.code, &Map{Start: start, End: start + trampolinePage, PgOff: cm.MapIP(va), DSO: cm.DSO})
		}
	}
}
