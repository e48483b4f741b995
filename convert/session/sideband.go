package session

import (
	"strconv"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/perfdata"
)

// Show selects the side-band records Run hands to Handler.Sideband: perf
// script's --show-*-events options.
type Show uint32

const (
	ShowTask       Show = 1 << iota // COMM, FORK, EXIT (--show-task-events)
	ShowMmap                        // MMAP, MMAP2 (--show-mmap-events)
	ShowSwitch                      // SWITCH, SWITCH_CPU_WIDE (--show-switch-events)
	ShowLost                        // LOST (--show-lost-events)
	ShowNamespaces                  // NAMESPACES (--show-namespace-events)
	ShowCgroup                      // CGROUP (--show-cgroup-events)
	ShowBPF                         // KSYMBOL, BPF_EVENT (--show-bpf-events)
	ShowTextPoke                    // TEXT_POKE, KSYMBOL (--show-text-poke-events)
	// ShowRound delivers FINISHED_ROUND records and turns the time
	// ordering off, as --show-round-events does: records come in file
	// order.
	ShowRound
)

// Sideband is a side-band record as perf script prints it with
// --show-*-events (print_event_with_time): the columns of the sample
// start, then the record.
type Sideband struct {
	Rec perfdata.Record
	// Ev is the event of the record's sample id (evlist__id2evsel); nil
	// when perf finds none, and then only the record is printed.
	Ev *sample.Event
	// The thread perf looks up for the comm column (none for a tid of
	// -1: comm ":-1"), and the pid, tid, cpu and time columns.
	Comm     string
	PID, TID int32
	CPU      uint32
	Time     uint64
	// PokeSym is the kernel symbol and offset of a TEXT_POKE record's
	// address ("" when perf finds none).
	PokeSym string
}

// wants reports whether Run hands records of type t to Sideband.
func (o *Options) wants(t perfdata.RecordType) bool {
	switch t {
	case perfdata.RecordTypeComm, perfdata.RecordTypeFork, perfdata.RecordTypeExit:
		return o.Show&ShowTask != 0
	case perfdata.RecordTypeMmap, perfdata.RecordTypeMmap2:
		return o.Show&ShowMmap != 0
	case perfdata.RecordTypeSwitch, perfdata.RecordTypeSwitchCPUWide:
		return o.Show&ShowSwitch != 0
	case perfdata.RecordTypeLost:
		return o.Show&ShowLost != 0
	case perfdata.RecordTypeNamespaces:
		return o.Show&ShowNamespaces != 0
	case perfdata.RecordTypeCgroup:
		return o.Show&ShowCgroup != 0
	case perfdata.RecordTypeKsymbol:
		return o.Show&(ShowBPF|ShowTextPoke) != 0
	case perfdata.RecordTypeBPFEvent:
		return o.Show&ShowBPF != 0
	case perfdata.RecordTypeTextPoke:
		return o.Show&ShowTextPoke != 0
	case perfdata.RecordTypeFinishedRound:
		return o.Show&ShowRound != 0
	}
	return false
}

// sideband hands rec to h.Sideband as perf script's print_event_with_time
// prints it: the thread and the columns come from the record's own pid
// and tid for task, mmap and namespace records (and the fork time for
// FORK and EXIT), from its sample id for the others.
func (s *Session) sideband(rec perfdata.Record, h Handler) {
	c := rec.Common()
	if c.Type == perfdata.RecordTypeFinishedRound {
		h.Sideband(&Sideband{Rec: rec})
		return
	}
	// evsel__parse_sample: without a sample_id trailer the sample's
	// pid, tid and cpu are -1, its time -1ULL.
	st := c.SampleID.Format
	pid, tid, cpu, time := int32(-1), int32(-1), ^uint32(0), ^uint64(0)
	if st&perfdata.SampleFormatTID != 0 {
		pid, tid = c.PID, c.TID
	}
	if st&perfdata.SampleFormatCPU != 0 {
		cpu = c.CPU
	}
	if st&perfdata.SampleFormatTime != 0 {
		time = c.Time
	}
	evPID, evTID, ts := pid, tid, uint64(0)
	switch r := rec.(type) {
	case *perfdata.RecordComm:
		evPID, evTID = r.PID, r.TID
	case *perfdata.RecordFork:
		evPID, evTID, ts = r.PID, r.TID, r.ForkTime
	case *perfdata.RecordExit:
		evPID, evTID, ts = r.PID, r.TID, r.ExitTime
	case *perfdata.RecordMmap:
		evPID, evTID = r.PID, r.TID
	case *perfdata.RecordMmap2:
		evPID, evTID = r.PID, r.TID
	case *perfdata.RecordNamespaces:
		evPID, evTID = r.PID, r.TID
	}
	a := s.sidebandAttr(c)
	if a != nil && !a.SampleIDAll() {
		cpu, time, pid, tid = 0, ts, evPID, evTID
	}
	if s.opts.CPUs != nil && !s.opts.CPUs[int32(cpu)] {
		return // filter_cpu
	}
	sb := Sideband{Rec: rec, Ev: s.event(a), Comm: ":-1", PID: pid, TID: tid, CPU: cpu, Time: time}
	if evTID != -1 {
		sb.Comm = s.m.FindNewThread(evPID, evTID).Comm
	}
	if r, ok := rec.(*perfdata.RecordTextPoke); ok {
		// perf_event__fprintf_text_poke: the kernel maps' symbol.
		if l := s.m.ResolveMode(nil, true, r.Addr); l.Sym != nil {
			sb.PokeSym = l.Sym.Name + "+0x" + strconv.FormatUint(l.Addr-l.Sym.Start, 16)
		}
	}
	h.Sideband(&sb)
}

// sidebandAttr mirrors evlist__id2evsel for a side-band record's sample
// id: the first event when there is one event, no id or no sample_id_all
// anywhere; the id's event; else none.
func (s *Session) sidebandAttr(c *perfdata.RecordCommon) *perfdata.Attr {
	attrs := s.f.Attrs
	if len(attrs) == 0 {
		return nil
	}
	id, hasID := c.ID, c.SampleID.Format&(perfdata.SampleFormatID|perfdata.SampleFormatIdentifier) != 0
	if len(attrs) == 1 || (hasID && id == 0) {
		return attrs[0]
	}
	if hasID {
		if a := s.f.AttrByID(id); a != nil {
			return a
		}
	}
	if !attrs[0].SampleIDAll() {
		return attrs[0]
	}
	return nil
}
