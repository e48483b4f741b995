package script

import (
	"strconv"
	"strings"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/symbol"
)

// symName mirrors __symbol__fprintf_symname_offs.
func symName(b []byte, l *sample.Loc, offs bool) []byte {
	if l.Sym == nil {
		return append(b, "[unknown]"...)
	}
	b = append(b, l.Sym.Name...)
	if offs {
		b = append(b, "+0x"...)
		b = strconv.AppendUint(b, l.Sym.Offset(l.Addr, l.MapStart), 16)
	}
	return b
}

func dsoName(b []byte, l *sample.Loc, pad int) []byte {
	start := len(b)
	if !l.HasMap {
		b = append(b, "[unknown]"...)
	} else {
		b = append(b, l.DSO...)
	}
	if pad > 0 {
		// map__fprintf_dsoname's scnprintf_pad: at most pad-1
		// bytes of the name, then spaces to pad bytes.
		b = b[:start+min(len(b)-start, pad-1)]
		b = appendSpaces(b, start+pad-len(b))
	}
	return b
}

// symText is the text printed after an address for its symbol and DSO
// (" sym+0x" and " (dso)"), kept for the last location printed: samples
// come in runs within one function.
type symText struct {
	ok     bool
	sym    *symbol.Symbol
	hasMap bool
	dso    string
	opts   int
	off    bool     // the symbol offset follows name
	name   []byte   // " sym", with "+0x" when off
	dsoT   []byte   // " (dso)"
	whole  []byte   // name and dsoT (when not off)
	short  [32]byte // the start of whole
	pad    int      // Options.PadDSO
}

// append appends what sample__fprintf_sym prints for l after the address
// (opts: optSym, optSymOff, optDSO).
func (c *symText) append(b []byte, l *sample.Loc, opts int) []byte {
	if !c.ok || l.Sym != c.sym || opts != c.opts || (opts&optDSO != 0 && (l.HasMap != c.hasMap || l.DSO != c.dso)) {
		c.fill(l, opts)
	}
	if !c.off {
		// Short texts (most symbol names) go in one 32-byte store
		// instead of a memmove call.
		if n := len(c.whole); n <= 32 && cap(b)-len(b) >= 32 {
			*(*[32]byte)(b[len(b) : len(b)+32]) = c.short
			return b[:len(b)+n]
		}
		return append(b, c.whole...)
	}
	b = append(b, c.name...)
	b = strconv.AppendUint(b, l.Sym.Offset(l.Addr, l.MapStart), 16)
	return append(b, c.dsoT...)
}

func (c *symText) fill(l *sample.Loc, opts int) {
	c.ok, c.sym, c.hasMap, c.dso, c.opts = true, l.Sym, l.HasMap, l.DSO, opts
	c.off = false
	c.name = c.name[:0]
	if opts&optSym != 0 {
		c.name = append(c.name, ' ')
		c.name = symName(c.name, l, false)
		if opts&optSymOff != 0 && l.Sym != nil {
			c.name = append(c.name, "+0x"...)
			c.off = true
		}
	}
	c.dsoT = c.dsoT[:0]
	if opts&optDSO != 0 {
		c.dsoT = append(c.dsoT, " ("...)
		c.dsoT = dsoName(c.dsoT, l, c.pad)
		c.dsoT = append(c.dsoT, ')')
	}
	c.whole = append(append(c.whole[:0], c.name...), c.dsoT...)
	c.short = [32]byte{}
	copy(c.short[:], c.whole)
}

// ipSym mirrors sample__fprintf_sym for a sample without a callchain.
func (p *Printer) ipSym(b []byte, s *sample.Sample, opts int) []byte {
	if opts&optIP != 0 {
		b = appendHex16(b, s.IP)
	}
	if opts&(optSym|optDSO) != 0 {
		b = p.ipText.append(b, &s.IPLoc, opts&(optSym|optSymOff|optDSO))
	}
	if opts&optSrcline != 0 {
		b = appendIPSrcline(b, s)
	}
	return b
}

// callchain mirrors sample__fprintf_callchain.
func (p *Printer) callchain(b []byte, s *sample.Sample, opts int) []byte {
	for i := range s.Callchain {
		f := &s.Callchain[i]
		if opts&optIP != 0 {
			b = append(b, '\t')
			if f.Loc.HasMap && !f.Loc.Kernel {
				b = appendHex16(b, f.Loc.Addr)
			} else {
				b = appendHex16(b, f.IP)
			}
		}
		if opts&optSym != 0 {
			b = append(b, ' ')
			b = symName(b, &f.Loc, opts&optSymOff != 0)
		}
		if opts&optDSO != 0 && !f.Inlined {
			b = append(b, " ("...)
			b = dsoName(b, &f.Loc, p.o.PadDSO)
			b = append(b, ')')
		}
		if opts&optSrcline != 0 {
			if f.HasSrcline {
				// The node's own srcline (srcline_from_fileline), printed
				// even when unknown.
				b = append(b, "\n  "...)
				if p.o.FullSourcePath {
					b = append(b, f.SrcFile...)
				} else {
					b = append(b, f.SrcFile[strings.LastIndexByte(f.SrcFile, '/')+1:]...)
				}
				b = append(b, ':')
				b = strconv.AppendInt(b, int64(f.SrcLine), 10)
			} else {
				b = appendSrcline(b, s.Res, &f.Loc, "\n  ")
			}
		}
		if f.Inlined {
			b = append(b, " (inlined)"...)
		}
		b = append(b, '\n')
		if f.Loc.Sym != nil && p.o.StopBT[f.Loc.Sym.Name] {
			break // --stop-bt: after the frame, as perf stops
		}
	}
	return b
}

func appendIPSrcline(b []byte, s *sample.Sample) []byte {
	if s.SrclineOK {
		if !s.IPLoc.HasMap || s.Srcline == "" || strings.HasPrefix(s.Srcline, "??:0") {
			return b
		}
		b = append(b, "\n  "...)
		return append(b, s.Srcline...)
	}
	return appendSrcline(b, s.Res, &s.IPLoc, "\n  ")
}

// appendSrcline mirrors map__fprintf_srcline with prefix: nothing
// without a map or when the line is unknown ("??:0").
func appendSrcline(b []byte, r sample.Resolver, l *sample.Loc, prefix string) []byte {
	if !l.HasMap || r == nil {
		return b
	}
	src := r.Srcline(l)
	if src == "" || strings.HasPrefix(src, "??:0") {
		return b
	}
	b = append(b, prefix...)
	return append(b, src...)
}

// addrLoc returns the resolved branch target of s.
func addrLoc(s *sample.Sample, tmp *sample.Loc) *sample.Loc {
	switch {
	case s.AddrOK:
		return &s.AddrLoc
	case s.Res != nil:
		*tmp = s.Res.ResolveAddr(s.Addr)
	}
	return tmp
}

// addr mirrors perf_sample__fprintf_addr.
func (p *Printer) addr(b []byte, s *sample.Sample, pl *plan) []byte {
	b = appendHex16(b, s.Addr)
	if !pl.addrCorr || pl.addrOpts == 0 {
		return b
	}
	var tmp sample.Loc
	return p.addrText.append(b, addrLoc(s, &tmp), pl.addrOpts)
}

// bts mirrors perf_sample__fprintf_bts: branch samples.
func (p *Printer) bts(b []byte, s *sample.Sample, pl *plan) []byte {
	srclineLast := false
	if pl.f&FieldCallindent != 0 {
		b = p.callindent(b, s, pl)
	}
	if pl.f&FieldIP != 0 {
		opts := pl.opts
		if p.o.UseCallchain && s.Callchain != nil {
			b = append(b, '\n')
			b = p.callchain(b, s, opts)
		} else {
			b = append(b, ' ')
			if opts&optSrcline != 0 {
				srclineLast = true
				opts &^= optSrcline
			}
			b = p.ipSym(b, s, opts)
		}
	}
	if pl.btsAddr {
		b = append(b, " => "...)
		b = p.addr(b, s, pl)
	}
	if pl.f&FieldIPC != 0 {
		b = p.ipc(b, s)
	}
	if srclineLast {
		b = appendIPSrcline(b, s)
	}
	if pl.f&(FieldInsn|FieldInsnLen|FieldBrstackinsn|FieldBrstackinsnlen) != 0 {
		b = p.insn(b, s)
	}
	return append(b, '\n')
}

// BranchSym mirrors resolve_branch_sym: the name of the function a call
// (or trace begin) sample goes to, or a return (or trace end) comes from;
// ok is false when the sample is neither or that address has no symbol.
func BranchSym(s *sample.Sample) (name string, ok bool) {
	name, _, ok = branchSym(s, s.Ev.AddrCorrelatesSym())
	return name, ok
}

// branchSym is resolve_branch_sym: the name, or else the address it has
// none for (0 when the sample is no call, return or trace begin or end).
// addrCorr is sample_addr_correlates_sym of the sample's event.
func branchSym(s *sample.Sample, addrCorr bool) (name string, ip uint64, ok bool) {
	switch {
	case s.Flags&(sample.FlagCall|sample.FlagTraceBegin) != 0:
		if addrCorr {
			var tmp sample.Loc
			if l := addrLoc(s, &tmp); l.Sym != nil {
				return l.Sym.Name, 0, true
			}
		}
		return "", s.Addr, false
	case s.Flags&(sample.FlagReturn|sample.FlagTraceEnd) != 0:
		if s.IPLoc.Sym != nil {
			return s.IPLoc.Sym.Name, 0, true
		}
		return "", s.IP, false
	}
	return "", 0, false
}

// callindent mirrors perf_sample__fprintf_callindent.
func (p *Printer) callindent(b []byte, s *sample.Sample, pl *plan) []byte {
	depth := s.Depth
	if s.HasThreadStack && s.Flags&sample.FlagReturn != 0 {
		depth++
	}
	name, ip, haveName := branchSym(s, pl.addrCorr)
	start := len(b)
	if p.has(FieldDSO) && !(p.has(FieldIP) || p.has(FieldAddr)) {
		b = append(b, '(')
		b = dsoName(b, &s.IPLoc, p.o.PadDSO)
		b = append(b, ")\t"...)
		start = len(b)
	}
	if haveName {
		b = appendSpaces(b, depth*4)
		b = append(b, name...)
	} else if ip != 0 {
		b = appendSpaces(b, depth*4)
		b = appendHex16(b, ip)
	}
	n := len(b) - start
	if n > p.spacing || (n != 0 && n < p.spacing-52) {
		p.spacing = (n + 4 + 31) / 32 * 32
	}
	if n < p.spacing {
		b = appendSpaces(b, p.spacing-n)
	}
	return b
}
