package session

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"sort"

	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/srcline"
	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/convert/unwind"
	"github.com/perfpt/perfpt/perfdata"
)

// userUnwind holds what unwinding --call-graph dwarf samples needs across
// samples: the stepper's scratch state, the DSOs' unwind tables and data
// files, and the count of unwinds that stopped early, by reason.
type userUnwind struct {
	u     unwind.Unwinder
	regs  unwind.Regs
	ips   []uint64
	space threadSpace
	stops map[string]int
}

// threadSpace is a thread's address space as the unwinder sees it
// (perf's find_proc_info and access_dso_mem over the thread's maps).
type threadSpace struct {
	m *Machine
	t *Thread
}

// unwindTable returns d's unwind table, loaded once: from the code a
// special DSO holds ([vdso]), else from the file perf reads its data from,
// with .debug_frame also looked for in the symbol file.
func (m *Machine) unwindTable(d *DSO) *unwind.Table {
	d.Symbols()
	key := d.Name
	if len(d.BuildID) > 0 {
		key = hex.EncodeToString(d.BuildID)
	}
	return m.unwindTabs.Get(key, func() *unwind.Table {
		if code := d.Code(); code != nil {
			t, _ := unwind.Load(d.Name, unwind.BytesReader(code))
			return t
		}
		p := m.dataFile(d)
		if p == "" {
			return nil
		}
		t, _ := unwind.LoadFile(p, d.symsFile)
		return t
	})
}

// dataFile is the file perf reads d's bytes from ("" for none).
func (m *Machine) dataFile(d *DSO) string {
	if d.dataOnce {
		return d.dataPath
	}
	d.dataOnce = true
	d.dataPath = symbol.DataFile(m.symOpts, d.Name, d.BuildID, d.Name == "[vdso]")
	return d.dataPath
}

// Module mirrors find_proc_info's map and table lookup and
// read_unwind_spec_eh_frame's base address: the lowest start - pgoff of
// the DSO's maps (compared as perf compares them), less the file's first
// PT_LOAD address.
func (s *threadSpace) Module(pc uint64) (*unwind.Table, uint64, bool) {
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
	return t, base - t.LoadBase, true
}

// ReadMapped mirrors access_dso_mem: the file bytes behind the map.
func (s *threadSpace) ReadMapped(addr uint64) (uint64, int) {
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

// unwindUser appends the user frames of a sample with REGS_USER and
// STACK_USER to out, as perf's thread__resolve_callchain_unwind and
// unwind_entry do. ok is false when perf's callchain resolution fails
// for the sample (it then prints the sample without a chain).
func (s *Session) unwindUser(t *Thread, r *perfdata.RecordSample, out []script.Frame) (_ []script.Frame, ok bool) {
	if r.RegsUserABI == 0 || len(r.StackUser) == 0 || r.StackUserDynSize == 0 {
		// "Bail out if nothing was captured."
		return out, true
	}
	uw := &s.unw
	uw.regs.FromPerf(r.Attr.SampleRegsUser, r.RegsUser)
	uw.space = threadSpace{m: s.m, t: t}
	ips, stop, ok := uw.u.Unwind(&uw.regs, unwind.Stack{Data: r.StackUser, DynSize: r.StackUserDynSize},
		&uw.space, s.m.maxStack(), uw.ips[:0])
	uw.ips = ips
	if stop != nil {
		uw.count(stop)
	}
	if !ok {
		return out, false
	}
	for _, ip := range ips {
		l := s.m.resolveMode(t, false, ip)
		out = s.m.appendFrame(out, ip, l)
	}
	return out, true
}

func (uw *userUnwind) count(err error) {
	if uw.stops == nil {
		uw.stops = map[string]int{}
	}
	uw.stops[err.Error()]++
}

// UnwindWarnings returns one line for each reason DWARF unwinds stopped
// before the end of a stack, with how often (perf stops silently there;
// we count).
func (s *Session) UnwindWarnings() []string {
	var out []string
	for why, n := range s.unw.stops {
		out = append(out, fmt.Sprintf("Warning: %d DWARF unwinds stopped early: %s", n, why))
	}
	sort.Strings(out)
	return out
}

// maxInlineNest is perf's MAX_INLINE_NEST.
const maxInlineNest = 1024

// inlineEntry is one entry perf's append_inlines adds for an address:
// sym is nil for the function holding the code (perf reuses the real
// symbol when addr2line names it alike), else a symbol for an inlined
// function, with the range of the real one.
type inlineEntry struct{ sym *symbol.Symbol }

// appendFrame appends the callchain entry of ip resolved to l, preceded
// by the functions inlined there when perf's append_inlines adds them
// (symbol_conf.inline_name, the default; --no-inline turns it off). perf
// 6.1 calls it for DWARF-unwound frames only (unwind_entry).
func (m *Machine) appendFrame(out []script.Frame, ip uint64, l script.Loc) []script.Frame {
	if m.NoInline || !l.HasMap || l.Sym == nil {
		return append(out, script.Frame{IP: ip, Loc: l})
	}
	mp, _ := l.Ref.(*Map)
	if mp == nil || mp.DSO == nil {
		return append(out, script.Frame{IP: ip, Loc: l})
	}
	inl := mp.DSO.inlines(l.Addr, l.Sym)
	if len(inl) == 0 {
		return append(out, script.Frame{IP: ip, Loc: l})
	}
	for _, e := range inl {
		f := script.Frame{IP: ip, Loc: l}
		if e.sym != nil {
			f.Loc.Sym, f.Inlined = e.sym, true
		}
		out = append(out, f)
	}
	return out
}

// inlines mirrors dso__parse_addr_inlines for the DSO-relative address
// addr in function sym (perf asks addr2line -i -f at the objdump address
// and keeps one entry per record, innermost first), cached per address
// as perf caches its inline nodes. It is empty where addr2line knows no
// function (perf then appends the plain entry).
func (d *DSO) inlines(addr uint64, sym *symbol.Symbol) []inlineEntry {
	if d.Name == "" || d.Name[0] == '[' {
		return nil
	}
	if e, ok := d.inl[addr]; ok {
		return e
	}
	if d.inl == nil {
		d.inl = map[uint64][]inlineEntry{}
	}
	tab := d.srcTable()
	var out []inlineEntry
	if tab != nil {
		d.src.frames = tab.Frames(addr+d.textOffset, d.src.frames[:0])
		for i, f := range d.src.frames {
			if i >= maxInlineNest {
				break
			}
			name := f.Func
			if f.Linkage != "" {
				name = f.Linkage
			}
			if name == sym.Name || name == "??" && len(d.src.frames) == 1 {
				// Where DWARF has a line but no function, addr2line
				// names the function from the symbol table, as perf.
				out = append(out, inlineEntry{})
				continue
			}
			out = append(out, inlineEntry{sym: &symbol.Symbol{Start: sym.Start, End: sym.End,
				Name: name, Bind: sym.Bind, Type: sym.Type}})
		}
	}
	if len(d.inl) < 1<<20 {
		d.inl[addr] = out
	}
	return out
}

// srcTable returns the DWARF line and inline tables of d's symbol file
// (what addr2line reads), loaded once.
func (d *DSO) srcTable() *srcline.Table {
	d.Symbols()
	src := &d.src
	src.once.Do(func() {
		if d.symsFile != "" {
			src.tab, _ = srcline.Open(d.symsFile)
			src.bfd = loadBFDFuncs(d.symsFile)
		}
	})
	return src.tab
}

// lbrCallchain mirrors resolve_lbr_callchain_sample for a callee-first
// chain of a sample whose event records the LBR call stack: the kernel's
// chain up to its PERF_CONTEXT_USER marker, then the first branch's target
// and every branch's source, resolved in user space without inlined
// frames (add_callchain_ip with branch set). ok is false when the chain
// has no user part (within max_stack entries): perf then resolves the
// chain as usual.
func (m *Machine) lbrCallchain(t *Thread, ips []uint64, first *perfdata.BranchEntry, br []perfdata.BranchEntry, out []script.Frame) (_ []script.Frame, ok bool) {
	n := min(m.maxStack(), len(ips))
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
	out = m.resolveChainAll(t, ips[:end+1], out[:0])
	if first == nil {
		return out, true
	}
	out = append(out, script.Frame{IP: first.To, Loc: m.resolveMode(t, false, first.To)})
	for _, b := range br {
		out = append(out, script.Frame{IP: b.From, Loc: m.resolveMode(t, false, b.From)})
	}
	return out, true
}

// resolveChainAll is lbr_callchain_add_kernel_ip: every entry of ips (no
// max_stack bound), markers switching the address space from user.
func (m *Machine) resolveChainAll(t *Thread, ips []uint64, out []script.Frame) []script.Frame {
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
		out = append(out, script.Frame{IP: ip, Loc: m.resolveMode(t, kernel, ip)})
	}
	return out
}

// afterBranchStack are the sample fields that follow the branch stack.
const afterBranchStack = perfdata.SampleFormatRegsUser | perfdata.SampleFormatStackUser |
	perfdata.SampleFormatWeight | perfdata.SampleFormatWeightStruct | perfdata.SampleFormatDataSrc |
	perfdata.SampleFormatTransaction | perfdata.SampleFormatRegsIntr | perfdata.SampleFormatPhysAddr |
	perfdata.SampleFormatCgroup | perfdata.SampleFormatDataPageSize | perfdata.SampleFormatCodePageSize |
	perfdata.SampleFormatAux

// lbrFirst returns the branch entry resolve_lbr_callchain_sample takes
// the first target from: entries[0], or nil. With an empty stack perf
// still reads entries[0].to (its callee branch has no nr check): the bytes
// that follow the branch stack, which for a sample ending with it in a
// perf.data file are the next record's. perf is plainly wrong there; we
// match it where those bytes are in the file.
func (s *Session) lbrFirst(r *perfdata.RecordSample) *perfdata.BranchEntry {
	if len(r.BranchStack) > 0 {
		return &r.BranchStack[0]
	}
	if r.Compressed || r.Attr.SampleType&afterBranchStack != 0 {
		return nil
	}
	var b [16]byte
	if n, _ := s.f.ReaderAt().ReadAt(b[:], r.Offset+int64(r.Size)); n < 16 {
		return nil
	}
	s.lbrGhost = perfdata.BranchEntry{From: binary.LittleEndian.Uint64(b[:]), To: binary.LittleEndian.Uint64(b[8:])}
	return &s.lbrGhost
}
