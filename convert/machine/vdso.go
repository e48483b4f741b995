package machine

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/perfpt/perfpt/convert/symbol"
)

// perf decodes and symbolises [vdso] from a copy of its own vdso
// (machine__findnew_vdso), which is the recorded one when perf runs on the
// same kernel. ownVdso returns this process's vdso image.
var ownVdso = sync.OnceValue(func() []byte {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasSuffix(line, "[vdso]") {
			continue
		}
		rng, _, _ := strings.Cut(line, " ")
		lo, hi, ok := strings.Cut(rng, "-")
		if !ok {
			return nil
		}
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || b <= a || b-a > 1<<20 {
			return nil
		}
		mem, err := os.Open("/proc/self/mem")
		if err != nil {
			return nil
		}
		defer mem.Close()
		buf := make([]byte, b-a)
		if _, err := mem.ReadAt(buf, int64(a)); err != nil {
			return nil
		}
		return buf
	}
	return nil
})

// isVdso says whether a DSO is a vdso: the 64-bit one or a compat one
// (perf's dso__is_vdso).
func isVdso(name string) bool {
	return name == "[vdso]" || name == "[vdso32]" || name == "[vdsox32]"
}

// vdsoName mirrors machine__findnew_vdso's choice of DSO for a [vdso]
// mapping: "[vdso32]" (or "[vdsox32]") when the first map of the
// process, in address order, whose DSO is a file of known ELF class is
// 32-bit (x32: 32-bit for x86_64) (machine__thread_dso_type), else
// "[vdso]". perf reads a compat vdso with its perf-read-vdso32 helper
// unless the build-id table names it.
func vdsoName(ms *Maps, o *symbol.Options) string {
	for _, mp := range ms.list {
		d := mp.DSO
		if d == nil || d.Name == "" || d.Name[0] != '/' {
			continue
		}
		if name := vdsoOfType(symbol.DataFile(o, d.Name, d.BuildID, false)); name != "" {
			return name
		}
	}
	return "[vdso]"
}

// vdsoOfType mirrors dso__type_fd on the file at path and names the vdso
// of its type: "[vdso]" for a 64-bit ELF file, "[vdsox32]" for a 32-bit
// one for x86_64, "[vdso32]" for another 32-bit one; "" when it is not
// an ELF file or cannot be read (DSO__TYPE_UNKNOWN).
func vdsoOfType(path string) string {
	if path == "" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var h [20]byte
	if _, err := f.ReadAt(h[:], 0); err != nil || string(h[:4]) != elf.ELFMAG {
		return ""
	}
	if elf.Class(h[elf.EI_CLASS]) == elf.ELFCLASS64 {
		return "[vdso]"
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if elf.Data(h[elf.EI_DATA]) == elf.ELFDATA2MSB {
		order = binary.BigEndian
	}
	if elf.Machine(order.Uint16(h[18:])) == elf.EM_X86_64 {
		return "[vdsox32]"
	}
	return "[vdso32]"
}

// vdsoSymbols gives d, a vdso DSO, perf's symbols and code: from the
// build-id cache when the build-id table lists it, else from our own
// vdso for [vdso] (none for a compat one: perf has its helper's copy).
func vdsoSymbols(d *DSO) *symbol.Table {
	img := ownVdso()
	if d.Name != "[vdso]" {
		img = nil
	}
	if d.BuildID != nil {
		// The build-id table lists [vdso]: perf uses that DSO, whose
		// file is in the build-id cache (none: no symbols), not its
		// own vdso (__machine__findnew_vdso finds it by name).
		img = nil
		if f := d.symOpts.BuildIDCacheFile(d.BuildID, "vdso"); f != "" {
			img, _ = os.ReadFile(f)
		}
		if img == nil {
			return &symbol.Table{}
		}
	}
	if img == nil {
		return &symbol.Table{}
	}
	d.code = img
	tab, err := symbol.Load(bytes.NewReader(img))
	if err != nil {
		return &symbol.Table{}
	}
	return tab
}
