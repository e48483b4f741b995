package script

import (
	"strconv"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/ptdecode/perfinsn"
)

// codeSource is what brstackinsn asks of a sample's Resolver (the
// session's machine.Resolver implements it): the code and symbols of the
// sample's thread as they are when the sample is printed.
type codeSource interface {
	// KernelIP is machine__kernel_ip.
	KernelIP(addr uint64) bool
	// ResolveIn is thread__find_map and map__find_symbol in the kernel's
	// (kernel) or the thread's address space.
	ResolveIn(kernel bool, addr uint64) sample.Loc
	// ReadCode reads code at addr into buf as grab_bb does
	// (dso__data_read_offset through the map of addr): the bytes read,
	// 0 when there are none, and dso->is_64_bit.
	ReadCode(kernel bool, addr uint64, buf []byte) (int, bool)
}

// Sizes of perf script's brstackinsn (MAXBB, MAXINSN).
const (
	maxBB   = 16384
	maxInsn = 15
)

// brinsn is the state of one perf_sample__fprintf_brstackinsn.
type brinsn struct {
	p       *Printer
	s       *sample.Sample
	src     codeSource
	buf     []byte
	kernel  bool // perf's x.cpumode: the mode of the last block grabbed
	is64    bool
	lastSym *symbol.Symbol
	cycles  int // total_cycles
}

// errXfer is grab_bb's -ENXIO: a block from kernel to user or back.
const errXfer = -6

// grab mirrors grab_bb: the code of [start, end] plus an instruction's
// length, its byte count (0: none; errXfer for a block crossing between
// kernel and user). It sets the mode of start, as perf sets x.cpumode.
func (x *brinsn) grab(start, end uint64) int {
	if start == 0 || end == 0 {
		return 0
	}
	x.kernel = x.src.KernelIP(start)
	if x.kernel != x.src.KernelIP(end) {
		return errXfer
	}
	if end-start > maxBB-maxInsn {
		return 0
	}
	n, is64 := x.src.ReadCode(x.kernel, start, x.buf[:end-start+maxInsn])
	if n > 0 {
		x.is64 = is64
	}
	return n
}

// dumpInsn mirrors dump_insn (the x86 one of intel-pt-insn-decoder.c):
// "insn: " and the bytes of the instruction at code, each as "%02x ",
// and its length; "<bad>" and 0 when it does not decode within code (the
// kernel's insn_decode sees at most MAX_INSN_SIZE bytes).
func (x *brinsn) dumpInsn(b []byte, code []byte) ([]byte, int) {
	n := x.insnLen(code)
	if n == 0 {
		return append(b, "<bad>"...), 0
	}
	b = append(b, "insn: "...)
	for _, c := range code[:n] {
		b = append(b, hexDigits[c>>4], hexDigits[c&15], ' ')
	}
	return b, n
}

// insnLen is the length insn_decode finds for the instruction at code,
// 0 when it fails.
func (x *brinsn) insnLen(code []byte) int { return perfinsn.Len(code, x.is64) }

// FetchInsn mirrors arch_fetch_insn (x86), which perf script calls for a
// sample without instruction bytes when the recording was made on this
// machine's architecture: the 16 bytes at the sample's IP from the
// binary of its map (thread__memcpy, in the kernel's or the thread's
// address space as machine__kernel_ip says), and the length of the
// instruction there. It needs the session's Resolver (s.Res) and keeps
// the bytes in buf.
func FetchInsn(s *sample.Sample, buf *[16]byte) {
	src, ok := s.Res.(codeSource)
	if !ok || s.IP == 0 || s.InsnLen != 0 {
		return
	}
	n, is64 := src.ReadCode(src.KernelIP(s.IP), s.IP, buf[:])
	if n <= 0 {
		return
	}
	s.Insn = buf[:n]
	s.InsnLen = perfinsn.Len(buf[:n], is64)
}

// isBranch mirrors arch_is_branch: the instruction does not decode
// (perf's -1), or intel_pt_insn_decoder calls it a branch.
func (x *brinsn) isBranch(code []byte) bool {
	var in perfinsn.Insn
	return !perfinsn.Decode(code, x.is64, &in) || in.Branch != perfinsn.BrNone
}

// sym mirrors ip__fprintf_sym: "\tsym+off:\n" where addr enters a symbol
// other than the last one printed, with "\tfile:line" before the newline
// for srcline.
func (x *brinsn) sym(b []byte, addr uint64) []byte {
	l := x.src.ResolveIn(x.kernel, addr)
	if s := x.lastSym; s != nil && l.Addr >= s.Start && l.Addr < s.End {
		return b
	}
	if !l.HasMap || l.Sym == nil {
		return b
	}
	s := l.Sym
	var off int32
	if l.Addr < s.End {
		off = int32(l.Addr - s.Start)
	} else {
		off = int32(l.Addr - l.MapStart - s.Start)
	}
	b = append(b, '\t')
	b = append(b, s.Name...)
	if off != 0 {
		if off > 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, int64(off), 10)
	}
	b = append(b, ':')
	if x.p.has(FieldSrcline) {
		if r, ok := x.src.(sample.Resolver); ok {
			b = appendSrcline(b, r, &l, "\t")
		}
	}
	b = append(b, '\n')
	x.lastSym = s
	return b
}

// srccode mirrors print_srccode: the source line of addr (in the address
// space of the last block grabbed) unless the thread printed it last.
func (x *brinsn) srccode(b []byte, addr uint64) []byte {
	if !x.p.has(FieldSrccode) {
		return b
	}
	r, ok := x.src.(sample.Resolver)
	if !ok {
		return b
	}
	l := x.src.ResolveIn(x.kernel, addr)
	return x.p.appendSrccodeAt(b, r, x.s.TID, &l)
}

// insnLine prints one instruction of a block: "\t%016x\t" and dump_insn,
// with "\tilen: N" for brstackinsnlen.
func (x *brinsn) insnLine(b []byte, ip uint64, code []byte) ([]byte, int) {
	b = append(b, '\t')
	b = appendHex016(b, ip)
	b = append(b, '\t')
	b, n := x.dumpInsn(b, code)
	if x.p.has(FieldBrstackinsnlen) {
		b = append(b, "\tilen: "...)
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, '\n'), n
}

// jump mirrors ip__fprintf_jump: the branch that ends a block, with its
// LBR flags, cycles and the block's IPC.
func (x *brinsn) jump(b []byte, ip uint64, e *sample.BranchEntry, code []byte, insns int) []byte {
	b = append(b, '\t')
	b = appendHex016(b, ip)
	b = append(b, '\t')
	n0 := len(b)
	b, n := x.dumpInsn(b, code)
	b = appendSpaces(b, 30-(len(b)-n0))
	b = append(b, '\t')
	if x.p.has(FieldBrstackinsnlen) {
		b = append(b, "ilen: "...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, '\t')
	}
	b = append(b, '#')
	if e.Predicted {
		b = append(b, " PRED"...)
	}
	if e.Mispred {
		b = append(b, " MISPRED"...)
	}
	if e.InTx {
		b = append(b, " INTX"...)
	}
	if e.Abort {
		b = append(b, " ABORT"...)
	}
	if e.Cycles != 0 {
		x.cycles += int(e.Cycles)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(e.Cycles), 10)
		b = append(b, " cycles ["...)
		b = strconv.AppendInt(b, int64(x.cycles), 10)
		b = append(b, ']')
		if insns != 0 {
			b = append(b, ' ')
			b = strconv.AppendFloat(b, float64(float32(insns)/float32(e.Cycles)), 'f', 2, 64)
			b = append(b, " IPC"...)
		}
	}
	return append(b, '\n')
}

// brstackinsn mirrors perf_sample__fprintf_brstackinsn of perf 6.1: the
// instructions between the sample's branch records, read from the
// binaries of the sample's thread. Blocks whose code cannot be read are
// left out, as perf leaves them (its reasons go to the debug log).
func (p *Printer) brstackinsn(b []byte, s *sample.Sample) []byte {
	br := s.BranchStack
	if len(br) == 0 {
		return b
	}
	// The runner prints brstackinsn where the session is, so that the
	// Resolver reads code; a sample without one reads none.
	src, _ := s.Res.(codeSource)
	if src == nil {
		src = noCode{}
	}
	if cap(p.brBuf) < maxBB {
		p.brBuf = make([]byte, maxBB)
	}
	x := &brinsn{p: p, s: s, src: src, buf: p.brBuf[:maxBB], is64: true}
	nr := len(br)
	if m := p.o.MaxBlocks; m > 0 && nr > m+1 {
		nr = m + 1
	}
	b = append(b, '\n')

	// The first branch, whose block's start is unknown.
	first := &br[nr-1]
	if n := x.grab(first.From, first.From); n > 0 {
		b = x.sym(b, first.From)
		b = x.jump(b, first.From, first, x.buf[:n], 0)
		b = x.srccode(b, first.From)
	}

	// The blocks between the branches.
	for i := nr - 2; i >= 0; i-- {
		start, end := br[i+1].To, br[i].From
		n := x.grab(start, end)
		if n == errXfer && i > 0 {
			// A kernel transfer the ring filter left out: the
			// block goes on to the next branch.
			i--
			end = br[i].From
			n = x.grab(start, end)
		}
		if n <= 0 {
			continue
		}
		insns := 0
		var off uint64
		for ilen := 0; off < uint64(n); off += uint64(ilen) {
			ip := start + off
			b = x.sym(b, ip)
			if ip == end {
				insns++
				b = x.jump(b, ip, &br[i], x.buf[off:n], insns)
				b = x.srccode(b, ip)
				break
			}
			b, ilen = x.insnLine(b, ip, x.buf[off:n])
			if ilen == 0 {
				break
			}
			b = x.srccode(b, ip)
			insns++
		}
		if off != end-start {
			b = append(b, "\tmismatch of LBR data and executable\n"...)
		}
	}

	// The block up to the sample, unless the sample is at the last
	// branch (its target has not run yet) or that branch aborted.
	if br[0].From == s.IP || br[0].Abort {
		return b
	}
	start, end := br[0].To, s.IP
	if end < start {
		// A branch the LBR missed: scan 128 bytes for the next.
		end = start + 128
	}
	n := x.grab(start, end)
	b = x.sym(b, start)
	if n <= 0 {
		// At least the sample's instruction.
		if n = x.grab(s.IP, s.IP); n <= 0 {
			return b
		}
		b, _ = x.insnLine(b, s.IP, x.buf[:n])
		return x.srccode(b, s.IP)
	}
	for off := uint64(0); off <= end-start; {
		var code []byte
		if off < uint64(n) {
			code = x.buf[off:n]
		}
		var ilen int
		b, ilen = x.insnLine(b, start+off, code)
		if ilen == 0 {
			break
		}
		if x.isBranch(code) && start+off != s.IP {
			b = append(b, "\t... not reaching sample ...\n"...)
			break
		}
		b = x.srccode(b, start+off)
		off += uint64(ilen)
	}
	return b
}

// noCode is the codeSource of a sample printed away from the session.
type noCode struct{}

func (noCode) KernelIP(uint64) bool                      { return false }
func (noCode) ResolveIn(_ bool, addr uint64) sample.Loc  { return sample.Loc{Addr: addr} }
func (noCode) ReadCode(bool, uint64, []byte) (int, bool) { return 0, true }

// appendHex016 appends v as "%016" PRIx64.
func appendHex016(b []byte, v uint64) []byte {
	for i := 60; i >= 0; i -= 4 {
		b = append(b, hexDigits[v>>uint(i)&15])
	}
	return b
}
