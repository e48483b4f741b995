package machine

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/perfdata"
)

// AddBuildID makes the DSO of a BUILD_ID feature entry, with its build-id
// (the kernel's entries are left to the kernel map).
func (m *Machine) AddBuildID(b perfdata.BuildID) *DSO {
	name := b.Filename
	if name == "" {
		return nil
	}
	if strings.HasPrefix(name, "[kernel.kallsyms]") {
		m.kernelBuildID = b.BuildID
		m.kernelNamed = true
		return nil
	}
	if short, kmod := kmodPath(name); kmod && b.Misc&7 == perfdata.MiscKernel {
		// __event_process_build_id makes the module's DSO under the
		// table's name, with its module name as the short name that
		// machine__findnew_module_dso finds it by: perf then prints the
		// table's path for the module's map.
		if d := m.dsos[short]; d != nil {
			return d
		}
		d := m.moduleDSO(short)
		d.Name, d.BuildID = name, b.BuildID
		return d
	}
	if b.Misc&7 == perfdata.MiscKernel && !m.kernelNamed {
		// machine__process_kernel_mmap_event takes the first kernel
		// DSO of the table that is not a module (is_kernel_module) as
		// the kernel's: a vmlinux path names the kernel then, and its
		// build-id is the kernel's.
		if _, kmod := kmodPath(name); !kmod {
			m.kernelName, m.kernelNamed = name, true
			m.kernelBuildID = b.BuildID
			return nil
		}
	}
	d := m.dso(name, b.BuildID)
	d.fromTable = true
	return d
}

// RegisterIdleThread mirrors perf_session__register_idle_thread: the idle
// task, pid and tid 0, is named "swapper" from the start (threads forked
// from it inherit the name until their own COMM; per-CPU PT queues run it
// between turns, with no user maps).
func (m *Machine) RegisterIdleThread() {
	t := m.FindNewThread(0, 0)
	t.Comm, t.commSet = "swapper", true
}

// ProcessComm mirrors machine__process_comm_event.
func (m *Machine) ProcessComm(r *perfdata.RecordComm) {
	t := m.FindNewThread(r.PID, r.TID)
	t.Comm, t.commSet = r.Comm, true
}

// ProcessFork mirrors machine__process_fork_event.
func (m *Machine) ProcessFork(r *perfdata.RecordFork) {
	parent := m.FindNewThread(r.PPID, r.PTID)
	delete(m.threads, r.TID)
	m.lastThread = nil
	t := m.FindNewThread(r.PID, r.TID)
	if parent.commSet {
		t.Comm, t.commSet = parent.Comm, true
	}
	// A FORK that perf synthesised for a task running when the recording
	// began carries PERF_RECORD_MISC_FORK_EXEC: perf does not clone the
	// parent's maps then (do_maps_clone), the task's own synthesised
	// MMAPs follow.
	if t.PID != parent.PID && r.PID == r.TID && r.Misc&perfdata.MiscForkExec == 0 {
		t.Maps = parent.Maps.clone()
		// maps__clone prepares unwinding map by map, as inserts do.
		for _, mp := range t.Maps.list {
			m.noteUnwindMap(t.Maps, mp.DSO)
		}
	} else if t.PID == parent.PID {
		// thread__prepare_access: a new thread of the process tries
		// the shared maps again until one sets unwinding up.
		for _, mp := range t.Maps.list {
			if t.Maps.unwind {
				break
			}
			m.noteUnwindMap(t.Maps, mp.DSO)
		}
	}
}

// ProcessMmap mirrors machine__process_mmap(2)_event; exec says the
// mapping is executable (PROT_EXEC).
func (m *Machine) ProcessMmap(pid, tid int32, addr, length, pgoff uint64, name string, bid []byte, cpumode int, exec bool) {
	if cpumode == perfdata.MiscKernel || pid == -1 {
		if strings.HasPrefix(name, "[kernel.kallsyms]") || strings.HasPrefix(name, "[guest.kernel.kallsyms") {
			m.addKernelMap(name, addr, length, pgoff)
			if buildIDDefined(bid) {
				// machine__process_kernel_mmap_event: an MMAP2 with
				// a build id (perf record --buildid-mmap) gives the
				// kernel's, which then decides where its symbols
				// come from (kernelSymbolsPath), as the BUILD_ID
				// table's would.
				m.kernelBuildID = bid
			}
			if m.vmPath != "" {
				// the kernel map's load remaps it (vmlinux.go)
				m.useVmlinux()
			} else if strings.HasSuffix(name, "]_text") {
				// maps__set_kallsyms_ref_reloc_sym: _text's address
				m.kcode.refReloc, m.kcode.haveRefReloc = pgoff, true
				m.useKcore()
			}
		} else if name != "" && (name[0] == '/' || name[0] == '[') {
			m.addModuleMap(name, addr, length, bid)
		} else {
			m.recordTrampoline(name, addr, length, pgoff)
		}
		return
	}
	t := m.FindNewThread(pid, tid)
	// map__new: executable anonymous memory (JIT code) is the
	// process's perf map, and it and the no-DSO mappings ([stack],
	// [heap], /SYSV) map addresses to themselves.
	anon, noDSO := isAnonMemory(name), isNoDSOMemory(name)
	if (anon || noDSO) && exec {
		name = "/tmp/perf-" + strconv.Itoa(int(pid)) + ".map"
	}
	if name == "[vdso]" {
		// map__new: the vdso's map starts at offset 0 whatever the
		// event says (kernels before 3.x gave its address).
		pgoff = 0
		name = vdsoName(t.Maps, m.symOpts)
		d := m.dso(name, bid)
		m.vdsoBuildID(d, bid)
		m.mapDSO(t, d, addr, length, pgoff, false)
		return
	}
	m.mapDSO(t, m.dso(name, bid), addr, length, pgoff, anon || noDSO)
}

// vdsoBuildID mirrors the end of map__new for a vdso map: the event's
// build id when it has one (MMAP2 with PERF_RECORD_MISC_MMAP_BUILD_ID),
// else that of the DSO whose long name is the event's file name,
// "[vdso]", when the BUILD_ID table made it (header_build_id), becomes
// the build id of the DSO machine__findnew_vdso chose, whichever that is:
// with the 64-bit [vdso] in the table, a 32-bit process's [vdso32] (the
// table's, or the one perf-read-vdso32 gave) takes the 64-bit vdso's
// build id, so perf reads its symbols from the 64-bit vdso in the
// build-id cache (dso__load; symsrc__init rejects any image of another
// build id) and prints "[unknown] ([vdso32])" for __kernel_vsyscall.
func (m *Machine) vdsoBuildID(d *DSO, bid []byte) {
	if !buildIDDefined(bid) {
		h := m.dsos["[vdso]"]
		if h == nil || !h.fromTable || h.BuildID == nil {
			return
		}
		bid = h.BuildID
	}
	if !bytes.Equal(d.BuildID, bid) {
		d.BuildID = bid
	}
}

// mapDSO inserts the map of d at addr into t's address space.
func (m *Machine) mapDSO(t *Thread, d *DSO, addr, length, pgoff uint64, identity bool) {
	end := addr + length
	if end < addr {
		end = ^uint64(0)
	}
	m.noteUnwindMap(t.Maps, d)
	t.Maps.Insert(&Map{Start: addr, End: end, PgOff: pgoff, DSO: d, Identity: identity})
}

// addModuleMap mirrors machine__addnew_module_map for a kernel mmap that
// is not the kernel's: a map of the kernel's address space at start (its
// offsets from start, map__new2) with the module's DSO, one per module
// name (machine__findnew_module_dso); moduleDSO says where its symbols
// come from.
func (m *Machine) addModuleMap(path string, start, length uint64, bid []byte) {
	name := kmodName(path)
	d := m.dsos[name]
	if d == nil {
		d = m.moduleDSO(name)
		if path != name {
			// dso__set_long_name: the path of the mmap that made it.
			d.Long = path
		}
	}
	if buildIDDefined(bid) {
		d.BuildID = bid
	}
	end := start + length
	if end < start {
		end = ^uint64(0)
	}
	if d.modStart == 0 {
		d.modStart = start
	}
	mp := &Map{Start: start, End: end, DSO: d}
	if m.kcoreModuleMap(mp) {
		m.kmaps.Insert(mp)
	}
}

// moduleDSO makes the DSO of the module named name (its short name). Its
// symbols are those kallsyms lists for the module, relative to its map's
// start, when the kernel's symbols come from a kallsyms file and no kcore
// is in use: dso__load_kernel_sym's dso__split_kallsyms moves each
// "[module]" symbol into the kernel map group's map of that name. That
// split happens when the kernel DSO loads; here a module's first lookup
// loads the kernel's symbols first, so the result does not depend on
// which DSO a decode looks up first (perf, looking up a module before any
// kernel address, would try the module's .ko first: not modelled). With a
// vmlinux, a kcore (which drops the module maps) or no kallsyms, the
// module has no symbols: perf would read its .ko, which is not on this
// machine.
func (m *Machine) moduleDSO(name string) *DSO {
	d := &DSO{Name: name, Kernel: true, module: name}
	d.symFn = func() *symbol.Table {
		if m.vmPath != "" || m.kcoreMaps() != nil || d.modStart == 0 {
			return &symbol.Table{}
		}
		m.kernelDSO().Symbols()
		if ks := m.kallsyms(); ks != nil {
			if t := ks.Module(strings.Trim(name, "[]")); t != nil {
				return t.Shift(-d.modStart)
			}
		}
		return &symbol.Table{}
	}
	m.dsos[name] = d
	return d
}

// kmodName is the DSO name perf gives a kernel module's path
// (__kmod_path__parse with a name): a "[name]" as it is; else, when the
// path's last '.' (after a ".gz" or ".xz" perf can decompress, the 3 bytes
// before it) starts ".ko" within the base name, the base name up to there
// in brackets, and otherwise the base name; '-' made '_'.
func kmodName(path string) string {
	name, _ := kmodPath(path)
	return name
}

// kmodPath is __kmod_path__parse: the DSO name of path and whether it is a
// kernel module's (a [name] other than the kernel's, vdso's and
// vsyscall's, or a .ko file).
func kmodPath(path string) (string, bool) {
	name := strings.LastIndexByte(path, '/') + 1
	if base := path[name:]; strings.HasPrefix(base, "[") {
		for _, k := range []string{"[kernel.kallsyms]", "[guest.kernel.kallsyms", "[vdso]", "[vdso32]", "[vdsox32]", "[vsyscall]"} {
			if strings.HasPrefix(base, k) {
				return base, false
			}
		}
		return base, true
	}
	ext := strings.LastIndexByte(path, '.')
	if ext < 0 {
		return path[name:], false
	}
	if c := path[ext+1:]; c == "gz" || c == "xz" {
		ext -= 3
	}
	if ext > name && strings.HasPrefix(path[ext:], ".ko") {
		return strings.ReplaceAll("["+path[name:ext]+"]", "-", "_"), true
	}
	return strings.ReplaceAll(path[name:], "-", "_"), false
}

// ResolveKernelAddr mirrors machine__resolve_kernel_addr: the name and
// start address of the kernel symbol holding addr.
func (m *Machine) ResolveKernelAddr(addr uint64) (string, uint64, bool) {
	l := m.ResolveMode(nil, true, addr)
	if !l.HasMap || l.Sym == nil {
		return "", 0, false
	}
	return l.Sym.Name, addr - (l.Addr - l.Sym.Start), true
}

// isAnonMemory mirrors perf's is_anon_memory.
func isAnonMemory(name string) bool {
	return name == "//anon" || strings.HasPrefix(name, "/dev/zero") || strings.HasPrefix(name, "/anon_hugepage")
}

// isNoDSOMemory mirrors perf's is_no_dso_memory.
func isNoDSOMemory(name string) bool {
	return strings.HasPrefix(name, "[stack") || strings.HasPrefix(name, "/SYSV") || name == "[heap]"
}

// maxStackDefault is perf script's scripting_max_stack (PERF_MAX_STACK_DEPTH).
const maxStackDefault = 127

// MaxDepth is the bound on a call chain's entries (--max-stack).
func (m *Machine) MaxDepth() int {
	switch {
	case m.MaxStack > 0:
		return m.MaxStack
	case m.MaxStack < 0: // --max-stack 0
		return 0
	}
	return maxStackDefault
}

// Callchain mirrors thread__resolve_callchain_sample for a callee-first
// callchain: context markers switch the address space, other entries
// are resolved with no fallback, at most maxStack entries. perf 6.1's
// add_callchain_ip adds no inlined frames (only unwind_entry does, for
// DWARF-unwound user frames).
func (m *Machine) Callchain(t *Thread, ips []uint64, out []sample.Frame) []sample.Frame {
	out = out[:0]
	if out == nil {
		out = make([]sample.Frame, 0, 16)
	}
	kernel, known := false, false
	n := 0
	for _, ip := range ips {
		if n >= m.MaxDepth() {
			break
		}
		if ip >= perfdata.CallchainMax {
			switch ip {
			case perfdata.CallchainKernel:
				kernel, known = true, true
			case perfdata.CallchainUser:
				kernel, known = false, true
			case perfdata.CallchainHV:
				known = true
			default:
				return out[:0]
			}
			continue
		}
		n++
		var l sample.Loc
		if known {
			l = m.ResolveMode(t, kernel, ip)
		} else {
			l = m.Resolve(t, ip >= m.KernelStart, ip)
		}
		out = append(out, sample.Frame{IP: ip, Loc: l})
	}
	return out
}

// Resolver resolves the addresses of one sample in its thread's context:
// it implements sample.Resolver. It is a value, so that the session keeps
// one beside its current sample instead of allocating one per sample.
type Resolver struct {
	m      *Machine
	t      *Thread
	kernel bool
}

// Resolver returns the resolver of a sample of thread t (kernel: the
// sample's cpumode is the kernel's).
func (m *Machine) Resolver(t *Thread, kernel bool) Resolver {
	return Resolver{m, t, kernel}
}

// ResolveAddr implements sample.Resolver.
func (r *Resolver) ResolveAddr(addr uint64) sample.Loc {
	var l sample.Loc
	r.m.ResolveInto(&l, r.t, r.kernel, addr, nil)
	return l
}

// KernelIP mirrors machine__kernel_ip: addr is in the kernel's half.
func (r *Resolver) KernelIP(addr uint64) bool { return addr >= r.m.KernelStart }

// ResolveIn mirrors thread__find_map plus map__find_symbol in the address
// space of cpumode kernel or user, whatever the sample's cpumode.
func (r *Resolver) ResolveIn(kernel bool, addr uint64) sample.Loc {
	return r.m.ResolveMode(r.t, kernel, addr)
}

// CodeMap returns the map whose DSO ReadCode reads addr's code from: in
// the kernel's address space (KernelCodeMap) or the thread's; nil when
// there is none.
func (r *Resolver) CodeMap(kernel bool, addr uint64) *Map {
	if kernel {
		return r.m.KernelCodeMap(addr)
	}
	if r.t != nil {
		return r.t.Maps.Find(addr)
	}
	return nil
}

// ReadCode mirrors the reading part of perf script's grab_bb: the map of
// addr in the kernel's or the thread's address space (the kernel's code
// where the PT decoder reads it, KernelCodeMap), and as many bytes as
// its DSO's image has from addr's offset, up to len(buf). It returns the
// bytes read (0 when there is no map or no code: perf's "cannot resolve"
// and "cannot fetch code") and the DSO's dso->is_64_bit.
func (r *Resolver) ReadCode(kernel bool, addr uint64, buf []byte) (int, bool) {
	mp := r.CodeMap(kernel, addr)
	if mp == nil || mp.DSO == nil {
		return 0, true
	}
	img := mp.DSO.Image()
	off := mp.MapIP(addr)
	if off >= uint64(len(img)) {
		return 0, true
	}
	return copy(buf, img[off:]), mp.DSO.Is64Bit()
}
