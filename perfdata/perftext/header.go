package perftext

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/perfpt/perfpt/perfdata"
)

// HeaderOptions select what Header prints.
type HeaderOptions struct {
	// Full prints the sections perf shows only with -I (CPU and NUMA
	// topology, caches, memory topology).
	Full bool
	// Captured is the file's modification time for the "captured on"
	// line; zero omits the line.
	Captured time.Time
}

// featNames are perf's upper-case feature names (feat_ops[].name).
func featName(f perfdata.Feature) string { return strings.ToUpper(f.String()) }

// fullOnly are the sections perf prints only with -I.
var fullOnly = map[perfdata.Feature]bool{
	perfdata.FeatCPUTopology: true, perfdata.FeatNUMATopology: true, perfdata.FeatCache: true,
	perfdata.FeatMemTopology: true, perfdata.FeatHybridTopology: true,
}

// Header prints the header and feature sections like perf report
// --header-only (perf_header__fprintf_info). In pipe mode the features come
// from HEADER_FEATURE records, so the stream is read to its end first.
//
// A pipe record perf cannot process (perfdata.HeaderSizeError) ends the
// features read: the header is printed, then the error returned.
func Header(w io.Writer, f *perfdata.File, opt HeaderOptions) (err error) {
	var iterErr error
	if f.Pipe {
		// perf report --header-only stops at the HEADER_FEATURE that
		// ends the features (process_feature_event).
		rs := f.Records(perfdata.FileOrder)
		rs.Reuse = true
		for rs.Next() {
			if r, ok := rs.Record.(*perfdata.RecordHeaderFeature); ok && r.Feature >= perfdata.FeatLast {
				rs.Close()
				break
			}
		}
		// A record perf cannot read ends the features seen: perf
		// prints the header, then says why (the caller's job).
		iterErr = rs.Err()
		var hs *perfdata.HeaderSizeError
		if iterErr != nil && !errors.As(iterErr, &hs) {
			return iterErr
		}
	}
	fs, err := f.Features()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	defer func() {
		if err == nil {
			err = iterErr
		}
	}()
	writeTop(bw, f, opt)
	for feat := perfdata.Feature(0); feat < perfdata.MaxFeatures; feat++ {
		if (fs.Has(feat) || fs.IsLost(feat)) && !fs.NoTable {
			// perf_file_section__fprintf_info: nothing for a section
			// lseek cannot reach.
			if sec, ok := f.FeatureSections[feat]; ok && !f.Pipe && !f.CanSeek(sec.Offset) {
				continue
			}
			writeFeature(bw, f, fs, feat, opt.Full)
		}
	}
	if !f.Pipe {
		bw.WriteString("# missing features: ")
		for feat := perfdata.Feature(1); feat < perfdata.FeatPMUCaps+1; feat++ {
			if !fs.Has(feat) && !fs.IsLost(feat) {
				fmt.Fprintf(bw, "%s ", featName(feat))
			}
		}
		bw.WriteString("\n")
		bw.WriteString("# ========\n#\n")
	}
	return bw.Flush()
}

// printLost prints a feature whose section perf did not process (see
// perfdata.Features.Lost) as perf prints it from its empty perf_env: a
// NULL string as "(null)", the clock data as disabled, and the event
// descriptions, which print_event_desc reads from the file itself, as
// they are; the others print their zero values (printFeature). It
// reports whether it printed the feature.
func printLost(w *bufio.Writer, fs *perfdata.Features, feat perfdata.Feature) bool {
	switch feat {
	case perfdata.FeatCPUID:
		// perf_session__new asks perf_env__cpuid for the raw sample
		// decoders, which reads this machine's when the file's is
		// missing.
		if id := localCPUID(); id != "" {
			fmt.Fprintf(w, "# cpuid : %s\n", id)
		} else {
			w.WriteString("# cpuid : (null)\n")
		}
	case perfdata.FeatPMUMappings:
		// evlist__init_trace_event_sample_raw reads them from this
		// machine (perf_env__nr_pmu_mappings) for an x86 recording made
		// on an AMD CPU, to look for IBS.
		m := ""
		if amdX86(fs) {
			m = localPMUMappings()
		}
		if m == "" {
			w.WriteString("# pmu mappings: not available\n")
		} else {
			fmt.Fprintf(w, "# pmu mappings: %s\n", m)
		}
	case perfdata.FeatHostname, perfdata.FeatOSRelease, perfdata.FeatVersion, perfdata.FeatArch,
		perfdata.FeatCPUDesc:
		label := map[perfdata.Feature]string{perfdata.FeatHostname: "hostname", perfdata.FeatOSRelease: "os release",
			perfdata.FeatVersion: "perf version", perfdata.FeatArch: "arch", perfdata.FeatCPUDesc: "cpudesc",
			perfdata.FeatCPUID: "cpuid"}[feat]
		fmt.Fprintf(w, "# %s : (null)\n", label)
	case perfdata.FeatEventDesc:
		if len(fs.EventDesc) == 0 {
			w.WriteString("# event desc: not available or unable to read\n")
		}
		return len(fs.EventDesc) == 0
	case perfdata.FeatClockData:
		w.WriteString("# reference time disabled\n")
	default:
		return false
	}
	return true
}

// writeTop prints the lines before the features (perf_header__fprintf_info):
// in pipe mode the block ends there, and perf prints each feature as its
// HEADER_FEATURE record goes by.
func writeTop(bw *bufio.Writer, f *perfdata.File, opt HeaderOptions) {
	bw.WriteString("# ========\n")
	if !opt.Captured.IsZero() {
		fmt.Fprintf(bw, "# captured on    : %s\n", opt.Captured.Format("Mon Jan _2 15:04:05 2006"))
	}
	// perf's PERF_HEADER_VERSION_1 (magic PERFFILE) is 0, _2 is 1.
	version := 1
	if f.Legacy {
		version = 0
	}
	fmt.Fprintf(bw, "# header version : %d\n", version)
	fmt.Fprintf(bw, "# data offset    : %d\n", f.Data.Offset)
	fmt.Fprintf(bw, "# data size      : %d\n", f.Data.Size)
	fmt.Fprintf(bw, "# feat offset    : %d\n", f.Data.Offset+f.Data.Size)
	if f.Pipe {
		bw.WriteString("# ========\n#\n")
	}
}

// writeFeature prints one feature section (perf_file_section__fprintf_info,
// or perf_event__process_feature for a pipe's HEADER_FEATURE record).
func writeFeature(bw *bufio.Writer, f *perfdata.File, fs *perfdata.Features, feat perfdata.Feature, full bool) {
	if fullOnly[feat] && !full {
		fmt.Fprintf(bw, "# %s info available, use -I to display\n", featName(feat))
		return
	}
	if fs.IsLost(feat) && printLost(bw, fs, feat) {
		return
	}
	printFeature(bw, f, fs, feat)
}

// HeaderTop prints what perf script --header prints of a pipe before its
// records: the block Header starts with, closed.
func HeaderTop(w io.Writer, f *perfdata.File, opt HeaderOptions) error {
	bw := bufio.NewWriter(w)
	writeTop(bw, f, opt)
	return bw.Flush()
}

// HeaderFeature prints a pipe's feature section as perf script --header
// prints it when its HEADER_FEATURE record goes by (the record must have
// been read: it is in f.Features()).
func HeaderFeature(w io.Writer, f *perfdata.File, feat perfdata.Feature, full bool) error {
	fs, err := f.Features()
	if err != nil {
		return err
	}
	if !fs.Has(feat) && !fs.IsLost(feat) {
		return nil
	}
	bw := bufio.NewWriter(w)
	if feat == perfdata.FeatGroupDesc && !fs.IsLost(feat) {
		printGroupDesc(bw, f, fs, true)
	} else {
		writeFeature(bw, f, fs, feat, full)
	}
	return bw.Flush()
}

// printGroupDesc prints the groups (print_group_desc): their names and
// their events'. scriptPipe: perf script reading a pipe, which names the
// first event as evsel__name makes it of its attr ("cpu-clock:uH", not
// the recorded "cpu-clock:u" or "foo"; a tracepoint by its recorded name)
// and the others by their recorded names, where perf report --header-only
// on the same pipe and any reader of a file print the recorded names
// (measured on perf 6.1: TestPipeMode, "groups").
func printGroupDesc(w *bufio.Writer, f *perfdata.File, fs *perfdata.Features, scriptPipe bool) {
	for _, g := range fs.GroupDesc {
		if g.NrMembers <= 1 {
			continue
		}
		var names []string
		for i := g.Leader; i < g.Leader+g.NrMembers && int(i) < len(f.Attrs); i++ {
			a := f.Attrs[i]
			name := a.Name
			if i == 0 && scriptPipe && a.Type != perfdata.AttrTypeTracepoint {
				name = a.PerfName()
			}
			names = append(names, name)
		}
		// process_group_desc: "{anon_group}" is a dummy name.
		name := g.Name
		if name == "{anon_group}" {
			name = ""
		}
		fmt.Fprintf(w, "# group: %s{%s}\n", name, strings.Join(names, ","))
	}
}

func printFeature(w *bufio.Writer, f *perfdata.File, fs *perfdata.Features, feat perfdata.Feature) {
	switch feat {
	case perfdata.FeatHostname:
		fmt.Fprintf(w, "# hostname : %s\n", fs.Hostname)
	case perfdata.FeatOSRelease:
		fmt.Fprintf(w, "# os release : %s\n", fs.OSRelease)
	case perfdata.FeatVersion:
		fmt.Fprintf(w, "# perf version : %s\n", fs.Version)
	case perfdata.FeatArch:
		fmt.Fprintf(w, "# arch : %s\n", fs.Arch)
	case perfdata.FeatNrCPUs:
		fmt.Fprintf(w, "# nrcpus online : %d\n# nrcpus avail : %d\n", fs.NrCPUs.Online, fs.NrCPUs.Available)
	case perfdata.FeatCPUDesc:
		fmt.Fprintf(w, "# cpudesc : %s\n", fs.CPUDesc)
	case perfdata.FeatCPUID:
		fmt.Fprintf(w, "# cpuid : %s\n", fs.CPUID)
	case perfdata.FeatTotalMem:
		fmt.Fprintf(w, "# total memory : %d kB\n", fs.TotalMem)
	case perfdata.FeatCmdline:
		w.WriteString("# cmdline : ")
		for _, a := range fs.Cmdline {
			w.WriteString(strings.ReplaceAll(a, "'", `\'`))
			w.WriteByte(' ')
		}
		w.WriteByte('\n')
	case perfdata.FeatEventDesc:
		for i := range fs.EventDesc {
			printEventDesc(w, &fs.EventDesc[i])
		}
	case perfdata.FeatCPUTopology:
		t := &fs.CPUTopology
		for _, s := range t.CoreSiblings {
			fmt.Fprintf(w, "# sibling sockets : %s\n", s)
		}
		for _, s := range t.DieSiblings {
			fmt.Fprintf(w, "# sibling dies    : %s\n", s)
		}
		for _, s := range t.ThreadSiblings {
			fmt.Fprintf(w, "# sibling threads : %s\n", s)
		}
		for i, c := range t.CPUs {
			if len(t.DieSiblings) > 0 && i < len(t.DieIDs) {
				fmt.Fprintf(w, "# CPU %d: Core ID %d, Die ID %d, Socket ID %d\n", i, int32(c.CoreID), int32(t.DieIDs[i]), int32(c.SocketID))
			} else {
				fmt.Fprintf(w, "# CPU %d: Core ID %d, Socket ID %d\n", i, int32(c.CoreID), int32(c.SocketID))
			}
		}
	case perfdata.FeatNUMATopology:
		for _, n := range fs.NUMATopology {
			fmt.Fprintf(w, "# node%d meminfo  : total = %d kB, free = %d kB\n", n.Node, n.MemTotal, n.MemFree)
			fmt.Fprintf(w, "# node%d cpu list : %s\n", n.Node, n.CPUs)
		}
	case perfdata.FeatBranchStack:
		w.WriteString("# contains samples with branch stack\n")
	case perfdata.FeatPMUMappings:
		if len(fs.PMUMappings) == 0 {
			w.WriteString("# pmu mappings: not available\n")
			break
		}
		delim := "# pmu mappings: "
		for _, m := range fs.PMUMappings {
			fmt.Fprintf(w, "%s%s = %d", delim, m.Name, m.Type)
			delim = ", "
		}
		w.WriteByte('\n')
	case perfdata.FeatGroupDesc:
		printGroupDesc(w, f, fs, false)
	case perfdata.FeatAuxtrace:
		w.WriteString("# contains AUX area data (e.g. instruction trace)\n")
	case perfdata.FeatStat:
		w.WriteString("# contains stat data\n")
	case perfdata.FeatCache:
		w.WriteString("# CPU cache info:\n")
		for _, c := range fs.Cache {
			fmt.Fprintf(w, "#  L%d %-15s %8s [%s]\n", c.Level, c.Type, c.Size, c.Map)
		}
	case perfdata.FeatSampleTime:
		first, last := fs.SampleTime[0], fs.SampleTime[1]
		fmt.Fprintf(w, "# time of first sample : %d.%06d\n", first/1e9, first%1e9/1e3)
		fmt.Fprintf(w, "# time of last sample : %d.%06d\n", last/1e9, last%1e9/1e3)
		fmt.Fprintf(w, "# sample duration : %10.3f ms\n", float64(last-first)/1e6)
	case perfdata.FeatMemTopology:
		m := &fs.MemTopology
		fmt.Fprintf(w, "# memory nodes (nr %d, block size 0x%x):\n", len(m.Nodes), m.BlockSize)
		for _, n := range m.Nodes {
			set := 0
			var cpus []int
			for i, word := range n.Bitmap {
				for b := 0; b < 64; b++ {
					if word&(1<<b) != 0 && uint64(i*64+b) < n.Size {
						set++
						cpus = append(cpus, i*64+b)
					}
				}
			}
			fmt.Fprintf(w, "#  %3d [%s]: %s\n", n.Node, unitNumber(m.BlockSize*uint64(set)), perfdata.FormatCPUList(cpus))
		}
	case perfdata.FeatClockID:
		fmt.Fprintf(w, "# clockid frequency: %d MHz\n", fs.ClockID*1000)
	case perfdata.FeatDirFormat:
		fmt.Fprintf(w, "# directory data version : %d\n", fs.DirFormat)
	case perfdata.FeatCompressed:
		typ := "Unknown"
		if fs.Compressed.Type == 1 {
			typ = "Zstd"
		}
		fmt.Fprintf(w, "# compressed : %s, level = %d, ratio = %d\n", typ, fs.Compressed.Level, fs.Compressed.Ratio)
	case perfdata.FeatCPUPMUCaps:
		printCaps(w, "cpu", fs.CPUPMUCaps)
	case perfdata.FeatClockData:
		c := fs.ClockData
		name := clockidName(c.ClockID)
		fmt.Fprintf(w, "# clockid: %s (%d)\n", name, c.ClockID)
		fmt.Fprintf(w, "# reference time: %s = %d.%06d (TOD) = %d.%09d (%s)\n",
			time.Unix(0, int64(c.WallNS)).Format("2006-01-02 15:04:05.000000"),
			c.WallNS/1e9, c.WallNS%1e9/1e3, c.ClockNS/1e9, c.ClockNS%1e9, name)
	case perfdata.FeatHybridTopology:
		w.WriteString("# hybrid cpu system:\n")
		for _, n := range fs.HybridTopology {
			fmt.Fprintf(w, "# %s cpu list : %s\n", n.PMU, n.CPUs)
		}
	case perfdata.FeatPMUCaps:
		for _, p := range fs.PMUCaps {
			printCaps(w, p.PMU, p.Caps)
		}
	case perfdata.FeatBPFProgInfo:
		btfs := fs.BPFBTFs()
		for _, p := range fs.BPFProgs() {
			printBPFProg(w, &p, btfs)
		}
	case perfdata.FeatBPFBTF:
		for _, b := range fs.BPFBTFs() {
			fmt.Fprintf(w, "# btf info of id %d\n", b.ID)
		}
	}
	// tracing_data, build_id and unknown sections print nothing, as in
	// perf without -I.
}

// printBPFProg mirrors bpf_event__print_bpf_prog_info: nothing when the
// sub-program counts disagree (or, here, when the arrays were not in the
// section: perf would follow the recording machine's pointers), else a
// line for the program with its one function or a line per sub-program.
func printBPFProg(w *bufio.Writer, p *perfdata.BPFProg, btfs []perfdata.BPFBTF) {
	n := p.NrKsyms
	if n != p.NrProgTags || n != p.NrFuncLens || !p.Arrays {
		return
	}
	var btf []byte
	if p.BTFID != 0 {
		for _, b := range btfs {
			if b.ID == p.BTFID {
				btf = b.Data
				break
			}
		}
	}
	// synthesize_bpf_prog_name: the tag in hex, then the function's
	// name from the BTF (btf__new takes it), else the program's own name
	// for a lone function, else "F".
	name := func(i int) string {
		s := "bpf_prog_" + hex.EncodeToString(p.Tags[i][:])
		if btf != nil && i < len(p.FuncTypes) {
			if fn, ok := perfdata.BTFFuncName(btf, p.FuncTypes[i]); ok {
				return s + "_" + fn
			}
		}
		if i == 0 && n == 1 {
			if p.Name != "" {
				s += "_" + p.Name
			}
			return s
		}
		return s + "_F"
	}
	if n == 1 {
		fmt.Fprintf(w, "# bpf_prog_info %d: %s addr 0x%x size %d\n", p.ID, name(0), p.Ksyms[0], p.FuncLens[0])
		return
	}
	fmt.Fprintf(w, "# bpf_prog_info %d:\n", p.ID)
	for i := 0; i < int(n); i++ {
		fmt.Fprintf(w, "# \tsub_prog %d: %s addr 0x%x size %d\n", i, name(i), p.Ksyms[i], p.FuncLens[i])
	}
}

// localCPUID mirrors perf's get_cpuid on x86 ("vendor,family,model,
// stepping", as /proc/cpuinfo shows them); "" elsewhere or when unknown.
func localCPUID() string {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "386" {
		return ""
	}
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	var vendor, family, model, step string
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" {
			break // the first CPU's block
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "vendor_id":
			vendor = v
		case "cpu family":
			family = v
		case "model":
			model = v
		case "stepping":
			step = v
		}
	}
	if vendor == "" || family == "" || model == "" || step == "" {
		return ""
	}
	return vendor + "," + family + "," + model + "," + step
}

// amdX86 reports whether perf takes the recording for one of an x86 AMD
// machine: its arch (else this machine's) is x86, its cpuid (else this
// machine's) AuthenticAMD (evlist__init_trace_event_sample_raw).
func amdX86(fs *perfdata.Features) bool {
	arch := runtime.GOARCH
	if fs.Has(perfdata.FeatArch) {
		arch = fs.Arch
	}
	switch arch {
	case "x86_64", "i386", "i486", "i586", "i686", "amd64", "386", "x86":
	default:
		return false
	}
	cpuid := localCPUID()
	if fs.Has(perfdata.FeatCPUID) {
		cpuid = fs.CPUID
	}
	return strings.HasPrefix(cpuid, "AuthenticAMD")
}

// localPMUMappings mirrors perf_env__read_pmu_mappings on this machine:
// "name = type" for each PMU in /sys/bus/event_source/devices, in
// directory order (readdir, as perf's pmu_read_sysfs).
func localPMUMappings() string {
	const dir = "/sys/bus/event_source/devices"
	d, err := os.Open(dir)
	if err != nil {
		return ""
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	var parts []string
	for _, n := range names {
		b, err := os.ReadFile(dir + "/" + n + "/type")
		if err != nil {
			continue
		}
		parts = append(parts, n+" = "+strings.TrimSpace(string(b)))
	}
	return strings.Join(parts, ", ")
}

// clockidName mirrors perf's clockid_name (util/clockid.c).
func clockidName(id uint32) string {
	switch id {
	case 1:
		return "monotonic"
	case 4:
		return "monotonic_raw"
	case 0:
		return "realtime"
	case 7:
		return "boottime"
	case 11:
		return "tai"
	}
	return "(not found)"
}

func printCaps(w *bufio.Writer, pmu string, caps []perfdata.PMUCap) {
	if len(caps) == 0 {
		fmt.Fprintf(w, "# %s pmu capabilities: not available\n", pmu)
		return
	}
	fmt.Fprintf(w, "# %s pmu capabilities: ", pmu)
	for i, c := range caps {
		if i > 0 {
			w.WriteString(", ")
		}
		fmt.Fprintf(w, "%s=%s", c.Name, c.Value)
	}
	w.WriteByte('\n')
}

// unitNumber mirrors perf's unit_number__scnprintf: divide by 1024 while
// the quotient is above 1, up to G (so 1024 stays "1024B", 1G "1024M").
func unitNumber(n uint64) string {
	const units = "BKMG"
	i := 0
	for n/1024 > 1 && i < 3 {
		n /= 1024
		i++
	}
	return fmt.Sprintf("%d%c", n, units[i])
}

// sampleTypeOrder is the order perf prints sample_type bits in.
var sampleTypeOrder = []struct {
	bit  perfdata.SampleFormat
	name string
}{
	{perfdata.SampleFormatIP, "IP"}, {perfdata.SampleFormatTID, "TID"}, {perfdata.SampleFormatTime, "TIME"},
	{perfdata.SampleFormatAddr, "ADDR"}, {perfdata.SampleFormatRead, "READ"}, {perfdata.SampleFormatCallchain, "CALLCHAIN"},
	{perfdata.SampleFormatID, "ID"}, {perfdata.SampleFormatCPU, "CPU"}, {perfdata.SampleFormatPeriod, "PERIOD"},
	{perfdata.SampleFormatStreamID, "STREAM_ID"}, {perfdata.SampleFormatRaw, "RAW"}, {perfdata.SampleFormatBranchStack, "BRANCH_STACK"},
	{perfdata.SampleFormatRegsUser, "REGS_USER"}, {perfdata.SampleFormatStackUser, "STACK_USER"},
	{perfdata.SampleFormatIdentifier, "IDENTIFIER"}, {perfdata.SampleFormatRegsIntr, "REGS_INTR"},
	{perfdata.SampleFormatDataSrc, "DATA_SRC"}, {perfdata.SampleFormatWeight, "WEIGHT"},
	{perfdata.SampleFormatPhysAddr, "PHYS_ADDR"}, {perfdata.SampleFormatAux, "AUX"}, {perfdata.SampleFormatCgroup, "CGROUP"},
	{perfdata.SampleFormatDataPageSize, "DATA_PAGE_SIZE"}, {perfdata.SampleFormatCodePageSize, "CODE_PAGE_SIZE"},
	{perfdata.SampleFormatWeightStruct, "WEIGHT_STRUCT"},
}

var branchTypeNames = []string{"USER", "KERNEL", "HV", "ANY", "ANY_CALL", "ANY_RETURN", "IND_CALL",
	"ABORT_TX", "IN_TX", "NO_TX", "COND", "CALL_STACK", "IND_JUMP", "CALL", "NO_FLAGS", "NO_CYCLES",
	"TYPE_SAVE", "HW_INDEX", "PRIV_SAVE"}

var readFormatNames = []string{"TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST"}

func bitList(v uint64, names []string) string {
	var parts []string
	for i, n := range names {
		if v&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, "|")
}

// attrFlagOrder is perf_event_attr__fprintf's order of the flag bits.
var attrFlagOrder = []string{
	"disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
	"exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat", "enable_on_exec",
	"task", "watermark", "precise_ip", "mmap_data", "sample_id_all", "exclude_host",
	"exclude_guest", "exclude_callchain_kernel", "exclude_callchain_user", "mmap2",
	"comm_exec", "use_clockid", "context_switch", "write_backward", "namespaces",
	"ksymbol", "bpf_event", "aux_output", "cgroup", "text_poke", "build_id",
	"inherit_thread", "remove_on_exec", "sigtrap",
}

// printEventDesc prints one "# event : ..." line like print_event_desc.
func printEventDesc(w *bufio.Writer, e *perfdata.EventDesc) {
	fmt.Fprintf(w, "# event : name = %s, ", e.Name)
	if len(e.IDs) > 0 {
		w.WriteString(", id = {")
		for i, id := range e.IDs {
			if i > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, " %d", id)
		}
		w.WriteString(" }")
	}
	a := &e.Attr
	kv := func(name string, v string) { fmt.Fprintf(w, ", %s = %s", name, v) }
	u := func(name string, v uint64) {
		if v != 0 {
			kv(name, fmt.Sprint(v))
		}
	}
	x := func(name string, v uint64) {
		if v != 0 {
			kv(name, fmt.Sprintf("%#x", v))
		}
	}
	u("type", uint64(a.Type))
	u("size", uint64(a.Size))
	x("config", a.Config)
	u("{ sample_period, sample_freq }", a.SamplePeriod)
	if a.SampleType != 0 {
		var parts []string
		for _, b := range sampleTypeOrder {
			if a.SampleType&b.bit != 0 {
				parts = append(parts, b.name)
			}
		}
		kv("sample_type", strings.Join(parts, "|"))
	}
	if a.ReadFormat != 0 {
		kv("read_format", bitList(uint64(a.ReadFormat), readFormatNames))
	}
	for i, name := range attrFlagOrder {
		switch {
		case i == 15:
			u(name, uint64(a.PreciseIP()))
		case i > 15:
			u(name, uint64(a.Flags>>(i+1)&1)) // precise_ip takes two bits
		default:
			u(name, uint64(a.Flags>>i&1))
		}
	}
	u("{ wakeup_events, wakeup_watermark }", uint64(a.WakeupEvents))
	u("bp_type", uint64(a.BPType))
	x("{ bp_addr, config1 }", a.Config1)
	x("{ bp_len, config2 }", a.Config2)
	if a.BranchSampleType != 0 {
		kv("branch_sample_type", bitList(uint64(a.BranchSampleType), branchTypeNames))
	}
	x("sample_regs_user", a.SampleRegsUser)
	u("sample_stack_user", uint64(a.SampleStackUser))
	if a.ClockID != 0 {
		kv("clockid", fmt.Sprint(a.ClockID))
	}
	x("sample_regs_intr", a.SampleRegsIntr)
	u("aux_watermark", uint64(a.AuxWatermark))
	u("sample_max_stack", uint64(a.SampleMaxStack))
	u("aux_sample_size", uint64(a.AuxSampleSize))
	u("sig_data", a.SigData)
	w.WriteByte('\n')
}
