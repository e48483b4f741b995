package machine

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/perfpt/perfpt/convert/symbol"
)

// perf decodes and symbolises [vdso] from a copy of its own vdso
// (machine__findnew_vdso), which is the recorded one when perf runs on the
// same kernel. ownVdso returns this process's vdso image.
var ownVdso = sync.OnceValue(func() []byte { return vdsoOf("self") })

// vdsoOf reads the [vdso] mapping of process pid ("self" for this one)
// from its /proc maps and mem; nil when it cannot.
func vdsoOf(pid string) []byte {
	f, err := os.Open("/proc/" + pid + "/maps")
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
		mem, err := os.Open("/proc/" + pid + "/mem")
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
}

// vdso32 returns the vdso the kernel maps into 32-bit processes, as
// perf's perf-read-vdso32 helper (a 32-bit program writing out its own
// vdso) gives it to vdso__get_compat_file: here read from a 32-bit
// process stopped at its exec (PTRACE_TRACEME), an ELF file of a
// single instruction written to a temporary file. nil when this
// machine runs no 32-bit programs.
var vdso32 = sync.OnceValue(func() []byte {
	f, err := os.CreateTemp("", "perfpt-vdso32-")
	if err != nil {
		return nil
	}
	path := f.Name()
	defer os.Remove(path)
	_, err = f.Write(tinyELF32())
	if err2 := f.Close(); err == nil {
		err = err2
	}
	if err != nil || os.Chmod(path, 0o700) != nil {
		return nil
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd := exec.Command(path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
	if err := cmd.Start(); err != nil {
		return nil
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	// The stop after the exec: the vdso is mapped by then.
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(cmd.Process.Pid, &ws, 0, nil); err != nil || !ws.Stopped() {
		return nil
	}
	img := vdsoOf(strconv.Itoa(cmd.Process.Pid))
	if len(img) < 5 || string(img[:4]) != elf.ELFMAG || elf.Class(img[elf.EI_CLASS]) != elf.ELFCLASS32 {
		return nil
	}
	return img
})

// tinyELF32 returns an i386 executable whose code is a jump to itself.
func tinyELF32() []byte {
	const base, hdrs = 0x08048000, 52 + 32
	code := []byte{0xeb, 0xfe} // jmp .
	var b bytes.Buffer
	h := elf.Header32{Type: uint16(elf.ET_EXEC), Machine: uint16(elf.EM_386), Version: uint32(elf.EV_CURRENT),
		Entry: base + hdrs, Phoff: 52, Ehsize: 52, Phentsize: 32, Phnum: 1}
	copy(h.Ident[:], elf.ELFMAG)
	h.Ident[elf.EI_CLASS], h.Ident[elf.EI_DATA], h.Ident[elf.EI_VERSION] = byte(elf.ELFCLASS32), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	size := uint32(hdrs + len(code))
	p := elf.Prog32{Type: uint32(elf.PT_LOAD), Vaddr: base, Paddr: base, Filesz: size, Memsz: size,
		Flags: uint32(elf.PF_R | elf.PF_X), Align: 0x1000}
	binary.Write(&b, binary.LittleEndian, &h)
	binary.Write(&b, binary.LittleEndian, &p)
	b.Write(code)
	return b.Bytes()
}

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
// build-id cache when it has a build id (the table's, or the table's
// [vdso]'s that map__new gave it: vdsoBuildID), else from our own
// vdso for [vdso], from a 32-bit process's for [vdso32] (none for
// [vdsox32]: perf's perf-read-vdsox32 needs an x32 program).
func vdsoSymbols(d *DSO) *symbol.Table {
	var img []byte
	switch {
	case d.BuildID != nil:
		// The build-id table lists the vdso: perf uses that DSO, whose
		// file is in the build-id cache (none: no symbols), not its
		// own vdso (__machine__findnew_vdso finds it by name); or
		// map__new gave it the table's [vdso]'s build id (vdsoBuildID):
		// symsrc__init then rejects every image but that one.
		if f := d.symOpts.BuildIDCacheFile(d.BuildID, "vdso"); f != "" {
			img, _ = os.ReadFile(f)
		}
	case d.Name == "[vdso]":
		img = ownVdso()
	case d.Name == "[vdso32]":
		img = vdso32()
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
