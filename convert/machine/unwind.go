package machine

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"os"
	"runtime"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/convert/unwind"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/perftext"
)

// ThreadSpace is a thread's address space as the unwinder sees it
// (perf's find_proc_info and access_dso_mem over the thread's maps).
type ThreadSpace struct {
	m *Machine
	t *Thread
}

// Space returns thread t's address space as the unwinder sees it.
func (m *Machine) Space(t *Thread) ThreadSpace { return ThreadSpace{m: m, t: t} }

// unwindTable returns d's unwind table, loaded once: from the code a
// special DSO holds ([vdso]), else from the file perf reads its data from.
//
// .eh_frame through .eh_frame_hdr only: perf 6.1 as installed here is
// built without libunwind's dwarf_find_debug_frame (it imports
// _Ux86_64_dwarf_search_unwind_table alone: NO_LIBUNWIND_DEBUG_FRAME), so
// its find_proc_info never reads .debug_frame, and code described there
// alone (Go binaries, gcc -fno-asynchronous-unwind-tables) is left to
// libunwind's frame-pointer heuristics. Measured: a Go program and two C
// programs whose functions have .debug_frame only, recorded with
// --call-graph dwarf: 35, 4 and 91 lines differed with .debug_frame, 0
// without (TestDebugFrameOnlyMatchesPerf).
func (m *Machine) unwindTable(d *DSO) *unwind.Table {
	d.Symbols()
	key := d.Name
	if len(d.BuildID) > 0 {
		key = hex.EncodeToString(d.BuildID)
	}
	return m.unwindTabs.Get(key, func() *unwind.Table {
		if code := d.Code(); code != nil {
			t, _ := unwind.LoadEH(d.Name, unwind.BytesReader(code))
			return t
		}
		p := m.dataFile(d)
		if p == "" {
			return nil
		}
		t, _ := unwind.LoadFileEH(p)
		return t
	})
}

// noteUnwindMap mirrors unwind__prepare_access for a map of d joining
// ms (thread__insert_map, maps__clone): perf sets up DWARF unwinding for
// an address space at once when the recording names no architecture,
// else at the first map whose DSO's data it can open and finds an ELF
// file in (dso__type), with the unwinder of the recording's architecture
// (perf_env__arch) and the file's class. perf 6.1's x86_32 and arm64
// unwinders are not built in: for a 32-bit file of an x86 recording or a
// 64-bit one of an arm or arm64 recording it says so and leaves the
// address space for a later map; every other pair gets the local (x86_64)
// unwinder, which reads the registers as x86's. An address space without
// an unwinder unwinds nothing, not even the sampled ip.
func (m *Machine) noteUnwindMap(ms *Maps, d *DSO) {
	if ms.unwind || !m.DwarfUnwind {
		return
	}
	if !m.ArchKnown {
		ms.unwind = true
		return
	}
	if !d.elfClassKnown {
		d.elfClass, d.elfClassKnown = m.dataELFClass(d), true
	}
	if d.elfClass != elf.ELFCLASS32 && d.elfClass != elf.ELFCLASS64 {
		return // DSO__TYPE_UNKNOWN
	}
	arch := m.Arch
	if arch == "" {
		arch = runtime.GOARCH // perf_env__arch: the local machine's
	}
	arch = perftext.NormArch(arch)
	is64 := d.elfClass == elf.ELFCLASS64
	if arch == "x86" && !is64 || (arch == "arm64" || arch == "arm") && is64 {
		m.warn("unwind: target platform=" + arch + " is not supported")
		return
	}
	ms.unwind = true
}

// dataELFClass is dso__type: the ELF class of the DSO's data (the image
// the session holds, or its data file), ELFCLASSNONE when it cannot be
// read as ELF.
func (m *Machine) dataELFClass(d *DSO) elf.Class {
	var hdr [5]byte
	if code := d.Code(); code != nil {
		copy(hdr[:], code)
	} else if f := m.openData(d); f == nil {
		return elf.ELFCLASSNONE
	} else if n, _ := f.ReadAt(hdr[:], 0); n < len(hdr) {
		return elf.ELFCLASSNONE
	}
	if string(hdr[:4]) != elf.ELFMAG {
		return elf.ELFCLASSNONE
	}
	return elf.Class(hdr[4])
}

// dataFile is the file perf reads d's bytes from ("" for none).
func (m *Machine) dataFile(d *DSO) string {
	if d.dataOnce {
		return d.dataPath
	}
	d.dataOnce = true
	d.dataPath = symbol.DataFile(m.symOpts, d.Name, d.BuildID, isVdso(d.Name))
	return d.dataPath
}

// Module mirrors find_proc_info's map and table lookup and
// read_unwind_spec_eh_frame's base address: the lowest start - pgoff of
// the DSO's maps (compared as perf compares them), less the file's first
// PT_LOAD address.
func (s *ThreadSpace) Module(pc uint64) (*unwind.Table, uint64, bool) {
	mp := s.t.Maps.find(pc)
	if mp == nil {
		return nil, 0, false
	}
	t := s.m.unwindTable(mp.DSO)
	if t == nil {
		return nil, 0, true
	}
	base := ^uint64(0)
	for _, o := range s.t.Maps.list {
		if o.DSO == mp.DSO && o.Start < base {
			base = o.Start - o.PgOff
		}
	}
	bias := base - t.LoadBase
	switch s.reach(mp.DSO, t, bias) {
	case reachNone:
		return t.Unmapped(), bias, true
	case reachOther:
		return s.view(mp.DSO, t, bias), bias, true
	}
	if s.m.mismatched(mp.DSO) {
		t = s.view(mp.DSO, t, bias)
	}
	return t, bias, true
}

// tableReach says how a DSO's search table and .eh_frame can be read in an
// address space (perf's access_mem over the thread's maps).
type tableReach int8

const (
	reachUnknown tableReach = iota
	reachOwn                // every byte lies in maps of the DSO
	reachOther              // every byte lies in maps, some of other DSOs
	reachNone               // some byte lies outside every map
)

// reach is how the runtime spans of t's search table and .eh_frame
// (Table.Spans, at bias) lie in s's maps, kept per DSO for the last
// address space and generation asked about.
//
// perf's find_proc_info reads them with access_mem, and outside the
// sample's stack dump access_mem only reads bytes a recorded map holds.
// They lie in a read-only segment of the file, which perf record maps in
// its MMAP records only when the tracking (first) event asks for DWARF
// stacks (evsel__config sets mmap_data there alone): with
// "-e cpu-clock -e page-faults/call-graph=dwarf/" no read-only mapping is
// recorded, the lookup fails and perf's unwind stops after the sampled ip,
// although the files are at hand. perf is wrong there (the tables are in
// the files it has open); perfpt matches it.
func (s *ThreadSpace) reach(d *DSO, t *unwind.Table, bias uint64) tableReach {
	k := viewKey{s.t.Maps, s.t.Maps.gen, bias}
	if d.reachVal != reachUnknown && d.reachKey == k {
		return d.reachVal
	}
	r := reachOwn
	tabLo, tabHi, ehLo, ehHi, ok := t.Spans()
	if ok {
		tr, _ := s.spanReach(d, tabLo+bias, tabHi+bias)
		if tr == reachNone && s.anyMapped(tabLo+bias, tabHi+bias) {
			// perf's lookup reads only the entries it probes: those
			// in the maps are read (the view's SetReadable), a probe
			// of one outside fails that lookup alone.
			tr = reachOther
		}
		er, partly := s.spanReach(d, ehLo+bias, ehHi+bias)
		if er == reachNone && partly {
			// perf reads the FDEs it needs, not all of .eh_frame:
			// those in the mapped part are found (read through the
			// maps, as for other files), the others are not. Seen
			// on a recording of another machine whose /usr/bin/script
			// was smaller than the local one: its .eh_frame ran past
			// the recorded maps, and perf unwound through main all
			// the same.
			er = reachOther
		}
		r = max(tr, er)
	}
	d.reachKey, d.reachVal = k, r
	return r
}

// anyMapped says whether some byte of the runtime span [lo, hi) lies in a
// map.
func (s *ThreadSpace) anyMapped(lo, hi uint64) bool {
	for _, o := range s.t.Maps.list {
		if o.Start < hi && lo < o.End {
			return true
		}
	}
	return false
}

// spanReach is reach for the runtime span [lo, hi); partly says that a
// span outside the maps (reachNone) begins in them.
func (s *ThreadSpace) spanReach(d *DSO, lo, hi uint64) (r tableReach, partly bool) {
	r = reachOwn
	for a := lo; a < hi; {
		mp := s.t.Maps.Find(a)
		if mp == nil {
			return reachNone, a > lo
		}
		if mp.DSO != d {
			r = reachOther
		}
		a = mp.End
	}
	return r, false
}

// mismatched reports whether d's data file is not the file the recording
// mapped (its build id differs from the recorded one): perf reads it all
// the same (dso__data_fd checks no build id), so that unwinding must read
// the tables through the recorded mappings as perf does (Table.View).
func (m *Machine) mismatched(d *DSO) bool {
	if !d.bidChecked {
		d.bidChecked = true
		if len(d.BuildID) > 0 && d.Code() == nil {
			if p := m.dataFile(d); p != "" {
				fb := symbol.ReadBuildID(p)
				d.bidMismatch = len(fb) > 0 && hex.EncodeToString(fb) != hex.EncodeToString(d.BuildID)
			}
		}
	}
	return d.bidMismatch
}

// maxViewSpan bounds the bytes of a mapping read for Table.View.
const maxViewSpan = 256 << 20

// viewKey identifies a table read through an address space.
type viewKey struct {
	maps *Maps
	gen  uint64
	bias uint64
}

// view returns t read through s's maps at bias (Table.View), kept per
// address space and its generation.
func (s *ThreadSpace) view(d *DSO, t *unwind.Table, bias uint64) *unwind.Table {
	k := viewKey{s.t.Maps, s.t.Maps.gen, bias}
	if v, ok := d.views[k]; ok {
		return v
	}
	// The span of the mapping the module base belongs to (an address
	// space can keep older mappings of the same file elsewhere).
	base := bias + t.LoadBase
	lo, hi := ^uint64(0), uint64(0)
	for _, o := range s.t.Maps.list {
		if o.DSO == d && o.Start >= base && o.End-base <= maxViewSpan {
			lo, hi = min(lo, o.Start), max(hi, o.End)
		}
	}
	v := t.View(s.readRange, bias, lo, hi)
	maps := s.t.Maps
	v.SetReadable(func(addr uint64, n int) bool {
		return maps.find(addr) != nil && maps.find(addr+uint64(n)-1) != nil
	})
	if d.views == nil || len(d.views) > 64 {
		d.views = map[viewKey]*unwind.Table{}
	}
	d.views[k] = v
	return v
}

// readRange reads n bytes at addr as perf's access_dso_mem reads each
// word of them: from the file behind the map that holds it (zeros where
// no map or file gives bytes).
func (s *ThreadSpace) readRange(addr uint64, n int) []byte {
	out := make([]byte, n)
	for off := 0; off < n; {
		a := addr + uint64(off)
		mp := s.t.Maps.find(a)
		if mp == nil {
			next := uint64(0)
			for _, o := range s.t.Maps.list {
				if o.Start > a {
					next = o.Start
					break
				}
			}
			if next == 0 || next-addr >= uint64(n) {
				break
			}
			off = int(next - addr)
			continue
		}
		chunk := int(min(mp.End-a, uint64(n-off)))
		fileOff := mp.MapIP(a)
		if code := mp.DSO.Code(); code != nil {
			if fileOff < uint64(len(code)) {
				copy(out[off:off+chunk], code[fileOff:])
			}
		} else if f := s.m.openData(mp.DSO); f != nil && fileOff < 1<<62 {
			f.ReadAt(out[off:off+chunk], int64(fileOff))
		}
		off += chunk
	}
	return out
}

// ReadMapped mirrors access_dso_mem: the file bytes behind the map.
func (s *ThreadSpace) ReadMapped(addr uint64) (uint64, int) {
	mp := s.t.Maps.find(addr)
	if mp == nil {
		return 0, -1
	}
	off := mp.MapIP(addr)
	d := mp.DSO
	if code := d.Code(); code != nil {
		if off+8 < off || off+8 > uint64(len(code)) {
			return 0, 1
		}
		return binary.LittleEndian.Uint64(code[off:]), 0
	}
	f := s.m.openData(d)
	if f == nil || off > 1<<62 {
		return 0, 1
	}
	var b [8]byte
	if n, _ := f.ReadAt(b[:], int64(off)); n != 8 {
		return 0, 1
	}
	return binary.LittleEndian.Uint64(b[:]), 0
}

// openData opens d's data file once (nil when there is none).
func (m *Machine) openData(d *DSO) *os.File {
	if d.dataFileOpened {
		return d.dataF
	}
	d.dataFileOpened = true
	if p := m.dataFile(d); p != "" {
		d.dataF, _ = os.Open(p)
	}
	return d.dataF
}

// maxInlineNest is perf's MAX_INLINE_NEST.
const maxInlineNest = 1024

// inlineEntry is one entry perf's append_inlines adds for an address:
// sym is nil for the function holding the code (perf reuses the real
// symbol when addr2line names it alike), else a symbol for an inlined
// function, with the range of the real one; file and line are the
// entry's position (perf's inline_list srcline), when Machine.Srclines
// asks for it.
type inlineEntry struct {
	sym  *symbol.Symbol
	file string
	line int
}

// AppendFrame appends the callchain entry of ip resolved to l, preceded
// by the functions inlined there when perf's append_inlines adds them
// (symbol_conf.inline_name, the default; --no-inline turns it off). perf
// 6.1 calls it for DWARF-unwound frames only (unwind_entry).
func (m *Machine) AppendFrame(out []sample.Frame, ip uint64, l sample.Loc) []sample.Frame {
	if m.NoInline || !l.HasMap || l.Sym == nil {
		return append(out, sample.Frame{IP: ip, Loc: l})
	}
	mp, _ := l.Ref.(*Map)
	if mp == nil || mp.DSO == nil {
		return append(out, sample.Frame{IP: ip, Loc: l})
	}
	inl := mp.DSO.inlines(l.Addr, l.Sym, m.Srclines)
	if len(inl) == 0 {
		return append(out, sample.Frame{IP: ip, Loc: l})
	}
	for i, e := range inl {
		f := sample.Frame{IP: ip, Loc: l, HasSrcline: m.Srclines, SrcFile: e.file, SrcLine: e.line, More: i < len(inl)-1}
		if e.sym != nil {
			f.Loc.Sym, f.Inlined = e.sym, true
		}
		out = append(out, f)
	}
	return out
}

// inlines mirrors dso__parse_addr_inlines for the DSO-relative address
// addr in function sym: perf asks its addr2line -i -f process about the
// objdump address and makes an entry of every record, innermost first
// (new_inline_sym: the real symbol where the record names it, else an
// inlined one), cached per address as perf caches its inline nodes. It
// is empty where addr2line knows nothing (perf then appends the plain
// entry).
func (d *DSO) inlines(addr uint64, sym *symbol.Symbol, srclines bool) []inlineEntry {
	if d.Name == "" || d.Name[0] == '[' || hasPrefix(d.Name, "/tmp/perf-") {
		return nil
	}
	if e, ok := d.inl[addr]; ok {
		return e
	}
	if d.inl == nil {
		d.inl = map[uint64][]inlineEntry{}
	}
	var out []inlineEntry
	if f := d.a2l(); f != nil {
		var ok bool
		if srclines {
			d.src.recs, ok = f.Addr2line(addr+d.textOffset, d.src.recs[:0])
		} else {
			d.src.recs, ok = f.Addr2lineNames(addr+d.textOffset, d.src.recs[:0])
		}
		if ok {
			for i, r := range d.src.recs {
				if i > maxInlineNest {
					break
				}
				var e inlineEntry
				if srclines {
					e.file, e.line = a2lFileLine(r.File, r.Line)
				}
				// new_inline_sym demangles addr2line's name as the
				// symbols were, before comparing it with the symbol's.
				if name := d.symOpts.DemangleName(r.Func); name != sym.Name {
					e.sym = &symbol.Symbol{Start: sym.Start, End: sym.End,
						Name: name, Bind: sym.Bind, Type: sym.Type}
				}
				out = append(out, e)
			}
		}
	}
	if len(d.inl) < 1<<20 {
		d.inl[addr] = out
	}
	return out
}

// LBRCallchain mirrors resolve_lbr_callchain_sample for a callee-first
// chain of a sample whose event records the LBR call stack: the kernel's
// chain up to its PERF_CONTEXT_USER marker, then the first branch's target
// and every branch's source, resolved in user space without inlined
// frames (add_callchain_ip with branch set), then, with --stitch-lbr
// (StitchLBR), the entries stitched from the thread's earlier stacks.
// ok is false when the chain has no user part (within max_stack
// entries): perf then resolves the chain as usual.
func (m *Machine) LBRCallchain(t *Thread, ips []uint64, b *LBRBranches, out []sample.Frame) (_ []sample.Frame, ok bool) {
	n := min(m.MaxDepth(), len(ips))
	end := -1
	for i := 0; i < n; i++ {
		if ips[i] == perfdata.CallchainUser {
			end = i
			break
		}
	}
	if end < 0 {
		return out, false
	}
	st := m.stitchOf(t, b)
	stitched := false
	if st != nil {
		stitched = st.hasStitched(b, uint64(m.MaxLBR))
		if !stitched {
			st.stitched = st.stitched[:0]
		}
		st.remember(b)
	}
	out = m.resolveChainAll(t, ips[:end+1], out[:0])
	if b.First == nil {
		return out, true
	}
	out = append(out, sample.Frame{IP: b.First.To, Loc: m.ResolveMode(t, false, b.First.To)})
	for i, e := range b.Entries {
		f := sample.Frame{IP: e.From, Loc: m.ResolveMode(t, false, e.From)}
		out = append(out, f)
		if t.lbr != nil && i < len(t.lbr.prevCursor) {
			// save_lbr_cursor_node
			t.lbr.prevCursor[i], t.lbr.prevValid[i] = f, true
		}
	}
	if stitched {
		out = append(out, st.stitched...)
	}
	return out, true
}

// resolveChainAll is lbr_callchain_add_kernel_ip: every entry of ips (no
// max_stack bound), markers switching the address space from user.
func (m *Machine) resolveChainAll(t *Thread, ips []uint64, out []sample.Frame) []sample.Frame {
	kernel := false
	for _, ip := range ips {
		if ip >= perfdata.CallchainMax {
			switch ip {
			case perfdata.CallchainKernel:
				kernel = true
			case perfdata.CallchainUser:
				kernel = false
			case perfdata.CallchainHV:
			default:
				return out[:0]
			}
			continue
		}
		out = append(out, sample.Frame{IP: ip, Loc: m.ResolveMode(t, kernel, ip)})
	}
	return out
}
