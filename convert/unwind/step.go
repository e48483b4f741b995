package unwind

import "encoding/binary"

// Space is what the unwinder needs of a thread's address space: the
// unwind table of the module mapped at an address, and the bytes of the
// files mapped there (for memory outside the stack dump).
type Space interface {
	// Module returns the CFI of the DSO mapped at pc and the bias that
	// turns its link-time addresses into runtime ones (runtime = link
	// + bias). mapped is false when no map holds pc; t is nil when the
	// map's DSO has no file with unwind tables.
	Module(pc uint64) (t *Table, bias uint64, mapped bool)
	// ReadMapped reads the 8 bytes at addr from the file behind the map
	// holding it, as perf's access_dso_mem does: st is 0 when it could,
	// 1 when a map holds addr but its file cannot give the bytes (v is
	// then 0), and -1 when no map holds addr.
	ReadMapped(addr uint64) (v uint64, st int)
}

// Stack is a sample's user stack dump: the bytes copied from the sampled
// stack pointer up, of which the first DynSize are valid.
type Stack struct {
	Data    []byte
	DynSize uint64
}

// location kinds of a register of the frame being unwound (libunwind's
// dwarf_loc_t types; a memory location at address 0 is the null one).
const (
	locMem = iota
	locReg
	locVal
)

type loc struct {
	kind uint8
	v    uint64
}

func (l loc) null() bool { return l.kind == locMem && l.v == 0 }

// Unwinder unwinds samples. Its scratch state is reused: one Unwinder per
// goroutine, and Unwind allocates nothing once out has room.
type Unwinder struct {
	regs  *Regs
	stack Stack
	sp    uint64
	space Space

	in  interp
	row Row
	fde FDE

	loc     [NumRegs]loc
	ip, cfa uint64
	usePrev bool
	signal  bool // libunwind's sigcontext_format != X86_64_SCF_NONE
}

// Unwind appends to out the user frames of a sample as perf 6.1's
// get_entries produces them (util/unwind-libunwind-local.c): the sampled
// ip, then the return address of each caller minus one (unchanged for the
// frame stepped from a signal frame), at most max entries, zero entries
// dropped. It returns the entries and why the unwind stopped (nil when
// the chain ended normally or reached max). ok is false when perf's
// thread__resolve_callchain fails for the sample (no sampled ip, or the
// unwind cannot start for want of the stack pointer): perf then prints
// the sample without a call chain.
func (u *Unwinder) Unwind(regs *Regs, stack Stack, space Space, max int, out []uint64) (_ []uint64, stop error, ok bool) {
	if max <= 0 || !regs.Has(RegRIP) {
		return out, ErrBadReg, false
	}
	u.regs, u.space = regs, space
	u.stack = stack
	if u.stack.DynSize > uint64(len(stack.Data)) {
		u.stack.DynSize = uint64(len(stack.Data))
	}
	u.sp = regs.V[RegRSP]
	n0 := len(out)
	out = append(out, regs.V[RegRIP])
	if max-1 > 0 {
		if err := u.init(); err != nil {
			return out[:n0], err, false
		}
		for len(out)-n0 < max {
			r, err := u.step()
			if r <= 0 {
				stop = err
				break
			}
			ip := u.ip
			if !u.signal {
				ip--
			}
			out = append(out, ip)
		}
	}
	// get_entries skips zero entries when it delivers them.
	w := n0
	for _, ip := range out[n0:] {
		if ip != 0 {
			out[w] = ip
			w++
		}
	}
	return out[:w], stop, true
}

// init is libunwind's common_init for a remote address space.
func (u *Unwinder) init() error {
	for i := range u.loc {
		u.loc[i] = loc{locReg, uint64(i)}
	}
	var err error
	if u.ip, err = u.get(u.loc[RegRIP]); err != nil {
		return err
	}
	if u.cfa, err = u.get(loc{locReg, RegRSP}); err != nil {
		return err
	}
	u.signal = false
	u.usePrev = false
	return nil
}

// accessReg is perf's access_reg: the sampled value or an error.
func (u *Unwinder) accessReg(r uint64) (uint64, error) {
	if r >= NumRegs || !u.regs.Has(int(r)) {
		return 0, ErrBadReg
	}
	return u.regs.V[r], nil
}

// readMem is perf's access_mem with its C return value: 0 read, 1 a
// mapped address the file cannot give (v = 0, success for libunwind), -1
// an address outside the dump and every map. The dump covers [sp, sp +
// dyn_size) but, as in perf, a word ending exactly at its end is read
// from the maps.
func (u *Unwinder) readMem(addr uint64) (uint64, int) {
	if addr+8 < addr {
		return 0, -1
	}
	start := u.sp
	end := start + u.stack.DynSize
	if addr < start || addr+8 >= end {
		if u.space == nil {
			return 0, -1
		}
		return u.space.ReadMapped(addr)
	}
	return binary.LittleEndian.Uint64(u.stack.Data[addr-start:]), 0
}

// readSized reads n bytes at addr, keeping the low n bytes of the word
// there (libunwind's dwarf_readu8/16/32 read through access_mem too).
func (u *Unwinder) readSized(addr uint64, n int) (uint64, error) {
	v, st := u.readMem(addr)
	if st < 0 {
		return 0, ErrNoMap
	}
	if n < 8 {
		v &= 1<<(8*uint(n)) - 1
	}
	return v, nil
}

// get is libunwind's dwarf_get.
func (u *Unwinder) get(l loc) (uint64, error) {
	if l.null() {
		return 0, ErrBadReg
	}
	switch l.kind {
	case locReg:
		return u.accessReg(l.v)
	case locVal:
		return l.v, nil
	}
	v, st := u.readMem(l.v)
	if st < 0 {
		return 0, ErrNoMap
	}
	return v, nil
}

// getStatus is dwarf_get keeping access_mem's positive "short read"
// result apart, for the frame-chain heuristics that test for exactly 0.
func (u *Unwinder) getStatus(l loc) (uint64, int) {
	if l.null() {
		return 0, -1
	}
	if l.kind == locMem {
		return u.readMem(l.v)
	}
	v, err := u.get(l)
	if err != nil {
		return 0, -1
	}
	return v, 0
}

// getReg is libunwind's unw_get_reg (tdep_access_reg): the stack pointer
// reads as the CFA, the others through their locations.
func (u *Unwinder) getReg(r uint64) (uint64, error) {
	if r == RegRSP {
		return u.cfa, nil
	}
	if r >= NumRegs {
		return 0, ErrBadReg
	}
	return u.get(u.loc[r])
}

// step is libunwind's x86_64 unw_step: >0 stepped to a caller, 0 end of
// the chain, <0 failure (err says which).
func (u *Unwinder) step() (int, error) {
	u.signal = false
	r, err := u.dwarfStep()
	if err != nil && err != ErrNoInfo {
		return -1, err
	}
	if err == nil {
		// The x86_64 ABI marks the end of the chain with an undefined
		// rbp or return address.
		if u.loc[RegRBP].null() {
			u.ip = 0
			return 0, nil
		}
		return r, nil
	}
	return u.fallback()
}

// dwarfStep is libunwind's dwarf_step: find_reg_state then apply_reg_state.
func (u *Unwinder) dwarfStep() (int, error) {
	pc := u.ip
	if u.usePrev {
		pc--
	}
	if u.space == nil {
		return -1, ErrNoMap
	}
	t, bias, mapped := u.space.Module(pc)
	if !mapped {
		return -1, ErrNoMap
	}
	if t == nil {
		return -1, ErrNoTable
	}
	if err := t.Find(pc-bias, &u.fde); err != nil {
		return -1, err
	}
	u.signal = u.fde.cie.signal
	nextUsePrev := !u.fde.cie.signal
	// parse_fde runs the program up to ip - use_prev_instr, in link-time
	// addresses.
	err := u.in.row(&u.fde, pc-bias, &u.row)
	u.usePrev = nextUsePrev
	if err != nil {
		return -1, err
	}
	return u.apply(&u.row)
}

// apply is libunwind's apply_reg_state.
func (u *Unwinder) apply(rs *Row) (int, error) {
	prevIP, prevCFA := u.ip, u.cfa
	var cfa uint64
	switch {
	case !rs.cfaSet:
		return -1, ErrBadCFI
	case rs.cfaExpr == nil:
		if rs.cfaReg == RegRSP && rs.reg[RegRSP].where == whereSame {
			// Popping the CFA pops the stack pointer too.
			cfa = u.cfa
		} else {
			v, err := u.getReg(rs.cfaReg)
			if err != nil {
				return -1, err
			}
			cfa = v
		}
		cfa += rs.cfaOff
	default:
		v, isReg, err := u.eval(rs.cfaExpr, 0)
		if err != nil {
			return -1, err
		}
		if isReg {
			return -1, ErrBadFrame
		}
		cfa = v
	}
	newLoc := u.loc
	for i := range newLoc {
		r := &rs.reg[i]
		switch r.where {
		case whereUndef:
			newLoc[i] = loc{}
		case whereSame:
		case whereCFARel:
			newLoc[i] = loc{locMem, cfa + r.off}
		case whereReg:
			if r.off >= NumRegs {
				return -1, ErrBadCFI
			}
			newLoc[i] = newLoc[r.off]
		case whereExpr, whereValExpr:
			v, isReg, err := u.eval(r.expr, cfa)
			if err != nil {
				return -1, err
			}
			if isReg {
				newLoc[i] = loc{locReg, v}
			} else {
				newLoc[i] = loc{locMem, v}
			}
			if r.where == whereValExpr {
				newLoc[i] = loc{locVal, v}
			}
		}
	}
	u.loc = newLoc
	u.cfa = cfa
	ret := 1
	if u.loc[rs.ra].null() {
		u.ip = 0
		ret = 0
	} else {
		v, err := u.get(u.loc[rs.ra])
		if err != nil {
			return -1, err
		}
		u.ip = v
	}
	if u.ip == prevIP && u.cfa == prevCFA {
		return -1, ErrBadFrame
	}
	return ret, nil
}

// fallback is the part of libunwind 1.6.2's x86_64 unw_step that runs when
// no FDE covers the pc: a PLT entry, or a frame-pointer guess.
func (u *Unwinder) fallback() (int, error) {
	prevIP, prevCFA := u.ip, u.cfa
	invalidPrevRIP := 0
	ret, retErr := -1, ErrNoInfo
	switch {
	case u.isPLTEntry():
		u.loc[RegRIP] = loc{locMem, u.cfa}
		u.cfa += 8
	case u.loc[RegRBP].null():
		u.loc = [NumRegs]loc{}
	default:
		rbp, err := u.get(u.loc[RegRBP])
		if err != nil {
			return -1, err
		}
		_, st := u.getStatus(loc{locMem, prevIP})
		invalidPrevRIP = st
		var rbpLoc, rspLoc, ripLoc loc
		if rbp != 0 || invalidPrevRIP != 0 {
			fixed := false
			if invalidPrevRIP != 0 {
				// A call through a bad pointer: the return address is
				// still at the stack pointer.
				rsp, _ := u.get(u.loc[RegRSP])
				if newIP, st := u.getStatus(loc{locMem, rsp}); st == 0 {
					if _, st := u.getStatus(loc{locMem, newIP}); st == 0 {
						fixed = true
						u.cfa += 8
						rbpLoc = loc{locMem, rbp}
						rspLoc = loc{locMem, rsp}
						ripLoc = loc{locMem, rsp}
					}
				}
			}
			if !fixed {
				rbpLoc = loc{locMem, rbp}
				ripLoc = loc{locMem, rbp + 8}
				_, st := u.getStatus(rbpLoc)
				if st < 0 || rbp < u.cfa || rbp-u.cfa > 0x4000 {
					ripLoc, rbpLoc = loc{}, loc{}
				}
				u.cfa += 16 // sic: libunwind 1.6.2 adds to the CFA, not rbp
			}
		}
		u.loc = [NumRegs]loc{}
		u.loc[RegRBP], u.loc[RegRSP], u.loc[RegRIP] = rbpLoc, rspLoc, ripLoc
		u.usePrev = true
	}
	if u.loc[RegRBP].null() && invalidPrevRIP == 0 {
		return 0, nil
	}
	if !u.loc[RegRIP].null() {
		v, err := u.get(u.loc[RegRIP])
		if err != nil {
			return -1, err
		}
		u.ip = v
		ret, retErr = 1, nil
	} else {
		u.ip = 0
	}
	if u.ip == prevIP && u.cfa == prevCFA {
		return -1, ErrBadFrame
	}
	return ret, retErr
}

// isPLTEntry is libunwind's is_plt_entry: jmp *disp(%rip); push $n;
// jmp rel32 at the ip.
func (u *Unwinder) isPLTEntry() bool {
	w0, st0 := u.readMem(u.ip)
	if st0 < 0 {
		return false
	}
	w1, st1 := u.readMem(u.ip + 8)
	if st1 < 0 {
		return false
	}
	return w0&0xffff == 0x25ff && (w0>>48)&0xff == 0x68 && (w1>>24)&0xff == 0xe9
}
