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
