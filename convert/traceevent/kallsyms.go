package traceevent

import "github.com/perfpt/perfpt/convert/symbol"

// Kallsyms resolves through a kallsyms table: the core kernel's symbols,
// then the modules' (perf's machine__find_kernel_symbol looks the address
// up in the kernel map that contains it).
type Kallsyms struct{ K *symbol.KernelSymbols }

// Resolve implements KernelSymbols.
func (k Kallsyms) Resolve(addr uint64) (string, uint64, bool) {
	if k.K == nil {
		return "", 0, false
	}
	if s := k.K.Kernel.Find(addr); s != nil {
		return s.Name, s.Start, true
	}
	for _, t := range k.K.Modules {
		if s := t.Find(addr); s != nil {
			return s.Name, s.Start, true
		}
	}
	return "", 0, false
}
