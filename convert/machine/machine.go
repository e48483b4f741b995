package machine

import (
	"debug/elf"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/srcline"
	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/convert/unwind"
)

// DSO is one mapped object (perf's struct dso): an ELF file by path, the
// kernel, a module, or an anonymous/special mapping.
type DSO struct {
	Name string // the name perf prints ("/usr/lib/.../libc.so.6", "[kernel.kallsyms]")
	// Long is perf's dso->long_name where it is not Name: a kernel
	// module's path ("/lib/modules/.../ext4.ko" of [ext4]).
	Long    string
	Kernel  bool
	BuildID []byte
	// fromTable: the BUILD_ID table made this DSO (perf's
	// header_build_id): its long name is the table's name.
	fromTable bool
	module    string // a kernel module's short name, "[ext4]"
	// modStart is the start of the module's first map (its kallsyms
	// symbols are made relative to it).
	modStart uint64

	once sync.Once
	tab  *symbol.Table
	file string // the file holding the code (for the instruction decoder)
	code []byte // the code itself when it is not a file ([vdso])

	symOpts *symbol.Options // where the files are (the build-id cache)

	// vdsoFile is LongName's mkstemp name of an unlisted [vdso].
	vdsoOnce   sync.Once
	vdsoFile   string
	decOnce    sync.Once
	dec        any // DecoderCache's value
	imgOnce    sync.Once
	img        []byte // Image's value
	symsFile   string // perf's symsrc_filename
	textOffset uint64
	src        dsoSrc
	symFn      func() *symbol.Table

	// unwinding (unwind.go): the data file, opened once, and the inline
	// entries of addresses
	dataOnce, dataFileOpened bool
	dataPath                 string
	dataF                    *os.File
	elfClass                 elf.Class // dso__type (noteUnwindMap), once elfClassKnown
	elfClassKnown            bool
	// bidChecked, bidMismatch: whether the data file's build id is not
	// the recorded one (mismatched); views are its tables read through
	// address spaces then.
	bidChecked, bidMismatch bool
	views                   map[viewKey]*unwind.Table
	// reach caches tableReach for one address space and bias.
	reachKey viewKey
	reachVal tableReach
	inl      map[uint64][]inlineEntry
}

// Symbols returns the DSO's symbol table, loading it on first use.
func (d *DSO) Symbols() *symbol.Table {
	d.once.Do(func() {
		if d.symFn != nil {
			d.tab = d.symFn()
		}
	})
	return d.tab
}

// File returns the path of the file perf reads the DSO's code from
// ("" for special mappings).
func (d *DSO) File() string {
	d.Symbols()
	return d.file
}

// AdjustSymbols reports perf's dso->adjust_symbols of the map's DSO once
// its symbols are loaded: symsrc__init sets it for symbols read from an
// ELF file (every user-space DSO, a vmlinux), dso__load clears it for
// kallsyms, a perf map or no file. perf's flag is clear until dso__load
// ran for the DSO (a sample's IP or call chain in it, say), so its
// brstackoff prints offsets in a DSO not yet loaded; perfpt loads a DSO
// when it needs it, and a [vdso] (perf's copy of one is an ELF file)
// counts as not loaded.
func (mp *Map) AdjustSymbols() bool { return mp.DSO.SymsFile() != "" }

// BranchOffset is the address perf script's brstackoff prints for addr in
// the map (perf_sample__fprintf_brstackoff): addr itself when the DSO
// adjusts symbols, else map__map_ip, which is addr - start + pgoff even for
// the kernel's identity maps (perf 6.1 calls the function, not the map's
// map_ip).
func (mp *Map) BranchOffset(addr uint64) uint64 {
	if mp.AdjustSymbols() {
		return addr
	}
	return addr - mp.Start + mp.PgOff
}

// SymsFile returns the file the DSO's symbols came from (perf's
// symsrc_filename, which perf's addr2line reads), "" when none.
func (d *DSO) SymsFile() string {
	d.Symbols()
	return d.symsFile
}

// Code returns the DSO's code when it is held in memory instead of read
// from File (the vdso, as the recording saved it), indexed by the offsets
// Map.MapIP gives; nil otherwise.
func (d *DSO) Code() []byte {
	d.Symbols()
	return d.code
}

// Image returns the bytes perf reads the DSO's code from
// (dso__data_read_offset), indexed by the offsets Map.MapIP gives: the
// code held in memory ([vdso]) or the whole file, read once; nil when
// there is none or it cannot be read (perf's DSO_DATA_STATUS_ERROR). The
// file is the one the symbols came from, else the one dso__data_open
// finds (the build-id cache entry, or the path under --symfs), which perf
// reads even when it found no symbols in it. The PT decoder's code cache,
// brstackinsn and the instruction bytes of sampled events read code from
// it.
func (d *DSO) Image() []byte {
	d.imgOnce.Do(func() {
		if code := d.Code(); code != nil {
			d.img = code
		} else if f := d.File(); f != "" {
			d.img, _ = os.ReadFile(f)
		} else if f := symbol.DataFile(d.symOpts, d.Name, d.BuildID, isVdso(d.Name)); f != "" && !d.Kernel {
			d.img, _ = os.ReadFile(f)
		}
	})
	return d.img
}

// Is64Bit mirrors dso->is_64_bit: false only for a 32-bit ELF image.
func (d *DSO) Is64Bit() bool {
	img := d.Image()
	return !(len(img) > 4 && string(img[:4]) == elf.ELFMAG && elf.Class(img[4]) == elf.ELFCLASS32)
}

// DecoderCache returns what the trace decoder keeps for this DSO (the
// session's instruction cache, perf's dso->auxtrace_cache), made by
// newCache on the first call: a slot in the DSO, so that the decoder finds
// it without a lookup. Concurrent callers get the same value.
func (d *DSO) DecoderCache(newCache func(*DSO) any) any {
	d.decOnce.Do(func() { d.dec = newCache(d) })
	return d.dec
}

// Map is one mapping of a DSO into an address space (perf's struct map).
type Map struct {
	Start, End uint64
	PgOff      uint64
	DSO        *DSO
	// Identity maps (the kernel) map addresses to themselves.
	Identity bool

	// the last symbol lookups: addresses in [lo, hi) give sym
	symCache [4]struct {
		sym    *symbol.Symbol
		lo, hi uint64
		ok     bool
	}
	symNext uint8
}

// MapIP converts an address in the map to the DSO's address space.
func (m *Map) MapIP(ip uint64) uint64 {
	if m.Identity {
		return ip
	}
	return ip - m.Start + m.PgOff
}

// UnmapIP converts an address of the DSO's address space to the map's
// (perf's map->unmap_ip).
func (m *Map) UnmapIP(a uint64) uint64 {
	if m.Identity {
		return a
	}
	return a + m.Start - m.PgOff
}

// Maps is an address space: maps sorted by start, without overlaps.
type Maps struct {
	list []*Map
	last *Map   // the map found last (lookups cluster)
	gen  uint64 // bumped by Insert: caches of lookups compare it
	// unwind says perf would unwind --call-graph dwarf samples in this
	// address space (maps->unwind_libunwind_ops is set): see
	// Machine.noteUnwindMap.
	unwind bool
}

// Gen is the address space's generation: it changes whenever a map is
// inserted, so that a cached lookup can tell it is still valid.
func (ms *Maps) Gen() uint64 { return ms.gen }

// List returns the maps in address order (not to be changed).
func (ms *Maps) List() []*Map { return ms.list }

// find is Find with a one-entry cache.
func (ms *Maps) find(addr uint64) *Map {
	if l := ms.last; l != nil && addr >= l.Start && addr < l.End {
		return l
	}
	m := ms.Find(addr)
	if m != nil {
		ms.last = m
	}
	return m
}

// Find returns the map holding addr, or nil.
func (ms *Maps) Find(addr uint64) *Map {
	if ms == nil {
		return nil
	}
	l := ms.list
	i := sort.Search(len(l), func(i int) bool { return l[i].Start > addr }) - 1
	if i >= 0 && addr < l[i].End {
		return l[i]
	}
	return nil
}

// Insert adds m, cutting the maps it overlaps as perf's
// maps__fixup_overlappings does.
func (ms *Maps) Insert(m *Map) {
	var out []*Map
	for _, o := range ms.list {
		if o.End <= m.Start || o.Start >= m.End {
			out = append(out, o)
			continue
		}
		if o.Start < m.Start {
			before := *o
			before.End = m.Start
			out = append(out, &before)
		}
		if o.End > m.End {
			after := *o
			if !after.Identity {
				after.PgOff += m.End - o.Start
			}
			after.Start = m.End
			out = append(out, &after)
		}
	}
	out = append(out, m)
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	ms.list = out
	ms.last = nil
	ms.gen++
}

// clone copies the address space (fork of a process).
func (ms *Maps) clone() *Maps {
	return &Maps{list: append([]*Map(nil), ms.list...)}
}

// CanUnwind reports whether perf unwinds --call-graph dwarf samples in
// this address space (see Machine.noteUnwindMap).
func (ms *Maps) CanUnwind() bool { return ms.unwind }

// Thread is one thread of the recording (perf's struct thread).
type Thread struct {
	PID, TID int32
	Comm     string
	commSet  bool
	Maps     *Maps
	ts       *ThreadStack
	lbr      *lbrStitch // --stitch-lbr's state (lbrstitch.go)
}

// Machine is the host's state as the records rebuild it: threads, their
// address spaces, the kernel map and the DSOs (perf's struct machine).
type Machine struct {
	threads map[int32]*Thread
	// lastThread is the thread FindNewThread returned last (samples come
	// in runs from one thread); ProcessFork, which replaces a thread,
	// forgets it.
	lastThread *Thread
	dsos       map[string]*DSO
	kmaps      *Maps
	symOpts    *symbol.Options
	kernel     *symbol.KernelSymbols
	kOnce      sync.Once
	// kSpan is the kernel map's span once its symbols came from kallsyms
	// (kernelFixedUp); nil before.
	kSpan atomic.Pointer[[2]uint64]
	kPath string // --kallsyms ("": perf's search, kernelSymbolsPath)
	// NoInline turns off the inlined frames in call chains (perf's
	// --no-inline); MaxStack bounds a call chain's entries (perf script's
	// --max-stack, 0 for perf's default of 127).
	NoInline bool
	MaxStack int
	// StitchLBR stitches LBR call stacks as perf's --stitch-lbr does,
	// MaxLBR being the CPU's LBR depth (HEADER_CPU_PMU_CAPS branches; 0:
	// unknown, no stitching).
	StitchLBR bool
	MaxLBR    int
	// DwarfUnwind says the recording has --call-graph dwarf samples
	// (perf's dwarf_callchain_users); ArchKnown that it names its
	// architecture (env->arch): then an address space unwinds only once
	// a map of a 64-bit ELF file that can be opened joins it.
	DwarfUnwind, ArchKnown bool
	// Arch is the recording's architecture (HEADER_ARCH, "" when not
	// recorded: the host's), NrCPUsAvail its nr_cpus_avail
	// (HEADER_NRCPUS): the PTI entry trampolines' maps (trampoline.go).
	Arch        string
	NrCPUsAvail int
	tramp       trampolines
	// Srclines gives inlined-frame entries their source lines (perf
	// always finds them, and prints them with -F srcline); without it
	// addr2line's answers are taken without positions, which reads less.
	Srclines bool
	// FullSrclines gives source lines their files' whole paths
	// (srcline_full_filename: perf script's --full-source-path).
	FullSrclines bool
	// LongNames prints DSOs by their long names (perf script's
	// --show-kernel-path, symbol_conf.show_kernel_path: DSOName).
	LongNames  bool
	unwindTabs unwind.Cache
	kcode      kcoreCode    // the kernel's code from a kcore (kcore.go)
	vmPath     string       // -k/--vmlinux (vmlinux.go)
	vm         vmlinuxState // its load
	// kernelBuildID is the [kernel.kallsyms] build-id of the BUILD_ID
	// table (nil: none recorded, as in pipe mode).
	kernelBuildID []byte
	// kernelName is the kernel DSO's name when the BUILD_ID table names
	// it other than [kernel.kallsyms] (a vmlinux path); kernelNamed says
	// the table's first kernel entry was seen.
	kernelName  string
	kernelNamed bool
	// refName and refAddr are perf's ref_reloc_sym: the symbol named
	// after "[kernel.kallsyms]" in the kernel MMAP ("_text") and its
	// address at record time (the MMAP's pgoff; 0: none).
	refName string
	refAddr uint64
	// Warn, when set, gets perf's warnings (one line each, no newline).
	Warn     func(string)
	srcFiles map[string]*srcline.File // SourceFile's files without a DSO
	// KernelStart is machine__kernel_start: 1<<63 on x86_64 whatever the
	// kernel map says.
	KernelStart uint64
}

// New returns an empty machine that finds symbols as o says (nil: the
// defaults) and the kernel's in the kallsyms file (perf's --kallsyms; "":
// where perf looks, see kernelSymbolsPath).
func New(o *symbol.Options, kallsyms string) *Machine {
	return &Machine{
		threads:     map[int32]*Thread{},
		dsos:        map[string]*DSO{},
		kmaps:       &Maps{},
		symOpts:     o,
		kPath:       kallsyms,
		KernelStart: 1 << 63,
	}
}

// KernelMaps returns the kernel's address space.
func (m *Machine) KernelMaps() *Maps { return m.kmaps }

// FindKernelMap returns the map of kernel address addr as perf's
// maps__find on the kernel maps finds it after their moves (findKernel),
// or nil.
func (m *Machine) FindKernelMap(addr uint64) *Map { return m.findKernel(addr) }

// FindThread returns the thread tid, or nil.
func (m *Machine) FindThread(tid int32) *Thread { return m.threads[tid] }

// FindNewThread mirrors machine__findnew_thread: a new thread gets the
// comm ":tid" and shares its process leader's address space.
func (m *Machine) FindNewThread(pid, tid int32) *Thread {
	if t := m.lastThread; t != nil && t.TID == tid && (t.PID != -1 || pid == -1) {
		return t
	}
	if t := m.threads[tid]; t != nil {
		m.lastThread = t
		if t.PID == -1 && pid != -1 {
			t.PID = pid
			if pid != tid {
				t.Maps = m.FindNewThread(pid, pid).Maps
			}
		}
		return t
	}
	t := &Thread{PID: pid, TID: tid, Comm: ":" + strconv.Itoa(int(tid))}
	if pid == tid || pid == -1 {
		t.Maps = &Maps{}
	} else {
		t.Maps = m.FindNewThread(pid, pid).Maps
	}
	m.threads[tid] = t
	return t
}

func (m *Machine) dso(name string, buildID []byte) *DSO {
	if d := m.dsos[name]; d != nil {
		return d
	}
	d := &DSO{Name: name, BuildID: buildID, symOpts: m.symOpts}
	switch {
	case name == "" || name[0] == '[' || name == "//anon" || hasPrefix(name, "/dev/zero") || hasPrefix(name, "/anon_hugepage"):
		// Special mappings have no symbols here ([vdso] is handled by
		// the build-id cache when present).
		d.symFn = func() *symbol.Table {
			if isVdso(name) {
				return vdsoSymbols(d)
			}
			return &symbol.Table{}
		}
	case strings.HasPrefix(name, "/tmp/perf-"):
		// dso__load of a perf map: a JIT's symbols, read from the
		// file as it is now (no build id, no --symfs).
		d.symFn = func() *symbol.Table {
			tab, err := symbol.LoadPerfMap(name)
			if err != nil {
				return &symbol.Table{}
			}
			return tab
		}
	default:
		d.symFn = func() *symbol.Table {
			tab, info := symbol.LoadDSOInfo(m.symOpts, name, buildID)
			d.file, d.symsFile, d.textOffset = info.Runtime, info.Syms, info.TextOffset
			return tab
		}
	}
	m.dsos[name] = d
	return d
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// kernelDSO returns the kernel DSO, with symbols from kallsyms.
func (m *Machine) kernelDSO() *DSO {
	const name = "[kernel.kallsyms]"
	if d := m.dsos[name]; d != nil {
		return d
	}
	d := &DSO{Name: name, Kernel: true}
	if m.kernelName != "" {
		d.Name = m.kernelName
	}
	if m.vmPath != "" {
		d.symFn = func() *symbol.Table {
			v := m.vmlinux()
			if v.vm == nil {
				return &symbol.Table{}
			}
			// dso__load_vmlinux: the DSO is named after the
			// vmlinux, the path as given.
			d.file, d.Long = v.file, m.vmPath
			return v.text
		}
		m.dsos[name] = d
		return d
	}
	d.symFn = func() *symbol.Table {
		ks := m.kallsyms()
		if ks == nil {
			return &symbol.Table{}
		}
		tab := ks.Kernel
		if m.kcoreMaps() != nil {
			// dso__load_kcore names the DSO after the kcore.
			d.Long = kcoreName(m.kPath)
		} else {
			if m.Arch == "" || m.Arch == "x86_64" {
				// maps__split_kallsyms deletes the PTI entry
				// trampolines' symbols (is_entry_trampoline) on
				// x86_64: their maps, recorded or made from
				// _entry_trampoline (trampoline.go), name the
				// kernel text's symbols instead. With a kcore
				// (maps__split_kallsyms_for_kcore) they stay.
				tab = tab.Without(entryTrampolineName)
			}
			if lo, hi, ok := tab.Span(); ok {
				m.kSpan.Store(&[2]uint64{lo, hi})
			}
		}
		return tab
	}
	m.dsos[name] = d
	return d
}

func (m *Machine) kallsyms() *symbol.KernelSymbols {
	m.kOnce.Do(func() {
		path := m.kernelSymbolsPath()
		if path == "" {
			return
		}
		var ks *symbol.KernelSymbols
		var err error
		if path == hostKallsyms {
			ks, err = symbol.LoadHostKallsyms(path, m.hostKallsymsCache())
		} else {
			ks, err = symbol.LoadKallsyms(path)
		}
		if err != nil {
			return
		}
		if !m.relocate(ks) {
			return
		}
		m.kernel = ks
	})
	return m.kernel
}

// addKernelMap records the kernel map of a "[kernel.kallsyms]_text" MMAP,
// and its ref_reloc_sym (machine__process_kernel_mmap_event: the symbol
// after the "]" at the MMAP's pgoff, unless pgoff is 0, as it is when
// kptr_restrict hid the addresses at record time).
func (m *Machine) addKernelMap(name string, start, length, pgoff uint64) {
	if i := strings.IndexByte(name, ']'); i >= 0 && i+1 < len(name) && pgoff != 0 {
		m.refName, m.refAddr = name[i+1:], pgoff
	}
	end := start + length
	if length == 0 || end < start {
		end = ^uint64(0)
	}
	m.kmaps.Insert(&Map{Start: start, End: end, DSO: m.kernelDSO(), Identity: true})
}

// findKernel returns the kernel address space's map of addr. Once the
// kernel map's symbols are loaded from kallsyms, perf's dso__load_kernel_sym
// moves the map's bounds to its first symbol's start and its last symbol's
// end (map__fixup_start, map__fixup_end), so that addresses past _etext,
// where the recorded [kernel.kallsyms]_text MMAP ends (.init.text:
// start_kernel and x86_64_start_kernel at the bottom of the boot CPU's idle
// stacks), resolve in it from then on; before that load, as in perf, they
// have no map. The same move shrinks a map recorded larger than the
// kallsyms' span (simpleperf's [0, ~0) kernel MMAP, another machine's
// kernel read with this machine's /proc/kallsyms): addresses outside the
// span then have no map, [unknown] in perf. The maps themselves are left as
// recorded (parallel workers read them): the span is consulted instead.
func (m *Machine) findKernel(addr uint64) *Map {
	s := m.kSpan.Load()
	if mp := m.kmaps.Find(addr); mp != nil {
		if s == nil || addr >= s[0] && addr < s[1] || mp.DSO != m.dsos["[kernel.kallsyms]"] {
			return mp
		}
	} else if s != nil && addr >= s[0] && addr < s[1] {
		return m.kernelMap()
	}
	return m.entryTrampoline(addr, false)
}

// Resolve mirrors thread__find_map_fb plus map__find_symbol: the map and
// symbol of addr in thread t's context (kernel addresses in the kernel's
// maps).
func (m *Machine) Resolve(t *Thread, kernel bool, addr uint64) sample.Loc {
	l := m.ResolveMode(t, kernel, addr)
	if l.HasMap {
		return l
	}
	if addrKernel := addr >= m.KernelStart; addrKernel != kernel {
		return m.ResolveMode(t, addrKernel, addr)
	}
	return l
}

// LocCache remembers the last address resolved by ResolveInto for one
// caller: the address space (and its generation), the map and the
// symbol's range in the map's address space. Instruction samples stay in
// one function for long runs, so most lookups are one range check.
type LocCache struct {
	maps   *Maps
	gen    uint64
	mp     *Map
	sym    *symbol.Symbol
	lo, hi uint64 // symbol range, map-relative (lo == hi: no entry)
}

// ResolveInto is Resolve writing into l, with per-map symbol caching and
// the caller's last-range cache lc (nil for none).
func (m *Machine) ResolveInto(l *sample.Loc, t *Thread, kernel bool, addr uint64, lc *LocCache) {
	var ms *Maps
	if kernel {
		ms = m.kmaps
	} else if t != nil {
		ms = t.Maps
	}
	if lc != nil && lc.maps == ms && ms != nil && lc.gen == ms.gen && lc.lo < lc.hi {
		mp := lc.mp
		if addr >= mp.Start && addr < mp.End {
			if a := mp.MapIP(addr); a >= lc.lo && a < lc.hi {
				l.HasMap, l.DSO, l.Kernel, l.MapStart, l.Addr, l.Ref = true, m.DSOName(mp.DSO), mp.DSO.Kernel, mp.Start, a, mp
				l.Sym = lc.sym
				return
			}
		}
	}
	var mp *Map
	if kernel {
		mp = m.findKernel(addr)
	} else if ms != nil {
		mp = ms.find(addr)
	}
	if mp == nil {
		*l = m.Resolve(t, kernel, addr)
		return
	}
	a := mp.MapIP(addr)
	l.HasMap, l.DSO, l.Kernel, l.MapStart, l.Addr, l.Ref = true, m.DSOName(mp.DSO), mp.DSO.Kernel, mp.Start, a, mp
	for i := range mp.symCache {
		c := &mp.symCache[i]
		if c.ok && a >= c.lo && a < c.hi {
			l.Sym = c.sym
			lc.set(ms, mp, c.sym, c.lo, c.hi)
			return
		}
	}
	sym, lo, hi := mp.DSO.Symbols().FindRange(a)
	c := &mp.symCache[mp.symNext%uint8(len(mp.symCache))]
	mp.symNext++
	c.sym, c.lo, c.hi, c.ok = sym, lo, hi, true
	l.Sym = sym
	lc.set(ms, mp, sym, lo, hi)
}

// Span returns the addresses [lo, hi) that resolve to l but for its Addr
// (the same map and symbol), when l is what ResolveInto with lc found
// last; lo == hi says nothing is known.
func (lc *LocCache) Span(l *sample.Loc) (lo, hi uint64) {
	mp := lc.mp
	if mp == nil || !l.HasMap || l.Ref != any(mp) || l.Sym != lc.sym || lc.lo >= lc.hi {
		return 0, 0
	}
	lo, hi = mp.UnmapIP(lc.lo), mp.UnmapIP(lc.hi)
	if lo > hi { // wrapped
		return 0, 0
	}
	return max(lo, mp.Start), min(hi, mp.End)
}

func (lc *LocCache) set(ms *Maps, mp *Map, sym *symbol.Symbol, lo, hi uint64) {
	if lc == nil {
		return
	}
	*lc = LocCache{maps: ms, gen: ms.gen, mp: mp, sym: sym, lo: lo, hi: hi}
}

// ResolveMode mirrors thread__find_symbol (no fallback to the other mode).
func (m *Machine) ResolveMode(t *Thread, kernel bool, addr uint64) sample.Loc {
	var l sample.Loc
	m.ResolveModeInto(&l, t, kernel, addr, nil)
	return l
}

// SymCache remembers the last symbols that ResolveModeInto found, each
// with the range of map-relative addresses over which its table gives the
// same answer (symbol.Table.FindRange), for one caller: samples taken at
// the same few places (tracepoints') skip the table's binary search.
type SymCache struct {
	ents [symCacheLen]symCacheEnt
	next int
}

type symCacheEnt struct {
	tab    *symbol.Table
	lo, hi uint64
	sym    *symbol.Symbol
}

const symCacheLen = 8

// ResolveModeInto is ResolveMode setting *l, field by field (a Loc
// built aside and copied stalled on its fresh stores, at every sample),
// with the symbol looked up through c (nil: no cache).
func (m *Machine) ResolveModeInto(l *sample.Loc, t *Thread, kernel bool, addr uint64, c *SymCache) {
	var mp *Map
	if kernel {
		mp = m.findKernel(addr)
	} else if t != nil {
		mp = t.Maps.find(addr)
	}
	*l = sample.Loc{}
	if mp == nil {
		l.Addr = addr
		return
	}
	l.HasMap, l.DSO, l.Kernel, l.MapStart, l.Addr, l.Ref = true, m.DSOName(mp.DSO), mp.DSO.Kernel, mp.Start, mp.MapIP(addr), mp
	tab := mp.DSO.Symbols()
	if c == nil {
		l.Sym = tab.Find(l.Addr)
		return
	}
	if tab == nil {
		return
	}
	for i := range c.ents {
		if e := &c.ents[i]; e.tab == tab && l.Addr >= e.lo && l.Addr < e.hi {
			l.Sym = e.sym
			return
		}
	}
	e := &c.ents[c.next]
	c.next = (c.next + 1) % symCacheLen
	e.tab = tab
	e.sym, e.lo, e.hi = tab.FindRange(l.Addr)
	l.Sym = e.sym
}
