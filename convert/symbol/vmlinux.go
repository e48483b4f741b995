package symbol

import (
	"debug/elf"
	"errors"
	"strings"
)

// Vmlinux is what perf takes from a vmlinux given with -k/--vmlinux
// (dso__load_vmlinux, dso__load_sym for a kernel DSO): its build id, the
// unrelocated address of the reference symbol (perf's ref_reloc_sym, the
// symbol the kernel MMAP names), and the sections its symbols are in, each
// with its symbols in the file-offset space (st_value - sh_addr +
// sh_offset), as a kernel map of the section reads them.
type Vmlinux struct {
	BuildID  []byte
	RefValue uint64
	HasRef   bool
	// Sections are in the order their first symbol comes; .text's
	// symbols (the kernel DSO's own) have perf's end and duplicate
	// fix-ups, the others' (each its own "[kernel.kallsyms]<section>"
	// DSO) none.
	Sections []VmlinuxSection
}

// VmlinuxSection is one section of a vmlinux that holds symbols.
type VmlinuxSection struct {
	Name               string
	Addr, Size, Offset uint64
	Syms               *Table
}

// LoadVmlinux reads the vmlinux at path as perf's dso__load_vmlinux does
// for the kernel: its .symtab (a stripped vmlinux, without one, fails,
// as it does for perf), with refName's value for the relocation. Names
// are demangled by dm, nil for none (perf's default; --demangle-kernel
// gives Options.KernelDemangler).
func LoadVmlinux(path, refName string, dm func(string) string) (v *Vmlinux, err error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, errors.New(path+": malformed symbol table")
		}
	}()
	if !hasSymtab(f) {
		return nil, errors.New(path + ": no symbol table")
	}
	et, ok := elfSymbols(f, elf.SHT_SYMTAB)
	if !ok {
		return nil, errors.New(path + ": unreadable symbol table")
	}
	v = &Vmlinux{BuildID: readBuildID(f)}
	name := func(off uint32) string {
		if int(off) >= len(et.strs) {
			return ""
		}
		n := et.strs[off:]
		if i := strings.IndexByte(n, 0); i >= 0 {
			n = n[:i]
		}
		return n
	}
	bySec := map[elf.SectionIndex][]rawSym{}
	var order []elf.SectionIndex
	for _, r := range et.syms {
		if refName != "" && !v.HasRef && name(r.name) == refName {
			v.RefValue, v.HasRef = r.value, true
		}
		if _, seen := bySec[r.shndx]; !seen {
			order = append(order, r.shndx)
		}
		bySec[r.shndx] = append(bySec[r.shndx], r)
	}
	strs := []string{et.strs}
	for _, si := range order {
		// keepSymbols' filter, a section at a time.
		kept := keepSymbols(f, f, elfTab{syms: bySec[si], strs: et.strs}, 0)
		if len(kept) == 0 {
			continue
		}
		sec := f.Sections[si]
		// dso__process_kernel_symbol: the symbol is adjusted by its
		// section, not by a program header.
		if p := loadSegment(f, sec.Addr); p != nil {
			d := (p.Vaddr - p.Off) - (sec.Addr - sec.Offset)
			for i := range kept {
				kept[i].start += d
				kept[i].end += d
			}
		}
		vs := VmlinuxSection{Name: sec.Name, Addr: sec.Addr, Size: sec.Size, Offset: sec.Offset}
		if sec.Name == ".text" {
			vs.Syms = fixedTable(newLoadOrder([][]lsym{kept}, nil, strs, dm), buildList)
		} else {
			syms := make([]Symbol, len(kept))
			for i, l := range kept {
				syms[i] = Symbol{Start: l.start, End: l.end, Name: name(l.name), Bind: elf.SymBind(l.bind), Type: elf.SymType(l.typ), pending: pendingName}
			}
			t := &Table{}
			t.insert(syms)
			t.finish(dm)
			vs.Syms = t
		}
		v.Sections = append(v.Sections, vs)
	}
	return v, nil
}
