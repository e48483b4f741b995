package record

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record/flow"
	"github.com/perfpt/perfpt/record/ksynth"
	"github.com/perfpt/perfpt/record/synth"
	"golang.org/x/sys/unix"
)

// intel_pt config bits (the kernel's format attributes, see
// testdata/sysfs/intel_pt/format).
const (
	cfgPT        = 1 << 0
	cfgCYC       = 1 << 1
	cfgFUPOnPTW  = 1 << 5
	cfgMTC       = 1 << 9
	cfgTSC       = 1 << 10
	cfgNoRetComp = 1 << 11
	cfgPTW       = 1 << 12
	cfgBranch    = 1 << 13
	cfgMTCShift  = 14
	cfgPSBShift  = 24
)

// PTConfig returns the intel_pt attr config for c.
func PTConfig(c synth.Config) uint64 {
	cfg := uint64(cfgPT | cfgBranch)
	if c.TSC || c.MTC || c.CYC {
		cfg |= cfgTSC
	}
	if c.MTC {
		cfg |= cfgMTC | uint64(c.MTCPeriod&0xf)<<cfgMTCShift
	}
	if c.CYC {
		cfg |= cfgCYC
	}
	if c.NoRetComp {
		cfg |= cfgNoRetComp
	}
	if c.PTW {
		cfg |= cfgPTW
		if c.FUPOnPTW {
			cfg |= cfgFUPOnPTW
		}
	}
	p := c.PSBPeriod
	if p <= 0 {
		p = 4096
	}
	for f := uint64(0); f < 16; f++ {
		if 1<<(11+f) >= p {
			cfg |= f << cfgPSBShift
			break
		}
	}
	return cfg
}

// WriteOptions say how WriteTrace lays out the perf.data.
type WriteOptions struct {
	PT synth.Config
	// AuxBufSize caps each AUXTRACE buffer (0: 64 KiB); buffers end at
	// packet boundaries.
	AuxBufSize int
	// PMUType is the intel_pt PMU type (0: from sysfs, else 8).
	PMUType uint32
	// BuildIDDir is where the vdso is saved (perf's build-id cache layout);
	// "" means DefaultBuildIDDir(), "-" not at all.
	BuildIDDir string
	Cmdline    []string
	// PerCPU writes one AUX stream for one emulated CPU that runs every
	// thread in turn, with SWITCH_CPU_WIDE records, as perf record without
	// --per-thread does; it needs timing, so TSC is turned on if no timing
	// packet is.
	PerCPU bool
	// CPUs, with PerCPU, emulates that many CPUs (more than 1): each
	// turn of a thread runs on a CPU chosen at random, so threads migrate,
	// with one AUX stream per CPU and the idle task between turns
	// (synth.EncodeCPUs). Quantum ends a turn after that many events
	// (0: only when another thread runs); Seed chooses the CPUs.
	CPUs    int
	Quantum int
	Seed    uint32
	// Kernel makes the recording a kernel+user one (intel_pt//, no
	// exclude_kernel): the threads' syscalls and asynchronous events walk
	// the stand-in kernel's code (ksynth.Weave, with KernelSeed), the
	// kernel's text is mapped by a [kernel.kallsyms]_text MMAP, and the
	// output is a perf.data directory as perf record --kcore writes it:
	// path/data and path/kcore_dir/{kcore,kallsyms,modules}.
	Kernel     *ksynth.Kernel
	KernelSeed uint64
	// SystemWide, with Kernel and PerCPU, writes a system-wide recording
	// (perf record -a) of CPUs virtual CPUs (at least one): each CPU's
	// trace runs all the time, through the idle task and the kernel's
	// context switches (ksynth.System), which write the switch records.
	SystemWide bool
	// Snapshot writes a snapshot-mode recording (perf record -S): the AUX
	// area (SnapshotSize bytes) is overwritten as the trace goes, and a
	// copy of it is taken every SnapshotEvery bytes of trace and at the
	// end; consecutive snapshots overlap where the trace between them is
	// shorter than the area, and miss what was overwritten where it is
	// longer. Per-CPU (system-wide too), a snapshot copies every CPU's
	// area at once, every SnapshotEvery bytes of all the CPUs' trace.
	SnapshotSize, SnapshotEvery int
	// AuxSample writes an AUX-sampling recording (perf record
	// --aux-sample=AuxSample, per-thread or per-CPU, not system-wide):
	// no AUXTRACE records, but a cpu-clock sample every AuxSampleEvery
	// instructions (0: 10000) of each thread carrying the last AuxSample
	// bytes of its trace (per CPU: of the trace of the CPU it runs on).
	AuxSample, AuxSampleEvery int
	// LoseEvery loses trace as a full AUX area does (per thread): after
	// every LoseEvery-th buffer, the trace up to the next PSB is not
	// written (tracing restarts with PSB+ when there is room again), and
	// that buffer's AUX record has the TRUNCATED flag. 0: nothing lost.
	LoseEvery int
}

// WriteStats describe what WriteTrace wrote.
type WriteStats struct {
	PTBytes  int
	Buffers  int
	Packets  map[string]int
	VdsoPath string
}

// PMUType returns the intel_pt PMU type from sysfs, or 8.
func PMUType() uint32 {
	var t uint32
	if b, err := os.ReadFile("/sys/bus/event_source/devices/intel_pt/type"); err == nil {
		if _, err := fmt.Sscan(string(b), &t); err == nil {
			return t
		}
	}
	return 8
}

type timed struct {
	time uint64
	seq  int
	rec  perfdata.Record
}

// WriteTrace encodes tr as intel_pt//u would have recorded it, one AUX
// stream per thread, and writes it to path.
func WriteTrace(path string, tr *flow.Trace, opt WriteOptions) (*WriteStats, error) {
	pmu := opt.PMUType
	if pmu == 0 {
		pmu = PMUType()
	}
	bufSize := opt.AuxBufSize
	if bufSize <= 0 {
		bufSize = 64 << 10
	}
	if opt.PerCPU && !opt.PT.Timing() {
		opt.PT.TSC = true
	}
	if opt.Kernel != nil {
		// The kernel is traced (OS=1): PSB+ and MOV CR3 give PIP.
		opt.PT.PIP = true
	}
	st := &WriteStats{Packets: map[string]int{}}
	if k := opt.Kernel; k != nil {
		if err := ksynth.Weave(tr, k, opt.KernelSeed); err != nil {
			return nil, err
		}
		kdir := filepath.Join(path, "kcore_dir")
		if err := os.MkdirAll(kdir, 0o755); err != nil {
			return nil, err
		}
		for _, f := range []struct {
			name string
			data []byte
		}{{"kcore", k.Kcore()}, {"kallsyms", k.Kallsyms()}, {"modules", k.ProcModules()}} {
			if err := os.WriteFile(filepath.Join(kdir, f.name), f.data, 0o644); err != nil {
				return nil, err
			}
		}
		path = filepath.Join(path, "data")
	}

	w, err := perfdata.Create(path)
	if err != nil {
		return nil, err
	}
	sampleType := perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime |
		perfdata.SampleFormatIdentifier
	if opt.SystemWide && (opt.Kernel == nil || !opt.PerCPU) {
		w.Close()
		return nil, fmt.Errorf("a system-wide recording needs a kernel and per-CPU mode")
	}
	nids := len(tr.Threads)
	if opt.PerCPU {
		sampleType |= perfdata.SampleFormatCPU
		nids = max(opt.CPUs, 1)
	}
	ptIDs, dummyIDs := make([]uint64, nids), make([]uint64, nids)
	for i := range nids {
		ptIDs[i], dummyIDs[i] = uint64(0x100+i), uint64(0x100000+i)
	}
	index := map[int]int{}
	for i, th := range tr.Threads {
		if opt.PerCPU {
			index[th.Tid] = 0
		} else {
			index[th.Tid] = i
		}
	}
	common := perfdata.AttrFlagDisabled | perfdata.AttrFlagInherit | perfdata.AttrFlagExcludeKernel |
		perfdata.AttrFlagExcludeHV | perfdata.AttrFlagEnableOnExec | perfdata.AttrFlagSampleIDAll |
		perfdata.AttrFlagExcludeGuest
	ptFlags, ptName := common, "intel_pt//u"
	if opt.Kernel != nil {
		ptFlags, ptName = common&^perfdata.AttrFlagExcludeKernel, "intel_pt//"
	}
	if _, err := w.AddAttr(perfdata.EventAttr{Type: perfdata.AttrType(pmu), Config: PTConfig(opt.PT),
		SamplePeriod: 1, SampleType: sampleType, Flags: ptFlags}, ptIDs, ptName); err != nil {
		w.Close()
		return nil, err
	}
	dummyFlags := common | perfdata.AttrFlagMmap | perfdata.AttrFlagComm | perfdata.AttrFlagTask |
		perfdata.AttrFlagMmap2 | perfdata.AttrFlagCommExec
	if opt.PerCPU {
		dummyFlags |= perfdata.AttrFlagContextSwitch
	}
	if _, err := w.AddAttr(perfdata.EventAttr{Type: perfdata.AttrTypeSoftware, Config: perfdata.SWDummy,
		SamplePeriod: 1, SampleType: sampleType, Flags: dummyFlags}, dummyIDs, "dummy:u"); err != nil {
		w.Close()
		return nil, err
	}
	info := perfdata.IntelPTInfo{PMUType: uint64(pmu), TimeShift: 0, TimeMult: 1, TimeZero: 0, CapUserTimeZero: 1,
		TSCBit: cfgTSC, NoRetCompBit: cfgNoRetComp, MTCBit: cfgMTC, MTCFreqBits: 0xf << cfgMTCShift,
		TSCCTCRatioN: 2, TSCCTCRatioD: 1, CYCBit: cfgCYC, MaxNonTurboRatio: 20}
	if opt.PT.CTCNum != 0 && opt.PT.CTCDen != 0 {
		info.TSCCTCRatioN, info.TSCCTCRatioD = uint64(opt.PT.CTCNum), uint64(opt.PT.CTCDen)
	}
	if opt.PT.CBR != 0 {
		info.MaxNonTurboRatio = uint64(opt.PT.CBR)
	}
	if opt.PerCPU {
		info.PerCPUMmaps, info.HaveSchedSwitch = 1, 3
	}
	if opt.SnapshotSize > 0 {
		info.SnapshotMode = 1
	}
	var sampleIDs []uint64
	var idIndex []perfdata.IDIndexEntry
	if opt.AuxSample > 0 {
		if opt.SnapshotSize > 0 {
			w.Close()
			return nil, fmt.Errorf("AUX sampling is not written with snapshots")
		}
		sampleIDs = make([]uint64, nids)
		for i := range nids {
			sampleIDs[i] = uint64(0x200000 + i)
		}
		// The sampling event counts in the kernel too when the trace
		// does.
		sampleFlags, sampleName := common, "cpu-clock:u"
		if opt.Kernel != nil {
			sampleFlags, sampleName = common&^perfdata.AttrFlagExcludeKernel, "cpu-clock"
		}
		if _, err := w.AddAttr(perfdata.EventAttr{Type: perfdata.AttrTypeSoftware, Config: perfdata.SWCPUClock,
			SamplePeriod: uint64(max(opt.AuxSampleEvery, 1)), SampleType: sampleType | perfdata.SampleFormatPeriod | perfdata.SampleFormatAux,
			Flags: sampleFlags, AuxSampleSize: uint32(opt.AuxSample)}, sampleIDs, sampleName); err != nil {
			w.Close()
			return nil, err
		}
		// perf_event__synthesize_id_index: each id's mmap index, CPU
		// and thread (auxtrace_queues__add_sample queues by them).
		for i := range nids {
			cpu, tid := ^uint64(0), ^uint64(0)
			if opt.PerCPU {
				cpu = uint64(i)
			} else {
				tid = uint64(tr.Threads[i].Tid)
			}
			for _, id := range []uint64{ptIDs[i], dummyIDs[i], sampleIDs[i]} {
				idIndex = append(idIndex, perfdata.IDIndexEntry{ID: id, Idx: uint64(i), CPU: cpu, TID: tid})
			}
		}
	}
	priv := append(info.Priv(), 0) // cap_event_trace
	var head []perfdata.Record
	if idIndex != nil {
		head = append(head, &perfdata.RecordIDIndex{Entries: idIndex})
	}
	head = append(head,
		&perfdata.RecordAuxtraceInfo{AuxType: perfdata.AuxtraceIntelPT, Priv: priv},
		&perfdata.RecordTimeConv{TimeShift: 0, TimeMult: 1, TimeZero: 0, CapUserTimeZero: true, Extended: true})
	for _, r := range head {
		if err := w.WriteRecord(r); err != nil {
			w.Close()
			return nil, err
		}
	}

	var recs []timed
	add := func(t uint64, r perfdata.Record) { recs = append(recs, timed{t, len(recs), r}) }
	sid := func(pid, tid int, t, id uint64, misc uint16) perfdata.RecordCommon {
		return perfdata.RecordCommon{Misc: misc, SampleID: perfdata.SampleID{PID: int32(pid), TID: int32(tid), Time: t, ID: id}}
	}
	dummyOf := func(tid int) uint64 {
		if i, ok := index[tid]; ok {
			return dummyIDs[i]
		}
		return dummyIDs[0]
	}
	if k := opt.Kernel; k != nil {
		// The kernel map, as perf record synthesizes it first:
		// [kernel.kallsyms]_text from _text, pgoff _text (KASLR's
		// reference).
		add(0, &perfdata.RecordMmap{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscKernel,
			SampleID: perfdata.SampleID{PID: -1, TID: 0, ID: dummyIDs[0]}},
			PID: -1, TID: 0, Addr: k.Start, Len: uint64(len(k.Text)), PgOff: k.Start, Filename: "[kernel.kallsyms]_text"})
		// Then the modules' (perf_event__synthesize_modules): each
		// module's map, its size from /proc/modules, named by the
		// module's file.
		for _, m := range k.Modules {
			add(0, &perfdata.RecordMmap{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscKernel,
				SampleID: perfdata.SampleID{PID: -1, TID: 0, ID: dummyIDs[0]}},
				PID: -1, TID: 0, Addr: m.Start, Len: m.Size(), Filename: m.Path})
		}
		// And the PTI entry trampolines' (perf_event__synthesize_extra_kmaps).
		for cpu := range k.TrampolineMaps {
			add(0, &perfdata.RecordMmap{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscKernel,
				SampleID: perfdata.SampleID{PID: -1, TID: 0, ID: dummyIDs[0]}},
				PID: -1, TID: 0, Addr: ksynth.TrampolineVA(cpu), Len: 0x1000, PgOff: k.Trampoline, Filename: "__entry_SYSCALL_64_trampoline"})
		}
	}
	started := map[int]uint64{}
	files := map[string]bool{}
	var buildIDs []perfdata.BuildID
	for _, s := range tr.Side {
		id := dummyOf(s.Tid)
		switch s.Kind {
		case flow.Comm:
			misc := uint16(0)
			if s.Exec {
				misc = perfdata.MiscCommExec
			}
			add(s.Time, &perfdata.RecordComm{RecordCommon: sid(s.Pid, s.Tid, s.Time, id, misc), PID: int32(s.Pid), TID: int32(s.Tid), Comm: s.Name})
			if _, ok := started[s.Tid]; !ok {
				started[s.Tid] = s.Time
			}
		case flow.Mmap:
			add(s.Time, &perfdata.RecordMmap2{RecordCommon: sid(s.Pid, s.Tid, s.Time, id, perfdata.MiscUser),
				PID: int32(s.Pid), TID: int32(s.Tid), Addr: s.Addr, Len: s.Len, PgOff: s.Pgoff, Maj: s.Maj, Min: s.Min,
				Ino: s.Ino, InoGeneration: s.InoGen, Prot: s.Prot, Flags: s.Flags, Filename: s.Name})
			if !files[s.Name] && strings.HasPrefix(s.Name, "/") {
				files[s.Name] = true
				if bid := fileBuildID(s.Name); bid != nil {
					buildIDs = append(buildIDs, perfdata.BuildID{Misc: perfdata.MiscUser, PID: -1, BuildID: bid, Filename: s.Name})
				}
			}
		case flow.Fork:
			add(s.Time, &perfdata.RecordFork{RecordCommon: sid(s.Pid, s.Tid, s.Time, id, 0), PID: int32(s.Pid), PPID: int32(s.PPid),
				TID: int32(s.Tid), PTID: int32(s.PTid), ForkTime: s.Time})
			started[s.Tid] = s.Time
		case flow.Exit:
			add(s.Time, &perfdata.RecordExit{RecordCommon: sid(s.Pid, s.Tid, s.Time, id, 0), PID: int32(s.Pid), PPID: int32(s.PPid),
				TID: int32(s.Tid), PTID: int32(s.PTid), ExitTime: s.Time})
		}
	}
	if len(tr.Vdso) > 0 {
		if bid := buildID(bytes.NewReader(tr.Vdso)); bid != nil {
			buildIDs = append(buildIDs, perfdata.BuildID{Misc: perfdata.MiscUser, PID: -1, BuildID: bid, Filename: "[vdso]"})
			if opt.BuildIDDir != "-" {
				dir := opt.BuildIDDir
				if dir == "" {
					dir = DefaultBuildIDDir()
				}
				if dir != "" {
					if p, err := saveVdso(dir, tr.Vdso, bid); err == nil {
						st.VdsoPath = p
					}
				}
			}
		}
	}

	var ref uint64 = 0x5eed0000
	if opt.SystemWide {
		if err := systemWide(tr, opt, st, recs, add, sid, ptIDs, dummyIDs, sampleIDs, bufSize, &ref); err != nil {
			w.Close()
			return st, err
		}
	} else if opt.PerCPU && opt.CPUs > 1 {
		if err := perCPUs(tr, opt, st, recs, add, sid, ptIDs, dummyIDs, sampleIDs, bufSize, &ref); err != nil {
			w.Close()
			return st, err
		}
	} else if opt.PerCPU {
		if err := perCPU(tr, opt, st, add, sid, ptIDs[0], dummyIDs[0], sampleIDs, bufSize, &ref); err != nil {
			w.Close()
			return st, err
		}
	}
	for i, th := range tr.Threads {
		if opt.PerCPU {
			break
		}
		if len(th.Events) == 0 {
			continue
		}
		s, err := synth.Encode(th, opt.PT)
		if err != nil && s == nil {
			w.Close()
			return nil, err
		}
		for k, n := range s.Packets {
			st.Packets[k.String()] += n
		}
		st.PTBytes += len(s.Data)
		t0, ok := started[th.Tid]
		if !ok {
			t0 = th.Events[0].Time
		}
		add(t0, &perfdata.RecordItraceStart{RecordCommon: sid(th.Pid, th.Tid, t0, ptIDs[i], 0), PID: int32(th.Pid), TID: int32(th.Tid)})
		if opt.AuxSample > 0 {
			auxSamples(th, s, opt, add, sid, sampleIDs[i])
			continue
		}
		if opt.SnapshotSize > 0 {
			for _, sn := range snapshots(s, opt.SnapshotSize, opt.SnapshotEvery) {
				data := s.Data[sn.from:sn.to]
				add(sn.time, &perfdata.RecordAux{RecordCommon: sid(th.Pid, th.Tid, sn.time, ptIDs[i], 0), AuxOffset: uint64(sn.from),
					AuxSize: uint64(len(data)), Flags: perfdata.AuxFlagOverwrite})
				add(sn.time, &perfdata.RecordAuxtrace{AuxOffset: uint64(sn.from), Reference: ref, Idx: uint32(i), TID: int32(th.Tid), CPU: -1, Data: data})
				ref++
				st.Buffers++
			}
			continue
		}
		// Cut the stream into buffers at packet boundaries.
		start := 0
		for start < len(s.Data) {
			end, tm := nextBuffer(s, start, bufSize)
			if end < 0 {
				w.Close()
				return nil, fmt.Errorf("thread %d: no packet boundary within %d bytes of offset %d", th.Tid, bufSize, start)
			}
			data := s.Data[start:end]
			aux := &perfdata.RecordAux{RecordCommon: sid(th.Pid, th.Tid, tm, ptIDs[i], 0), AuxOffset: uint64(start), AuxSize: uint64(len(data))}
			add(tm, aux)
			add(tm, &perfdata.RecordAuxtrace{AuxOffset: uint64(start), Reference: ref, Idx: uint32(i), TID: int32(th.Tid), CPU: -1, Data: data})
			ref++
			st.Buffers++
			start = end
			if opt.LoseEvery > 0 && st.Buffers%opt.LoseEvery == 0 {
				// The area is full: what follows is lost up to the
				// PSB+ that restarts tracing.
				next := len(s.Data)
				for _, c := range s.Cuts {
					if c.Off > start && bytes.HasPrefix(s.Data[c.Off:], psbPacket) {
						next = c.Off
						break
					}
				}
				if next > start {
					aux.Flags |= perfdata.AuxFlagTruncated
					start = next
				}
			}
		}
		if err != nil {
			w.Close()
			return st, err
		}
	}
	sort.SliceStable(recs, func(a, b int) bool { return recs[a].time < recs[b].time })
	for _, r := range recs {
		if err := w.WriteRecord(r.rec); err != nil {
			w.Close()
			return st, err
		}
	}
	if err := w.WriteRecord(&perfdata.RecordFinishedRound{}); err != nil {
		w.Close()
		return st, err
	}
	w.Features = HostFeatures(opt.Cmdline)
	w.Features.BuildIDs = buildIDs
	w.Features.PMUMappings = []perfdata.PMUMapping{{Type: 1, Name: "software"}, {Type: pmu, Name: "intel_pt"}}
	w.Features.Set(perfdata.FeatBuildID)
	w.Features.Set(perfdata.FeatPMUMappings)
	// The emulated processor: an Intel PT capable Skylake.
	w.Features.CPUID = "GenuineIntel,6,85,4"
	w.Features.Set(perfdata.FeatCPUID)
	if err := w.Close(); err != nil {
		return st, err
	}
	return st, nil
}

// HostFeatures returns the header features describing this machine and
// the command line: hostname, OS release, version, arch, CPUs, CPU
// description and cmdline.
func HostFeatures(cmdline []string) perfdata.Features {
	var fs perfdata.Features
	fs.Hostname, _ = os.Hostname()
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		fs.OSRelease = unix.ByteSliceToString(u.Release[:])
	}
	fs.Version = "6.1.perfpt"
	fs.Arch = "x86_64"
	n := uint32(runtime.NumCPU())
	fs.NrCPUs = perfdata.NrCPUs{Online: n, Available: n}
	fs.CPUDesc = cpuDesc()
	fs.Cmdline = cmdline
	for _, f := range []perfdata.Feature{perfdata.FeatHostname, perfdata.FeatOSRelease, perfdata.FeatVersion,
		perfdata.FeatArch, perfdata.FeatNrCPUs, perfdata.FeatCPUDesc, perfdata.FeatCmdline} {
		fs.Set(f)
	}
	return fs
}

func cpuDesc() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

type snapshot struct {
	from, to int
	time     uint64
}

// snapshots are the copies perf record -S takes of an AUX area of size
// bytes that the stream s fills (overwriting it): one every `every` bytes
// of trace (at the next packet boundary) and one at the end, each the last
// size bytes written (an area's worth, from mid-packet when it wrapped).
func snapshots(s *synth.Stream, size, every int) []snapshot {
	if every <= 0 {
		every = size
	}
	var out []snapshot
	next := every
	for i, c := range s.Cuts {
		if c.Off < next && i != len(s.Cuts)-1 {
			continue
		}
		out = append(out, snapshot{from: max(0, c.Off-size), to: c.Off, time: c.Time})
		for next <= c.Off {
			next += every
		}
	}
	return out
}

// psbPacket is a PSB packet's bytes.
var psbPacket = []byte{0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82}
