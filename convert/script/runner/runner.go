// Package runner runs perfpt script: it opens a recording with
// convert/session and prints it with convert/script, applying perf
// script's option semantics (-F checks against each event's sample type,
// --itrace defaults, filters).
package runner

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/internal/perfopt"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/perftext"
	"golang.org/x/sys/unix"
)

// Config is perf script's command line, parsed.
type Config struct {
	Input       string
	Fields      []string // each -F argument, in order
	Itrace      string   // --itrace value
	ItraceSet   bool     // --itrace given
	Nanosecs    bool     // --ns
	RelTime     bool     // --reltime
	DeltaTime   bool     // --deltatime
	CPUs        string   // -C
	CPUsSet     bool     // -C given (perf reads -C "" as CPU -1)
	PadDSO      int      // DSO names padded to this width (--call-trace)
	StopBT      *string  // --stop-bt's list of symbols (nil: none)
	DebugMode   bool     // -d: check the samples' order, print none
	PIDs, TIDs  string   // --pid, --tid
	Time        string   // --time
	Symfs       string   // --symfs
	Kallsyms    string   // --kallsyms
	Vmlinux     string   // -k/--vmlinux
	Workers     int      // -j; < 1: one per CPU
	NoCallchain bool     // -G
	Force       bool     // -f: read a file another user owns
	MaxStack    int      // --max-stack; 0: perf's 127
	MaxBlocks   int      // --max-blocks: brstackinsn's blocks (0: all)
	NoInline    bool     // --no-inline
	StitchLBR   bool     // --stitch-lbr
	// Show selects the side-band records printed (--show-*-events).
	Show session.Show
	// Header prints the header before the samples (--header), HeaderOnly
	// instead of them (--header-only); ShowInfo adds the sections perf
	// shows only with -I (--show-info).
	Header, HeaderOnly, ShowInfo bool
	// NoDemangle keeps symbol names mangled (--no-demangle); Verbose
	// (-v) prints C++ parameters in demangled names, as perf -v does,
	// and how often DWARF unwinds stopped early and why.
	NoDemangle, Verbose bool
	// DemangleKernel demangles a -k/--vmlinux ELF's symbols
	// (--demangle-kernel).
	DemangleKernel bool
	// Latency is -L: perf's latency format of the comm and cpu columns.
	Latency bool
	// DumpRaw prints each record as perf script -D does: perf report -D's
	// lines for it (perf's dump_event and the tool's dump_trace lines),
	// perf script's own output after them, no PT decoding.
	DumpRaw bool
	// DumpUnsorted is DumpRaw with the records in file order
	// (--dump-unsorted-raw-trace: perf's ordered_events off).
	DumpUnsorted bool
	// SwitchOn and SwitchOff name the events whose samples start and
	// stop the printing of samples (--switch-on, --switch-off: perf's
	// evswitch); ShowOnOff prints those samples too
	// (--show-on-off-events). nil: not given.
	SwitchOn, SwitchOff *string
	ShowOnOff           bool
	// GraphFunction is --graph-function's list of names (nil: not
	// given): only the samples from a call of one of them to its
	// return are printed.
	GraphFunction *string
	// PerEventDump writes each event's samples to a file of its own
	// (--per-event-dump).
	PerEventDump bool
	// Progress, when set, receives a progress line now and then (the CLI
	// passes stderr when it is a terminal).
	Progress io.Writer

	// Comms, DSOs and Symbols are -c/--comms, --dsos and -S/--symbols
	// (nil: not given; perf's comm_list_str, dso_list_str and
	// sym_list_str).
	Comms, DSOs, Symbols *string
	// AddrRange is --addr-range: -S's addresses match samples up to
	// this many bytes after them.
	AddrRange int
	// ShowKernelPath prints DSOs by their long names
	// (--show-kernel-path): a kernel module's path, the vmlinux or
	// kcore the kernel's symbols came from.
	ShowKernelPath bool
	// FullSourcePath prints source lines with their files' whole paths
	// (--full-source-path).
	FullSourcePath bool
}

// Run prints the recording as perf script would.
func Run(cfg Config, stdout, stderr io.Writer) error {
	if cfg.RelTime && cfg.DeltaTime {
		// cmd_script refuses them together (-1: status 255).
		return &perfopt.Exit{Msg: "reltime and deltatime - the two don't get along well. Please limit to --reltime or --deltatime.", Status: 255}
	}
	if cfg.RelTime && cfg.Time != "" {
		// perf then reads --time relative to the first sample
		// (perf_time__parse_for_ranges_reltime): not done here.
		return errors.New("--time with --reltime: not supported by perfpt script yet")
	}
	fields := script.DefaultFields()
	for _, f := range cfg.Fields {
		warns, err := fields.Parse(f)
		for _, w := range warns {
			fmt.Fprintln(stderr, w)
		}
		if err != nil {
			return err
		}
	}
	brinsn, srcline := false, false
	for ty := script.OutputType(0); ty <= script.TypeOther; ty++ {
		brinsn = brinsn || fields.Has(ty, script.FieldBrstackinsn) || fields.Has(ty, script.FieldBrstackinsnlen)
		srcline = srcline || fields.Has(ty, script.FieldSrcline) || fields.Has(ty, script.FieldSrccode)
	}
	var it *sample.Itrace
	if cfg.ItraceSet {
		var err error
		if it, err = sample.ParseItrace(cfg.Itrace); err != nil {
			return err
		}
		if err := refuseItrace(it); err != nil {
			return err
		}
	}
	opts := session.Options{Symfs: cfg.Symfs, Kallsyms: cfg.Kallsyms, Vmlinux: cfg.Vmlinux, Workers: cfg.Workers,
		NoDemangle: cfg.NoDemangle, DemangleParams: cfg.Verbose, DemangleKernel: cfg.DemangleKernel,
		Warn:   func(msg string) { fmt.Fprintln(stderr, msg) },
		Itrace: it, Callchains: !cfg.NoCallchain || ptCallchains(it), MaxStack: cfg.MaxStack, NoInline: cfg.NoInline,
		IPC: fields.Has(script.TypeHardware, script.FieldIPC), Show: cfg.Show, FileOrder: cfg.DumpUnsorted,
		// --dsos and -S filter on the samples' locations.
		NoIPLoc: ptNoIPLoc(fields, it) && cfg.DSOs == nil && cfg.Symbols == nil}
	var err error
	var cpus perfopt.CPUList
	if cfg.CPUsSet {
		// Checked when the recording is open (checkCPUList).
		cpus = perfopt.ParseCPUs(cfg.CPUs)
		opts.CPUs = cpus.CPUs
	}
	if opts.PIDs, err = perfopt.ParseIDs(cfg.PIDs, "pid"); err != nil {
		return err
	}
	if opts.TIDs, err = perfopt.ParseIDs(cfg.TIDs, "tid"); err != nil {
		return err
	}
	opts.Time = cfg.Time // parsed by session.Open (percentages need the header)
	if fields.Has(script.TypeHardware, script.FieldCallindent) || cfg.GraphFunction != nil {
		opts.ThreadStack = true
	}
	if cfg.GraphFunction != nil {
		opts.NoIPLoc = false // show_event names returns by the IP's symbol
	}
	input := cfg.Input
	if input == "" {
		input = "perf.data"
	}
	// symbol__validate_sym_arguments, before the file is opened.
	for _, f := range []string{cfg.Vmlinux, cfg.Kallsyms} {
		if f != "" && unix.Access(f, unix.R_OK) != nil {
			return &perfopt.Exit{Msg: "Invalid file: " + f, Status: 255}
		}
	}
	if !cfg.Force {
		if err := checkOwner(input); err != nil {
			return err
		}
	}
	if err := CheckEmpty(input); err != nil {
		return err
	}
	s, err := session.Open(input, opts)
	if err != nil {
		return OpenError(input, err)
	}
	defer s.Close()
	noData := false
	if f := s.File(); !f.Pipe && f.Data.Size == 0 {
		// perf_session__read_header warns; __perf_session__process_events
		// then fails without a word.
		fmt.Fprintf(stderr, "WARNING: The %s file's data size field is 0 which is unexpected.\n"+
			"Was the 'perf record' command properly terminated?\n", input)
		noData = true
	}
	if err := s.CheckTracepointFormats(); err != nil {
		return err
	}
	if cfg.Header || cfg.HeaderOnly {
		// perf_session__fprintf_info, right after the session opens.
		if err := printHeader(stdout, s.File(), input, cfg.ShowInfo); err != nil {
			return err
		}
		if cfg.HeaderOnly {
			return nil
		}
	}
	s.Machine().LongNames, s.Machine().FullSrclines = cfg.ShowKernelPath, cfg.FullSourcePath
	// symbol__init, after the header: the lists of samples to print.
	flt, err := sampleFilter(cfg)
	if err != nil {
		return err
	}
	// symbol__init's last list: --stop-bt's, read as the others are
	// (file:// lists; a name twice is perf's "problems parsing symbol
	// list" and status 0).
	var stopBT map[string]bool
	if cfg.StopBT != nil {
		if stopBT, err = machine.ParseList(*cfg.StopBT, "symbol"); err != nil {
			return listError(err)
		}
	}
	if cfg.CPUsSet {
		if err := checkCPUList(s, cpus, stderr); err != nil {
			return err
		}
	}
	if noData {
		return &perfopt.Exit{Status: 255}
	}

	if err := checkMetric(s, fields); err != nil {
		return err
	}
	hasAux := s.AuxtraceListed()
	fields.SetBranchAny(branchAny(s.File()))
	// perf_session__check_output_opt: the first event of each type.
	seen := map[script.OutputType]bool{}
	anyCallchain, tod := false, false
	// evsel__check_attr passes every event of a perf stat record file.
	statFile := false
	if fs, err := s.File().Features(); err == nil && fs.Has(perfdata.FeatStat) {
		statFile = true
	}
	// Its check that a type -F named without fields ("sw:") has an
	// event (the perf types, not the synthesised ones; a dummy event
	// does not count, and a pipe has no events yet).
	for t := script.TypeHardware; t < script.TypeSynth; t++ {
		if !fields.Demanded(t) {
			continue
		}
		found := false
		for _, e := range s.Events() {
			found = found || script.OutputTypeOf(e.AttrType) == t && !(e.AttrType == 1 && e.Config == 9)
		}
		if !found {
			return &perfopt.Exit{Msg: script.TypeName(t) + " events do not exist. Remove corresponding -F option to proceed.", Status: 255}
		}
	}
	for _, e := range s.Events() {
		if e.SampleType&sample.SampleCallchain != 0 {
			anyCallchain = true
		}
		if e.AttrType == 1 && e.Config == 9 {
			continue
		}
		t := script.OutputTypeOf(e.AttrType)
		if seen[t] {
			continue
		}
		seen[t] = true
		if fields.Of(t) != 0 && !statFile {
			if err := fields.CheckAttr(e, hasAux); err != nil {
				return &perfopt.Exit{Msg: err.Error(), Status: 255}
			}
		}
		tod = tod || fields.Has(t, script.FieldTOD)
	}
	for _, e := range s.Events() {
		if err := refuseUnprinted(e, fields); err != nil {
			return err
		}
	}
	if cfg.StitchLBR {
		stitchLBR(s, fields, stderr)
	}
	for t := script.TypeHardware; t <= script.TypeOther; t++ {
		if fields.Has(t, script.FieldSrcline) {
			// Inlined frames carry their own source lines.
			s.Machine().Srclines = true
		}
	}
	// perf_session__check_output_opt turns callchains off when no event
	// has them; a pipe has no events yet, so they stay on.
	useCallchain := !cfg.NoCallchain && (anyCallchain || s.File().Pipe)
	if s.File().Pipe {
		s.OnPipeAttr = pipeAttr(s, fields, hasAux, &useCallchain)
	}
	if err := s.TracingErr(); err != nil {
		fmt.Fprintf(stderr, "Warning: %s: tracing data: %v; tracepoint fields are not printed\n", input, err)
	}
	// perf_session__check_output_opt: with call chains, tracepoints print
	// ip, sym, symoff and dso unless -F set their fields.
	// It leaves before its check of the clock data for tod then.
	checkTOD := true
	if useCallchain && !fields.UserSet(script.TypeTracepoint) {
		for _, e := range s.Events() {
			if e.AttrType == 2 && e.SampleType&sample.SampleCallchain != 0 {
				fields.Add(script.TypeTracepoint, script.FieldIP|script.FieldSym|script.FieldSymOff|script.FieldDSO)
				checkTOD = false
				break
			}
		}
	}
	clock := &script.Clock{}
	setClock(clock, s.File())
	if tod && checkTOD && !clock.Enabled {
		return &perfopt.Exit{Msg: "Can't provide 'tod' time, missing clock data. Please record with -k/--clockid option.", Status: 255}
	}
	// process_attr for the events synthesised from PT.
	s.OnSynthEvent = func(e *sample.Event, firstOfType bool) error {
		// intel_pt_process_auxtrace_info turns callchains on for
		// --itrace=g even under -G, for every event from then on.
		if e.SampleType&sample.SampleCallchain != 0 {
			useCallchain = true
		}
		if !firstOfType {
			return nil
		}
		if e.SampleType != 0 {
			if err := fields.CheckAttr(e, hasAux); err != nil {
				return &perfopt.Exit{Msg: err.Error(), Status: 255}
			}
		}
		// process_attr: callchains or branch stacks (LBR call
		// stacks) turn on ip and sym.
		if useCallchain && e.SampleType&(sample.SampleCallchain|sample.SampleBranchStack) != 0 {
			fields.EnableCallchainFields(script.OutputTypeOf(e.AttrType))
		}
		return nil
	}
	// evlist__max_name_len, asked once (by whichever printer prints an
	// event name first).
	nameWidth := onceInt(s.MaxNameLen)
	arch := perftext.NormArch(runtime.GOARCH)
	if fs, err := s.File().Features(); err == nil && fs.Has(perfdata.FeatArch) {
		arch = perftext.NormArch(fs.Arch)
	}
	popts := script.Options{Fields: fields, Nanosecs: cfg.Nanosecs, PadDSO: cfg.PadDSO, StopBT: stopBT, RelTime: cfg.RelTime, DeltaTime: cfg.DeltaTime, Arch: arch, NameWidthFn: nameWidth, Clock: clock,
		MaxBlocks: cfg.MaxBlocks, FullSourcePath: cfg.FullSourcePath, Latency: cfg.Latency}
	out := stdout
	var route *routeWriter
	if cfg.PerEventDump {
		// The samples' lines go to their events' files.
		route = &routeWriter{w: stdout}
		out = route
	}
	p := script.NewPrinter(out, popts)
	var side []byte // the text of a side-band record
	var prog *progress
	if cfg.Progress != nil {
		prog = &progress{w: cfg.Progress, last: time.Now()}
	}
	// script_fetch_insn: a sample without instruction bytes gets them
	// from the binary at its IP where the recording was made on this
	// machine's architecture (a pipe is taken to be).
	fetch := false
	for ty := script.OutputType(0); ty <= script.TypeOther; ty++ {
		fetch = fetch || fields.Has(ty, script.FieldInsn) || fields.Has(ty, script.FieldInsnLen)
	}
	native := nativeArch(s.File())
	fetch = fetch && native
	var insnBuf [16]byte
	// noFormat stops the output at the first tracepoint sample of a pipe
	// whose trace field would print without a format (see
	// noFormatError).
	var noFormat error
	traceOn := fields.Has(script.TypeTracepoint, script.FieldTrace)
	h := session.Handler{
		Sample: func(smp *sample.Sample) {
			if native {
				s.ScriptFetched(smp)
			}
			if fetch && smp.InsnLen == 0 {
				script.FetchInsn(smp, &insnBuf)
			}
			p.SetUseCallchain(useCallchain)
			p.Print(smp)
		},
		Error: func(e *sample.ErrorLine) { p.PrintError(e) },
		Sideband: func(sb *session.Sideband) {
			side = sidebandText(side[:0], sb)
			p.SetUseCallchain(useCallchain)
			c := sb.Rec.Common()
			p.PrintSideband(sb.Ev, uint32(c.Type), c.Misc, sb.Comm, sb.PID, sb.TID, sb.CPU, sb.Time, side)
		},
		Progress: func(done, total int64) {
			if prog != nil {
				prog.update(done, total)
			}
		},
	}
	if !fetch {
		// Straight runs of instruction samples printed as lines that
		// differ only in the IP (-F ip,sym and the like): one call a
		// run of one symbol. Their samples have no instruction bytes
		// (the printer prints none), which ScriptFetched would fetch.
		h.IPRunOK = func(ev *sample.Event) bool {
			p.SetUseCallchain(useCallchain)
			return p.PrintsLines(ev)
		}
		h.IPRun = func(smp *sample.Sample, ips []uint64) {
			p.SetUseCallchain(useCallchain)
			p.PrintIPs(smp, ips)
		}
	}
	var pl *pipeline
	workers := cfg.Workers
	if workers < 1 {
		workers = runtime.NumCPU() // the session's default too
	}
	dumpEnd := func() {}
	if cfg.DumpRaw || cfg.DumpUnsorted {
		dumpEnd = dumpRaw(s, p, cfg.Show, cfg.DumpUnsorted)
		print := h.Sideband
		h.Sideband = func(x *session.Sideband) {
			print(x)
			dumpEnd()
		}
		workers = 1 // the dump and the samples' lines interleave
	}
	// evswitch__init, the last check before the events are processed:
	// the events named, by the names perf prints (a pipe has none yet).
	sw, err := newEvSwitch(s, cfg)
	if err != nil {
		return err
	}
	if sw != nil || cfg.GraphFunction != nil {
		workers = 1 // the samples decide in order what is printed
	}
	// perf_script__setup_per_event_dump, then.
	var ped *perEventDump
	if cfg.PerEventDump {
		var evs []*sample.Event
		for _, a := range s.File().Attrs {
			evs = append(evs, s.EventOf(a))
		}
		if ped, err = newPerEventDump(input, s.File().Pipe, evs, route); err != nil {
			return err
		}
		defer ped.close()
		workers = 1 // one printer, switching files
		// process_attr (a pipe's events) and
		// perf_script__process_auxtrace_info (synthesised ones) open
		// the files of events that come later.
		if attr := s.OnPipeAttr; attr != nil {
			s.OnPipeAttr = func(e *sample.Event, r *perfdata.RecordHeaderAttr) error {
				if err := attr(e, r); err != nil {
					return err
				}
				return ped.open(e)
			}
		}
		synth := s.OnSynthEvent
		s.OnSynthEvent = func(e *sample.Event, firstOfType bool) error {
			if err := synth(e, firstOfType); err != nil {
				return err
			}
			return ped.open(e)
		}
	}
	if workers > 1 && !srcline && !brinsn {
		// Source lines are looked up where they are printed, and
		// brstackinsn reads the code of the sample's thread as it is
		// then, so their output stays on Run's goroutine. Otherwise the
		// session's decode workers format the samples of the chunks
		// they decode (Fork), and what Run's goroutine delivers
		// itself is printed on a goroutine of its own (the pipeline,
		// started at the first such sample, once the synthesised
		// events have settled the fields; drained before a worker's
		// text goes out).
		start := func() {
			insn, addrLoc, brLocs := pipelineNeeds(fields)
			pl = newPipeline(p, insn, addrLoc, brLocs)
			for ty := script.OutputType(0); ty <= script.TypeOther; ty++ {
				pl.misc = pl.misc || fields.Has(ty, script.FieldMisc)
			}
		}
		if h.IPRun != nil {
			// Straight runs go through the pipeline as runs. Whether
			// the printer prints them so is asked of a printer of the
			// Run goroutine's own (the same fields and callchain
			// setting make the same plans).
			chk := script.NewPrinter(nil, popts)
			h.IPRunOK = func(ev *sample.Event) bool {
				chk.SetUseCallchain(useCallchain)
				return chk.PrintsLines(ev)
			}
			h.IPRun = func(smp *sample.Sample, ips []uint64) {
				if pl == nil {
					start()
				}
				pl.ipRun(smp, ips, useCallchain)
			}
		}
		h.Sample = func(smp *sample.Sample) {
			if pl == nil {
				start()
			}
			if native {
				s.ScriptFetched(smp)
			}
			if fetch && smp.InsnLen == 0 {
				script.FetchInsn(smp, &insnBuf)
			}
			pl.sample(smp, useCallchain)
		}
		h.Error = func(e *sample.ErrorLine) {
			if pl == nil {
				start()
			}
			pl.errorLine(e)
		}
		h.Sideband = func(sb *session.Sideband) {
			if pl == nil {
				start()
			}
			side = sidebandText(side[:0], sb)
			c := sb.Rec.Common()
			pl.sideband(sideLine{useCC: useCallchain, ev: sb.Ev, recType: uint32(c.Type), misc: c.Misc, comm: sb.Comm, pid: sb.PID, tid: sb.TID, cpu: sb.CPU, time: sb.Time, text: side})
		}
		emit := func(t []byte) {
			if pl != nil {
				pl.drain()
			}
			p.Write(t)
		}
		fork(&h, popts, &useCallchain, emit, !fetch && !flt.Active(), flt)
	}
	if ped != nil {
		// process_event: the sample's lines to its event's file,
		// counted when its type prints some field.
		h.IPRun, h.IPRunOK = nil, nil
		print := h.Sample
		h.Sample = func(smp *sample.Sample) {
			ped.sample(smp, p.Flush, print, fields.Of(script.OutputTypeOf(smp.Ev.AttrType)) != 0)
		}
	}
	if s.File().Pipe && (cfg.Header || cfg.ShowInfo) {
		// show_feat_hdr: a pipe's features print as their records go by.
		h.Feature = func(feat perfdata.Feature) {
			if pl != nil {
				pl.drain()
			}
			var b bytes.Buffer
			perftext.HeaderFeature(&b, s.File(), feat, cfg.ShowInfo)
			p.Write(b.Bytes())
		}
	}
	if s.File().Pipe {
		// A pipe's clock data (for tod) comes as a record, before the
		// samples that the printers (or the pipeline) print after it.
		show := h.Feature
		h.Feature = func(feat perfdata.Feature) {
			if feat == perfdata.FeatClockData {
				if pl != nil {
					pl.drain()
				}
				setClock(clock, s.File())
			}
			if show != nil {
				show(feat)
			}
		}
	}
	if traceOn && s.File().Pipe {
		print := h.Sample
		h.Sample = func(smp *sample.Sample) {
			switch {
			case noFormat != nil:
			case smp.Raw != nil && smp.Ev.Format == nil && smp.Ev.AttrType == uint32(perfdata.AttrTypeTracepoint):
				noFormat = noFormatError(smp.Ev)
			default:
				print(smp)
			}
		}
	}
	if sw != nil {
		// process_sample_event: after the filters, before the
		// printing (the samples of events printing no fields count).
		h.IPRun, h.IPRunOK = nil, nil
		print := h.Sample
		h.Sample = func(smp *sample.Sample) {
			if !sw.discard(smp.Ev) {
				print(smp)
			}
		}
	}
	if cfg.GraphFunction != nil {
		// show_event, before evswitch__discard.
		g := &graphFilter{names: strings.Split(*cfg.GraphFunction, ","), threads: map[int32]*graphThread{}}
		h.IPRun, h.IPRunOK = nil, nil
		print := h.Sample
		h.Sample = func(smp *sample.Sample) {
			if g.show(smp) {
				print(smp)
			}
		}
	}
	if flt.Active() {
		// process_sample_event leaves a sample machine__resolve
		// filtered before it prints anything or fetches its code.
		h.IPRun, h.IPRunOK = nil, nil
		print := h.Sample
		h.Sample = func(smp *sample.Sample) {
			if !flt.Filtered(smp.Comm, smp.IP, &smp.IPLoc) {
				print(smp)
			}
		}
	}
	var misordered uint64
	if cfg.DebugMode {
		// -d: process_sample_event checks that samples come in time
		// order (after --time, before the other filters: -C, --pid
		// and --tid are refused with -d) and prints none; it does
		// not resolve them.
		var last uint64
		check := func(t uint64) {
			if t < last {
				fmt.Fprintf(stderr, "Samples misordered, previous: %d this: %d\n", last, t)
				misordered++
			}
			last = t
		}
		h.Fork, h.IPRun, h.IPRunOK = nil, nil, nil
		h.SampleTime = check
		h.Sample = func(smp *sample.Sample) { check(smp.Time) }
	}
	// perf script's stat handlers, after the record's dump lines.
	stat := newStatPrinter(s, p, stderr)
	s.OnUserRecord = func(r perfdata.Record) {
		if pl != nil {
			pl.drain() // the side-band lines before it go first
		}
		stat.record(r)
	}
	err = s.Run(h)
	if cfg.DebugMode {
		defer fmt.Fprintf(stderr, "Misordered timestamps: %d\n", misordered)
	}
	if err == nil {
		err = stat.err
	}
	dumpEnd()
	defer warnAboutErrors(stderr, s.Stats(), cfg.Show&session.ShowLost != 0)
	err = recordError(err, s.File().Pipe)
	if pl != nil {
		pl.close()
	}
	if prog != nil {
		prog.done()
	}
	if ped != nil {
		// perf_script__exit_per_event_dump_stats, whatever the
		// processing gave.
		var b bytes.Buffer
		if ferr := ped.stats(&b); err == nil {
			err = ferr
		}
		p.Write(b.Bytes())
	}
	if ferr := p.Flush(); err == nil {
		err = ferr
	}
	if cfg.Verbose {
		// perf stops those unwinds silently: by default stderr is
		// perf's; -v says how often and why.
		for _, w := range s.UnwindWarnings() {
			fmt.Fprintln(stderr, w)
		}
	}
	if err == nil {
		err = noFormat
	}
	return err
}

// noFormatError refuses to print the trace field of a pipe's tracepoint
// sample whose format the tracing data does not have (no tracing data
// record, a damaged one, or none for its id). perf 6.1 passes the missing
// format to event_format__fprintf and crashes (SIGSEGV); a file with such
// an event perf refuses when it opens it (Session.CheckTracepointFormats).
// With -F -trace both print the rest.
func noFormatError(e *sample.Event) error {
	return fmt.Errorf("event '%s': the recording's tracing data has no format for this tracepoint, so its trace field cannot be printed (perf 6.1 crashes here); -F -trace prints the other fields", e.Name)
}

// stitchLBR turns LBR stitching on as perf script --stitch-lbr does:
// script__setup_sample_type keeps it only when the events record LBR call
// stacks (branch stacks, and not the registers and stack of DWARF
// unwinding), and a thread stitches once one of its samples is printed
// with the ip field (lbr_stitch_enable).
func stitchLBR(s *session.Session, fields *script.Fields, stderr io.Writer) {
	var combined perfdata.SampleFormat
	for _, a := range s.File().Attrs {
		combined |= a.SampleType
	}
	const dwarf = perfdata.SampleFormatRegsUser | perfdata.SampleFormatStackUser
	if combined&dwarf == dwarf || combined&perfdata.SampleFormatBranchStack == 0 {
		fmt.Fprint(stderr, "Can't find LBR callchain. Switch off --stitch-lbr.\n"+
			"Please apply --call-graph lbr when recording.\n")
		return
	}
	for _, e := range s.Events() {
		if fields.Has(script.OutputTypeOf(e.AttrType), script.FieldIP) {
			s.Machine().StitchLBR = true
		}
	}
}

// nativeArch mirrors perf script's native_arch: a pipe, or a recording
// whose HEADER_ARCH is this machine's (uname) or i386 on x86_64.
func nativeArch(f *perfdata.File) bool {
	if f.Pipe {
		return true
	}
	fs, err := f.Features()
	if err != nil || !fs.Has(perfdata.FeatArch) {
		return false
	}
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	m := unix.ByteSliceToString(u.Machine[:])
	return fs.Arch == m || m == "x86_64" && fs.Arch == "i386"
}

// branchAny mirrors evlist__combined_branch_type & PERF_SAMPLE_BRANCH_ANY
// over the events seen so far.
func branchAny(f *perfdata.File) bool {
	for _, a := range f.Attrs {
		if a.BranchSampleType&perfdata.BranchSampleAny != 0 {
			return true
		}
	}
	return false
}

// refuseItrace refuses the --itrace letters that perf honours and perfpt
// does not yet: d (perf's decoder debug log, intel_pt.log).
func refuseItrace(it *sample.Itrace) error {
	if it.Log {
		return errors.New("--itrace=d: the decoder debug log (intel_pt.log) is not supported by perfpt yet")
	}
	return nil
}

// Sample type bits of the fields below (PERF_SAMPLE_*).
const (
	sampleRaw       = 1 << 10
	sampleStackUser = 1 << 13
)

// unprinted lists the fields that perf script prints for an event when its
// sample type has them (and -F leaves them on) and that perfpt's printer
// cannot print yet.
var unprinted = []struct {
	field  script.Field
	name   string
	sample uint64 // any of these bits
	only   func(e *sample.Event) bool
}{
	{script.FieldBPFOutput, "bpf-output", sampleRaw, func(e *sample.Event) bool { return e.AttrType == 1 && e.Config == 10 }},
}

// checkMetric refuses -F metric where perfpt cannot print it as perf
// does: groups with other than software events (script.CheckMetric), and
// a pipe (whose event groups perf learns from a feature record that
// perfpt does not read).
func checkMetric(s *session.Session, fields *script.Fields) error {
	metric := false
	for ty := script.OutputType(0); ty <= script.TypeOther; ty++ {
		metric = metric || fields.Has(ty, script.FieldMetric)
	}
	if !metric {
		return nil
	}
	if s.File().Pipe {
		return fmt.Errorf("-F metric: the event groups of a pipe are not known to perfpt")
	}
	return script.CheckMetric(s.Events())
}

// refuseUnprinted refuses an event for which perf would print a field that
// perfpt cannot print yet (the unprinted table), rather than print less
// than perf. -F without the field (-F -trace) lets the event through.
func refuseUnprinted(e *sample.Event, fields *script.Fields) error {
	t := script.OutputTypeOf(e.AttrType)
	for _, u := range unprinted {
		if !fields.Has(t, u.field) || e.SampleType&u.sample == 0 || (u.only != nil && !u.only(e)) {
			continue
		}
		return fmt.Errorf("event '%s': perfpt script cannot print its %s field yet (remove it with -F -%s)", e.Name, u.name, u.name)
	}
	return nil
}

// checkCPUList mirrors the checks of perf_session__cpu_bitmap, which perf
// script makes of -C once the session is open: the first event of each
// fixed PMU type (hardware, software, tracepoint, cache, raw, breakpoint)
// must sample the CPU; then perf_cpu_map__new reads the list (its warning
// about a CPU at or above MAX_NR_CPUS, its refusal), and each CPU listed
// must be below the recording's nr_cpus_avail (HEADER_NRCPUS: 0 in a pipe,
// whose features come later, so that perf refuses every CPU there) and
// MAX_NR_CPUS. The failures exit with 255.
func checkCPUList(s *session.Session, cpus perfopt.CPUList, stderr io.Writer) error {
	seen := map[uint32]bool{}
	for _, e := range s.Events() {
		if e.AttrType >= 6 || seen[e.AttrType] {
			continue
		}
		seen[e.AttrType] = true
		if e.SampleType&sample.SampleCPU == 0 {
			return &perfopt.Exit{Msg: "File does not contain CPU events. Remove -C option to proceed.", Status: 255}
		}
	}
	if cpus.Warn {
		fmt.Fprintln(stderr, perfopt.CPUWarning)
	}
	if cpus.Err != nil {
		return &perfopt.Exit{Msg: cpus.Err.Error(), Status: 255}
	}
	if c, ok := cpus.TooLarge(min(s.Machine().NrCPUsAvail, perfopt.MaxCPUs)); ok {
		return &perfopt.Exit{Msg: fmt.Sprintf("Requested CPU %d too large. Consider raising MAX_NR_CPUS", c), Status: 255}
	}
	return nil
}

// checkOwner refuses, as perf's open_file_read does without -f, a file
// that neither the current user nor root owns.
func checkOwner(path string) error {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return nil // session.Open reports it
	}
	if st.Uid != 0 && int(st.Uid) != unix.Geteuid() {
		return &perfopt.Exit{Msg: "File " + path + " not owned by current user or root (use -f to override)", Status: 255}
	}
	return nil
}

type progress struct {
	w     io.Writer
	last  time.Time
	shown bool
}

func (p *progress) update(done, total int64) {
	if time.Since(p.last) < 500*time.Millisecond || total <= 0 {
		return
	}
	p.last = time.Now()
	p.shown = true
	fmt.Fprintf(p.w, "\rperfpt script: %3d%%", int(math.Min(100, float64(done)*100/float64(total))))
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r                    \r")
	}
}

// ptCallchains says --itrace asks for callchains on PT samples, which
// perf turns on globally (symbol_conf.use_callchain) whatever -G says.
func ptCallchains(it *sample.Itrace) bool { return it != nil && it.Callchain }

// sampleFilter reads -c/--comms, --dsos and -S/--symbols (with
// --addr-range) as perf's symbol__init reads their lists, in its order: the
// filter machine__resolve applies to each sample.
func sampleFilter(cfg Config) (*machine.Filter, error) {
	f := &machine.Filter{}
	var err error
	// symbol__init's order: dso, comm (pid and tid: ParseIDs), symbol.
	if cfg.DSOs != nil {
		if f.DSOs, err = machine.ParseList(*cfg.DSOs, "dso"); err != nil {
			return nil, listError(err)
		}
	}
	if cfg.Comms != nil {
		if f.Comms, err = machine.ParseList(*cfg.Comms, "comm"); err != nil {
			return nil, listError(err)
		}
	}
	if cfg.Symbols != nil {
		if err = f.SetSymbols(*cfg.Symbols); err != nil {
			return nil, listError(err)
		}
		f.AddrRange = cfg.AddrRange
	}
	return f, nil
}

// listError is perf's end for a list symbol__init refuses: its message,
// and cmd_script's status 0 (err is still 0 at out_delete).
func listError(err error) error {
	var le *machine.ListError
	if errors.As(err, &le) {
		return &perfopt.Exit{Msg: le.Error(), Status: 0}
	}
	return err
}

// ptNoIPLoc says that PT samples need no map or symbol for their IP
// (session.Options.NoIPLoc): nothing printed for them (the hardware and
// synth output types) names the IP's symbol, DSO or source, and no call
// chain or branch stack comes with them.
func ptNoIPLoc(fields *script.Fields, it *sample.Itrace) bool {
	if it == nil || it.Callchain || it.AddCallchain || it.ThreadStack || it.LastBranch || it.AddLastBranch {
		return false
	}
	const named = script.FieldSym | script.FieldSymOff | script.FieldDSO | script.FieldSrcline |
		script.FieldSrccode | script.FieldCallindent
	return !fields.Has(script.TypeHardware, named) && !fields.Has(script.TypeSynth, named)
}

// pipeAttr mirrors perf script's process_attr for a pipe's attrs: the
// first event of each perf type (the fixed PMU types and synth only) is
// checked against the fields, and with callchains in the combined sample
// type its output type prints ip and sym. A failed check is perf's error
// for the record (exit status 234, -EINVAL).
func pipeAttr(s *session.Session, fields *script.Fields, hasAux bool, useCallchain *bool) func(*sample.Event, *perfdata.RecordHeaderAttr) error {
	return func(e *sample.Event, r *perfdata.RecordHeaderAttr) error {
		if err := refuseUnprinted(e, fields); err != nil {
			return err
		}
		if e.AttrType >= 6 && e.AttrType != sample.PerfTypeSynth {
			return nil
		}
		var combined uint64
		for _, o := range s.Events() {
			if o.AttrType == e.AttrType && o != e {
				return nil
			}
			combined |= o.SampleType
		}
		if e.SampleType != 0 {
			fields.SetBranchAny(branchAny(s.File()))
			if err := fields.CheckAttr(e, hasAux); err != nil {
				// __perf_session__process_pipe_events: the record's
				// offset in the stream after the pipe header, C's %#x.
				return &perfopt.Exit{Msg: fmt.Sprintf("%s\n%s [%#x]: failed to process type: %d",
					err, cHex(uint64(r.Offset)), r.Size, r.Type), Status: 234}
			}
		}
		const regsStack = sample.SampleRegsUser | sampleStackUser
		if *useCallchain && (combined&(sample.SampleCallchain|sample.SampleBranchStack) != 0 ||
			combined&regsStack == regsStack) {
			fields.EnableCallchainFields(script.OutputTypeOf(e.AttrType))
		}
		return nil
	}
}

// setClock sets c from the file's HEADER_CLOCK_DATA as process_clock_data
// does: only version 1 enables the clock.
func setClock(c *script.Clock, f *perfdata.File) {
	if fs, err := f.Features(); err == nil && fs.Has(perfdata.FeatClockData) && fs.ClockData.Version == 1 {
		*c = script.Clock{Enabled: true, TODNs: fs.ClockData.WallNS, ClockNs: fs.ClockData.ClockNS}
	}
}

// printHeader prints the header as perf script --header does: all of it in
// file mode, the block before the features for a pipe (the features print
// as their records go by).
func printHeader(w io.Writer, f *perfdata.File, path string, full bool) error {
	opt := perftext.HeaderOptions{Full: full}
	stat := os.Stat
	if path == "-" {
		// perf fstats the descriptor it reads: standard input's
		// mtime, a pipe's included.
		stat = func(string) (os.FileInfo, error) { return os.Stdin.Stat() }
	}
	if path != "-" && f.Path() != "" {
		path = f.Path() // a perf.data directory's data file (perf_data__fd)
	}
	if st, err := stat(path); err == nil {
		opt.Captured = st.ModTime().In(time.Local)
	}
	if f.Pipe {
		return perftext.HeaderTop(w, f, opt)
	}
	return perftext.Header(w, f, opt)
}

// warnAboutErrors prints perf's warnings about lost data at the end of a
// run (perf_session__warn_about_errors): lost chunks, unless
// --show-lost-events printed them, a sample drop rate above 5%, and the
// values of PERF_SAMPLE_READ samples whose id no event has, and the
// AUXTRACE_ERROR events printed, by type (events_stats__auxtrace_error_warn:
// "N instruction trace errors" for type 1, "unknown AUX" for type 0).
func warnAboutErrors(w io.Writer, st session.Stats, lostShown bool) {
	if !lostShown && st.Lost != 0 {
		fmt.Fprintf(w, "Warning:\nProcessed %d events and lost %d chunks!\n\nCheck IO/CPU overload!\n\n", st.Events, st.Lost)
	}
	if total := uint64(st.Samples) + st.LostSamples; total > 0 {
		if rate := float64(st.LostSamples) / float64(total); rate > 0.05 {
			fmt.Fprintf(w, "Warning:\nProcessed %d samples and lost %3.2f%%!\n\n", total, rate*100)
		}
	}
	if st.UnknownID != 0 {
		fmt.Fprintf(w, "Warning:\n%d samples with id not present in the header\n", st.UnknownID)
	}
	if st.Unordered != 0 && !st.Backward {
		fmt.Fprintf(w, "Warning:\n%d out of order events recorded.\n", st.Unordered)
	}
	for ty, n := range st.AuxErrors {
		if n == 0 {
			continue
		}
		name := "unknown AUX" // auxtrace_error_name
		if ty == 1 {
			name = "instruction trace"
		}
		fmt.Fprintf(w, "Warning:\n%d %s errors\n", n, name)
	}
}

// recordError turns a record perf cannot process into perf's message and
// exit status: a header smaller than itself is "bad event header size" in
// a pipe (status 8: perf returns the bytes its last read got) and
// "OFF [SIZE]: failed to process type: T [Invalid argument]" in a file
// (-EINVAL); perfpt's account is the detail.
func recordError(err error, pipe bool) error {
	var hs *perfdata.HeaderSizeError
	if !errors.As(err, &hs) {
		return err
	}
	if pipe {
		return &perfopt.Exit{Msg: "bad event header size", Status: 8, Detail: err}
	}
	return &perfopt.Exit{Msg: fmt.Sprintf("%s [%s]: failed to process type: %d [Invalid argument]",
		cHex(uint64(hs.Offset)), cHex(uint64(hs.Size)), hs.Type), Status: 234, Detail: err}
}

// cHex is C's %#x: 0 has no prefix.
func cHex(v uint64) string {
	if v == 0 {
		return "0"
	}
	return "0x" + strconv.FormatUint(v, 16)
}

// CheckEmpty refuses an empty file as perf's open_file_read does.
func CheckEmpty(path string) error {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
		return &perfopt.Exit{Msg: "zero-sized data (" + path + "), nothing to do!", Status: 255}
	}
	return nil
}

// OpenError turns a failure to open a recording into perf's message and
// exit status (perf_data__open, perf_session__open), with perfpt's own
// account as the detail.
func OpenError(path string, err error) error {
	var pe *os.PathError
	switch {
	case errors.As(err, &pe):
		// perf prints strerror's text.
		msg := pe.Err.Error()
		if msg != "" {
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
		return &perfopt.Exit{Msg: "failed to open " + pe.Path + ": " + msg, Status: 255}
	case errors.Is(err, perfdata.ErrBadMagic), errors.Is(err, perfdata.ErrBadSize), errors.Is(err, perfdata.ErrTruncated),
		errors.Is(err, perfdata.ErrBadValue):
		return &perfopt.Exit{Msg: "incompatible file format (rerun with -v to learn more)", Status: 255, Detail: err}
	}
	return err
}

// ShowOptions are perf script's --show-*-events options (without the
// dashes) and what each selects.
var ShowOptions = map[string]session.Show{
	"show-task-events": session.ShowTask, "show-mmap-events": session.ShowMmap,
	"show-switch-events": session.ShowSwitch, "show-lost-events": session.ShowLost,
	"show-namespace-events": session.ShowNamespaces, "show-cgroup-events": session.ShowCgroup,
	"show-bpf-events": session.ShowBPF, "show-text-poke-events": session.ShowTextPoke,
	"show-round-events": session.ShowRound,
}

// sidebandText is perf_event__fprintf's text for a side-band record.
func sidebandText(b []byte, sb *session.Sideband) []byte {
	var sym func(uint64) string
	if sb.PokeSym != "" {
		sym = func(uint64) string { return sb.PokeSym }
	}
	return perftext.AppendEvent(b, sb.Rec, sym)
}

// dumpRaw makes the session print what perf script -D prints around
// perf script's own output (into the printer, in order): each record as
// perf report -D prints it but for perf report's own lines (perftext's
// Dumper with Script set), and the lines machine__resolve adds for each
// sample it resolves (a FINISHED_ROUND under --show-round-events has no
// fields: perf script's line follows at once; unsorted, it is the stub's
// line). It returns what the
// side-band handler calls after printing a record's line: with
// --show-task-events, perf script's
// process_exit_event prints its line before perf_event__process_exit
// prints the EXIT record's dump fields, which wait until then (or until
// the next record, when the line is not printed).
func dumpRaw(s *session.Session, p *script.Printer, show session.Show, unsorted bool) (sideband func()) {
	bw := bufio.NewWriter(p)
	bw.WriteString(perftext.UnorderedWarning(s.File()))
	d := perftext.NewDumper(s.File(), perftext.DumpOptions{Aux: session.DumpAux, Script: true})
	dm := s.DumpMachine()
	var exit perfdata.Record // an EXIT whose fields wait for its line
	var exitRaw []byte
	body := func() {
		if exit != nil {
			d.Body(bw, exit, exitRaw)
			bw.Flush()
			exit = nil
		}
	}
	s.OnRecord = func(r perfdata.Record, raw []byte) {
		body()
		d.Head(bw, r, raw)
		switch t := r.Common().Type; {
		case t == perfdata.RecordTypeExit && show&session.ShowTask != 0:
			exit, exitRaw = r, append(exitRaw[:0], raw...)
		case t == perfdata.RecordTypeFinishedRound && show&session.ShowRound != 0:
			// process_finished_round_event replaces the session's
			// handler and its line's end: its own line follows.
		case t == perfdata.RecordTypeFinishedRound && unsorted:
			// Without ordered_events perf_tool__fill_defaults gives
			// FINISHED_ROUND process_finished_round_stub.
			bw.WriteString(": unhandled!\n")
		default:
			d.Body(bw, r, raw)
		}
		bw.Flush()
	}
	s.OnResolve = func(r *perfdata.RecordSample) {
		dm.Sample(bw, r)
		bw.Flush()
	}
	return body
}

// evSwitch is perf's evswitch: with an on event, samples are discarded
// until one of it comes; with an off event, from one of it until the
// next of the on event. The switching samples themselves are printed
// only with show.
type evSwitch struct {
	on, off    *sample.Event
	show       bool
	discarding bool
}

// newEvSwitch mirrors evswitch__init: each name is that of the first
// event of the recording so named (evlist__find_evsel_by_str), or perf's
// error and status 254 (-ENOENT). It returns nil without --switch-on and
// --switch-off.
func newEvSwitch(s *session.Session, cfg Config) (*evSwitch, error) {
	if cfg.SwitchOn == nil && cfg.SwitchOff == nil {
		return nil, nil
	}
	find := func(kind, name string) (*sample.Event, error) {
		for _, a := range s.File().Attrs {
			if e := s.EventOf(a); e.Name == name {
				return e, nil
			}
		}
		return nil, &perfopt.Exit{Msg: "ERROR: switch-" + kind + " event not found (" + name + ")\n" +
			"HINT:  use 'perf evlist' to see the available event names", Status: 254}
	}
	sw := &evSwitch{show: cfg.ShowOnOff}
	var err error
	if cfg.SwitchOn != nil {
		if sw.on, err = find("on", *cfg.SwitchOn); err != nil {
			return nil, err
		}
		sw.discarding = true
	}
	if cfg.SwitchOff != nil {
		if sw.off, err = find("off", *cfg.SwitchOff); err != nil {
			return nil, err
		}
	}
	return sw, nil
}

// discard mirrors evswitch__discard for a sample of event e.
func (sw *evSwitch) discard(e *sample.Event) bool {
	if sw.on != nil && sw.discarding {
		if e != sw.on {
			return true
		}
		sw.discarding = false
		return !sw.show
	}
	if sw.off != nil && !sw.discarding && e == sw.off {
		sw.discarding = true
		return !sw.show
	}
	return false
}

// graphFilter is perf script's show_event for --graph-function: a thread
// prints the sample of a call to (or a return from) one of the functions
// named, then its samples while its thread-stack depth stays above that
// sample's; the first at or below it ends the run and is not printed.
type graphFilter struct {
	names   []string // perf's comma-separated list, split once
	threads map[int32]*graphThread
}

// graphThread is a thread's filter and filter_entry_depth.
type graphThread struct {
	filter     bool
	entryDepth int
}

func (g *graphFilter) show(smp *sample.Sample) bool {
	th := g.threads[smp.TID]
	if th == nil {
		th = &graphThread{}
		g.threads[smp.TID] = th
	}
	if th.filter {
		if smp.Depth <= th.entryDepth {
			th.filter = false
			return false
		}
		return true
	}
	name, ok := script.BranchSym(smp)
	if !ok {
		return false
	}
	for _, n := range g.names {
		if n == name {
			th.filter, th.entryDepth = true, smp.Depth
			return true
		}
	}
	return false
}
