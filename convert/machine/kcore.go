package machine

import (
	"bufio"
	"debug/elf"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/perfpt/perfpt/convert/symbol"
)

// kcoreCode is the kernel's code as perf reads it from a kcore file
// (dso__load_kcore): the kcore beside the kallsyms file in use (a perf.data
// directory's kcore_dir, or --kallsyms), one map per executable segment,
// each read at its file offset.
type kcoreCode struct {
	once sync.Once
	maps *Maps // nil: no kcore
	// refReloc is the recorded _text address (the [kernel.kallsyms]_text
	// MMAP's pgoff), which the kallsyms must agree with.
	refReloc     uint64
	haveRefReloc bool
	// Why is the reason there is no kcore, for the caller's warning.
	Why string
	// kernelMap is the segment that became the kernel map (useKcore).
	kernelMap *Map
	// modules are the modules file's modules: "[name]" and address.
	modules map[string]uint64
	// recorded are the kernel maps as recorded, which useKcore
	// replaced: a module map that invalidates the kcore brings them
	// back (addModuleMap).
	recorded *Maps
	// funcs are the kallsyms functions kallsymsFunc found.
	funcsOnce sync.Once
	funcs     map[string]uint64
}

// KernelCodeMap returns the map holding the code of kernel address ip:
// from the kcore when there is one, else the kernel map (whose DSO has no
// code: PT walks there fail as perf's do); a PTI entry trampoline's page
// reads the kernel's code it is mapped onto (trampoline.go).
func (m *Machine) KernelCodeMap(ip uint64) *Map {
	var mp *Map
	if m.vmPath != "" {
		mp = m.kmaps.Find(ip) // the vmlinux's maps (vmlinux.go)
	} else if km := m.kcoreMaps(); km != nil {
		mp = km.Find(ip)
	} else {
		mp = m.kmaps.Find(ip)
	}
	if mp == nil {
		mp = m.entryTrampoline(ip, true)
	}
	return mp
}

// kcoreMaps mirrors dso__load_kcore's conditions and maps: the kallsyms
// file is not /proc/kallsyms (perf reads /proc/kcore only for the running
// kernel: not done), a "modules" file is beside it
// (validate_kcore_modules), its _text is the recorded one
// (validate_kcore_addresses), and the kcore has executable PT_LOAD
// segments (file__read_maps).
func (m *Machine) kcoreMaps() *Maps {
	k := &m.kcode
	k.once.Do(func() {
		if m.kPath == "" || m.kPath == "/proc/kallsyms" {
			return
		}
		dir := filepath.Dir(m.kPath)
		kcore := filepath.Join(dir, "kcore")
		mods, err := readProcModules(filepath.Join(dir, "modules"))
		if err != nil {
			k.Why = "no modules file beside " + m.kPath
			return
		}
		k.modules = mods
		for _, mp := range m.kmaps.list {
			if !k.moduleListed(mp) {
				k.Why = mp.DSO.module + " is not in the modules file at " + strconv.FormatUint(mp.Start, 16)
				return
			}
		}
		if k.haveRefReloc {
			if addr, ok := m.kallsymsFunc("_text"); !ok || addr != k.refReloc {
				k.Why = m.kPath + ": _text is not the recorded kernel's"
				return
			}
		}
		f, err := elf.Open(kcore)
		if err != nil {
			k.Why = kcore + ": " + err.Error()
			return
		}
		defer f.Close()
		d := &DSO{Name: "[kernel.kallsyms]", Kernel: true, file: kcore}
		d.once.Do(func() {}) // no symbols of its own: the kernel map has them
		ms := &Maps{}
		for _, p := range f.Progs {
			if p.Type != elf.PT_LOAD || p.Flags&elf.PF_X == 0 || p.Filesz == 0 {
				continue
			}
			ms.Insert(&Map{Start: p.Vaddr, End: p.Vaddr + p.Filesz, PgOff: p.Off, DSO: d})
		}
		if len(ms.list) == 0 {
			k.Why = kcore + ": no executable segment"
			return
		}
		k.maps = ms
	})
	return k.maps
}

// moduleListed mirrors do_validate_kcore_modules for one map: a module's
// map must be in the modules file at the same address (other maps pass).
func (k *kcoreCode) moduleListed(mp *Map) bool {
	if mp.DSO == nil || mp.DSO.module == "" {
		return true
	}
	start, ok := k.modules[mp.DSO.module]
	return ok && start == mp.Start
}

// readProcModules mirrors read_proc_modules (modules__parse): a
// /proc/modules file's modules, "[name]" and address; lines without an
// address or a size followed by a blank are passed over.
func readProcModules(path string) (map[string]uint64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	mods := map[string]uint64{}
	for _, line := range strings.Split(string(b), "\n") {
		x := strings.LastIndexByte(line, 'x')
		sp := strings.IndexByte(line, ' ')
		if x < 0 || sp < 0 {
			continue
		}
		// hex2u64: the hex digits after the 'x'
		end := x + 1
		for end < len(line) && strings.IndexByte("0123456789abcdefABCDEF", line[end]) >= 0 {
			end++
		}
		start, _ := strconv.ParseUint(line[x+1:end], 16, 64)
		// strtoul(size, &end, 0) must stop at a blank
		rest := line[sp+1:]
		n := 0
		for n < len(rest) && strings.IndexByte("0123456789abcdefABCDEFxX", rest[n]) >= 0 {
			n++
		}
		if n == len(rest) || rest[n] != ' ' && rest[n] != '\t' {
			continue
		}
		mods["["+line[:sp]+"]"] = start
	}
	return mods, nil
}

// useKcore mirrors what dso__load_kcore does to the kernel maps when the
// kcore can be used: they become its executable segments (of the kernel
// DSO, with kallsyms' symbols), so that kernel addresses outside them have
// no map, for symbols as for code. maps__split_kallsyms_for_kcore puts
// every kallsyms symbol, the modules' too, in the kernel DSO; a segment
// holding a module's address gets a DSO of that name whose symbols are the
// modules' that start in it.
func (m *Machine) useKcore() {
	km := m.kcoreMaps()
	if km == nil {
		return
	}
	kd := m.kernelDSO()
	ms := &Maps{}
	stext, haveStext := m.kallsymsFunc("_stext")
	for _, mp := range km.list {
		n := &Map{Start: mp.Start, End: mp.End, DSO: kd, Identity: true}
		if m.kcode.holdsModule(mp) && !(haveStext && stext >= mp.Start && stext < mp.End) {
			lo, hi := mp.Start, mp.End
			md := &DSO{Name: kd.Name, Kernel: true}
			md.symFn = func() *symbol.Table {
				if ks := m.kallsyms(); ks != nil {
					if t := ks.ModulesIn(lo, hi); t != nil {
						return t
					}
				}
				return &symbol.Table{}
			}
			n.DSO = md
		}
		ms.Insert(n)
		// The kernel map becomes the smallest segment holding _stext,
		// else the first.
		k := m.kcode.kernelMap
		if k == nil || haveStext && stext >= n.Start && stext < n.End &&
			(k.End-k.Start > n.End-n.Start || stext < k.Start || stext >= k.End) {
			m.kcode.kernelMap = n
		}
	}
	m.kcode.recorded = m.kmaps
	m.kmaps = ms
}

// holdsModule says whether a module of the modules file is at an address
// of kcore segment mp.
func (k *kcoreCode) holdsModule(mp *Map) bool {
	for _, a := range k.modules {
		if a >= mp.Start && a < mp.End {
			return true
		}
	}
	return false
}

// kcoreModuleMap handles a module's map recorded after the kernel's (perf
// record writes the modules' MMAPs after the kernel's) while the kcore is
// in use: perf adds it, then dso__load_kcore, at the kernel's first load,
// drops it with the other recorded maps when the modules file lists it at
// its address, and gives up the kcore when it does not (the recorded maps
// stay). It reports whether the map is to be added.
func (m *Machine) kcoreModuleMap(mp *Map) bool {
	k := &m.kcode
	if k.recorded == nil {
		return true
	}
	if k.moduleListed(mp) {
		return false
	}
	k.Why = mp.DSO.module + " is not in the modules file at " + strconv.FormatUint(mp.Start, 16)
	m.kmaps, k.recorded, k.maps, k.kernelMap = k.recorded, nil, nil, nil
	return true
}

// kernelMap mirrors machine__kernel_map: the map of the kernel's own
// code, from the [kernel.kallsyms] MMAP, or with a kcore the segment that
// dso__load_kcore made it (the smallest holding _stext, else the first);
// nil when there is none.
func (m *Machine) kernelMap() *Map {
	if k := m.kcode.kernelMap; k != nil {
		return k
	}
	kd := m.dsos["[kernel.kallsyms]"]
	for _, mp := range m.kmaps.list {
		if kd != nil && mp.DSO == kd {
			return mp
		}
	}
	return nil
}

// KernelMapFunc mirrors the symbol walks of intel_pt_switch_ip: the
// address of the first symbol called name (only a global one when global
// is set) of the kernel map's symbols, in address order, that lies in
// the map; 0 when there is none or the map's symbols cannot be loaded.
func (m *Machine) KernelMapFunc(name string, global bool) uint64 {
	km := m.kernelMap()
	if km == nil || km.DSO == nil {
		return 0
	}
	for _, s := range km.DSO.Symbols().Symbols() {
		if s.Name != name || global && s.Bind != elf.STB_GLOBAL {
			continue
		}
		// map->unmap_ip of the symbol's start
		if ip := km.UnmapIP(s.Start); ip >= km.Start && ip < km.End {
			return ip
		}
	}
	return 0
}

// kallsymsFunc mirrors kallsyms__get_function_start on the kallsyms file
// in use (m.kPath): the address of the function (type T or W) name, one
// of the reference and trampoline symbols kallsymsFuncNames lists. perf
// reads the file again for each; here one pass finds them all, on first
// use.
func (m *Machine) kallsymsFunc(name string) (uint64, bool) {
	k := &m.kcode
	k.funcsOnce.Do(func() { k.funcs = kallsymsFuncs(m.kPath, kallsymsFuncNames...) })
	a, ok := k.funcs[name]
	return a, ok
}

// kallsymsFuncNames are the functions kallsymsFunc is asked for.
var kallsymsFuncNames = []string{"_text", "_stext", entryTrampolineName}

// kallsymsFuncs returns the address of each function (type T or W) of
// names in the kallsyms file path, the first line naming it.
func kallsymsFuncs(path string, names ...string) map[string]uint64 {
	found := map[string]uint64{}
	f, err := os.Open(path)
	if err != nil {
		return found
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(found) < len(names) {
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 || !slices.Contains(names, fs[2]) {
			continue
		}
		if _, dup := found[fs[2]]; dup {
			continue
		}
		if t := strings.ToUpper(fs[1]); t != "T" && t != "W" {
			continue
		}
		if a, err := strconv.ParseUint(fs[0], 16, 64); err == nil {
			found[fs[2]] = a
		}
	}
	return found
}

// FindMap returns the map of addr in thread t's address space: the
// kernel's maps for a kernel address (machine__kernel_ip), t's own maps
// otherwise; nil when there is none.
func (m *Machine) FindMap(t *Thread, addr uint64) *Map {
	if addr >= m.KernelStart {
		return m.kmaps.Find(addr)
	}
	if t == nil {
		return nil
	}
	return t.Maps.Find(addr)
}
