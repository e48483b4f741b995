package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
)

// elfCodeOff is the file offset of the code in the ELF files ptgen writes;
// the code's load address must be page aligned.
const elfCodeOff = 0x1000

// writeELF writes p as a static ELF64 x86-64 executable: one PT_LOAD segment
// (R+X) with the code at p.base, a .text section and a .symtab naming every
// function ("main", "f1", "f2", ...), which is what perf needs to decode the
// trace and print symbols.
func writeELF(path string, p *program) error {
	if p.base%0x1000 != 0 {
		return fmt.Errorf("ELF output needs a page-aligned base, not %#x", p.base)
	}
	le := binary.LittleEndian
	// .strtab and .symtab
	strtab := []byte{0}
	syms := make([]byte, 24) // the null symbol
	for i, f := range p.funcs {
		name := "main"
		if i > 0 {
			name = fmt.Sprintf("f%d", i)
		}
		start := f.blocks[0].addr
		end := f.blocks[len(f.blocks)-1].next
		sym := make([]byte, 24)
		le.PutUint32(sym[0:], uint32(len(strtab)))
		sym[4] = byte(elf.STB_GLOBAL)<<4 | byte(elf.STT_FUNC)
		le.PutUint16(sym[6:], 1) // .text
		le.PutUint64(sym[8:], start)
		le.PutUint64(sym[16:], end-start)
		syms = append(syms, sym...)
		strtab = append(append(strtab, name...), 0)
	}
	shstrtab := []byte("\x00.text\x00.symtab\x00.strtab\x00.shstrtab\x00")
	var buf bytes.Buffer
	pad := func(n int) { buf.Write(make([]byte, n-buf.Len())) }
	align8 := func() { pad((buf.Len() + 7) &^ 7) }

	buf.Write(make([]byte, 64+56)) // ELF header and the program header, filled below
	pad(elfCodeOff)
	buf.Write(p.code)
	align8()
	symOff := buf.Len()
	buf.Write(syms)
	strOff := buf.Len()
	buf.Write(strtab)
	shstrOff := buf.Len()
	buf.Write(shstrtab)
	align8()
	shOff := buf.Len()
	type sh struct {
		name, typ        uint32
		flags, addr, off uint64
		size             uint64
		link, info       uint32
		align, entsize   uint64
	}
	secs := []sh{
		{},
		{name: 1, typ: uint32(elf.SHT_PROGBITS), flags: uint64(elf.SHF_ALLOC | elf.SHF_EXECINSTR),
			addr: p.base, off: elfCodeOff, size: uint64(len(p.code)), align: 16},
		{name: 7, typ: uint32(elf.SHT_SYMTAB), off: uint64(symOff), size: uint64(len(syms)),
			link: 3, info: 1, align: 8, entsize: 24},
		{name: 15, typ: uint32(elf.SHT_STRTAB), off: uint64(strOff), size: uint64(len(strtab)), align: 1},
		{name: 23, typ: uint32(elf.SHT_STRTAB), off: uint64(shstrOff), size: uint64(len(shstrtab)), align: 1},
	}
	for _, s := range secs {
		b := make([]byte, 64)
		le.PutUint32(b[0:], s.name)
		le.PutUint32(b[4:], s.typ)
		le.PutUint64(b[8:], s.flags)
		le.PutUint64(b[16:], s.addr)
		le.PutUint64(b[24:], s.off)
		le.PutUint64(b[32:], s.size)
		le.PutUint32(b[40:], s.link)
		le.PutUint32(b[44:], s.info)
		le.PutUint64(b[48:], s.align)
		le.PutUint64(b[56:], s.entsize)
		buf.Write(b)
	}
	out := buf.Bytes()
	// ELF header
	copy(out, elf.ELFMAG)
	out[4], out[5], out[6] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	le.PutUint16(out[16:], uint16(elf.ET_EXEC))
	le.PutUint16(out[18:], uint16(elf.EM_X86_64))
	le.PutUint32(out[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(out[24:], p.funcs[0].blocks[0].addr) // entry
	le.PutUint64(out[32:], 64)                        // phoff
	le.PutUint64(out[40:], uint64(shOff))
	le.PutUint16(out[52:], 64) // ehsize
	le.PutUint16(out[54:], 56) // phentsize
	le.PutUint16(out[56:], 1)  // phnum
	le.PutUint16(out[58:], 64) // shentsize
	le.PutUint16(out[60:], uint16(len(secs)))
	le.PutUint16(out[62:], 4) // shstrndx
	// PT_LOAD: the code, at p.base
	ph := out[64:]
	le.PutUint32(ph[0:], uint32(elf.PT_LOAD))
	le.PutUint32(ph[4:], uint32(elf.PF_R|elf.PF_X))
	le.PutUint64(ph[8:], elfCodeOff)
	le.PutUint64(ph[16:], p.base)
	le.PutUint64(ph[24:], p.base)
	le.PutUint64(ph[32:], uint64(len(p.code)))
	le.PutUint64(ph[40:], uint64(len(p.code)))
	le.PutUint64(ph[48:], 0x1000)
	return os.WriteFile(path, out, 0o755)
}
