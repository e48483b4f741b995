package unwind

import (
	"encoding/binary"
	"testing"
	"time"
)

// memSpace maps one module at [lo, hi) with table t (bias 0) and backs
// every address in it with mem (from lo); addresses past mem read as the
// file's end would (st 1).
type memSpace struct {
	t      *Table
	lo, hi uint64
	mem    []byte
}

func (s *memSpace) Module(pc uint64) (*Table, uint64, bool) {
	if pc < s.lo || pc >= s.hi {
		return nil, 0, false
	}
	return s.t, 0, true
}

func (s *memSpace) ReadMapped(a uint64) (uint64, int) {
	if a < s.lo || a >= s.hi {
		return 0, -1
	}
	off := a - s.lo
	if off+8 > uint64(len(s.mem)) || off+8 < off {
		return 0, 1
	}
	return binary.LittleEndian.Uint64(s.mem[off:]), 0
}

// hostile builds a table whose .eh_frame is eh at 0x2000 and whose
// header table has one entry per FDE start given, all pointing at off.
func hostile(eh []byte, starts []int32, fdeOffs []int32) *Table {
	tab := make([]byte, 0, 8*len(starts))
	for i, s := range starts {
		tab = binary.LittleEndian.AppendUint32(tab, uint32(s))
		tab = binary.LittleEndian.AppendUint32(tab, uint32(fdeOffs[i%len(fdeOffs)]))
	}
	hdr := append([]byte{1, 0x1b, 0x03, 0x3b, 0, 0, 0, 0}, binary.LittleEndian.AppendUint32(nil, uint32(len(starts)))...)
	hdr = append(hdr, tab...)
	return NewTable("fuzz", eh, 0x2000, hdr, 0x1000, eh)
}

// cieFDE is a well-formed .eh_frame with one CIE (x86_64 defaults:
// CFA = rsp+8, ra at CFA-8) and one FDE covering [0x3000, 0x3100) whose
// program is prog.
func cieFDE(prog []byte) []byte {
	cie := []byte{0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b,
		0x0c, 7, 8, 0x90, 1}
	for len(cie)%4 != 0 {
		cie = append(cie, 0)
	}
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(cie)))
	out = append(out, cie...)
	fdeAt := len(out)
	body := binary.LittleEndian.AppendUint32(nil, uint32(fdeAt+4)) // CIE pointer
	pcAt := 0x2000 + fdeAt + 8
	body = binary.LittleEndian.AppendUint32(body, uint32(int32(0x3000-pcAt)))
	body = binary.LittleEndian.AppendUint32(body, 0x100)
	body = append(body, 0) // augmentation length
	body = append(body, prog...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(body)))
	out = append(out, body...)
	return out
}

func fuzzUnwind(t *testing.T, eh, stack []byte, regs Regs) {
	fdeOff := int32(0)
	if len(eh) >= 4 {
		fdeOff = int32(4 + binary.LittleEndian.Uint32(eh)) // after the first entry
	}
	tab := hostile(eh, []int32{0x2000, 0x2080, 0x7f000000}, []int32{0x1000 + fdeOff, 0x1000, -4})
	sp := &memSpace{t: tab, lo: 0x1000, hi: 0x9000, mem: append(append(make([]byte, 0x1000), eh...), stack...)}
	var u Unwinder
	start := time.Now()
	out, _, _ := u.Unwind(&regs, Stack{Data: stack, DynSize: uint64(len(stack))}, sp, 127, nil)
	if len(out) > 127 {
		t.Fatalf("%d frames, max 127", len(out))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("unwind took %v", d)
	}
}

func FuzzUnwind(f *testing.F) {
	f.Add(cieFDE([]byte{0x41, 0x0e, 16, 0x86, 2}), make([]byte, 64), uint64(0x3010), uint64(0x8000), uint64(0))
	f.Add(cieFDE([]byte{0x0f, 3, 0x77, 8, 0x06}), make([]byte, 64), uint64(0x3001), uint64(0x8000), uint64(0x8010))
	f.Add(cieFDE([]byte{0x10, 16, 4, 0x2f, 0xfd, 0xff, 0x96}), make([]byte, 64), uint64(0x3001), uint64(0x8000), uint64(0x8010))
	f.Add(cieFDE([]byte{0x0a, 0x0a, 0x0b, 0x0b, 0x0b}), []byte{}, uint64(0x3000), uint64(0), uint64(0))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, []byte{1, 2, 3}, uint64(0x3000), uint64(0x8000), uint64(1))
	f.Fuzz(func(t *testing.T, eh, stack []byte, ip, sp, bp uint64) {
		var regs Regs
		regs.V[RegRIP], regs.V[RegRSP], regs.V[RegRBP] = ip, sp, bp
		regs.Valid = 1<<RegRIP | 1<<RegRSP | 1<<RegRBP
		if len(stack) > 1<<16 {
			stack = stack[:1<<16]
		}
		fuzzUnwind(t, eh, stack, regs)
	})
}

// FuzzExpr evaluates arbitrary expressions: never a panic or a hang.
func FuzzExpr(f *testing.F) {
	f.Add([]byte{0x77, 8, 0x06})
	f.Add([]byte{0x2f, 0xfd, 0xff})
	f.Add([]byte{0x30, 0x28, 0xfd, 0xff})
	f.Add([]byte{0x12, 0x12, 0x12, 0x17, 0x1b, 0x1d})
	f.Fuzz(func(t *testing.T, expr []byte) {
		var regs Regs
		regs.Valid = 1<<NumRegs - 1
		u := Unwinder{regs: &regs, space: &memSpace{lo: 0x1000, hi: 0x2000, mem: make([]byte, 0x1000)}}
		start := time.Now()
		u.eval(expr, 0x1800)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("eval took %v", d)
		}
	})
}

// FuzzEHFrameFDEs walks .eh_frame as gcov does for the LSDAs: no panic,
// and every FDE yielded covers a range.
func FuzzEHFrameFDEs(f *testing.F) {
	f.Add(cieFDE([]byte{0x41, 0x0e, 16, 0x86, 2}))
	cie := []byte{0, 0, 0, 0, 1, 'z', 'P', 'L', 'R', 0, 1, 0x78, 16, 7, 0x9b, 0, 0, 0, 0, 0x1b, 0x1b, 0x0c, 7, 8, 0x90, 1}
	fde := []byte{30, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0x40, 0, 0, 0, 4, 0, 0x30, 0, 0}
	f.Add(append(binary.LittleEndian.AppendUint32(nil, uint32(len(cie))), append(cie, fde...)...))
	f.Fuzz(func(t *testing.T, eh []byte) {
		n := 0
		for fde := range NewTable("fuzz", eh, 0x2000, nil, 0, nil).EHFrameFDEs() {
			if n++; n > len(eh)/8 {
				t.Fatalf("%d FDEs from %d bytes", n, len(eh))
			}
			_ = fde.LSDA
		}
	})
}
