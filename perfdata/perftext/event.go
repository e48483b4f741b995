package perftext

import (
	"strconv"

	"github.com/perfpt/perfpt/perfdata"
)

// AppendEvent appends the text perf_event__fprintf prints for a
// side-band record, as perf script's --show-*-events print it after the
// sample columns: "PERF_RECORD_COMM exec: ls:12/12\n" and so on, newline
// included. sym, when not nil, names a kernel address for TEXT_POKE
// records (symbol+offset, or "" when unknown).
func AppendEvent(b []byte, r perfdata.Record, sym func(addr uint64) string) []byte {
	c := r.Common()
	b = append(b, eventName(c.Type)...)
	switch r := r.(type) {
	case *perfdata.RecordComm:
		if r.Exec() {
			b = append(b, " exec"...)
		}
		b = append(b, ": "...)
		b = append(b, r.Comm...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(r.PID), 10)
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(r.TID), 10)
	case *perfdata.RecordFork:
		b = appendTask(b, r.PID, r.TID, r.PPID, r.PTID)
	case *perfdata.RecordExit:
		b = appendTask(b, r.PID, r.TID, r.PPID, r.PTID)
	case *perfdata.RecordMmap:
		b = appendMmapHead(b, r.PID, r.TID, r.Addr, r.Len, r.PgOff)
		b = append(b, "]: "...)
		if r.Misc&perfdata.MiscMmapData != 0 {
			b = append(b, 'r')
		} else {
			b = append(b, 'x')
		}
		b = append(b, ' ')
		b = append(b, r.Filename...)
	case *perfdata.RecordMmap2:
		b = appendMmapHead(b, r.PID, r.TID, r.Addr, r.Len, r.PgOff)
		if r.Misc&perfdata.MiscMmapBuildID != 0 {
			b = append(b, " <"...)
			b = appendHexBytes(b, r.BuildID)
			b = append(b, '>')
		} else {
			b = append(b, ' ')
			b = appendHex02(b, uint64(r.Maj))
			b = append(b, ':')
			b = appendHex02(b, uint64(r.Min))
			b = append(b, ' ')
			b = strconv.AppendUint(b, r.Ino, 10)
			b = append(b, ' ')
			b = strconv.AppendUint(b, r.InoGeneration, 10)
		}
		b = append(b, "]: "...)
		b = append(b, protString(r.Prot, r.Flags)...)
		b = append(b, ' ')
		b = append(b, r.Filename...)
	case *perfdata.RecordNamespaces:
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(r.PID), 10)
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(r.TID), 10)
		b = append(b, " - nr_namespaces: "...)
		b = strconv.AppendInt(b, int64(len(r.Namespaces)), 10)
		b = append(b, "\n\t\t["...)
		for i, ns := range r.Namespaces {
			if i > 0 && i%4 == 0 {
				b = append(b, "\n\t\t "...)
			}
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, '/')
			b = append(b, nsName(i)...)
			b = append(b, ": "...)
			b = strconv.AppendUint(b, ns.Dev, 10)
			b = append(b, '/')
			b = append(b, cHex(ns.Ino)...)
			if i+1 != len(r.Namespaces) {
				b = append(b, ", "...)
			} else {
				b = append(b, ']')
			}
		}
	case *perfdata.RecordCgroup:
		b = append(b, " cgroup: "...)
		b = strconv.AppendUint(b, r.CgroupID, 10)
		b = append(b, ' ')
		b = append(b, r.Path...)
	case *perfdata.RecordAux:
		b = append(b, " offset: "...)
		b = append(b, cHex(r.AuxOffset)...)
		b = append(b, " size: "...)
		b = append(b, cHex(r.AuxSize)...)
		b = append(b, " flags: "...)
		b = append(b, cHex(r.Flags)...)
		b = append(b, " ["...)
		if r.Flags&perfdata.AuxFlagTruncated != 0 {
			b = append(b, 'T')
		}
		if r.Flags&perfdata.AuxFlagOverwrite != 0 {
			b = append(b, 'O')
		}
		if r.Flags&perfdata.AuxFlagPartial != 0 {
			b = append(b, 'P')
		}
		b = append(b, ']')
	case *perfdata.RecordItraceStart:
		b = append(b, " pid: "...)
		b = strconv.AppendUint(b, uint64(uint32(r.PID)), 10)
		b = append(b, " tid: "...)
		b = strconv.AppendUint(b, uint64(uint32(r.TID)), 10)
	case *perfdata.RecordSwitch:
		inOut := "IN         "
		if r.Out() {
			inOut = "OUT        "
			if r.Preempt() {
				inOut = "OUT preempt"
			}
		}
		b = append(b, ' ')
		b = append(b, inOut...)
		if r.CPUWide {
			if r.Out() {
				b = append(b, "  next pid/tid: "...)
			} else {
				b = append(b, "  prev pid/tid: "...)
			}
			b = appendIntPad(b, int64(r.NextPrevPID), 5)
			b = append(b, '/')
			n := len(b)
			b = strconv.AppendInt(b, int64(r.NextPrevTID), 10)
			for len(b)-n < 5 {
				b = append(b, ' ')
			}
		}
	case *perfdata.RecordLost:
		b = append(b, " lost "...)
		b = strconv.AppendUint(b, r.Lost, 10)
	case *perfdata.RecordKsymbol:
		b = append(b, " addr "...)
		b = strconv.AppendUint(b, r.Addr, 16)
		b = append(b, " len "...)
		b = strconv.AppendUint(b, uint64(r.Len), 10)
		b = append(b, " type "...)
		b = strconv.AppendUint(b, uint64(r.KsymType), 10)
		b = append(b, " flags 0x"...)
		b = strconv.AppendUint(b, uint64(r.KsymFlags), 16)
		b = append(b, " name "...)
		b = append(b, r.Name...)
	case *perfdata.RecordBPFEvent:
		b = append(b, " type "...)
		b = strconv.AppendUint(b, uint64(r.BPFType), 10)
		b = append(b, ", flags "...)
		b = strconv.AppendUint(b, uint64(r.BPFFlags), 10)
		b = append(b, ", id "...)
		b = strconv.AppendUint(b, uint64(r.BPFID), 10)
	case *perfdata.RecordTextPoke:
		b = append(b, ' ')
		b = strconv.AppendUint(b, r.Addr, 16)
		b = append(b, ' ')
		if sym != nil {
			b = append(b, sym(r.Addr)...)
		}
		b = append(b, " old len "...)
		b = strconv.AppendInt(b, int64(len(r.Old)), 10)
		b = append(b, " new len "...)
		b = strconv.AppendInt(b, int64(len(r.New)), 10)
		b = append(b, '\n')
		b = appendPokeBytes(b, "Old", r.Old)
		return appendPokeBytes(b, "New", r.New)
	case *perfdata.RecordAuxOutputHwID:
		b = append(b, " hw_id: "...)
		b = append(b, cHex(r.HwID)...)
	}
	return append(b, '\n')
}

// eventName is perf_event__name with the PERF_RECORD_ prefix.
func eventName(t perfdata.RecordType) string {
	if t >= perfdata.RecordTypeUserStart+64 {
		return "PERF_RECORD_INVALID"
	}
	if n := t.Name(); len(n) < 8 || n[:8] != "UNKNOWN(" {
		return "PERF_RECORD_" + n
	}
	return "PERF_RECORD_UNKNOWN"
}

// appendTask is perf_event__fprintf_task.
func appendTask(b []byte, pid, tid, ppid, ptid int32) []byte {
	b = append(b, '(')
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, "):("...)
	b = strconv.AppendInt(b, int64(ppid), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(ptid), 10)
	return append(b, ')')
}

// appendMmapHead is " pid/tid: [start(len) @ pgoff" of the MMAP lines.
func appendMmapHead(b []byte, pid, tid int32, addr, length, pgoff uint64) []byte {
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, ": ["...)
	b = append(b, cHex(addr)...)
	b = append(b, '(')
	b = append(b, cHex(length)...)
	b = append(b, ") @ "...)
	return append(b, cHex(pgoff)...)
}

func appendHex02(b []byte, v uint64) []byte {
	if v < 16 {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, v, 16)
}

func appendHexBytes(b []byte, v []byte) []byte {
	const hex = "0123456789abcdef"
	for _, x := range v {
		b = append(b, hex[x>>4], hex[x&15])
	}
	return b
}

func appendIntPad(b []byte, v int64, w int) []byte {
	s := strconv.FormatInt(v, 10)
	for i := len(s); i < w; i++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}

// appendPokeBytes is binary__fprintf with text_poke_printer: 16 bytes a
// line.
func appendPokeBytes(b []byte, which string, v []byte) []byte {
	for i := 0; i < len(v); i += 16 {
		b = append(b, "            "...)
		b = append(b, which...)
		b = append(b, " bytes:"...)
		for _, x := range v[i:min(i+16, len(v))] {
			b = append(b, ' ')
			b = appendHex02(b, uint64(x))
		}
		b = append(b, '\n')
	}
	return b
}

// nsName is perf_ns__name.
func nsName(i int) string {
	names := [...]string{"net", "uts", "ipc", "pid", "user", "mnt", "cgroup"}
	if i < len(names) {
		return names[i]
	}
	return "UNKNOWN"
}
