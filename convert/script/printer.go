package script

import (
	"github.com/perfpt/perfpt/perfdata/perftext"
	"io"
	"math/bits"
	"strconv"

	"github.com/perfpt/perfpt/convert/sample"
)

// flushSize is how much output the printer gathers before writing it.
const flushSize = 256 << 10

// Printer writes samples as perf script does.
//
// It does as little as it can per line: what depends only on the event and
// the field selection (output type, fields, ip options, the padded event
// name) is worked out once per event in a plan; the text of the last
// symbol and DSO printed and of the last comm/pid/tid/cpu prefix is kept
// and reused while they repeat (runs of samples in one function, of one
// thread); lines are appended straight to one output buffer that is
// written out in chunks of a quarter MiB (small enough to stay in cache).
type Printer struct {
	w   io.Writer
	err error  // first write error (sticky)
	out []byte // pending output
	o   Options

	spacing int // callindent column state
	// dataSrcMax is data_src__fprintf's static maxlen: the widest
	// data_src column printed so far.
	dataSrcMax int
	curF       Field // the fields of the sample being printed

	pl    *plan   // plan of the last event printed (noPlan at first)
	plans []*plan // plans of the events printed so far
	gen   uint64  // Fields generation the plans were made for
	cc    bool    // UseCallchain the plans were made for

	ipText, addrText symText
	startText        startText
	timeText         timeText
	// initialTime and previousTime are perf_sample__fprintf_start's
	// initial_time and previous_time (--reltime, --deltatime).
	initialTime, previousTime uint64
	lineText                  lineText
	runHead                   []byte // PrintIPs' text before the IP
	flagText                  map[uint32]string

	metrics metricState // -F metric (metric.go)

	srccode  map[int32]srcState  // per thread (srccode.go)
	srcFiles map[string]*srcFile // source files read
	brBuf    []byte              // brstackinsn's code buffer
}

// NewPrinter returns a printer writing to w. With w nil the printer keeps
// all its output in memory (Bytes, Reset): a decode worker formats its
// share of the samples so, and the output goes out in order through
// another printer's Write.
func NewPrinter(w io.Writer, o Options) *Printer {
	if o.Fields == nil {
		o.Fields = DefaultFields()
	}
	p := &Printer{w: w, o: o, out: make([]byte, 0, flushSize+64<<10), pl: &noPlan}
	p.ipText.pad, p.addrText.pad = o.PadDSO, o.PadDSO
	return p
}

// SetUseCallchain says whether callchains are printed.
func (p *Printer) SetUseCallchain(v bool) {
	if v != p.o.UseCallchain {
		p.o.UseCallchain = v
		p.pl = &noPlan // planOf asks planFor, which starts again
	}
}

// Flush writes buffered output and returns the first write error.
func (p *Printer) Flush() error {
	p.flush()
	return p.err
}

func (p *Printer) flush() {
	if p.w == nil {
		return
	}
	if p.err == nil && len(p.out) > 0 {
		_, p.err = p.w.Write(p.out)
	}
	p.out = p.out[:0]
}

// Bytes returns the output of a printer without a writer (valid until the
// next call of the printer).
func (p *Printer) Bytes() []byte { return p.out }

// Reset drops the output of a printer without a writer.
func (p *Printer) Reset() { p.out = p.out[:0] }

// Write adds text already formatted (by a worker's printer) to the
// output, in order with the printer's own lines. It never fails; write
// errors show at Flush.
func (p *Printer) Write(b []byte) (int, error) {
	if p.w != nil && len(p.out)+len(b) > flushSize {
		p.flush()
		if len(b) >= flushSize {
			if p.err == nil {
				_, p.err = p.w.Write(b)
			}
			return len(b), nil
		}
	}
	p.out = append(p.out, b...)
	return len(b), nil
}

// has reports whether field f is printed for the sample being printed
// (curF is set by Print from the sample's plan).
func (p *Printer) has(f Field) bool { return p.curF&f != 0 }

// Print prints one sample (process_event).
func (p *Printer) Print(s *sample.Sample) {
	pl := p.planOf(s.Ev)
	p.curF = pl.f
	if pl.f == 0 {
		return
	}
	if pl.line && !(p.o.UseCallchain && s.Callchain != nil) {
		p.printLine(s, pl)
		return
	}
	b := p.appendHead(p.out, s, pl)
	if p.o.Fields.Flags {
		b = append(b, p.flagsText(s.Flags)...)
	}
	if pl.bts {
		b = p.bts(b, s, pl)
	} else {
		if pl.f&FieldTrace != 0 && s.Raw != nil && s.Ev.Format != nil {
			// event_format__fprintf
			b = s.Ev.Trace.Append(b, s.Ev.Format, s.Raw)
		}
		if pl.synth {
			b = appendSynth(b, &s.Synth)
		}
		if pl.f&FieldAddr != 0 {
			b = p.addr(b, s, pl)
		}
		if s.Mem != nil && pl.f&(FieldDataSrc|FieldWeight|FieldInsLat) != 0 {
			b = p.memFields(b, s.Mem, pl.f)
		}
		if pl.f&FieldIP != 0 {
			if p.o.UseCallchain && s.Callchain != nil {
				b = append(b, '\n')
				b = p.callchain(b, s, pl.opts)
			} else {
				b = append(b, ' ')
				b = p.ipSym(b, s, pl.opts)
			}
		}
		if s.Regs != nil && pl.f&(FieldIregs|FieldUregs) != 0 {
			b = p.regs(b, s.Regs, pl.f)
		}
		if s.BranchStack != nil && pl.f&(FieldBrstack|FieldBrstacksym) != 0 {
			b = p.brstack(b, s, pl.f&FieldBrstack == 0)
		} else if s.BranchStack != nil && pl.f&FieldBrstackoff != 0 {
			b = p.brstackoff(b, s)
		}
		if pl.f&(FieldInsnLen|FieldInsn|FieldBrstackinsn|FieldBrstackinsnlen) != 0 {
			b = p.insn(b, s)
		}
		if s.Mem != nil && pl.f&(FieldPhysAddr|FieldDataPageSize|FieldCodePageSize) != 0 {
			b = memTail(b, s.Mem, pl.f)
		}
		if pl.f&FieldIPC != 0 {
			b = p.ipc(b, s)
		}
		b = append(b, '\n')
	}
	if pl.f&FieldSrccode != 0 {
		b = p.appendSrccode(b, s)
	}
	if pl.f&FieldMetric != 0 {
		b = p.metric(b, s, pl)
	}
	p.out = b
	if len(b) >= flushSize {
		p.flush()
	}
}

// appendHead appends what Print prints first: the start, the period and
// the event name.
func (p *Printer) appendHead(b []byte, s *sample.Sample, pl *plan) []byte {
	if pl.start {
		b = p.appendStart(b, s, pl)
	}
	if pl.f&FieldPeriod != 0 {
		b = appendUintPad(b, s.Period, 10)
		b = append(b, ' ')
	}
	if pl.f&FieldEvent != 0 {
		b = append(b, pl.name...)
	}
	return b
}

// appendStart mirrors perf_sample__fprintf_start. The comm, pid/tid and
// cpu columns are kept as text while they repeat.
func (p *Printer) appendStart(b []byte, s *sample.Sample, pl *plan) []byte {
	return p.appendStartOf(b, s, pl, recordSample, true)
}

// appendStartOf is appendStart for a record of type recType (the misc
// column's letters depend on it); without tod, the tod column is empty
// (perf's tod_scnprintf without a session, for the metric lines).
func (p *Printer) appendStartOf(b []byte, s *sample.Sample, pl *plan, recType uint32, tod bool) []byte {
	if pl.f&(FieldComm|FieldPID|FieldTID|FieldCPU) != 0 {
		c := &p.startText
		if c.f != pl.f || c.commRaw != pl.commRaw || c.pid != s.PID || c.tid != s.TID || c.cpu != s.CPU || c.comm != s.Comm {
			c.fill(s, pl, p.o.Latency)
		}
		b = append(b, c.text...)
	}
	if pl.f&FieldMisc != 0 {
		b = appendMisc(b, s.Misc, recType)
	}
	if pl.f&FieldTOD != 0 {
		if tod {
			b = p.appendTOD(b, s.Time)
		}
		b = append(b, ' ')
	}
	if pl.f&FieldTime != 0 {
		t := s.Time
		// perf_sample__fprintf_start: the first time that is not 0
		// starts --reltime; --deltatime's first time is 0.
		if p.o.RelTime {
			if p.initialTime == 0 {
				p.initialTime = s.Time
			}
			t -= p.initialTime
		} else if p.o.DeltaTime {
			if p.previousTime != 0 {
				t -= p.previousTime
			} else {
				t = 0
			}
			p.previousTime = s.Time
		}
		b = p.timeText.append(b, t, p.o.Nanosecs)
		b = append(b, ':', ' ')
	}
	return b
}

// Record types whose misc bits perf script's misc field prints.
const (
	recordMmap          = 1
	recordComm          = 3
	recordSample        = 9
	recordMmap2         = 10
	recordSwitch        = 14
	recordSwitchCPUWide = 15
)

// appendMisc mirrors perf_sample__fprintf_start's misc column: the cpumode
// letters (perf tests each mode's bits, so a hypervisor sample is "KUH"),
// M for a data mmap, E for an exec comm, S (and p, preempted) for a switch
// out, padded to 6.
func appendMisc(b []byte, misc uint16, recType uint32) []byte {
	n := len(b)
	has := func(m uint16) bool { return misc&m == m }
	for _, c := range []struct {
		m      uint16
		letter byte
	}{{1, 'K'}, {2, 'U'}, {3, 'H'}, {4, 'G'}, {5, 'g'}} {
		if has(c.m) {
			b = append(b, c.letter)
		}
	}
	switch recType {
	case recordMmap, recordMmap2:
		if has(1 << 13) { // PERF_RECORD_MISC_MMAP_DATA
			b = append(b, 'M')
		}
	case recordComm:
		if has(1 << 13) { // PERF_RECORD_MISC_COMM_EXEC
			b = append(b, 'E')
		}
	case recordSwitch, recordSwitchCPUWide:
		if has(1 << 13) { // PERF_RECORD_MISC_SWITCH_OUT
			b = append(b, 'S')
			if misc&(1<<14) != 0 { // _SWITCH_OUT_PREEMPT
				b = append(b, 'p')
			}
		}
	}
	// "%*s" of " " with 6 - the letters: at least one space.
	return appendSpaces(b, max(6-(len(b)-n), 1))
}

// startText is the text of the comm, pid/tid and cpu columns of the last
// sample printed, and what it was made from: the fields of its plan (not
// the plan: events that alternate, as a syscall's enter and exit do,
// share the text) and the sample's.
type startText struct {
	f        Field
	commRaw  bool
	comm     string
	pid, tid int32
	cpu      uint32
	text     []byte
}

func (c *startText) fill(s *sample.Sample, pl *plan, latency bool) {
	c.f, c.commRaw, c.comm, c.pid, c.tid, c.cpu = pl.f, pl.commRaw, s.Comm, s.PID, s.TID, s.CPU
	b := c.text[:0]
	if pl.f&FieldComm != 0 {
		switch {
		case latency:
			// "%8.8s": at most 8 bytes, padded to 8.
			b = padLeftStr(b, s.Comm[:min(len(s.Comm), 8)], 8)
		case pl.commRaw:
			b = append(b, s.Comm...)
		default:
			b = padLeftStr(b, s.Comm, 16)
		}
		b = append(b, ' ')
	}
	switch pid, tid := pl.f&FieldPID != 0, pl.f&FieldTID != 0; {
	case pid && tid:
		b = appendIntPad(b, int64(s.PID), 5)
		b = append(b, '/')
		n := len(b)
		b = strconv.AppendInt(b, int64(s.TID), 10)
		b = appendSpaces(b, 5-(len(b)-n))
		b = append(b, ' ')
	case pid:
		b = appendIntPad(b, int64(s.PID), 5)
		b = append(b, ' ')
	case tid:
		b = appendIntPad(b, int64(s.TID), 5)
		b = append(b, ' ')
	}
	if pl.f&FieldCPU != 0 && latency {
		b = appendIntPad(b, int64(int32(s.CPU)), 3)
		b = append(b, ' ')
	} else if pl.f&FieldCPU != 0 {
		var num [24]byte
		b = append(b, '[')
		b = padZero(b, strconv.AppendInt(num[:0], int64(int32(s.CPU)), 10), 3)
		b = append(b, ']', ' ')
	}
	c.text = b
}

// flagsText returns the flags column ("  %-21s "), kept per flags value.
func (p *Printer) flagsText(f uint32) string {
	if t, ok := p.flagText[f]; ok {
		return t
	}
	if p.flagText == nil {
		p.flagText = map[uint32]string{}
	}
	b := []byte{' ', ' '}
	b = padRightStr(b, FlagsString(f), 21)
	b = append(b, ' ')
	t := string(b)
	p.flagText[f] = t
	return t
}

// AppendTime appends a sample time as perf script prints it: "%5lu.%09llu"
// with --ns, else "%12s" of sec.usec.
func AppendTime(b []byte, t uint64, ns bool) []byte {
	var d [32]byte
	i := len(d)
	frac, width, digits := t%1e9, 12, 6
	if ns {
		width, digits = 15, 9
	} else {
		frac /= 1000
	}
	for ; digits > 0; digits-- {
		i--
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	i--
	d[i] = '.'
	for sec := t / 1e9; ; {
		i--
		d[i] = byte('0' + sec%10)
		sec /= 10
		if sec == 0 {
			break
		}
	}
	b = appendSpaces(b, width-(len(d)-i))
	return append(b, d[i:]...)
}

// timeText keeps the text of the last second printed ("%12s" padding,
// the seconds and the dot), so that a time in the same second costs only
// its fraction's digits.
type timeText struct {
	ok   bool
	ns   bool
	sec  uint64
	text []byte
}

func (c *timeText) append(b []byte, t uint64, ns bool) []byte {
	sec := t / 1e9
	if !c.ok || sec != c.sec || ns != c.ns {
		full := AppendTime(c.text[:0], t, ns)
		c.ok, c.sec, c.ns = true, sec, ns
		c.text = full[:len(full)-6]
		if ns {
			c.text = full[:len(full)-9]
		}
	}
	b = append(b, c.text...)
	frac := t % 1e9
	if !ns {
		frac /= 1000
		b = append(b, digits2[frac/10000*2:frac/10000*2+2]...)
		b = append(b, digits2[frac/100%100*2:frac/100%100*2+2]...)
		return append(b, digits2[frac%100*2:frac%100*2+2]...)
	}
	b = append(b, byte('0'+frac/1e8))
	frac %= 1e8
	b = append(b, digits2[frac/1e6*2:frac/1e6*2+2]...)
	b = append(b, digits2[frac/1e4%100*2:frac/1e4%100*2+2]...)
	b = append(b, digits2[frac/100%100*2:frac/100%100*2+2]...)
	return append(b, digits2[frac%100*2:frac%100*2+2]...)
}

const digits2 = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" +
	"30313233343536373839" + "40414243444546474849" + "50515253545556575859" +
	"60616263646566676869" + "70717273747576777879" + "80818283848586878889" + "90919293949596979899"

// insn mirrors perf_sample__fprintf_insn.
func (p *Printer) insn(b []byte, s *sample.Sample) []byte {
	if p.has(FieldInsnLen) {
		b = append(b, " ilen: "...)
		b = strconv.AppendInt(b, int64(s.InsnLen), 10)
	}
	if p.has(FieldInsn) && s.InsnLen > 0 {
		b = append(b, " insn:"...)
		for i := 0; i < s.InsnLen && i < len(s.Insn); i++ {
			b = append(b, ' ', hexDigits[s.Insn[i]>>4], hexDigits[s.Insn[i]&15])
		}
	}
	if p.has(FieldBrstackinsn | FieldBrstackinsnlen) {
		b = p.brstackinsn(b, s)
	}
	return b
}

// ipc mirrors perf_sample__fprintf_ipc.
func (p *Printer) ipc(b []byte, s *sample.Sample) []byte {
	if !p.has(FieldIPC) || s.CycCnt == 0 || s.InsnCnt == 0 {
		return b
	}
	ipc := uint32(s.InsnCnt * 100 / s.CycCnt)
	b = append(b, " \t IPC: "...)
	b = strconv.AppendUint(b, uint64(ipc/100), 10)
	b = append(b, '.', byte('0'+ipc%100/10), byte('0'+ipc%10))
	b = append(b, " ("...)
	b = strconv.AppendUint(b, s.InsnCnt, 10)
	b = append(b, '/')
	b = strconv.AppendUint(b, s.CycCnt, 10)
	return append(b, ") "...)
}

// regs mirrors perf_sample__fprintf_iregs and _uregs: " ABI:N " then
// "%5s:0x%x " for each register of the mask, of a dump the sample has.
func (p *Printer) regs(b []byte, r *sample.Regs, f Field) []byte {
	dump := func(b []byte, abi, mask uint64, vals []uint64) []byte {
		if abi == 0 { // perf's regs->regs is set for a dump taken
			return b
		}
		b = append(b, " ABI:"...)
		b = strconv.AppendUint(b, abi, 10)
		b = append(b, ' ')
		i := 0
		for m := mask; m != 0; m &= m - 1 {
			v := uint64(0)
			if i < len(vals) {
				v = vals[i]
			}
			i++
			b = padLeftStr(b, perftext.RegName(bits.TrailingZeros64(m), p.o.Arch), 5)
			b = append(b, ":0x"...)
			b = strconv.AppendUint(b, v, 16)
			b = append(b, ' ')
		}
		return b
	}
	if f&FieldIregs != 0 {
		b = dump(b, r.IntrABI, r.IntrMask, r.Intr)
	}
	if f&FieldUregs != 0 {
		b = dump(b, r.UserABI, r.UserMask, r.User)
	}
	return b
}
