package perftext

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/tracing"
)

// DumpOptions select what Dump prints.
type DumpOptions struct {
	// Order is perfdata.TimeOrder (what perf report -D prints: the order
	// its ordered-events queue delivers) or perfdata.FileOrder.
	Order perfdata.Order
	// Path is the file's name as perf prints it in each record's hex
	// dump header ("OFFSET@PATH [SIZE]: event: TYPE"); "" for
	// File.Path. A pipe's records say "pipe" whatever Path is.
	Path string
	// Machine, when set, follows the records as perf report's machine
	// does and prints the lines perf report adds to samples from it.
	Machine DumpMachine
	// Aux, when set, prints the trace data of each AUXTRACE record as
	// perf's decoder of the recording's AUX area type dumps it (Intel PT:
	// intel_pt_dump_event); info is the recording's AUXTRACE_INFO record
	// (nil before one).
	Aux func(w *bufio.Writer, info *perfdata.RecordAuxtraceInfo, r *perfdata.RecordAuxtrace)
	// Script prints records as perf script's tool does rather than perf
	// report's: its thread and CPU map handlers print the maps without
	// the stubs' ": unhandled!", its throttle handler prints nothing, and
	// READ, which perf report handles, goes to the stub.
	Script bool
	// Warn, when set, takes the warnings perf prints to its standard
	// error while it dumps (a STAT_CONFIG term it does not know).
	Warn io.Writer
}

// DumpMachine follows a recording's records as perf report's machine does,
// for the lines perf report -D prints from it.
type DumpMachine interface {
	// Record processes a record once its lines are printed (COMM, FORK,
	// EXIT, MMAP and MMAP2 change the machine).
	Record(r perfdata.Record)
	// Sample prints what perf report prints when a sample is delivered
	// to it (machine__resolve's " ... thread:" and " ...... dso:"
	// lines); for a sample that reads its group's counters, once per
	// value delivered.
	Sample(w *bufio.Writer, r *perfdata.RecordSample)
}

// Dump prints what perf report -D prints, but for the hex dump of each
// record and the two lines perf report adds to a sample from its machine
// (" ... thread:" and " ...... dso:"): a "#" line about the header, then
// for each record, in the order perf delivers them (Order), its time
// stamp fields, offset, size and type (dump_event), and the decoded fields
// and lines the tool prints (writeBody: dump_sample's call chain, branch
// stack, registers and memory fields for samples); it ends with perf's
// event counts (perf_session__fprintf_nr_events and each event's samples).
// Records unpacked from COMPRESSED records carry the offset of their
// COMPRESSED record; the COMPRESSED records are counted but not listed.
// AUX area data and tracing data records print their
// fields on one line where perf's decoders print more.
func Dump(w io.Writer, f *perfdata.File, opt DumpOptions) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(UnorderedWarning(f))
	bw.WriteString("# To display the perf.data header info, please use --header/--header-only options.\n#\n")
	rs := f.Records(opt.Order)
	rs.Reuse = true
	var counts [256]int
	perEvent := map[*perfdata.Attr]int{}
	lastRead := map[uint64]uint64{} // the last value of each sample id (PERF_SAMPLE_READ)
	// perf report's branch mode (a recording with branch stacks) counts
	// a sample's branches as its event's samples.
	branchMode := false
	if fs, err := f.Features(); err == nil {
		branchMode = fs.Has(perfdata.FeatBranchStack)
	}
	if !f.Pipe && f.Data.Size == 0 {
		// __perf_session__process_events fails before any record.
		return bw.Flush()
	}
	d := NewDumper(f, opt)
	for rs.Next() {
		r := rs.Record
		c := r.Common()
		if c.Type < 256 {
			counts[c.Type]++
		}
		d.Record(bw, r, rs.Raw().Data)
		if r, ok := r.(*perfdata.RecordSample); ok && r.Attr != nil {
			n := 1
			if branchMode {
				n = len(r.BranchStack)
			}
			if r.Attr.SampleType&perfdata.SampleFormatRead == 0 {
				perEvent[r.Attr] += n
				if opt.Machine != nil {
					opt.Machine.Sample(bw, r)
				}
			} else {
				// deliver_sample_value: a sample per value that grew,
				// for the event of its id.
				vals := r.Read.Values
				if r.Attr.ReadFormat&perfdata.ReadFormatGroup == 0 && len(vals) > 1 {
					vals = vals[:1]
				}
				for _, v := range vals {
					if a := f.AttrByID(v.ID); a != nil {
						if v.Value != lastRead[v.ID] {
							perEvent[a] += n
							if opt.Machine != nil {
								opt.Machine.Sample(bw, r)
							}
						}
						lastRead[v.ID] = v.Value
					}
				}
			}
		}
		if opt.Machine != nil {
			opt.Machine.Record(r)
		}
	}
	if err := rs.Err(); err != nil {
		bw.Flush()
		return err
	}
	counts[perfdata.RecordTypeCompressed] += rs.CompressedRecords()
	total := 0
	for _, n := range counts {
		total += n
	}
	counts[0] = total
	msg := ""
	if fs, err := f.Features(); err == nil && fs.Has(perfdata.FeatAuxtrace) {
		msg = " (excludes AUX area (e.g. instruction trace) decoded / synthesized events)"
	}
	fmt.Fprintf(bw, "\nAggregated stats:%s\n", msg)
	writeStats(bw, counts[:])
	// evlist__fprintf_nr_events: the events with samples (perf report
	// -D does not count lost samples per event).
	for _, a := range f.Attrs {
		if n := perEvent[a]; n > 0 {
			fmt.Fprintf(bw, "%s stats:\n%16s events: %10d\n", evselName(a, d.trace), "SAMPLE", n)
		}
	}
	return bw.Flush()
}

// UnorderedWarning is the line perf_session__new prints under -D (perf
// report -D, perf script -D) for a file whose first event has no
// sample_id_all, whose records perf's tool then processes in file order;
// "" for others and for pipes (whose events are not known yet then).
func UnorderedWarning(f *perfdata.File) string {
	if f.Pipe || len(f.Attrs) == 0 || f.Attrs[0].SampleIDAll() {
		return ""
	}
	return "WARNING: No sample_id_all support, falling back to unordered processing\n"
}

// Dumper prints records one at a time as perf's dump_event and the tool
// delivering them print them with dump_trace (-D): what Dump prints for
// each record but for the machine's lines of samples. perf script -D
// prints these around its own output.
type Dumper struct {
	f     *perfdata.File
	opt   DumpOptions
	path  string
	ts    *stamper
	arch  string
	info  *perfdata.RecordAuxtraceInfo
	trace *tracing.Data
	hex   []byte
}

// NewDumper returns a Dumper of f's records (opt's Path, Aux and Script
// apply).
func NewDumper(f *perfdata.File, opt DumpOptions) *Dumper {
	d := &Dumper{f: f, opt: opt, path: opt.Path, ts: newStamper(f)}
	if d.path == "" {
		d.path = f.Path()
	}
	if f.Pipe {
		// __perf_session__process_pipe_events
		d.path = "pipe"
	}
	if _, err := f.Features(); err == nil {
		if b, ok := f.FeatureData(perfdata.FeatTracingData); ok {
			d.trace, _ = tracing.Parse(b)
		}
	}
	return d
}

// Record prints record r, whose bytes are raw: its Head, then its Body.
func (d *Dumper) Record(bw *bufio.Writer, r perfdata.Record, raw []byte) {
	d.Head(bw, r, raw)
	d.Body(bw, r, raw)
}

// Head prints what perf's dump_event prints for record r, whose bytes are
// raw, as the session delivers it: its offset, size, type and bytes, then
// its time stamp fields, offset, size and name, without the line's end.
func (d *Dumper) Head(bw *bufio.Writer, r perfdata.Record, raw []byte) {
	c := r.Common()
	path := d.path
	if c.Source > 0 {
		// A perf.data directory's data.N file.
		path = d.f.SourcePath(c.Source)
	}
	fmt.Fprintf(bw, "\n%s@%s [%#x]: event: %d\n", cHex(uint64(c.Offset)), path, c.Size, c.Type)
	d.hex = AppendRawEvent(d.hex[:0], raw)
	bw.Write(d.hex)
	if d.arch == "" {
		if fs, err := d.f.Features(); err == nil && fs.Has(perfdata.FeatArch) {
			d.arch = NormArch(fs.Arch)
		} else {
			d.arch = NormArch(runtime.GOARCH)
		}
	}
	d.ts.write(bw, c)
	fmt.Fprintf(bw, "%s [%#x]: %s", cHex(uint64(c.Offset)), c.Size, eventName(c.Type))
}

// Body prints what the tool prints of record r, whose bytes are raw, with
// dump_trace (writeBody), and the AUX area data of an AUXTRACE record
// (Aux).
func (d *Dumper) Body(bw *bufio.Writer, r perfdata.Record, raw []byte) {
	if rr, ok := r.(*perfdata.RecordRead); ok {
		writeRead(bw, rr, raw, d.trace)
		if d.opt.Script {
			// perf report's process_read_event handles READ; perf
			// script has no handler: the stub's line.
			bw.WriteString(": unhandled!\n")
		}
	} else {
		writeBody(bw, d.f, r, d.arch, d.opt.Script, d.opt.Warn)
	}
	switch r := r.(type) {
	case *perfdata.RecordTracingData:
		d.trace, _ = tracing.Parse(r.Data)
	case *perfdata.RecordAuxtraceInfo:
		d.info = r
	case *perfdata.RecordAuxtrace:
		if d.opt.Aux != nil {
			d.opt.Aux(bw, d.info, r)
		}
	}
}

// AppendRawEvent appends a record's bytes as perf's trace_event prints
// them (print_binary with trace_event_printer): "." and the size, then 16
// bytes a line in hex and as characters, and a blank line.
func AppendRawEvent(b, data []byte) []byte {
	b = append(b, ".\n. ... raw event: size "...)
	b = strconv.AppendInt(b, int64(len(data)), 10)
	b = append(b, " bytes\n"...)
	for i := 0; i < len(data); i += 16 {
		line := data[i:min(i+16, len(data))]
		b = append(b, ".  "...)
		b = appendHex(b, uint64(i), 4)
		b = append(b, ": "...)
		for _, c := range line {
			b = append(b, ' ', hexDigits[c>>4], hexDigits[c&15])
		}
		for j := len(line); j < 16; j++ {
			b = append(b, "   "...)
		}
		b = append(b, "  "...)
		for _, c := range line {
			if c < 0x20 || c > 0x7e { // isprint && isascii
				c = '.'
			}
			b = append(b, c)
		}
		for j := len(line); j < 16; j++ {
			b = append(b, ' ')
		}
		b = append(b, '\n')
	}
	return append(b, '\n')
}

const hexDigits = "0123456789abcdef"

// appendHex appends v in lower-case hex, zero-padded to width digits.
func appendHex(b []byte, v uint64, width int) []byte {
	var d [16]byte
	i := len(d)
	for v != 0 || i > len(d)-width {
		i--
		d[i] = hexDigits[v&15]
		v >>= 4
	}
	return append(b, d[i:]...)
}

// writeStats mirrors events_stats__fprintf with skip_empty: the count of
// each record type perf names, with its share of the total.
func writeStats(w *bufio.Writer, counts []int) {
	total := counts[0]
	for t, n := range counts {
		name := perfdata.RecordType(t).Name()
		if n == 0 || strings.HasPrefix(name, "UNKNOWN") {
			continue
		}
		if t > 0 && total > 0 {
			fmt.Fprintf(w, "%16s events: %10d  (%4.1f%%)\n", name, n, 100*float64(n)/float64(total))
		} else {
			fmt.Fprintf(w, "%16s events: %10d\n", name, n)
		}
	}
}

// stamper prints the leading fields perf's evlist__print_tstamp prints:
// "-1 -1 " for records when no event has sample_id_all, else the CPU and
// time when the events record them (zero for user records).
type stamper struct {
	f     *perfdata.File
	nattr int
	st    perfdata.SampleFormat
	idAll bool
}

func newStamper(f *perfdata.File) *stamper { return &stamper{f: f, nattr: -1} }

func (s *stamper) write(w *bufio.Writer, c *perfdata.RecordCommon) {
	attrs := s.f.Attrs
	if c.Type == perfdata.RecordTypeHeaderAttr && len(attrs) > 0 {
		// perf prints a pipe's ATTR record before adding its event.
		attrs = attrs[:len(attrs)-1]
	}
	if len(attrs) != s.nattr {
		// Pipe mode adds attrs as it goes.
		s.nattr = len(attrs)
		s.st, s.idAll = 0, false
		for _, a := range attrs {
			s.st |= a.SampleType
			s.idAll = s.idAll || a.SampleIDAll()
		}
	}
	st, idAll := s.st, s.idAll
	if c.Type != perfdata.RecordTypeSample && !idAll {
		w.WriteString("-1 -1 ")
		return
	}
	// evsel__parse_sample starts from cpu -1 and time -1 and fills what
	// the record's own event has (a user record's sample is zeros).
	cpu, time := uint32(c.CPU), c.Time
	if !c.Type.IsUser() {
		a := c.Attr
		has := func(bit perfdata.SampleFormat) bool {
			return a != nil && a.SampleType&bit != 0 && (c.Type == perfdata.RecordTypeSample || a.SampleIDAll())
		}
		if !has(perfdata.SampleFormatCPU) {
			cpu = ^uint32(0)
		}
		if !has(perfdata.SampleFormatTime) {
			time = ^uint64(0)
		}
	}
	if st&perfdata.SampleFormatCPU != 0 {
		fmt.Fprintf(w, "%d ", cpu)
	}
	if st&perfdata.SampleFormatTime != 0 {
		fmt.Fprintf(w, "%d ", time)
	}
}

// cHex formats like C's %#x (0 without a prefix).
func cHex(v uint64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%#x", v)
}

func protString(prot, flags uint32) string {
	b := []byte("----")
	if prot&1 != 0 {
		b[0] = 'r'
	}
	if prot&2 != 0 {
		b[1] = 'w'
	}
	if prot&4 != 0 {
		b[2] = 'x'
	}
	if flags&1 != 0 {
		b[3] = 's'
	} else {
		b[3] = 'p'
	}
	return string(b)
}

// evselName is evsel__name of the event of a: its recorded name, or the
// one perf makes of its attr (a tracepoint's from the tracing data).
func evselName(a *perfdata.Attr, trace *tracing.Data) string {
	if a.Named {
		return a.Name
	}
	if a.Type == perfdata.AttrTypeTracepoint && trace != nil {
		if ev := trace.Event(int(a.Config)); ev != nil {
			return ev.System + ":" + ev.Name
		}
	}
	return a.PerfName()
}

// writeRead mirrors dump_read: pid, tid, the event's name and the value,
// then the read_format fields the event has, each read where struct
// perf_record_read has it (value, time_enabled, time_running, id, lost at
// fixed offsets, whatever the read_format; data is the whole record).
func writeRead(w *bufio.Writer, r *perfdata.RecordRead, data []byte, trace *tracing.Data) {
	word := func(i int) uint64 {
		if off := 16 + 8*i; off+8 <= len(data) {
			return binary.LittleEndian.Uint64(data[off:])
		}
		return 0
	}
	if r.Attr == nil {
		fmt.Fprintf(w, ": %d %d FAIL %d\n", r.PID, r.TID, word(0))
		return
	}
	fmt.Fprintf(w, ": %d %d %s %d\n", r.PID, r.TID, evselName(r.Attr, trace), word(0))
	rf := r.Attr.ReadFormat
	if rf&perfdata.ReadFormatTotalTimeEnabled != 0 {
		fmt.Fprintf(w, "... time enabled : %d\n", word(1))
	}
	if rf&perfdata.ReadFormatTotalTimeRunning != 0 {
		fmt.Fprintf(w, "... time running : %d\n", word(2))
	}
	if rf&perfdata.ReadFormatID != 0 {
		fmt.Fprintf(w, "... id           : %d\n", word(3))
	}
	if rf&perfdata.ReadFormatLost != 0 {
		fmt.Fprintf(w, "... lost         : %d\n", word(4))
	}
}

// writeFields prints on one line the fields of the records whose lines
// perf report -D prints through decoders perfpt does not mirror (writeBody).
func writeFields(w *bufio.Writer, r perfdata.Record) {
	switch r := r.(type) {
	case *perfdata.RecordThrottle:
		fmt.Fprintf(w, ": %d id %d stream id %d", r.ThrottleTime, r.ThrottleID, r.ThrottleStreamID)
	case *perfdata.RecordRead:
		fmt.Fprintf(w, ": %d %d", r.PID, r.TID)
		for _, v := range r.Values.Values {
			fmt.Fprintf(w, " %d", v.Value)
		}
	case *perfdata.RecordAuxtrace:
		fmt.Fprintf(w, " size: %s  offset: %s  ref: %s  idx: %d  tid: %d  cpu: %d", cHex(r.AuxSize), cHex(r.AuxOffset), cHex(r.Reference), r.Idx, r.TID, r.CPU)
	case *perfdata.RecordAuxtraceInfo:
		// Types other than Intel PT (whose lines writeBody prints).
		fmt.Fprintf(w, " type: %d priv:", r.AuxType)
		for _, p := range r.Priv {
			fmt.Fprintf(w, " %#x", p)
		}
	case *perfdata.RecordAuxtraceError:
		fmt.Fprintf(w, " type: %d code: %d cpu: %d pid: %d tid: %d ip: %#x time: %d msg: %s", r.ErrType, r.Code, r.ErrCPU, r.ErrPID, r.ErrTID, r.IP, r.ErrTime, r.Msg)
	case *perfdata.RecordUnknown:
		fmt.Fprintf(w, " (%d bytes)", len(r.Data))
	}
}

// PerfDumpLines returns the lines of perf report -D output that Dump
// prints without a Machine and an Aux printer, to compare the two: all but
// the " ... thread:" and " ...... dso:" lines perf report adds to samples
// from its machine and the dumps of Intel PT data (". ... Intel Processor
// Trace data" and the packet lines after it).
func PerfDumpLines(out string) []string {
	var l []string
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, " ... thread: "), strings.HasPrefix(line, " ...... dso: "):
			continue
		case line == "." && i+1 < len(lines) && strings.HasPrefix(lines[i+1], ". ... Intel Processor Trace data: "):
			i++
			for i+1 < len(lines) && ptPacketLine.MatchString(lines[i+1]) {
				i++
			}
			continue
		}
		l = append(l, line)
	}
	return l
}

var ptPacketLine = regexp.MustCompile(`^\.  [0-9a-f]{8}: `)
