package machine

import (
	"bytes"

	"github.com/perfpt/perfpt/convert/symbol"
)

// The kernel from a vmlinux (perf's -k/--vmlinux, symbol_conf.vmlinux_name):
// dso__load_kernel_sym then loads the kernel's symbols from that file only
// (no kallsyms, no kcore), and a successful load remaps the kernel map onto
// the file's .text (map__map_ip: start sh_addr plus the relocation, pgoff
// sh_offset) and adds a map per other section with symbols (a DSO named
// "[kernel.kallsyms]<section>"), so that PT reads the kernel's code from
// the vmlinux. A load that fails (no such file, no .symtab, a build id that
// is not the recorded kernel's) leaves the kernel without symbols or code.

// SetVmlinux makes the kernel's symbols and code come from the vmlinux at
// path (under --symfs, symbol__join_symfs), before any record is processed.
func (m *Machine) SetVmlinux(path string) {
	m.vmPath = path
}

// vmlinuxState is the vmlinux's load.
type vmlinuxState struct {
	done bool
	vm   *symbol.Vmlinux // nil: the load failed
	file string
	text *symbol.Table
}

// vmlinux loads the vmlinux once (dso__load_vmlinux), with the reference
// symbol the kernel MMAP named.
func (m *Machine) vmlinux() *vmlinuxState {
	v := &m.vm
	if v.done {
		return v
	}
	v.done = true
	file := m.vmPath
	if m.symOpts != nil {
		file = m.symOpts.Symfs + file
	}
	vm, err := symbol.LoadVmlinux(file, m.refName)
	if err != nil {
		return v
	}
	// symsrc__init: a recorded build id must be the file's.
	if m.kernelBuildID != nil && !bytes.Equal(vm.BuildID, m.kernelBuildID) {
		return v
	}
	v.vm, v.file = vm, file
	for _, s := range vm.Sections {
		if s.Name == ".text" {
			v.text = s.Syms
		}
	}
	if v.text == nil {
		v.text = &symbol.Table{}
	}
	return v
}

// useVmlinux mirrors the kernel maps after dso__load_sym of the vmlinux
// (dso__process_kernel_symbol): the kernel map on .text, moved by the
// relocation (the recorded address of the reference symbol minus its
// value in the file), and a map for each other section with symbols.
func (m *Machine) useVmlinux() {
	v := m.vmlinux()
	if v.vm == nil {
		return
	}
	var reloc uint64
	if m.refAddr != 0 && v.vm.HasRef {
		reloc = m.refAddr - v.vm.RefValue
	}
	kd := m.kernelDSO()
	ms := &Maps{}
	for _, s := range v.vm.Sections {
		start := s.Addr + reloc
		mp := &Map{Start: start, End: start + s.Size, PgOff: s.Offset, DSO: kd}
		if s.Name != ".text" {
			tab := s.Syms
			d := &DSO{Name: kd.Name + s.Name, Kernel: true, file: v.file, symFn: func() *symbol.Table { return tab }}
			m.dsos[d.Name] = d
			mp.DSO = d
		}
		ms.Insert(mp)
	}
	m.kmaps = ms
}
