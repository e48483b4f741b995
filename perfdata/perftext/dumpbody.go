package perftext

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"

	"github.com/perfpt/perfpt/perfdata"
)

// writeBody prints what perf report -D prints after a record's
// "PERF_RECORD_NAME": the decoded fields as the tool perf report runs
// prints them (machine__process_*_event's perf_event__fprintf_*, dump_sample,
// the stubs' ": unhandled!"), newline included. arch is the recording's
// (perf_env__arch), for the register names; script says perf script's
// tool prints the record (DumpOptions.Script).
func writeBody(w *bufio.Writer, f *perfdata.File, r perfdata.Record, arch string, script bool, warn io.Writer) {
	switch r := r.(type) {
	case *perfdata.RecordSample:
		dumpSample(w, r, arch)
	case *perfdata.RecordMmap, *perfdata.RecordMmap2, *perfdata.RecordComm, *perfdata.RecordFork,
		*perfdata.RecordExit, *perfdata.RecordNamespaces, *perfdata.RecordCgroup, *perfdata.RecordAux,
		*perfdata.RecordItraceStart, *perfdata.RecordSwitch, *perfdata.RecordKsymbol, *perfdata.RecordBPFEvent,
		*perfdata.RecordTextPoke, *perfdata.RecordAuxOutputHwID:
		// The machine's perf_event__fprintf_* (text_poke without the
		// kernel symbol perf may add).
		text := AppendEvent(nil, r, nil)
		w.Write(text[len(eventName(r.Common().Type)):])
	case *perfdata.RecordAuxtraceInfo:
		if r.AuxType != perfdata.AuxtraceIntelPT {
			writeFields(w, r)
			w.WriteByte('\n')
			break
		}
		// perf_event__process_auxtrace_info, intel_pt_process_auxtrace_info.
		fmt.Fprintf(w, " type: %d\n", r.AuxType)
		writeIntelPTInfo(w, r.Priv)
	case *perfdata.RecordLost:
		fmt.Fprintf(w, ": id:%d: lost:%d\n", r.LostID, r.Lost)
	case *perfdata.RecordLostSamples:
		// machine__process_lost_samples_event prints sample->id, which
		// evsel__parse_sample leaves at -1 when the record's sample_id
		// has no id (perf record's own LOST_SAMPLES of one event).
		id := r.ID
		if r.SampleID.Format&(perfdata.SampleFormatID|perfdata.SampleFormatIdentifier) == 0 {
			id = ^uint64(0)
		}
		fmt.Fprintf(w, ": id:%d: lost samples :%d\n", id, r.Lost)
	case *perfdata.RecordThrottle:
		if !script {
			w.WriteString(": unhandled!\n")
		}
	case *perfdata.RecordHeaderFeature, *perfdata.RecordHeaderAttr, *perfdata.RecordTracingData, *perfdata.RecordEventType,
		*perfdata.RecordBuildID:
		// Their tools print nothing (perf_event__process_build_id
		// only adds the build id to its DSO): the next record's
		// dump_event starts on a new line.
	case *perfdata.RecordFinishedRound:
		// perf_event__process_finished_round.
		w.WriteByte('\n')
	case *perfdata.RecordFinishedInit:
		w.WriteString(": unhandled!\n")
	case *perfdata.RecordIDIndex:
		fmt.Fprintf(w, " nr: %d\n", len(r.Entries))
		for _, e := range r.Entries {
			fmt.Fprintf(w, " ... id: %d  idx: %d  cpu: %d  tid: %d", e.ID, e.Idx, int64(e.CPU), int64(e.TID))
			if r.HasMachine {
				// perf_event__process_id_index: the entries' second
				// half (id_index_entry_2).
				fmt.Fprintf(w, "  machine_pid: %d  vcpu: %d", int64(e.MachinePID), e.VCPU)
			}
			w.WriteByte('\n')
		}
	case *perfdata.RecordEventUpdate:
		// perf_event__fprintf_event_update.
		fmt.Fprintf(w, "\n... id:    %d\n", r.UpdateID)
		switch r.UpdateType {
		case perfdata.EventUpdateScale:
			fmt.Fprintf(w, "... scale: %f\n", r.Scale)
		case perfdata.EventUpdateUnit:
			fmt.Fprintf(w, "... unit:  %s\n", r.Unit)
		case perfdata.EventUpdateName:
			fmt.Fprintf(w, "... name:  %s\n", r.Name)
		case perfdata.EventUpdateCPUs:
			fmt.Fprintf(w, "... %s\n", perfdata.FormatCPUList(r.CPUs))
		default:
			w.WriteString("... unknown type\n")
		}
	case *perfdata.RecordThreadMap:
		// process_event_thread_map_stub: thread_map__fprintf.
		n := len(r.Entries)
		s := ""
		if n > 1 {
			s = "s"
		}
		fmt.Fprintf(w, " nr: %d thread%s: ", n, s)
		for i, e := range r.Entries {
			if i > 0 {
				w.WriteString(", ")
			}
			fmt.Fprintf(w, "%d", int32(e.PID))
		}
		w.WriteByte('\n')
		if !script {
			w.WriteString(": unhandled!\n")
		}
	case *perfdata.RecordCPUMap:
		fmt.Fprintf(w, ": %s\n", perfdata.FormatCPUList(r.CPUs))
		if !script {
			w.WriteString(": unhandled!\n")
		}
	case *perfdata.RecordStatConfig, *perfdata.RecordStat, *perfdata.RecordStatRound:
		// perf script's handlers (process_stat_config_event,
		// perf_event__process_stat_event, process_stat_round_event)
		// print no dump lines; perf report's stubs print the record
		// (perf_event__fprintf_stat*) and ": unhandled!".
		if script {
			break
		}
		writeStat(w, r, warn)
		w.WriteString(": unhandled!\n")
	case *perfdata.RecordTimeConv:
		// process_event_time_conv_stub: perf_event__fprintf_time_conv.
		fmt.Fprintf(w, "\n... Time Shift      %d\n... Time Muliplier  %d\n... Time Zero       %d\n", r.TimeShift, r.TimeMult, r.TimeZero)
		if r.Extended {
			fmt.Fprintf(w, "... Time Cycles     %d\n... Time Mask       %s\n... Cap Time Zero   %d\n... Cap Time Short  %d\n",
				r.TimeCycles, cHex(r.TimeMask), b2i(r.CapUserTimeZero), b2i(r.CapUserTimeShort))
		}
		w.WriteString(": unhandled!\n")
	default:
		// Records perf report -D prints through decoders perfpt does
		// not mirror line for line (AUX area data, stat): the record's
		// fields on one line.
		writeFields(w, r)
		w.WriteByte('\n')
	}
}

// intelPTInfo are the lines intel_pt_print_info prints for the private
// words of an Intel PT AUXTRACE_INFO record (intel_pt_info_fmts), in
// order: the name, and whether the value prints in hex (%#x) or signed.
var intelPTInfo = [...]struct {
	name   string
	hex    bool
	signed bool
}{
	{"PMU Type", false, true}, {"Time Shift", false, false}, {"Time Muliplier", false, false},
	{"Time Zero", false, false}, {"Cap Time Zero", false, true}, {"TSC bit", true, false},
	{"NoRETComp bit", true, false}, {"Have sched_switch", false, true}, {"Snapshot mode", false, true},
	{"Per-cpu maps", false, true}, {"MTC bit", true, false}, {"MTC freq bits", true, false},
	{"TSC:CTC numerator", false, false}, {"TSC:CTC denominator", false, false}, {"CYC bit", true, false},
	{"Max non-turbo ratio", false, false}, {"Filter string len.", false, false},
}

// Indexes of the Intel PT private words (enum intel_pt_info_priv).
const (
	ptPerCPUMmaps      = 9
	ptCycBit           = 14
	ptMaxNonTurboRatio = 15
	ptFilterStrLen     = 16
	ptMinPriv          = ptPerCPUMmaps + 1
	ptFilter           = ptFilterStrLen + 1 // the filter string, then cap_event_trace
)

// writeIntelPTInfo prints what intel_pt_process_auxtrace_info prints with
// dump_trace: the words of the first version, then those of each later
// one the record is long enough for (intel_pt_has), the filter string and
// cap_event_trace. A record too short for the first version prints
// nothing (perf's -EINVAL).
func writeIntelPTInfo(w *bufio.Writer, priv []uint64) {
	if len(priv) < ptMinPriv {
		return
	}
	line := func(i int) {
		f := intelPTInfo[i]
		switch {
		case f.hex:
			fmt.Fprintf(w, "  %-20s%s\n", f.name, cHex(priv[i]))
		case f.signed:
			fmt.Fprintf(w, "  %-20s%d\n", f.name, int64(priv[i]))
		default:
			fmt.Fprintf(w, "  %-20s%d\n", f.name, priv[i])
		}
	}
	for i := 0; i < ptMinPriv; i++ {
		line(i)
	}
	if len(priv) > ptCycBit {
		for i := ptMinPriv; i <= ptCycBit; i++ {
			line(i)
		}
	}
	if len(priv) > ptMaxNonTurboRatio {
		line(ptMaxNonTurboRatio)
	}
	info := ptFilter
	if len(priv) > ptFilterStrLen {
		line(ptFilterStrLen)
		filter := ""
		if n := priv[ptFilterStrLen]; n != 0 {
			words := int((n + 1 + 7) / 8)
			if words > len(priv)-info {
				return // "bad filter string length"
			}
			b := make([]byte, 0, words*8)
			for _, v := range priv[info : info+words] {
				b = binary.LittleEndian.AppendUint64(b, v)
			}
			if b[len(b)-1] != 0 {
				return // "filter string not null terminated"
			}
			if i := bytes.IndexByte(b, 0); i >= 0 {
				b = b[:i]
			}
			filter = string(b)
			info += words
		}
		fmt.Fprintf(w, "  %-20s%s\n", "Filter string", filter)
	}
	if info < len(priv) {
		fmt.Fprintf(w, "  Cap Event Trace     %d\n", int32(priv[info]))
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Sample-type bits dumpSample looks at, beyond perfdata's names.
const (
	branchSampleCallStack = 1 << 11 // PERF_SAMPLE_BRANCH_CALL_STACK
	readFormatGroup       = 1 << 3
	readFormatLost        = 1 << 4
)

// dumpSample mirrors perf's dump_sample.
func dumpSample(w *bufio.Writer, r *perfdata.RecordSample, arch string) {
	a := r.Attr
	period := r.Period
	if a != nil && a.SampleType&perfdata.SampleFormatPeriod == 0 {
		// evsel__parse_sample starts from attr.sample_period (the
		// frequency, for a frequency-sampled event).
		period = a.SamplePeriod
	}
	fmt.Fprintf(w, "(IP, 0x%x): %d/%d: %s period: %d addr: %s\n", r.Misc, r.PID, r.TID, cHex(r.IP), period, cHex(r.Addr))
	if a == nil {
		return
	}
	st := a.SampleType
	callstack := uint64(a.BranchSampleType)&branchSampleCallStack != 0
	if st&perfdata.SampleFormatCallchain != 0 {
		if callstack {
			lbrCallstack(w, r)
		}
		fmt.Fprintf(w, "... FP chain: nr:%d\n", len(r.Callchain))
		for i, ip := range r.Callchain {
			fmt.Fprintf(w, "..... %2d: %016x\n", i, ip)
		}
	}
	if st&perfdata.SampleFormatBranchStack != 0 {
		branchStackDump(w, r.BranchStack, callstack)
	}
	if st&perfdata.SampleFormatRegsUser != 0 && r.RegsUserABI != 0 {
		regsDump(w, "user", a.SampleRegsUser, r.RegsUserABI, r.RegsUser, arch)
	}
	if st&perfdata.SampleFormatRegsIntr != 0 && r.RegsIntrABI != 0 {
		regsDump(w, "intr", a.SampleRegsIntr, r.RegsIntrABI, r.RegsIntr, arch)
	}
	if st&perfdata.SampleFormatStackUser != 0 {
		size := uint64(0)
		if len(r.StackUser) > 0 {
			size = r.StackUserDynSize
		}
		fmt.Fprintf(w, "... ustack: size %d, offset 0x%x\n", size, r.StackUserOffset)
	}
	if st&(perfdata.SampleFormatWeight|perfdata.SampleFormatWeightStruct) != 0 {
		if st&perfdata.SampleFormatWeightStruct != 0 {
			// x86's arch_perf_parse_sample_weight leaves p_stage_cyc 0
			// (perf reads it on powerpc only).
			fmt.Fprintf(w, "... weight: %d,0x%x,0x0\n", r.Weight&0xffffffff, uint16(r.Weight>>32))
		} else {
			fmt.Fprintf(w, "... weight: %d\n", r.Weight)
		}
	}
	if st&perfdata.SampleFormatDataSrc != 0 {
		fmt.Fprintf(w, " . data_src: 0x%x\n", r.DataSrc)
	}
	if st&perfdata.SampleFormatPhysAddr != 0 {
		fmt.Fprintf(w, " .. phys_addr: 0x%x\n", r.PhysAddr)
	}
	if st&perfdata.SampleFormatDataPageSize != 0 {
		fmt.Fprintf(w, " .. data page size: %s\n", pageSizeName(r.DataPageSize))
	}
	if st&perfdata.SampleFormatCodePageSize != 0 {
		fmt.Fprintf(w, " .. code page size: %s\n", pageSizeName(r.CodePageSize))
	}
	if st&perfdata.SampleFormatTransaction != 0 {
		fmt.Fprintf(w, "... transaction: %x\n", r.Transaction)
	}
	if st&perfdata.SampleFormatRead != 0 {
		sampleReadDump(w, &r.Read, uint64(a.ReadFormat))
	}
}

// lbrCallstack mirrors callchain__lbr_callstack_printf.
func lbrCallstack(w *bufio.Writer, r *perfdata.RecordSample) {
	cc, lbr := r.Callchain, r.BranchStack
	i := 0
	for i < len(cc) && cc[i] != perfdata.CallchainUser {
		i++
	}
	if i == len(cc) || len(lbr) == 0 {
		return
	}
	kernel := i + 1
	fmt.Fprintf(w, "... LBR call chain: nr:%d\n", kernel+len(lbr)+1)
	for j := 0; j < kernel; j++ {
		fmt.Fprintf(w, "..... %2d: %016x\n", j, cc[j])
	}
	fmt.Fprintf(w, "..... %2d: %016x\n", kernel, lbr[0].To)
	for j, e := range lbr {
		fmt.Fprintf(w, "..... %2d: %016x\n", j+kernel+1, e.From)
	}
}

// branchKindNames is branch_type_name's table (PERF_BR_*), and the new
// types (PERF_BR_NEW_*) of perf 6.1.
var (
	branchKindNames    = []string{"N/A", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL", "SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "EXTEND_ABI"}
	branchNewTypeNames = []string{"FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4", "ARCH_5"}
)

// branchType mirrors get_branch_type.
func branchType(flags uint64) string {
	typ, newType := flags>>20&0xf, flags>>26&0xf
	if typ == 0 { // PERF_BR_UNKNOWN
		return ""
	}
	if typ == 15 { // PERF_BR_EXTEND_ABI
		if int(newType) < len(branchNewTypeNames) {
			return branchNewTypeNames[newType]
		}
		return "(null)"
	}
	return branchKindNames[typ]
}

// branchStackDump mirrors branch_stack__printf.
func branchStackDump(w *bufio.Writer, br []perfdata.BranchEntry, callstack bool) {
	if !callstack {
		fmt.Fprintf(w, "... branch stack: nr:%d\n", len(br))
	} else {
		fmt.Fprintf(w, "... branch callstack: nr:%d\n", len(br)+1)
	}
	flag := func(set bool, c string) string {
		if set {
			return c
		}
		return " "
	}
	for i, e := range br {
		f := e.Flags
		if !callstack {
			// mispred, predicted, abort, in_tx; reserved is the top
			// bits (33 on: after priv).
			fmt.Fprintf(w, "..... %2d: %016x -> %016x %d cycles %s%s%s%s %x %s\n", i, e.From, e.To, uint16(f>>4),
				flag(f&1 != 0, "M"), flag(f&2 != 0, "P"), flag(f&8 != 0, "A"), flag(f&4 != 0, "T"),
				f>>33, branchType(f))
			continue
		}
		if i == 0 {
			fmt.Fprintf(w, "..... %2d: %016x\n..... %2d: %016x\n", i, e.To, i+1, e.From)
		} else {
			fmt.Fprintf(w, "..... %2d: %016x\n", i+1, e.From)
		}
	}
}

// x86RegNames is __perf_reg_name_x86 up to the XMM registers, which are
// named at even ids only (XMM0 at 32).
var x86RegNames = []string{"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
	"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15"}

// armRegNames is __perf_reg_name_arm (arch/arm's perf_regs.h order).
var armRegNames = []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10",
	"fp", "ip", "sp", "lr", "pc"}

// RegName mirrors perf_reg_name for register id of the recording's arch
// (NormArch's names), whatever the sample's register ABI: x86's names
// ("AX", ..., "R15", "XMMn" for both halves of each XMM register from id
// 32), arm64's ("x0", ..., "x29", "lr", "sp", "pc") and arm's, "(null)"
// for the ids perf has no name for, "unknown" for other arches, whose
// names perfpt does not have.
func RegName(id int, arch string) string {
	switch arch {
	case "x86":
		switch {
		case id < len(x86RegNames):
			return x86RegNames[id]
		case id >= 32 && id < 64: // both halves of XMMn
			return fmt.Sprintf("XMM%d", (id-32)/2)
		}
	case "arm64":
		switch {
		case id < 30:
			return "x" + strconv.Itoa(id)
		case id <= 32:
			return [...]string{"lr", "sp", "pc"}[id-30]
		}
	case "arm":
		if id < len(armRegNames) {
			return armRegNames[id]
		}
	default:
		return "unknown"
	}
	return "(null)"
}

// regsDump mirrors regs__printf.
func regsDump(w *bufio.Writer, kind string, mask, abi uint64, regs []uint64, arch string) {
	abiName := "unknown"
	switch abi {
	case 0:
		abiName = "none"
	case 1:
		abiName = "32-bit"
	case 2:
		abiName = "64-bit"
	}
	fmt.Fprintf(w, "... %s regs: mask 0x%x ABI %s\n", kind, mask, abiName)
	i := 0
	for m := mask; m != 0; m &= m - 1 {
		id := bits.TrailingZeros64(m)
		v := uint64(0)
		if i < len(regs) {
			v = regs[i]
		}
		i++
		fmt.Fprintf(w, ".... %-5s 0x%016x\n", RegName(id, arch), v)
	}
}

// sampleReadDump mirrors sample_read__printf.
func sampleReadDump(w *bufio.Writer, rv *perfdata.ReadValues, format uint64) {
	w.WriteString("... sample_read:\n")
	if format&1 != 0 {
		fmt.Fprintf(w, "...... time enabled %016x\n", rv.TimeEnabled)
	}
	if format&2 != 0 {
		fmt.Fprintf(w, "...... time running %016x\n", rv.TimeRunning)
	}
	one := func(v perfdata.ReadValue, prefix string) {
		fmt.Fprintf(w, "%sid %016x, value %016x", prefix, v.ID, v.Value)
		if format&readFormatLost != 0 {
			fmt.Fprintf(w, ", lost %d", v.Lost)
		}
		w.WriteByte('\n')
	}
	if format&readFormatGroup != 0 {
		fmt.Fprintf(w, ".... group nr %d\n", len(rv.Values))
		for _, v := range rv.Values {
			one(v, "..... ")
		}
		return
	}
	var v perfdata.ReadValue
	if len(rv.Values) > 0 {
		v = rv.Values[0]
	}
	one(v, "..... ")
}

// pageSizeName mirrors get_page_size_name.
func pageSizeName(n uint64) string {
	if n == 0 {
		return "N/A"
	}
	return unitNumber(n)
}

// NormArch mirrors perf_env__arch's normalize_arch for the names perf
// records ("x86_64" -> "x86").
func NormArch(a string) string {
	switch {
	case a == "i386" || a == "i486" || a == "i586" || a == "i686" || a == "x86_64" || a == "amd64":
		return "x86"
	case a == "aarch64" || a == "arm64":
		return "arm64"
	case strings.HasPrefix(a, "arm"):
		return "arm"
	}
	return a
}

// StatConfig is perf's struct perf_stat_config as
// perf_event__read_stat_config fills it from a STAT_CONFIG record: the
// aggregation mode (enum aggr_mode: 0 none, 1 global, ...), whether counts
// are scaled and the interval in ms (-I). Unknown lists, in order, the
// terms perf 6.1 does not know (a newer perf's AGGR_LEVEL, 3): perf warns
// about each (StatConfigWarnings) and leaves them out.
type StatConfig struct {
	AggrMode int32
	Scale    bool
	Interval uint32
	Unknown  []uint64
}

// ReadStatConfig mirrors perf_event__read_stat_config.
func ReadStatConfig(r *perfdata.RecordStatConfig) StatConfig {
	var c StatConfig
	for _, e := range r.Entries {
		switch e.Tag { // PERF_STAT_CONFIG_TERM__*
		case 0:
			c.AggrMode = int32(e.Val)
		case 1:
			c.Interval = uint32(e.Val)
		case 2:
			c.Scale = e.Val != 0
		default:
			c.Unknown = append(c.Unknown, e.Tag)
		}
	}
	return c
}

// WarnUnknown writes perf_event__read_stat_config's warning for each term
// it does not know ("unknown stat config term N", to standard error).
func (c StatConfig) WarnUnknown(w io.Writer) {
	if w == nil {
		return
	}
	for _, tag := range c.Unknown {
		fmt.Fprintf(w, "unknown stat config term %d\n", tag)
	}
}

// writeStat prints a stat record's fields as perf_event__fprintf_stat,
// perf_event__fprintf_stat_round and perf_event__fprintf_stat_config do.
func writeStat(w *bufio.Writer, r perfdata.Record, warn io.Writer) {
	switch r := r.(type) {
	case *perfdata.RecordStatConfig:
		c := ReadStatConfig(r)
		c.WarnUnknown(warn)
		fmt.Fprintf(w, "\n... aggr_mode %d\n... scale     %d\n... interval  %d\n", c.AggrMode, b2i(c.Scale), c.Interval)
	case *perfdata.RecordStat:
		fmt.Fprintf(w, "\n... id %d, cpu %d, thread %d\n... value %d, enabled %d, running %d\n",
			r.StatID, int32(r.StatCPU), int32(r.Thread), r.Val, r.Ena, r.Run)
	case *perfdata.RecordStatRound:
		typ := "INTERVAL"
		if r.RoundType == 1 { // PERF_STAT_ROUND_TYPE__FINAL
			typ = "FINAL"
		}
		fmt.Fprintf(w, "\n... time %d, type %s\n", r.RoundTime, typ)
	}
}
