package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	ucli "github.com/urfave/cli/v2"

	"github.com/perfpt/perfpt/internal/cnum"
	"github.com/perfpt/perfpt/internal/perfopt"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/ksynth"
	"github.com/perfpt/perfpt/record/native"
	"github.com/perfpt/perfpt/record/ptrace"
	"github.com/perfpt/perfpt/record/synth"
)

const recordUsage = `perfpt record [-e intel_pt//u] [-o perf.data] [--per-thread | -a] [-C CPUS] [--snapshot] -- CMD ARGS
   perfpt record --emulate [-e intel_pt/ptw,fup_on_ptw/u] [--emulate-cpuid] [-o perf.data] [--per-thread] [--single-step] [--noretcomp] [--timing none|tsc|mtc|cyc] -- CMD ARGS
   perfpt record -e cpu-clock[:u|:k] [-F FREQ] [-g] [--per-thread | -a] [-C CPUS] [-o perf.data] -- CMD ARGS`

func recordCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "record",
		Usage:     "record a perf.data: intel_pt//u natively, --emulate under ptrace, or software events",
		UsageText: recordUsage,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "perf.data", Usage: "output file"},
			&ucli.StringFlag{Name: "event", Aliases: []string{"e"}, Value: "intel_pt//u", Usage: "event: intel_pt//u, or a software event (cpu-clock, task-clock)"},
			&ucli.BoolFlag{Name: "emulate", Usage: "trace CMD under ptrace and write the Intel PT trace the hardware would have written"},
			&ucli.BoolFlag{Name: "single-step", Usage: "emulate by single-stepping every instruction (slow; the default stops only at branches)"},
			&ucli.BoolFlag{Name: "noretcomp", Usage: "no return compression: every return is a TIP packet"},
			&ucli.StringFlag{Name: "timing", Value: "mtc", Usage: "timing packets: none, tsc, mtc (tsc+mtc, perf's default) or cyc (tsc+mtc+cyc)"},
			&ucli.UintFlag{Name: "mtc-period", Value: 3, Usage: "MTC every 2^N crystal clock ticks"},
			&ucli.IntFlag{Name: "psb-period", Value: 4096, Usage: "bytes between PSB+ packets"},
			&ucli.IntFlag{Name: "aux-buffer", Value: 64 << 10, Usage: "bytes per AUXTRACE buffer (emulate)"},
			&ucli.BoolFlag{Name: "keep-aslr", Usage: "leave address-space randomisation on (emulate)"},
			&ucli.BoolFlag{Name: "emulate-cpuid", Usage: "CPUID reports RTM, Intel PT and PTWRITE, which the emulation performs (emulate; off: the host's CPUID)"},
			&ucli.StringFlag{Name: "buildid-dir", Usage: "build-id cache to save the [vdso] in (default $PERF_BUILDID_DIR or ~/.debug)"},
			&ucli.BoolFlag{Name: "no-buildid-cache", Aliases: []string{"N"}, Usage: "do not save the [vdso] in the build-id cache"},
			&ucli.StringFlag{Name: "freq", Aliases: []string{"F"}, Value: "4000", Usage: "sampling frequency (software events), or max (perf_event_max_sample_rate)"},
			&ucli.BoolFlag{Name: "g", Usage: "record call chains from frame pointers, as --call-graph fp (software events)"},
			&callGraphFlag{&ucli.StringFlag{Name: "call-graph", Usage: "fp: record call chains from frame pointers (software events); perf's dwarf and lbr modes and an fp depth are refused"}},
			&ucli.IntFlag{Name: "emulate-cpus", Value: 1, Usage: "emulate: virtual CPUs (per-CPU mode); with more than 1 the threads migrate between them at random (--emulate-seed), each turn ending after --emulate-quantum events"},
			&ucli.IntFlag{Name: "emulate-quantum", Value: 2000, Usage: "emulate, --emulate-cpus > 1: events per turn of a thread on a CPU"},
			&ucli.UintFlag{Name: "emulate-seed", Value: 1, Usage: "emulate, --emulate-cpus > 1: the seed of the CPU choices"},
			&ucli.StringFlag{Name: "emulate-kernel", Usage: "emulate: a stand-in kernel (an ELF linked at a kernel address, like testdata/programs/kernel.S) whose code the syscalls and interrupts walk: a kernel+user recording, written as a perf.data directory with kcore_dir (-o names the directory)"},
			&ucli.IntFlag{Name: "emulate-snapshot", Usage: "emulate, not with -a: a snapshot-mode recording (perf record -S) of an AUX area of this many bytes (per CPU unless --per-thread), copied every --emulate-snapshot-every bytes of trace and at the end"},
			&ucli.IntFlag{Name: "emulate-snapshot-every", Usage: "emulate: bytes of trace between snapshots (default: the area's size)"},
			&ucli.IntFlag{Name: "emulate-overflow", Usage: "emulate: the hardware's internal buffer overflows after about this many bytes of trace: the packets of 16 branches are lost, then OVF and FUP"},
			&ucli.IntFlag{Name: "emulate-aux-sample", Usage: "emulate, --per-thread: an AUX-sampling recording (perf record --aux-sample=N -e '{intel_pt//u,cpu-clock:u}'): no AUXTRACE data, but cpu-clock samples carrying the last N bytes of trace each"},
			&ucli.IntFlag{Name: "emulate-aux-sample-every", Usage: "emulate, --emulate-aux-sample: instructions of a thread between its samples (default 10000)"},
			&ucli.IntFlag{Name: "emulate-lose", Usage: "emulate, --per-thread: after every N-th AUX buffer the area is full: the trace up to the next PSB is lost and the AUX record is TRUNCATED"},
			&ucli.BoolFlag{Name: "per-thread", Usage: "one buffer for the command's thread, children not followed (emulate: one AUX stream per thread; default: one CPU running all threads, with context switch records)"},
			&ucli.BoolFlag{Name: "all-cpus", Aliases: []string{"a"}, Usage: "system-wide: every task on every CPU while CMD runs (with --emulate-kernel: the emulated machine traced all the time, its idle task and context switches in the stand-in kernel)"},
			&ucli.StringFlag{Name: "cpu", Aliases: []string{"C"}, Usage: "every task on these CPUs (0-2,5) while CMD runs"},
			&ucli.BoolFlag{Name: "snapshot", Aliases: []string{"S"}, Usage: "intel_pt: overwrite the AUX area, copy it on SIGUSR2 (perf record -S)"},
			&ucli.BoolFlag{Name: "snapshot-on-exit", Usage: "intel_pt: --snapshot, and take a snapshot when the command ends (perf record -Se)"},
			&ucli.StringFlag{Name: "trigger", Usage: "SYMBOL[:N]: keep the trace of the moments before the N-th call of the executable's function SYMBOL, and stop there (emulate: the last --snapshot-size bytes of each AUX stream)"},
			&ucli.IntFlag{Name: "snapshot-size", Value: 1 << 20, Usage: "--trigger: bytes of Intel PT kept before the trigger, per AUX stream"},
		},
		Action: runRecord,
	}
}

func runRecord(c *ucli.Context) error {
	argv := c.Args().Slice()
	if len(argv) > 0 && argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return errors.New("record: no command given (usage: " + strings.SplitN(recordUsage, "\n", 2)[0] + ")")
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ev := c.String("event")
	if err := checkRecordFlags(c, ev); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	var trig *record.Trigger
	if c.IsSet("trigger") {
		// Found before anything runs: a wrong name is a clear error.
		var err error
		if trig, err = record.FindTrigger(c.String("trigger"), argv[0]); err != nil {
			return fmt.Errorf("record: %w", err)
		}
		if !c.Bool("emulate") && !native.IsIntelPT(ev) {
			return errors.New("record: --trigger needs the intel_pt event (or --emulate)")
		}
		if c.Bool("snapshot") || c.Bool("snapshot-on-exit") {
			return errors.New("record: --trigger takes its own snapshot: not with --snapshot or --snapshot-on-exit")
		}
		n := c.Int("snapshot-size")
		if n < minAuxBuffer {
			return fmt.Errorf("record: --snapshot-size %d: want at least %d bytes", n, minAuxBuffer)
		}
		if page := os.Getpagesize(); !c.Bool("emulate") && (n%page != 0 || (n/page)&(n/page-1) != 0) {
			return fmt.Errorf("record: --snapshot-size %d: the AUX area is a power of two pages of %d bytes", n, page)
		}
	} else if c.IsSet("snapshot-size") {
		return errors.New("record: --snapshot-size needs --trigger")
	}
	if c.Bool("emulate") {
		return runEmulate(ctx, c, argv, trig)
	}
	target, err := recordTarget(c)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	if native.IsIntelPT(ev) {
		opt := native.PTOptions{Output: c.String("output"), Event: ev, Target: target, Snapshot: c.Bool("snapshot"),
			SnapshotOnExit: c.Bool("snapshot-on-exit"), Header: record.HostFeatures(os.Args)}
		if opt.SnapshotOnExit {
			opt.Snapshot = true
		}
		if trig != nil {
			// A breakpoint on the function drives the snapshot of an AUX
			// area of --snapshot-size bytes.
			opt.Trigger = &native.Trigger{Path: trig.Path, Value: trig.Value, PIE: trig.PIE, N: trig.N}
			opt.AuxPages = c.Int("snapshot-size") / os.Getpagesize()
		}
		res, err := native.RecordPT(ctx, argv, opt)
		if res != nil {
			fmt.Fprintf(c.App.ErrWriter, "[ perfpt record: wrote %d bytes of Intel PT to %s ]\n", res.AuxBytes, opt.Output)
			if res.Triggered {
				fmt.Fprintf(c.App.ErrWriter, "[ perfpt record: %s ran for the %d. time: snapshot taken, the command was stopped ]\n", trig.Symbol, trig.N)
			}
		}
		if err != nil {
			return fmt.Errorf("record: %w", err)
		}
		return nil
	}
	freq, err := sampleFreq(c.String("freq"), c.App.ErrWriter)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	opt := native.Options{Output: c.String("output"), Event: ev, Freq: freq, CallGraph: c.Bool("g") || c.IsSet("call-graph"),
		Target: target, Header: record.HostFeatures(os.Args)}
	res, err := native.Record(ctx, argv, opt)
	if res != nil && res.Warning != "" {
		fmt.Fprintf(c.App.ErrWriter, "[ perfpt record: %s ]\n", res.Warning)
	}
	if res != nil {
		fmt.Fprintf(c.App.ErrWriter, "[ perfpt record: captured and wrote %d samples to %s (%d lost) ]\n", res.Samples, opt.Output, res.Lost)
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("record: interrupted; the command was killed and %s holds the samples so far", opt.Output)
	}
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// callGraphFlag is --call-graph, which takes perf record's
// RECORD_MODE[,RECORD_SIZE]. Of the modes perfpt records only fp (what -g
// asks for): a value perf's parse_callchain_record refuses is refused with
// perf's message, and dwarf, lbr and fp's depth, which perf takes, as not
// implemented (checkValue, called by perfArgs where perf's option callback
// runs).
type callGraphFlag struct{ *ucli.StringFlag }

// checkValue is perf's refusal of a value of --call-graph (perfMsg), or
// perfpt's refusal of one perf takes (notDone). It reads v as perf's
// parse_callchain_record: tokens split at commas, empty ones skipped
// (strtok_r), the mode first; fp's depth is not refused by perf; dwarf's
// size is get_stack_size's strtoul(size, &end, 0), the whole token, rounded
// up to 8 bytes, 8 to 65528.
func (callGraphFlag) checkValue(v string) (perfMsg string, notDone error) {
	var toks []string
	for _, t := range strings.Split(v, ",") {
		if t != "" {
			toks = append(toks, t)
		}
	}
	mode := v // strtok_r finds no token: the whole text is the name
	if len(toks) > 0 {
		mode = toks[0]
	}
	switch {
	case mode == "fp" && len(toks) == 1:
		return "", nil
	case mode == "dwarf" && len(toks) > 1:
		n, k, _ := cnum.Strtoul(toks[1], 0)
		if r := (n - 1) | 7 + 1; !cnum.Whole(toks[1], k) || r == 0 || r > 65528 {
			return "callchain: Incorrect stack dump size (max 65528): " + toks[1], nil
		}
	case mode == "lbr" && len(toks) > 1:
		return "callchain: No more arguments needed for --call-graph lbr", nil
	case mode != "fp" && mode != "dwarf" && mode != "lbr":
		return "callchain: Unknown --call-graph option value: " + v, nil
	}
	return "", fmt.Errorf("perfpt does not implement --call-graph %s (perf's; perfpt records frame-pointer call chains: --call-graph fp or -g)", v)
}

// Which record flags apply in which mode: the emulation's own flags only
// with --emulate; the native recorders' flags (sampling, targets,
// snapshots) only without it, each with the events it applies to. A flag
// given where it has no effect is refused, naming it.
var (
	emulateOnlyFlags = []string{"single-step", "noretcomp", "timing", "mtc-period", "psb-period", "aux-buffer",
		"keep-aslr", "emulate-cpuid", "buildid-dir", "no-buildid-cache", "emulate-cpus", "emulate-quantum", "emulate-seed",
		"emulate-kernel", "emulate-snapshot", "emulate-snapshot-every", "emulate-overflow", "emulate-lose",
		"emulate-aux-sample", "emulate-aux-sample-every"}
	sampledOnlyFlags  = []string{"freq", "g", "call-graph"}
	nativeOnlyFlags   = []string{"all-cpus", "cpu"}
	nativePTOnlyFlags = []string{"snapshot", "snapshot-on-exit"}
)

// checkRecordFlags refuses the flags that the chosen mode would ignore.
func checkRecordFlags(c *ucli.Context, ev string) error {
	set := func(names []string) string {
		for _, n := range names {
			if c.IsSet(n) && len(n) == 1 {
				return "-" + n
			}
			if c.IsSet(n) {
				return "--" + n
			}
		}
		return ""
	}
	pt := native.IsIntelPT(ev)
	if c.Bool("emulate") {
		if n := set(sampledOnlyFlags); n != "" {
			return fmt.Errorf("%s applies to software events, not to --emulate (which traces every instruction)", n)
		}
		if n := set(nativeOnlyFlags); n != "" && !(n == "--all-cpus" && c.IsSet("emulate-kernel") && !c.IsSet("cpu")) {
			return fmt.Errorf("%s is not supported with --emulate (the emulation traces CMD and its children only; -a with --emulate-kernel traces them system-wide)", n)
		}
		if n := set(nativePTOnlyFlags); n != "" {
			return fmt.Errorf("%s is not supported with --emulate (it writes the whole trace)", n)
		}
		return nil
	}
	if n := set(emulateOnlyFlags); n != "" {
		return fmt.Errorf("%s needs --emulate", n)
	}
	if n := set(sampledOnlyFlags); n != "" && pt {
		return fmt.Errorf("%s applies to software events, not to %s", n, ev)
	}
	if n := set(nativePTOnlyFlags); n != "" && !pt {
		return fmt.Errorf("%s needs the intel_pt event (-e intel_pt//)", n)
	}
	return nil
}

// sampleFreq reads -F as perf record does: "max" (any case) is the
// kernel's perf_event_max_sample_rate, with perf's info line; anything
// else is C's atoi ((int)strtol(v, NULL, 10): "77x" is 77, "abc" 0)
// stored in an unsigned int (-5 is 4294967291) (record__parse_freq). 0
// is perf's "frequency and count are zero" error; a rate above the
// kernel's maximum is lowered to it with perf's warning (record__check_freq
// via evlist__config's record_opts__config_freq).
func sampleFreq(v string, stderr io.Writer) (int, error) {
	// The kernel's maximum, read once (perf reads it for "max" and again
	// to check the rate): ok is false when it cannot be read.
	var max uint32
	ok := false
	if b, err := os.ReadFile("/proc/sys/kernel/perf_event_max_sample_rate"); err == nil {
		n, k, _ := cnum.Strtol(strings.TrimSpace(string(b)), 10)
		max, ok = uint32(n), k > 0 && n > 0
	}
	var f uint32
	if strings.EqualFold(v, "max") {
		if !ok {
			return 0, errors.New("couldn't read /proc/sys/kernel/perf_event_max_sample_rate")
		}
		fmt.Fprintf(stderr, "info: Using a maximum frequency rate of %d Hz\n", max)
		f = max
	} else {
		n, _, _ := cnum.Strtol(v, 10)
		f = uint32(int32(n))
	}
	if f == 0 {
		return 0, errors.New("frequency and count are zero, aborting")
	}
	if !ok || f <= max {
		return int(f), nil
	}
	fmt.Fprintf(stderr, "warning: Maximum frequency rate (%d Hz) exceeded, throttling from %d Hz to %d Hz.\n"+
		"         The limit can be raised via /proc/sys/kernel/perf_event_max_sample_rate.\n"+
		"         The kernel will lower it when perf's interrupts take too long.\n"+
		"         Use --strict-freq to disable this throttling, refusing to record.\n", max, f, max)
	return int(max), nil
}

// recordTarget reads --per-thread, -a and -C. -C is read as perf's
// perf_cpu_map__new reads it (perfopt.ParseCPUs: strtoul base 0, "0,,1"
// is CPU 0, " 1", "+1" and a CPU twice are refused); a list it refuses is
// evlist__create_maps' failure, perf's usage and status 129 (errUsage).
func recordTarget(c *ucli.Context) (native.Target, error) {
	t := native.Target{PerThread: c.Bool("per-thread"), AllCPUs: c.Bool("all-cpus")}
	if c.IsSet("cpu") {
		s := c.String("cpu")
		l := perfopt.ParseCPUs(s)
		if l.Err != nil {
			return t, errUsage
		}
		online := native.OnlineCPUs()
		if c, ok := l.TooLarge(perfopt.MaxCPUs); ok {
			return t, fmt.Errorf("-C %q: CPU %d is not online (online: %s)", s, c, perfdata.FormatCPUList(online))
		}
		if len(l.CPUs) == 0 {
			return t, fmt.Errorf("-C %q: no CPU (perf opens its events on no CPU and fails)", s)
		}
		on := map[int]bool{}
		for _, c := range online {
			on[c] = true
		}
		for cpu := range l.CPUs {
			t.CPUs = append(t.CPUs, int(cpu))
		}
		sort.Ints(t.CPUs)
		for _, cpu := range t.CPUs {
			if !on[cpu] {
				return t, fmt.Errorf("-C %q: CPU %d is not online (online: %s)", s, cpu, perfdata.FormatCPUList(online))
			}
		}
	}
	return t, t.Check()
}

func runEmulate(ctx context.Context, c *ucli.Context, argv []string, trig *record.Trigger) error {
	var opt record.Options
	opt.Output = c.String("output")
	if opt.Output == "-" {
		// perf record -o - writes pipe mode to standard output, which
		// the emulator's writer does not: it would make a file named -.
		return errors.New("record: --emulate writes no pipe-mode stream (-o -): write a file, then perf inject -i FILE -o - makes one")
	}
	if c.Bool("single-step") {
		opt.Trace.Mode = ptrace.Step
		opt.Trace.Pin = true
	}
	opt.Trace.KeepASLR = c.Bool("keep-aslr")
	opt.Trace.CPUID = c.Bool("emulate-cpuid")
	opt.PT.NoRetComp = c.Bool("noretcomp")
	if err := psbBytes(c.Int("psb-period")); err != nil {
		return fmt.Errorf("record: --psb-period: %w", err)
	}
	opt.PT.PSBPeriod = c.Int("psb-period")
	if p := c.Uint("mtc-period"); p > maxMTCPeriod {
		return fmt.Errorf("record: --mtc-period %d: the mtc_period field holds 0 to %d", p, maxMTCPeriod)
	}
	opt.PT.MTCPeriod = c.Uint("mtc-period")
	switch t := c.String("timing"); t {
	case "none":
	case "tsc":
		opt.PT.TSC = true
	case "mtc":
		opt.PT.TSC, opt.PT.MTC = true, true
	case "cyc":
		opt.PT.TSC, opt.PT.MTC, opt.PT.CYC = true, true, true
	default:
		return fmt.Errorf("record: --timing %q: want none, tsc, mtc or cyc", t)
	}
	if err := emulateTerms(c.String("event"), &opt.PT); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	if c.IsSet("mtc-period") && !opt.PT.MTC {
		return errors.New("record: --mtc-period needs MTC packets (--timing mtc or cyc)")
	}
	if opt.AuxBufSize = c.Int("aux-buffer"); opt.AuxBufSize < minAuxBuffer {
		return fmt.Errorf("record: --aux-buffer %d: want at least %d bytes", opt.AuxBufSize, minAuxBuffer)
	}
	opt.PerCPU = !c.Bool("per-thread")
	if opt.PerCPU && !opt.PT.Timing() {
		return errors.New("record: --timing none needs --per-thread (per-CPU decoding places context switches by time)")
	}
	if n := c.Int("emulate-cpus"); n < 1 || n > 64 {
		return fmt.Errorf("record: --emulate-cpus %d: want 1 to 64", n)
	} else if n > 1 {
		if !opt.PerCPU {
			return errors.New("record: --emulate-cpus needs per-CPU mode (no --per-thread)")
		}
		opt.CPUs, opt.Quantum, opt.Seed = n, c.Int("emulate-quantum"), uint32(c.Uint("emulate-seed"))
		if opt.Quantum < 1 {
			return fmt.Errorf("record: --emulate-quantum %d: want at least 1", opt.Quantum)
		}
	} else if c.IsSet("emulate-quantum") || c.IsSet("emulate-seed") {
		return errors.New("record: --emulate-quantum and --emulate-seed need --emulate-cpus 2 or more")
	}
	if n := c.Int("emulate-overflow"); n < 0 {
		return errors.New("record: --emulate-overflow needs a positive number of bytes")
	} else {
		opt.PT.OverflowEvery = n
	}
	if n := c.Int("emulate-aux-sample"); n != 0 {
		if n < 0 || opt.PerCPU || c.IsSet("emulate-snapshot") {
			return errors.New("record: --emulate-aux-sample needs a positive size and --per-thread, without --emulate-snapshot")
		}
		opt.AuxSample, opt.AuxSampleEvery = n, c.Int("emulate-aux-sample-every")
		if opt.AuxSampleEvery < 0 {
			return errors.New("record: --emulate-aux-sample-every needs a positive number of instructions")
		}
	} else if c.IsSet("emulate-aux-sample-every") {
		return errors.New("record: --emulate-aux-sample-every needs --emulate-aux-sample")
	}
	if n := c.Int("emulate-lose"); n != 0 {
		if n < 0 || opt.PerCPU {
			return errors.New("record: --emulate-lose needs a positive count and --per-thread")
		}
		opt.LoseEvery = n
	}
	if n := c.Int("emulate-snapshot"); n != 0 {
		if n < 0 || c.Bool("all-cpus") {
			return errors.New("record: --emulate-snapshot needs a positive size, and is not emulated system-wide (-a)")
		}
		opt.SnapshotSize, opt.SnapshotEvery = n, c.Int("emulate-snapshot-every")
		if opt.SnapshotEvery < 0 {
			return errors.New("record: --emulate-snapshot-every needs a positive number of bytes")
		}
	} else if c.IsSet("emulate-snapshot-every") {
		return errors.New("record: --emulate-snapshot-every needs --emulate-snapshot")
	}
	if kp := c.String("emulate-kernel"); kp != "" {
		if c.Bool("all-cpus") && !opt.PerCPU {
			return errors.New("record: -a and --per-thread exclude each other")
		}
		k, err := ksynth.Load(kp)
		if err != nil {
			return fmt.Errorf("record: --emulate-kernel: %w", err)
		}
		opt.Kernel, opt.KernelSeed = k, 1
		opt.SystemWide = c.Bool("all-cpus")
	}
	opt.BuildIDDir = c.String("buildid-dir")
	if c.Bool("no-buildid-cache") {
		opt.BuildIDDir = "-"
	}
	opt.Cmdline = os.Args
	var res *record.Result
	var err error
	if trig != nil {
		res, err = record.EmulateTrigger(ctx, argv, opt, trig, c.Int("snapshot-size"))
		if err == nil {
			fmt.Fprintf(c.App.ErrWriter, "[ perfpt record: %s ran for the %d. time: the command was stopped there, %s keeps the last %d bytes of Intel PT of each stream ]\n",
				trig.Symbol, trig.N, opt.Output, c.Int("snapshot-size"))
		}
	} else {
		res, err = record.Emulate(ctx, argv, opt)
	}
	if res != nil && res.Write != nil {
		fmt.Fprintf(c.App.ErrWriter, "[ perfpt record: traced %d instructions of %d threads in %v (%s), wrote %d bytes of Intel PT to %s ]\n",
			res.Insns, len(res.Trace.Trace.Threads), res.Tracer.Elapsed.Round(1e6), modeName(opt.Trace.Mode), res.Write.PTBytes, opt.Output)
		if res.Write.VdsoPath != "" {
			fmt.Fprintf(c.App.ErrWriter, "[ perfpt record: [vdso] saved as %s ]\n", res.Write.VdsoPath)
		}
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("record: interrupted; the command was killed and %s holds the trace so far", opt.Output)
	}
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	if res.Exit != 0 && trig == nil {
		fmt.Fprintf(c.App.ErrWriter, "[ perfpt record: %s exited with status %d ]\n", argv[0], res.Exit)
	}
	return nil
}

// Limits of the emulation's flags, as the hardware has them: mtc_period and
// psb_period are 4-bit fields of the intel_pt config (the kernel's
// arch/x86/events/intel/pt.c format), psb_period p meaning a PSB+ every
// 2^(11+p) bytes.
const (
	maxMTCPeriod = 15
	maxPSBPeriod = 15
	// minAuxBuffer: an AUXTRACE buffer holds at least a PSB+ and the
	// packets up to the next boundary.
	minAuxBuffer = 256
)

// psbBytes checks a --psb-period in bytes: a power of two that the
// psb_period field can say, so that the config written agrees with the
// packets.
func psbBytes(n int) error {
	for p := 0; p <= maxPSBPeriod; p++ {
		if n == 1<<(11+p) {
			return nil
		}
	}
	return fmt.Errorf("%d bytes: want a power of two from %d to %d (psb_period 0 to %d)", n, 1<<11, 1<<(11+maxPSBPeriod), maxPSBPeriod)
}

// emulateTerms applies the terms of an intel_pt event string to the
// emulation's configuration, on top of what --timing, --mtc-period,
// --psb-period and --noretcomp set (perf applies a PMU's terms on top of its
// default config): pt, branch, tsc, mtc, mtc_period=, cyc, psb_period=,
// noretcomp, ptw and fup_on_ptw. Other terms, and modifiers other than u
// (the emulation sees user space only), are refused, naming them.
func emulateTerms(ev string, pt *synth.Config) error {
	if !native.IsIntelPT(ev) {
		return fmt.Errorf("--emulate records intel_pt only, not %q", ev)
	}
	parts := strings.Split(ev, "/")
	if len(parts) != 3 {
		return fmt.Errorf("event %q: --emulate traces user space only: write intel_pt//u", ev)
	}
	if parts[2] != "u" {
		return fmt.Errorf("event %q: modifier %q: --emulate traces user space only (modifier u)", ev, parts[2])
	}
	terms, err := native.ParseTerms(parts[1])
	if err != nil {
		return fmt.Errorf("event %q: %w", ev, err)
	}
	for _, term := range terms {
		name, n := term.Name, term.Value
		on := n != 0
		switch name {
		case "pt", "branch":
			if !on {
				return fmt.Errorf("event %q: %s=0 is not supported by --emulate, which traces every branch", ev, name)
			}
		case "tsc":
			pt.TSC = on
		case "mtc":
			pt.MTC = on
		case "cyc":
			pt.CYC = on
		case "mtc_period":
			if n > maxMTCPeriod {
				return fmt.Errorf("event %q: mtc_period=%d: the field holds 0 to %d", ev, n, maxMTCPeriod)
			}
			pt.MTCPeriod = uint(n)
		case "psb_period":
			if n > maxPSBPeriod {
				return fmt.Errorf("event %q: psb_period=%d: the field holds 0 to %d", ev, n, maxPSBPeriod)
			}
			pt.PSBPeriod = 1 << (11 + n)
		case "noretcomp":
			pt.NoRetComp = on
		case "ptw":
			pt.PTW = on
		case "fup_on_ptw":
			pt.FUPOnPTW = on
		default:
			return fmt.Errorf("event %q: term %q is not supported by --emulate", ev, name)
		}
	}
	if (pt.MTC || pt.CYC) && !pt.TSC {
		return fmt.Errorf("event %q: mtc and cyc need tsc under --emulate (its timing starts from TSC packets)", ev)
	}
	return nil
}

func modeName(m ptrace.Mode) string {
	if m == ptrace.Step {
		return "single-step"
	}
	return "fast"
}
