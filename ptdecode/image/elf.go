package image

import (
	"bytes"
	"debug/elf"
	"fmt"
)

// AddELF maps the PT_LOAD segments of the ELF file at path. With hasBase the
// segments are moved so the lowest one starts at base (like ptxed --elf
// file:base); otherwise they are mapped at their p_vaddr. Only the file-backed
// part (p_filesz) of each segment is mapped. It returns the load bias added
// to every p_vaddr.
func (im *Image) AddELF(cache *Cache, path string, base uint64, hasBase bool) (bias uint64, err error) {
	if cache == nil {
		cache = NewCache()
	}
	sec, err := cache.File(path)
	if err != nil {
		return 0, err
	}
	f, err := elf.NewFile(bytes.NewReader(sec.Data))
	if err != nil {
		return 0, fmt.Errorf("image: %s: %w", path, err)
	}
	var loads []*elf.Prog
	low := ^uint64(0)
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Filesz == 0 {
			continue
		}
		loads = append(loads, p)
		low = min(low, p.Vaddr)
	}
	if len(loads) == 0 {
		return 0, fmt.Errorf("image: %s: no loadable segments", path)
	}
	if hasBase {
		bias = base - low
	}
	for _, p := range loads {
		if p.Off > uint64(len(sec.Data)) || p.Filesz > uint64(len(sec.Data))-p.Off {
			return 0, fmt.Errorf("image: %s: segment at %#x beyond end of file", path, p.Off)
		}
		if err := im.Add(sec, p.Off, p.Filesz, p.Vaddr+bias); err != nil {
			return 0, err
		}
	}
	return bias, nil
}
