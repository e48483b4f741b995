package session

import (
	"bufio"
	"strconv"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/ptdecode/perfpkt"
)

// DumpMachine follows the records of perfpt dump (perf report -D) as perf
// report's machine does, and prints the lines perf report adds to each
// sample delivered to it. It is perftext.DumpMachine for the session's
// machine: use it with a session that is not Run, or call only Sample
// (perf script -D: the session's Run follows the records).
type DumpMachine struct {
	s *Session
}

// DumpMachine returns the session's machine for perftext.Dump.
func (s *Session) DumpMachine() *DumpMachine { return &DumpMachine{s: s} }

// Record processes the records that change the machine, as Run does.
func (d *DumpMachine) Record(rec perfdata.Record) {
	m := d.s.m
	switch r := rec.(type) {
	case *perfdata.RecordComm:
		m.ProcessComm(r)
	case *perfdata.RecordFork:
		m.ProcessFork(r)
	case *perfdata.RecordMmap:
		m.ProcessMmap(r.PID, r.TID, r.Addr, r.Len, r.PgOff, r.Filename, nil, r.CPUMode(), r.Misc&perfdata.MiscMmapData == 0)
	case *perfdata.RecordMmap2:
		var bid []byte
		if r.Misc&perfdata.MiscMmapBuildID != 0 {
			bid = r.BuildID
		}
		m.ProcessMmap(r.PID, r.TID, r.Addr, r.Len, r.PgOff, r.Filename, bid, r.CPUMode(), r.Prot&protExec != 0)
	}
}

// Sample prints machine__resolve's lines for a sample: the thread's comm
// and tid, then the DSO of the map holding the IP in the address space
// the sample's cpumode names (thread__find_map: "[hypervisor]" for any
// cpumode but kernel and user, "<not found>" without a map).
func (d *DumpMachine) Sample(w *bufio.Writer, r *perfdata.RecordSample) {
	m := d.s.m
	t := m.FindNewThread(r.PID, r.TID)
	w.WriteString(" ... thread: ")
	w.WriteString(t.Comm)
	w.WriteByte(':')
	w.WriteString(strconv.Itoa(int(t.TID)))
	w.WriteString("\n ...... dso: ")
	var mp *machine.Map
	switch r.CPUMode() {
	case perfdata.MiscKernel:
		mp = m.FindKernelMap(r.IP)
	case perfdata.MiscUser:
		mp = t.Maps.Find(r.IP)
	default:
		w.WriteString("[hypervisor]\n")
		return
	}
	if mp == nil {
		w.WriteString("<not found>\n")
		return
	}
	// machine__resolve looks the IP's symbol up (map__find_symbol), which
	// loads the DSO's symbols, with dso__load's warnings.
	mp.DSO.Symbols()
	w.WriteString(mp.DSO.LongName())
	w.WriteByte('\n')
}

// DumpAux prints an AUXTRACE record's trace data as perf report -D does
// for Intel PT (intel_pt_dump_event); perf 6.1's other AUX area decoders
// (BTS, ARM SPE, CoreSight, s390 CPU-MF, HiSilicon PTT) print dumps of
// their own that perfpt does not mirror: their data is not printed.
func DumpAux(w *bufio.Writer, info *perfdata.RecordAuxtraceInfo, r *perfdata.RecordAuxtrace) {
	if info == nil || info.AuxType != perfdata.AuxtraceIntelPT {
		return
	}
	w.Write(perfpkt.AppendDump(nil, r.Data))
}
