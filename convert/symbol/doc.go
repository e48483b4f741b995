// Package symbol resolves addresses to symbols the way perf 6.1 does for
// user-space ELF objects and the kernel.
//
// A Table holds the symbols of one DSO in perf's address space for that DSO:
// for user-space objects that is the file offset (perf's map_ip: ip - map
// start + page offset), since perf shifts every ELF symbol by the p_vaddr -
// p_offset of the PT_LOAD segment holding it. Tables are built as perf's
// dso__load does without libbfd (the Debian build): .symtab and then .dynsym
// of the best candidate file (build-id cache, then the path under --symfs),
// FUNC/GNU_IFUNC/OBJECT symbols plus NOTYPE labels in text or data sections,
// zero-sized symbols extended to the next symbol (symbols__fixup_end),
// symbols sharing a start address reduced to the one perf prefers
// (choose_best_symbol), and name@plt entries synthesised for the PLT.
//
// Lookups follow symbols__find: a symbol covers [Start, End), and a
// zero-length symbol covers its start address.
package symbol
