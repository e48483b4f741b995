package sideband

import (
	"bufio"
	"strconv"
)

// Printing of records, as libipt's pt_sb_pevent_print: compact records are
// one line, "PERF_RECORD_<TYPE>  <fields>  { <samples> }"; verbose ones put
// each field on a line of its own.

type printer struct {
	b       []byte
	compact bool
	verbose bool
}

func (p *printer) s(str string) { p.b = append(p.b, str...) }
func (p *printer) x(v uint64)   { p.b = strconv.AppendUint(p.b, v, 16) }

func (p *printer) hex16(v uint64) {
	const digits = "0123456789abcdef"
	var t [16]byte
	for i := 15; i >= 0; i-- {
		t[i] = digits[v&0xf]
		v >>= 4
	}
	p.b = append(p.b, t[:]...)
}

// field adds a verbose field line "\n  name: <hex>".
func (p *printer) field(name string, v uint64) {
	p.s("\n  ")
	p.s(name)
	p.s(": ")
	p.x(v)
}

// pair adds "pid/tid" in hex.
func (p *printer) pair(a, b uint32) {
	p.x(uint64(a))
	p.s("/")
	p.x(uint64(b))
}

func (p *printer) record(r *Record) {
	name := ""
	switch r.Type {
	case RecordMmap:
		name = "PERF_RECORD_MMAP"
	case RecordLost:
		name = "PERF_RECORD_LOST"
	case RecordComm:
		name = "PERF_RECORD_COMM"
		if r.Misc&MiscCommExec != 0 {
			name = "PERF_RECORD_COMM.EXEC"
		}
	case RecordExit:
		name = "PERF_RECORD_EXIT"
	case RecordThrottle:
		name = "PERF_RECORD_THROTTLE"
	case RecordUnthrottle:
		name = "PERF_RECORD_UNTHROTTLE"
	case RecordFork:
		name = "PERF_RECORD_FORK"
	case RecordMmap2:
		name = "PERF_RECORD_MMAP2"
	case RecordAux:
		name = "PERF_RECORD_AUX"
		if r.AuxFlags&AuxTruncated != 0 {
			name = "PERF_RECORD_AUX.TRUNCATED"
		}
	case RecordItraceStart:
		name = "PERF_RECORD_ITRACE_START"
	case RecordLostSamples:
		name = "PERF_RECORD_LOST_SAMPLES"
	case RecordSwitch:
		name = "PERF_RECORD_SWITCH.IN"
		if r.Misc&MiscSwitchOut != 0 {
			name = "PERF_RECORD_SWITCH.OUT"
		}
	case RecordSwitchCPUWide:
		name = "PERF_RECORD_SWITCH_CPU_WIDE.IN"
		if r.Misc&MiscSwitchOut != 0 {
			name = "PERF_RECORD_SWITCH_CPU_WIDE.OUT"
		}
	default:
		if p.compact {
			p.s("UNKNOWN (")
			p.x(uint64(r.Type))
			p.s(", ")
			p.x(uint64(r.Misc))
			p.s(")")
		}
		if p.verbose {
			p.s("UNKNOWN")
			p.field("type", uint64(r.Type))
			p.field("misc", uint64(r.Misc))
		}
		return
	}
	if p.compact {
		p.s(name)
		if r.Type != RecordSwitch {
			p.s("  ")
		}
		p.compactFields(r)
	}
	if p.verbose {
		p.s(name)
		p.verboseFields(r)
	}
}

func (p *printer) compactFields(r *Record) {
	switch r.Type {
	case RecordMmap:
		p.pair(r.PID, r.TID)
		p.s(", ")
		p.x(r.Addr)
		p.s(", ")
		p.x(r.Len)
		p.s(", ")
		p.x(r.PgOff)
		p.s(", ")
		p.s(r.Filename)
	case RecordLost:
		p.x(r.ID)
		p.s(", ")
		p.x(r.Lost)
	case RecordComm:
		p.pair(r.PID, r.TID)
		p.s(", ")
		p.s(r.Filename)
	case RecordExit, RecordFork:
		p.pair(r.PID, r.TID)
		p.s(", ")
		p.pair(r.PPID, r.PTID)
		p.s(", ")
		p.x(r.Time)
	case RecordThrottle, RecordUnthrottle:
		p.x(r.Time)
		p.s(", ")
		p.x(r.ID)
		p.s(", ")
		p.x(r.StreamID)
	case RecordMmap2:
		p.pair(r.PID, r.TID)
		for _, v := range [...]uint64{r.Addr, r.Len, r.PgOff, uint64(r.Maj), uint64(r.Min),
			r.Ino, r.InoGen, uint64(r.Prot), uint64(r.MapFlags)} {
			p.s(", ")
			p.x(v)
		}
		p.s(", ")
		p.s(r.Filename)
	case RecordAux:
		p.x(r.AuxOffset)
		p.s(", ")
		p.x(r.AuxSize)
		p.s(", ")
		p.x(r.AuxFlags)
	case RecordItraceStart, RecordSwitchCPUWide:
		p.pair(r.PID, r.TID)
	case RecordLostSamples:
		p.x(r.Lost)
	}
}

func (p *printer) verboseFields(r *Record) {
	switch r.Type {
	case RecordMmap, RecordMmap2:
		p.field("pid", uint64(r.PID))
		p.field("tid", uint64(r.TID))
		p.field("addr", r.Addr)
		p.field("len", r.Len)
		p.field("pgoff", r.PgOff)
		if r.Type == RecordMmap2 {
			p.field("maj", uint64(r.Maj))
			p.field("min", uint64(r.Min))
			p.field("ino", r.Ino)
			p.field("ino_generation", r.InoGen)
			p.field("prot", uint64(r.Prot))
			p.field("flags", uint64(r.MapFlags))
		}
		p.s("\n  filename: ")
		p.s(r.Filename)
	case RecordLost:
		p.field("id", r.ID)
		p.field("lost", r.Lost)
	case RecordComm:
		p.field("pid", uint64(r.PID))
		p.field("tid", uint64(r.TID))
		p.s("\n  comm: ")
		p.s(r.Filename)
	case RecordExit, RecordFork:
		p.field("pid", uint64(r.PID))
		p.field("ppid", uint64(r.PPID))
		p.field("tid", uint64(r.TID))
		p.field("ptid", uint64(r.PTID))
		p.field("time", r.Time)
	case RecordThrottle, RecordUnthrottle:
		p.field("time", r.Time)
		p.field("id", r.ID)
		p.field("stream_id", r.StreamID)
	case RecordAux:
		p.field("aux offset", r.AuxOffset)
		p.field("aux size", r.AuxSize)
		p.field("flags", r.AuxFlags)
	case RecordItraceStart:
		p.field("pid", uint64(r.PID))
		p.field("tid", uint64(r.TID))
	case RecordLostSamples:
		p.field("lost", r.Lost)
	case RecordSwitchCPUWide:
		pfx := "prev"
		if r.Misc&MiscSwitchOut != 0 {
			pfx = "next"
		}
		p.field(pfx+" pid", uint64(r.PID))
		p.field(pfx+" tid", uint64(r.TID))
	}
}

func (p *printer) samples(s *Sample) {
	if p.compact {
		p.s("  {")
		if s.Has&HasTID != 0 {
			p.s(" ")
			p.pair(s.PID, s.TID)
		}
		if s.Has&HasTime != 0 {
			p.s(" ")
			p.x(s.Time)
		}
		if s.Has&HasID != 0 {
			p.s(" ")
			p.x(s.ID)
		}
		if s.Has&HasCPU != 0 {
			p.s(" cpu-")
			p.x(uint64(s.CPU))
		}
		if s.Has&HasStreamID != 0 {
			p.s(" ")
			p.x(s.StreamID)
		}
		if s.Has&HasIdentifier != 0 {
			p.s(" ")
			p.x(s.Identifier)
		}
		p.s(" }")
	}
	if p.verbose {
		if s.Has&HasTID != 0 {
			p.field("pid", uint64(s.PID))
			p.field("tid", uint64(s.TID))
		}
		if s.Has&HasTime != 0 {
			p.field("time", s.Time)
		}
		if s.Has&HasID != 0 {
			p.field("id", s.ID)
		}
		if s.Has&HasCPU != 0 {
			p.field("cpu", uint64(s.CPU))
		}
		if s.Has&HasStreamID != 0 {
			p.field("stream id", s.StreamID)
		}
		if s.Has&HasIdentifier != 0 {
			p.field("identifier", s.Identifier)
		}
	}
}

// AppendRecord appends the text of the current record of p as flags select
// (without the final newline), as libipt's pt_sb_pevent_print.
func AppendRecord(b []byte, p *Pevent, flags DumpFlags) []byte {
	pr := printer{b: b, compact: flags&DumpCompact != 0, verbose: flags&DumpVerbose != 0}
	off := uint64(p.Offset())
	switch flags & (DumpFilename | DumpOffset) {
	case DumpFilename | DumpOffset:
		pr.s(p.Config.Filename)
		pr.s(":")
		pr.hex16(off)
		pr.s("  ")
	case DumpFilename:
		pr.s(p.Config.Filename)
		pr.s("  ")
	case DumpOffset:
		pr.hex16(off)
		pr.s("  ")
	}
	r := &p.rec
	if flags&DumpTime != 0 && r.Sample.Has&HasTime != 0 {
		pr.hex16(r.Sample.TSC)
		pr.s("  ")
	}
	pr.record(r)
	pr.samples(&r.Sample)
	return pr.b
}

func (s *Session) print(w *bufio.Writer, p *Pevent) {
	b := AppendRecord(s.scratch[:0], p, s.flags)
	if s.flags != 0 {
		b = append(b, '\n')
	}
	w.Write(b)
	s.scratch = b
}

// printError prints "[<file>:<16 hex offset> sideband error: <text>]", as
// ptdump's and ptxed's error notifier.
func (s *Session) printError(w *bufio.Writer, p *Pevent, err error) {
	b := append(s.scratch[:0], '[')
	b = append(b, p.Config.Filename...)
	b = append(b, ':')
	pr := printer{b: b}
	pr.hex16(uint64(p.Offset()))
	if s.severity && isWarning(err) {
		b = append(pr.b, " sideband warning: "...)
	} else {
		b = append(pr.b, " sideband error: "...)
	}
	b = append(b, err.Error()...)
	b = append(b, "]\n"...)
	w.Write(b)
	s.scratch = b
}
