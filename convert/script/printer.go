package script

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/perfpt/perfpt/convert/symbol"
)

// Sample-type bits the printer looks at (PERF_SAMPLE_*).
const (
	SampleIP        = 1 << 0
	SampleTID       = 1 << 1
	SampleTime      = 1 << 2
	SampleAddr      = 1 << 3
	SampleCallchain = 1 << 5
	SampleCPU       = 1 << 7
	SamplePeriod    = 1 << 8
)

// Event describes the event (evsel) a sample belongs to.
type Event struct {
	Name         string
	AttrType     uint32
	Config       uint64
	SampleType   uint64
	SamplePeriod uint64
}

// OutputType returns the event's output class.
func (e *Event) OutputType() OutputType { return OutputTypeOf(e.AttrType) }

// IsBTS mirrors is_bts_event: a hardware branch-instructions event with
// period 1, which is how perf synthesises PT branch samples.
func (e *Event) IsBTS() bool {
	return e.AttrType == 0 && e.Config == 4 && e.SamplePeriod == 1
}

// addrCorrelatesSym mirrors sample_addr_correlates_sym.
func (e *Event) addrCorrelatesSym() bool {
	if e.AttrType == 1 && (e.Config == 2 || e.Config == 5 || e.Config == 6) {
		return true
	}
	return e.IsBTS()
}

// Loc is an address resolved like perf's addr_location.
type Loc struct {
	HasMap   bool
	DSO      string // the dso name perf prints
	Kernel   bool
	MapStart uint64
	Addr     uint64 // map-relative address (map_ip), or the ip without a map
	Sym      *symbol.Symbol
	// Ref is the resolver's own handle on the map (opaque here).
	Ref any
}

// Frame is one resolved callchain entry.
type Frame struct {
	IP  uint64
	Loc Loc
}

// Resolver resolves addresses in the context of one sample's thread.
type Resolver interface {
	// ResolveAddr resolves a branch target (perf's thread__resolve on
	// sample->addr).
	ResolveAddr(addr uint64) Loc
	// Srcline returns what perf's map__srcline gives for l ("??:0" when
	// unknown, as perf; "" without a map).
	Srcline(l *Loc) string
}

// Sample is one sample to print, real or synthesised.
type Sample struct {
	Ev        *Event
	Comm      string
	PID, TID  int32
	CPU       uint32
	Time      uint64
	Period    uint64
	IP, Addr  uint64
	Flags     uint32
	InsnLen   int
	Insn      []byte
	InsnCnt   uint64
	CycCnt    uint64
	IPLoc     Loc
	Callchain []Frame // nil: none
	// Depth is the thread-stack depth for callindent.
	Depth int
	// HasThreadStack says the thread keeps a call stack (perf's
	// thread->ts), which changes the callindent depth of returns.
	HasThreadStack bool
	Res            Resolver
	// Synth is the payload of a synthesised PT event (psb, cbr).
	Synth Synth

	// Pre-resolved values, for printing away from the session (when set,
	// Res is not asked): the branch target and the IP's source line.
	AddrLoc   Loc
	AddrOK    bool
	Srcline   string
	SrclineOK bool
}

// Detach resolves what printing s may ask of its Resolver (the branch
// target, and the IP's source line when srcline is printed), so that s can
// be printed after the session has moved on; Res is cleared.
func (s *Sample) Detach(srcline bool) {
	if s.Res == nil {
		return
	}
	if s.Ev != nil && s.Ev.addrCorrelatesSym() {
		s.AddrLoc, s.AddrOK = s.Res.ResolveAddr(s.Addr), true
	}
	if srcline && s.IPLoc.HasMap {
		s.Srcline, s.SrclineOK = s.Res.Srcline(&s.IPLoc), true
	}
	s.Res = nil
}

// SynthKind says which synthesised event a Synth holds.
type SynthKind uint8

// Synthesised event kinds.
const (
	SynthNone SynthKind = iota
	SynthPSB
	SynthCBR
)

// Synth is the raw payload of a PERF_TYPE_SYNTH sample.
type Synth struct {
	Kind        SynthKind
	Offset      uint64 // psb
	CBR         uint32 // cbr
	Freq        uint32 // cbr: kHz
	MaxNonTurbo uint32 // cbr
}

// Options are perf script's printing options besides -F.
type Options struct {
	Fields       *Fields
	Nanosecs     bool // --ns
	UseCallchain bool // callchains printed (not -G)
	// NameWidth is evlist__max_name_len: the longest event name of the
	// session, synthesised events included. When 0, NameWidthFn is asked
	// at the first sample printed (perf computes it lazily too).
	NameWidth   int
	NameWidthFn func() int
}

// Printer writes samples as perf script does.
type Printer struct {
	w       *bufio.Writer
	o       Options
	spacing int // callindent column state
	buf     []byte
	scratch [32]byte
	curF    Field // the fields of the sample being printed
}

// NewPrinter returns a printer writing to w.
func NewPrinter(w io.Writer, o Options) *Printer {
	if o.Fields == nil {
		o.Fields = DefaultFields()
	}
	return &Printer{w: bufio.NewWriterSize(w, 1<<20), o: o}
}

// SetUseCallchain says whether callchains are printed.
func (p *Printer) SetUseCallchain(v bool) { p.o.UseCallchain = v }

// Flush writes buffered output.
func (p *Printer) Flush() error { return p.w.Flush() }

// has reports whether field f is printed for the sample being printed
// (curF is set by Print and PrintError from the sample's output type).
func (p *Printer) has(_ OutputType, f Field) bool { return p.curF&f != 0 }

// Print prints one sample (process_event).
func (p *Printer) Print(s *Sample) {
	t := s.Ev.OutputType()
	p.curF = p.o.Fields.Of(t)
	if p.curF == 0 {
		return
	}
	b := p.w.AvailableBuffer()
	if p.curF&(FieldComm|FieldPID|FieldTID|FieldCPU|FieldTime) != 0 {
		b = p.start(b, s, t)
	}
	if p.has(t, FieldPeriod) {
		b = padLeft(b, strconv.AppendUint(p.num(), s.Period, 10), 10)
		b = append(b, ' ')
	}
	if p.has(t, FieldEvent) {
		if p.o.NameWidth == 0 && p.o.NameWidthFn != nil {
			p.o.NameWidth = p.o.NameWidthFn()
		}
		name := s.Ev.Name
		if name == "" {
			name = "[unknown]"
		}
		b = padLeftStr(b, name, p.o.NameWidth)
		b = append(b, ':', ' ')
	}
	if p.o.Fields.Flags {
		b = append(b, ' ', ' ')
		b = padRightStr(b, FlagsString(s.Flags), 21)
		b = append(b, ' ')
	}
	if s.Ev.IsBTS() {
		b = p.bts(b, s, t)
		p.w.Write(b)
		return
	}
	if s.Ev.AttrType == PerfTypeSynth && p.has(t, FieldSynth) {
		b = appendSynth(b, &s.Synth)
	}
	if p.has(t, FieldAddr) {
		b = p.addr(b, s, t)
	}
	if p.has(t, FieldIP) {
		cc := p.o.UseCallchain && s.Callchain != nil
		if cc {
			b = append(b, '\n')
		} else {
			b = append(b, ' ')
		}
		b = p.sym(b, s, t, p.ipOpts(t), cc)
	}
	if p.curF&(FieldInsnLen|FieldInsn|FieldIPC) != 0 {
		b = p.insn(b, s, t)
		b = p.ipc(b, s, t)
	}
	b = append(b, '\n')
	p.w.Write(b)
}

func (p *Printer) num() []byte { return p.scratch[:0] }

// start mirrors perf_sample__fprintf_start.
func (p *Printer) start(b []byte, s *Sample, t OutputType) []byte {
	if p.has(t, FieldComm) {
		if p.has(t, FieldIP) && s.Ev.SampleType&SampleCallchain != 0 && p.o.UseCallchain {
			b = append(b, s.Comm...)
		} else {
			b = padLeftStr(b, s.Comm, 16)
		}
		b = append(b, ' ')
	}
	pid, tid := p.has(t, FieldPID), p.has(t, FieldTID)
	switch {
	case pid && tid:
		b = padLeft(b, strconv.AppendInt(p.num(), int64(s.PID), 10), 5)
		b = append(b, '/')
		b = padRight(b, strconv.AppendInt(p.num(), int64(s.TID), 10), 5)
		b = append(b, ' ')
	case pid:
		b = padLeft(b, strconv.AppendInt(p.num(), int64(s.PID), 10), 5)
		b = append(b, ' ')
	case tid:
		b = padLeft(b, strconv.AppendInt(p.num(), int64(s.TID), 10), 5)
		b = append(b, ' ')
	}
	if p.has(t, FieldCPU) {
		b = append(b, '[')
		b = padZero(b, strconv.AppendInt(p.num(), int64(int32(s.CPU)), 10), 3)
		b = append(b, ']', ' ')
	}
	if p.has(t, FieldTime) {
		b = AppendTime(b, s.Time, p.o.Nanosecs)
		b = append(b, ':', ' ')
	}
	return b
}

// AppendTime appends a sample time as perf script prints it: "%5lu.%09llu"
// with --ns, else "%12s" of sec.usec.
func AppendTime(b []byte, t uint64, ns bool) []byte {
	var s1, s2 [24]byte
	sec := t / 1e9
	if ns {
		b = padLeft(b, strconv.AppendUint(s1[:0], sec, 10), 5)
		b = append(b, '.')
		return padZero(b, strconv.AppendUint(s2[:0], t%1e9, 10), 9)
	}
	var s3 [48]byte
	v := strconv.AppendUint(s3[:0], sec, 10)
	v = append(v, '.')
	v = padZero(v, strconv.AppendUint(s1[:0], t%1e9/1000, 10), 6)
	return padLeft(b, v, 12)
}

const (
	optIP = 1 << iota
	optSym
	optDSO
	optSymOff
	optSrcline
)

func (p *Printer) ipOpts(t OutputType) int {
	o := 0
	if p.has(t, FieldIP) {
		o |= optIP
	}
	if p.has(t, FieldSym) {
		o |= optSym
	}
	if p.has(t, FieldDSO) {
		o |= optDSO
	}
	if p.has(t, FieldSymOff) {
		o |= optSymOff
	}
	if p.has(t, FieldSrcline) {
		o |= optSrcline
	}
	return o
}

// symName mirrors __symbol__fprintf_symname_offs.
func symName(b []byte, l *Loc, offs bool) []byte {
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

func dsoName(b []byte, l *Loc) []byte {
	if !l.HasMap {
		return append(b, "[unknown]"...)
	}
	return append(b, l.DSO...)
}

// sym mirrors sample__fprintf_sym (and sample__fprintf_callchain).
func (p *Printer) sym(b []byte, s *Sample, t OutputType, opts int, cc bool) []byte {
	if cc {
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
			if opts&optDSO != 0 {
				b = append(b, " ("...)
				b = dsoName(b, &f.Loc)
				b = append(b, ')')
			}
			if opts&optSrcline != 0 {
				b = appendSrcline(b, s.Res, &f.Loc)
			}
			b = append(b, '\n')
		}
		return b
	}
	if opts&optIP != 0 {
		b = appendHex16(b, s.IP)
	}
	if opts&optSym != 0 {
		b = append(b, ' ')
		b = symName(b, &s.IPLoc, opts&optSymOff != 0)
	}
	if opts&optDSO != 0 {
		b = append(b, " ("...)
		b = dsoName(b, &s.IPLoc)
		b = append(b, ')')
	}
	if opts&optSrcline != 0 {
		b = s.appendIPSrcline(b)
	}
	return b
}

func (s *Sample) appendIPSrcline(b []byte) []byte {
	if s.SrclineOK {
		if !s.IPLoc.HasMap || s.Srcline == "" || strings.HasPrefix(s.Srcline, "??:0") {
			return b
		}
		b = append(b, "\n  "...)
		return append(b, s.Srcline...)
	}
	return appendSrcline(b, s.Res, &s.IPLoc)
}

// appendSrcline mirrors map__fprintf_srcline with prefix "\n  ": nothing
// without a map or when the line is unknown ("??:0").
func appendSrcline(b []byte, r Resolver, l *Loc) []byte {
	if !l.HasMap || r == nil {
		return b
	}
	src := r.Srcline(l)
	if src == "" || strings.HasPrefix(src, "??:0") {
		return b
	}
	b = append(b, "\n  "...)
	return append(b, src...)
}

// addr mirrors perf_sample__fprintf_addr.
func (p *Printer) addr(b []byte, s *Sample, t OutputType) []byte {
	b = appendHex16(b, s.Addr)
	if !s.Ev.addrCorrelatesSym() {
		return b
	}
	var l Loc
	if s.AddrOK {
		l = s.AddrLoc
	} else if s.Res != nil {
		l = s.Res.ResolveAddr(s.Addr)
	}
	if p.has(t, FieldSym) {
		b = append(b, ' ')
		b = symName(b, &l, p.has(t, FieldSymOff))
	}
	if p.has(t, FieldDSO) {
		b = append(b, " ("...)
		b = dsoName(b, &l)
		b = append(b, ')')
	}
	return b
}

// bts mirrors perf_sample__fprintf_bts: branch samples.
func (p *Printer) bts(b []byte, s *Sample, t OutputType) []byte {
	srclineLast := false
	if p.has(t, FieldCallindent) {
		b = p.callindent(b, s, t)
	}
	if p.has(t, FieldIP) {
		opts := p.ipOpts(t)
		cc := p.o.UseCallchain && s.Callchain != nil
		if !cc {
			b = append(b, ' ')
			if opts&optSrcline != 0 {
				srclineLast = true
				opts &^= optSrcline
			}
		} else {
			b = append(b, '\n')
		}
		b = p.sym(b, s, t, opts, cc)
	}
	if p.has(t, FieldAddr) || (s.Ev.SampleType&SampleAddr != 0 && !p.o.Fields.UserSet(t)) {
		b = append(b, " => "...)
		b = p.addr(b, s, t)
	}
	b = p.ipc(b, s, t)
	if srclineLast {
		b = s.appendIPSrcline(b)
	}
	b = p.insn(b, s, t)
	return append(b, '\n')
}

// callindent mirrors perf_sample__fprintf_callindent.
func (p *Printer) callindent(b []byte, s *Sample, t OutputType) []byte {
	depth := s.Depth
	if s.HasThreadStack && s.Flags&FlagReturn != 0 {
		depth++
	}
	var name string
	var ip uint64
	haveName := false
	switch {
	case s.Flags&(FlagCall|FlagTraceBegin) != 0:
		if s.Ev.addrCorrelatesSym() {
			var l Loc
			if s.AddrOK {
				l = s.AddrLoc
			} else if s.Res != nil {
				l = s.Res.ResolveAddr(s.Addr)
			}
			if l.Sym != nil {
				name, haveName = l.Sym.Name, true
			} else {
				ip = s.Addr
			}
		} else {
			ip = s.Addr
		}
	case s.Flags&(FlagReturn|FlagTraceEnd) != 0:
		if s.IPLoc.Sym != nil {
			name, haveName = s.IPLoc.Sym.Name, true
		} else {
			ip = s.IP
		}
	}
	start := len(b)
	dstart := start
	if p.has(t, FieldDSO) && !(p.has(t, FieldIP) || p.has(t, FieldAddr)) {
		b = append(b, '(')
		b = dsoName(b, &s.IPLoc)
		b = append(b, ")\t"...)
		start = len(b)
	}
	_ = dstart
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

// insn mirrors perf_sample__fprintf_insn.
func (p *Printer) insn(b []byte, s *Sample, t OutputType) []byte {
	if p.has(t, FieldInsnLen) {
		b = append(b, " ilen: "...)
		b = strconv.AppendInt(b, int64(s.InsnLen), 10)
	}
	if p.has(t, FieldInsn) && s.InsnLen > 0 {
		b = append(b, " insn:"...)
		for i := 0; i < s.InsnLen && i < len(s.Insn); i++ {
			b = append(b, ' ', hexDigits[s.Insn[i]>>4], hexDigits[s.Insn[i]&15])
		}
	}
	return b
}

// ipc mirrors perf_sample__fprintf_ipc.
func (p *Printer) ipc(b []byte, s *Sample, t OutputType) []byte {
	if !p.has(t, FieldIPC) || s.CycCnt == 0 || s.InsnCnt == 0 {
		return b
	}
	ipc := uint32(s.InsnCnt * 100 / s.CycCnt)
	b = append(b, " \t IPC: "...)
	b = strconv.AppendUint(b, uint64(ipc/100), 10)
	b = append(b, '.')
	b = padZero(b, strconv.AppendUint(nil, uint64(ipc%100), 10), 2)
	b = append(b, " ("...)
	b = strconv.AppendUint(b, s.InsnCnt, 10)
	b = append(b, '/')
	b = strconv.AppendUint(b, s.CycCnt, 10)
	return append(b, ") "...)
}

// ErrorLine is a decoder error (PERF_RECORD_AUXTRACE_ERROR).
type ErrorLine struct {
	Type     uint32 // 1: instruction trace error
	Code     uint32
	CPU      int32
	PID, TID int32
	IP       uint64
	Time     uint64 // 0: printed as "time 0"
	HasTime  bool   // fmt >= 1
	Msg      string
}

// PrintError prints an error line as perf_event__fprintf_auxtrace_error.
func (p *Printer) PrintError(e *ErrorLine) {
	b := p.w.AvailableBuffer()
	b = append(b, ' ')
	if e.Type == 1 {
		b = append(b, "instruction trace"...)
	} else {
		b = append(b, "unknown"...)
	}
	b = append(b, " error type "...)
	b = strconv.AppendUint(b, uint64(e.Type), 10)
	if e.HasTime && e.Time != 0 {
		b = append(b, " time "...)
		b = strconv.AppendUint(b, e.Time/1e9, 10)
		b = append(b, '.')
		b = padZero(b, strconv.AppendUint(nil, e.Time%1e9, 10), 9)
	} else {
		b = append(b, " time 0"...)
	}
	b = append(b, " cpu "...)
	b = strconv.AppendInt(b, int64(e.CPU), 10)
	b = append(b, " pid "...)
	b = strconv.AppendInt(b, int64(e.PID), 10)
	b = append(b, " tid "...)
	b = strconv.AppendInt(b, int64(e.TID), 10)
	b = append(b, " ip "...)
	if e.IP == 0 {
		b = append(b, '0')
	} else {
		b = append(b, "0x"...)
		b = strconv.AppendUint(b, e.IP, 16)
	}
	b = append(b, " code "...)
	b = strconv.AppendUint(b, uint64(e.Code), 10)
	b = append(b, ": "...)
	b = append(b, e.Msg...)
	b = append(b, '\n')
	p.w.Write(b)
}

// appendSynth mirrors perf_sample__fprintf_synth for psb and cbr, padded
// to 34 columns (perf_sample__fprintf_pt_spacing).
func appendSynth(b []byte, sy *Synth) []byte {
	start := len(b)
	switch sy.Kind {
	case SynthPSB:
		b = append(b, " psb offs: "...)
		if sy.Offset == 0 {
			b = append(b, '0')
		} else {
			b = append(b, "0x"...)
			b = strconv.AppendUint(b, sy.Offset, 16)
		}
	case SynthCBR:
		b = append(b, " cbr: "...)
		b = padLeft(b, strconv.AppendUint(nil, uint64(sy.CBR), 10), 2)
		b = append(b, " freq: "...)
		b = padLeft(b, strconv.AppendUint(nil, uint64((sy.Freq+500)/1000), 10), 4)
		b = append(b, " MHz "...)
		if sy.MaxNonTurbo != 0 {
			pct := (5 + (1000*sy.CBR)/sy.MaxNonTurbo) / 10
			b = append(b, '(')
			b = padLeft(b, strconv.AppendUint(nil, uint64(pct), 10), 3)
			b = append(b, "%) "...)
		}
	default:
		return b
	}
	if n := len(b) - start; n < 34 {
		b = appendSpaces(b, 34-n)
	}
	return b
}
