package machine

import (
	"os"
	"path/filepath"

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
// path, before any record is processed.
func (m *Machine) SetVmlinux(path string) {
	m.vmPath = path
}

// vmlinuxFile is the file dso__load_vmlinux reads the symbols of path
// from: an absolute path as it is, a relative one under --symfs
// (symbol__join_symfs).
func (m *Machine) vmlinuxFile(path string) string {
	if path != "" && path[0] == '/' || m.symOpts == nil || m.symOpts.Symfs == "" {
		return path
	}
	return m.symOpts.Symfs + "/" + path
}

// VmlinuxPath mirrors vmlinux_path__init: the files perf tries for the
// kernel when no -k, --kallsyms or perf.data directory's kallsyms names
// its symbols: vmlinux (in the working directory, or under --symfs) and
// /boot/vmlinux, then, without --symfs, the paths of the recorded
// kernel's release (the OSRELEASE header, perf_env's os_release: "(null)"
// in a pipe, whose header comes after perf script has set the path up).
func VmlinuxPath(release string, symfs bool) []string {
	paths := []string{"vmlinux", "/boot/vmlinux"}
	if symfs {
		return paths
	}
	return append(paths, "/boot/vmlinux-"+release, "/usr/lib/debug/boot/vmlinux-"+release,
		"/lib/modules/"+release+"/build/vmlinux", "/usr/lib/debug/lib/modules/"+release+"/vmlinux",
		"/usr/lib/debug/boot/vmlinux-"+release+".debug")
}

// SearchVmlinux mirrors dso__load_vmlinux_path, which dso__load_kernel_sym
// tries before kallsyms when nothing names the kernel's symbols: the
// first file of VmlinuxPath(release) that dso__load_vmlinux loads (an ELF
// with a symbol table that has symbols, whose build id is the recorded
// kernel's when one was recorded) becomes the kernel's vmlinux, for its
// symbols and for the code PT decoding reads, as with -k. It returns that
// path, or "" when none loads (the kernel's symbols then come from
// kallsyms). The build-id cache entry perf tries last is a kallsyms copy
// for the kernel, never an ELF, and is not tried. Call it once the
// recorded build ids are known (AddBuildID) and before any record.
func (m *Machine) SearchVmlinux(release string) string {
	for _, p := range VmlinuxPath(release, m.symOpts != nil && m.symOpts.Symfs != "") {
		file := m.vmlinuxFile(p)
		if st, err := os.Stat(file); err != nil || !st.Mode().IsRegular() {
			continue
		}
		vm, err := symbol.LoadVmlinux(file, "", nil)
		if err != nil || m.kernelBuildID != nil && !symbol.BuildIDEqual(m.kernelBuildID, vm.BuildID) {
			continue
		}
		n := 0
		for _, sec := range vm.Sections {
			n += sec.Syms.Len()
		}
		if n == 0 {
			continue
		}
		m.vmPath = p
		return p
	}
	return ""
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
	vm, err := symbol.LoadVmlinux(m.vmlinuxFile(m.vmPath), m.refName, m.symOpts.KernelDemangler())
	if err != nil {
		return v
	}
	// symsrc__init: a recorded build id must be the file's.
	if m.kernelBuildID != nil && !symbol.BuildIDEqual(m.kernelBuildID, vm.BuildID) {
		return v
	}
	// The code is read from the DSO's long name, the path as given,
	// always under --symfs (dso__read_binary_type_filename for
	// DSO_BINARY_TYPE__VMLINUX): with an absolute -k and --symfs, the
	// symbols come from the file and the code from the symfs's copy.
	v.vm, v.file = vm, m.vmPath
	if m.symOpts != nil && m.symOpts.Symfs != "" {
		v.file = filepath.Join(m.symOpts.Symfs, m.vmPath)
	}
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
