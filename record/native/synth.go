package native

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/perfpt/perfpt/perfdata"
)

// synthesize writes COMM and MMAP2 records for what pid had before the
// event was opened, as perf does for existing processes.
func synthesize(w *perfdata.Writer, pid int, mapped map[string]bool) error {
	comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	sid := perfdata.SampleID{PID: int32(pid), TID: int32(pid)}
	if err := w.WriteRecord(&perfdata.RecordComm{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscCommExec, SampleID: sid},
		PID: int32(pid), TID: int32(pid), Comm: strings.TrimSpace(string(comm))}); err != nil {
		return err
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return err
	}
	return synthesizeMaps(w, pid, data, mapped)
}

// synthesizeAll writes COMM records for every thread in /proc and MMAP2
// records for every process's executable mappings, as perf record -a does
// for the tasks that exist before it starts. Tasks that vanish meanwhile
// are skipped.
func synthesizeAll(w *perfdata.Writer, mapped map[string]bool) error {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			continue
		}
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/comm", pid, tid))
			if err != nil {
				continue
			}
			sid := perfdata.SampleID{PID: int32(pid), TID: int32(tid)}
			if err := w.WriteRecord(&perfdata.RecordComm{RecordCommon: perfdata.RecordCommon{SampleID: sid},
				PID: int32(pid), TID: int32(tid), Comm: strings.TrimSpace(string(comm))}); err != nil {
				return err
			}
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
		if err != nil {
			continue
		}
		if err := synthesizeMaps(w, pid, data, mapped); err != nil {
			return err
		}
	}
	return nil
}

// synthesizeMaps writes MMAP2 records for the executable mappings in a
// /proc/PID/maps text.
func synthesizeMaps(w *perfdata.Writer, pid int, data []byte, mapped map[string]bool) error {
	sid := perfdata.SampleID{PID: int32(pid), TID: int32(pid)}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || len(f[1]) < 3 || f[1][2] != 'x' || f[5] == "[vsyscall]" {
			continue
		}
		lo, hi, _ := strings.Cut(f[0], "-")
		start, _ := strconv.ParseUint(lo, 16, 64)
		end, _ := strconv.ParseUint(hi, 16, 64)
		off, _ := strconv.ParseUint(f[2], 16, 64)
		ma, mi, _ := strings.Cut(f[3], ":")
		maj, _ := strconv.ParseUint(ma, 16, 32)
		min, _ := strconv.ParseUint(mi, 16, 32)
		ino, _ := strconv.ParseUint(f[4], 10, 64)
		name := strings.Join(f[5:], " ")
		mapped[name] = true
		if err := w.WriteRecord(&perfdata.RecordMmap2{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser, SampleID: sid},
			PID: int32(pid), TID: int32(pid), Addr: start, Len: end - start, PgOff: off, Maj: uint32(maj), Min: uint32(min),
			Ino: ino, Prot: 5, Flags: 2, Filename: name}); err != nil {
			return err
		}
	}
	return nil
}

// fileBuildID returns the GNU build id of an ELF file, or nil.
func fileBuildID(path string) []byte {
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return nil
	}
	d, err := s.Data()
	if err != nil || len(d) < 16 {
		return nil
	}
	nsz := binary.LittleEndian.Uint32(d)
	dsz := binary.LittleEndian.Uint32(d[4:])
	off := 12 + (nsz+3)&^3
	if uint64(off)+uint64(dsz) > uint64(len(d)) {
		return nil
	}
	return append([]byte(nil), d[off:off+dsz]...)
}

// kernelBuildID returns the running kernel's GNU build id from
// /sys/kernel/notes, or nil.
func kernelBuildID() []byte {
	d, err := os.ReadFile("/sys/kernel/notes")
	if err != nil {
		return nil
	}
	for len(d) >= 12 {
		nsz := uint64(binary.LittleEndian.Uint32(d))
		dsz := uint64(binary.LittleEndian.Uint32(d[4:]))
		typ := binary.LittleEndian.Uint32(d[8:])
		noff := uint64(12)
		doff := noff + (nsz+3)&^3
		end := doff + (dsz+3)&^3
		if doff+dsz > uint64(len(d)) {
			return nil
		}
		if typ == 3 && nsz == 4 && string(d[noff:noff+3]) == "GNU" {
			return append([]byte(nil), d[doff:doff+dsz]...)
		}
		if end > uint64(len(d)) {
			return nil
		}
		d = d[end:]
	}
	return nil
}

// synthesizeKernel writes the MMAP record perf writes for the kernel image
// ("[kernel.kallsyms]_text" from _text to _etext, pgoff _text), with which
// perf report resolves kernel samples from /proc/kallsyms. Nothing is
// written when /proc/kallsyms hides addresses (kptr_restrict).
func synthesizeKernel(w *perfdata.Writer) error {
	text, etext := kallsymsText("/proc/kallsyms")
	if text == 0 || etext <= text {
		return nil
	}
	return w.WriteRecord(&perfdata.RecordMmap{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscKernel,
		SampleID: perfdata.SampleID{PID: -1, TID: 0}}, PID: -1, TID: 0, Addr: text, Len: etext - text, PgOff: text,
		Filename: "[kernel.kallsyms]_text"})
}

// kallsymsText returns the addresses of _text and _etext in a kallsyms
// file (0 when absent or hidden).
func kallsymsText(path string) (text, etext uint64) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() && (text == 0 || etext == 0) {
		fs := strings.Fields(sc.Text())
		if len(fs) < 3 {
			continue
		}
		switch fs[2] {
		case "_text", "_etext":
			v, _ := strconv.ParseUint(fs[0], 16, 64)
			if fs[2] == "_text" {
				text = v
			} else {
				etext = v
			}
		}
	}
	return text, etext
}
