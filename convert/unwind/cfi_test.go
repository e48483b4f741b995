package unwind

import (
	"encoding/binary"
	"testing"
)

func TestRowAndStep(t *testing.T) {
	// push %rbp at 0x3000; CFA = rsp+16 from 0x3001, rbp at CFA-16.
	eh := cieFDE([]byte{0x41, 0x0e, 16, 0x86, 2})
	tab := hostile(eh, []int32{0x2000}, []int32{0x1000 + int32(4+binary.LittleEndian.Uint32(eh))})
	var f FDE
	if err := tab.Find(0x3005, &f); err != nil {
		t.Fatal(err)
	}
	if f.Start != 0x3000 || f.End != 0x3100 {
		t.Fatalf("FDE %#x-%#x", f.Start, f.End)
	}
	var r Row
	if err := f.Row(0x3005, &r); err != nil {
		t.Fatal(err)
	}
	if r.cfaReg != RegRSP || r.cfaOff != 16 || r.reg[RegRBP].where != whereCFARel || int64(r.reg[RegRBP].off) != -16 {
		t.Fatalf("row %+v", r)
	}
	if err := f.Row(0x3000, &r); err != nil || r.cfaOff != 8 {
		t.Fatalf("row at entry: %v %+v", err, r)
	}
	if err := tab.Find(0x3100, &f); err != ErrNoInfo {
		t.Fatalf("past the FDE: %v", err)
	}
	// A stack: [sp] = saved rbp, [sp+8] = return address 0x3050.
	stack := make([]byte, 64)
	binary.LittleEndian.PutUint64(stack[0:], 0x7777)
	binary.LittleEndian.PutUint64(stack[8:], 0x3050)
	var regs Regs
	regs.V[RegRIP], regs.V[RegRSP], regs.V[RegRBP] = 0x3005, 0x8000, 1
	regs.Valid = 1<<RegRIP | 1<<RegRSP | 1<<RegRBP
	sp := &memSpace{t: tab, lo: 0x1000, hi: 0x4000}
	var u Unwinder
	out, _, ok := u.Unwind(&regs, Stack{Data: stack, DynSize: 64}, sp, 3, nil)
	if !ok || len(out) != 3 || out[0] != 0x3005 || out[1] != 0x304f {
		t.Fatalf("chain %#x ok=%v", out, ok)
	}
}

func TestHostileCFI(t *testing.T) {
	for name, prog := range map[string][]byte{
		"truncated offset":      {0x86},
		"truncated expression":  {0x0f, 20, 0x77},
		"restore without state": {0x0b},
		"remember overflow":     {0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a},
		"register 40":           {0x07, 40},
		"hi_user":               {0x3f},
	} {
		eh := cieFDE(prog)
		tab := hostile(eh, []int32{0x2000}, []int32{0x1000 + int32(4+binary.LittleEndian.Uint32(eh))})
		var f FDE
		if err := tab.Find(0x3005, &f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var r Row
		if err := f.Row(0x3005, &r); err != ErrBadCFI {
			t.Errorf("%s: %v, want ErrBadCFI", name, err)
		}
	}
}

func TestExprLoopBounded(t *testing.T) {
	var regs Regs
	u := Unwinder{regs: &regs}
	// DW_OP_skip -3: jumps to itself forever in libunwind.
	if _, _, err := u.eval([]byte{0x2f, 0xfd, 0xff}, 0); err != ErrBadExpr {
		t.Fatalf("got %v", err)
	}
	v, isReg, err := u.eval([]byte{0x31, 0x32, 0x22}, 0) // lit1 lit2 plus
	if err != nil || isReg || v != 3 {
		t.Fatalf("1+2 = %d %v %v", v, isReg, err)
	}
}

// TestEHFrameFDEsLSDA reads .eh_frame as gcc writes it for C++: a CIE
// "zPLR" and one "zR" (a C function), FDEs with pc-relative sdata4
// pointers; the first FDE points to an LSDA at 0x5000.
func TestEHFrameFDEsLSDA(t *testing.T) {
	const ehAddr = 0x2000
	var eh []byte
	entry := func(body []byte) int {
		for (len(body)+4)%8 != 0 {
			body = append(body, 0) // DW_CFA_nop
		}
		at := len(eh)
		eh = binary.LittleEndian.AppendUint32(eh, uint32(len(body)))
		eh = append(eh, body...)
		return at
	}
	pcrel := func(b []byte, v uint64) []byte {
		return binary.LittleEndian.AppendUint32(b, uint32(int32(v-uint64(ehAddr+len(eh)+4+len(b)))))
	}
	fde := func(cieAt int, start, size uint64, lsda bool) {
		b := binary.LittleEndian.AppendUint32(nil, uint32(len(eh)+4-cieAt))
		b = pcrel(b, start)
		b = binary.LittleEndian.AppendUint32(b, uint32(size))
		if lsda {
			b = append(b, 4)
			b = pcrel(b, 0x5000)
		} else {
			b = append(b, 0)
		}
		entry(append(b, 0x41, 0x0e, 16))
	}
	cpp := entry([]byte{0, 0, 0, 0, 1, 'z', 'P', 'L', 'R', 0, 1, 0x78, 16, 7,
		0x9b, 0, 0, 0, 0, // personality: pcrel|indirect sdata4
		0x1b, 0x1b, 0x0c, 7, 8, 0x90, 1})
	fde(cpp, 0x3000, 0x40, true)
	c := entry([]byte{0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b, 0x0c, 7, 8, 0x90, 1})
	fde(c, 0x3040, 0x20, false)
	fde(cpp, 0x3060, 0x10, false) // under "L" but no augmentation data: no LSDA
	eh = binary.LittleEndian.AppendUint32(eh, 0)
	eh = append(eh, 0xff, 0xff, 0xff, 0xff) // after the terminator: not read
	type got struct{ start, end, lsda uint64 }
	var all []got
	for f := range NewTable("t", eh, ehAddr, nil, 0, nil).EHFrameFDEs() {
		all = append(all, got{f.Start, f.End, f.LSDA})
	}
	want := []got{{0x3000, 0x3040, 0x5000}, {0x3040, 0x3060, 0}, {0x3060, 0x3070, 0}}
	if len(all) != len(want) {
		t.Fatalf("FDEs %x, want %x", all, want)
	}
	for i := range want {
		if all[i] != want[i] {
			t.Errorf("FDE %d: %x, want %x", i, all[i], want[i])
		}
	}
}

// TestUnmappedTable: a table seen from an address space that maps none of
// its search table and .eh_frame finds nothing and stops the unwind
// (ErrTablesUnmapped, not ErrNoInfo, which would let the heuristics go on), as
// perf's access_mem fails there; the table itself still finds the FDE.
func TestUnmappedTable(t *testing.T) {
	tab, err := LoadFile("../../testdata/unwind/cwork-dyn")
	if err != nil || tab == nil {
		t.Fatalf("LoadFile: %v", err)
	}
	tabLo, tabHi, ehLo, ehHi, ok := tab.Spans()
	if !ok || tabLo >= tabHi || ehLo >= ehHi {
		t.Fatalf("Spans %#x-%#x %#x-%#x %v", tabLo, tabHi, ehLo, ehHi, ok)
	}
	var pc uint64
	for f := range tab.EHFrameFDEs() {
		pc = f.Start
		break
	}
	var f FDE
	if err := tab.Find(pc, &f); err != nil {
		t.Fatalf("Find(%#x): %v", pc, err)
	}
	u := tab.Unmapped()
	if err := u.Find(pc, &f); err != ErrTablesUnmapped {
		t.Errorf("Unmapped().Find(%#x) = %v, want ErrTablesUnmapped", pc, err)
	}
	if tab.Unmapped() != u {
		t.Error("Unmapped made twice")
	}
}
