package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/script/runner"
	"github.com/perfpt/perfpt/internal/cnum"
)

const scriptUsage = `perfpt script [-i FILE] [-F FIELDS] [--itrace[=OPTS]] [--ns] [--reltime|--deltatime] [-C CPUS]
       [--pid PIDS] [--tid TIDS] [--time RANGES] [--symfs DIR]
       [--kallsyms FILE] [-G] [-f] [--max-stack N] [--max-blocks N]
       [--[no-]inline] [-j N] [-D]

Options are perf script's, parsed as perf parses them: "-Fip,sym",
"-F+flags,+addr", "--itrace=i100i", "-i perf.data". -j N decodes and
prints with N workers (default: one per CPU); the output is the same
for any N. --time is perf's: "START,STOP" in seconds, several separated
by spaces, or percentages of the recording ("10%/2", "0%-10%,50%-60%").`

// scriptCommand is perf script. Its options are parsed here rather than by
// urfave/cli because perf accepts glued short options ("-F+flags", "-ifile")
// and an optional value for --itrace.
func scriptCommand() *ucli.Command {
	return &ucli.Command{
		Name:            "script",
		Usage:           "decode a recording and print what perf script prints",
		UsageText:       scriptUsage,
		SkipFlagParsing: true,
		Action: func(c *ucli.Context) error {
			cfg, help, err := parseScriptArgs(c.Args().Slice())
			if l := (listed("")); errors.As(err, &l) {
				_, err := io.WriteString(c.App.Writer, l.Error())
				return err
			}
			if err != nil {
				return err
			}
			if help {
				// perf's -h (usage_with_options): the usage on
				// stderr, status 129.
				return helpUsage(scriptHelp)
			}
			if cfg.Input == "" && stdinIsPipe(c) {
				cfg.Input = "-" // perf_data's check_pipe
			}
			if f, ok := c.App.ErrWriter.(*os.File); ok && isTerminal(f) {
				cfg.Progress = f
			}
			return runner.Run(cfg, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// scriptOpt is one of perf script's options: what perfpt does with it, or
// nothing (set, flag and unset all nil) when perfpt does not implement it.
type scriptOpt struct {
	optHelp
	set  func(cfg *runner.Config, v string) error // an option with a value
	flag func(cfg *runner.Config)                 // one without
	// unset is --no-NAME (parse-options' negation, which perf takes for
	// every option of perf script's: none is PARSE_OPT_NONEG); nil
	// where perfpt does not implement the negation.
	unset func(cfg *runner.Config)
	// why says why perfpt does not implement the option (its refusal
	// says it).
	why string
}

// refusal is perfpt's refusal of the option as given, with why.
func (o scriptOpt) refusal(u *perfUsage, given string) *usageError {
	e := u.notImplemented(given, o.optHelp)
	if o.why != "" {
		e.msg = strings.TrimSuffix(e.msg, ")") + ": " + o.why + ")"
	}
	return e
}

// implemented says whether perfpt takes the option (--itrace, whose value
// is optional, is parsed apart).
func (o scriptOpt) implemented() bool {
	return o.set != nil || o.flag != nil || o.long == "itrace"
}

// scriptOptTable is perf 6.1 script's option table (cmd_script's options[]
// with OPTS_EVSWITCH, in its order, which decides what an abbreviation
// resolves to), each with what perfpt does with it, then perfpt's own -j.
// -h/--help are parse-options' own, parsed apart and not listed, as perf
// does not list them.
func scriptOptTable() []scriptOpt {
	str := func(dst func(*runner.Config) *string) (func(*runner.Config, string) error, func(*runner.Config)) {
		return func(cfg *runner.Config, v string) error { *dst(cfg) = v; return nil },
			func(cfg *runner.Config) { *dst(cfg) = "" } // perf's NULL: the default
	}
	boolean := func(dst func(*runner.Config) *bool) (func(*runner.Config), func(*runner.Config)) {
		return func(cfg *runner.Config) { *dst(cfg) = true }, func(cfg *runner.Config) { *dst(cfg) = false }
	}
	strOpt := func(o optHelp, dst func(*runner.Config) *string) scriptOpt {
		set, unset := str(dst)
		return scriptOpt{optHelp: o, set: set, unset: unset}
	}
	boolOpt := func(o optHelp, dst func(*runner.Config) *bool) scriptOpt {
		on, off := boolean(dst)
		return scriptOpt{optHelp: o, flag: on, unset: off}
	}
	// listOpt is a list of names perf's symbol__init reads (setup_list):
	// --no-NAME is perf's NULL, no list.
	listOpt := func(o optHelp, dst func(*runner.Config) **string) scriptOpt {
		return scriptOpt{optHelp: o,
			set:   func(cfg *runner.Config, v string) error { *dst(cfg) = &v; return nil },
			unset: func(cfg *runner.Config) { *dst(cfg) = nil }}
	}
	// notDone is one of perf's options perfpt refuses, and why.
	notDone := func(short byte, long, argh string, optArg bool, why string) scriptOpt {
		return scriptOpt{optHelp: optHelp{short: short, long: long, argh: argh, optArg: optArg}, why: why}
	}
	const (
		noScripts = "perfpt runs no perl or python scripts"
		noDL      = "perfpt loads no dlfilter shared objects"
		noGuest   = "perfpt decodes no guest (virtual machine) code"
	)
	show := func(name string) scriptOpt {
		bit := runner.ShowOptions[name]
		return scriptOpt{optHelp: optHelp{long: name, help: "print the " + strings.TrimSuffix(strings.TrimPrefix(name, "show-"), "-events") + " side-band events"},
			flag: func(cfg *runner.Config) { cfg.Show |= bit }, unset: func(cfg *runner.Config) { cfg.Show &^= bit }}
	}
	// --max-stack is OPT_UINTEGER: a value starting with '-' refused,
	// then strtol(v, 10) stored in an unsigned int, which perf's
	// callchain code takes as an int: 0 or negative (2147483648 and
	// up, or " -3") is no entries at all.
	maxStack := func(cfg *runner.Config, v string) error {
		if strings.HasPrefix(v, "-") {
			return errNotUnsigned
		}
		n, ok := strtol10(v)
		if !ok {
			return errNotNumber
		}
		cfg.MaxStack = int(int32(uint32(n)))
		if cfg.MaxStack <= 0 {
			cfg.MaxStack = -1 // perf: no entries at all
		}
		return nil
	}
	// --max-blocks: strtol(v, 10) into perf's unsigned int.
	maxBlocks := func(cfg *runner.Config, v string) error {
		n, ok := strtol10(v)
		if !ok {
			return errNotNumber
		}
		switch u := uint32(n); {
		case u == math.MaxUint32:
			// perf's count+1 wraps to 0 and it reads before the
			// branch stack.
			return errors.New("--max-blocks " + v + ": perf reads out of bounds with it")
		case u > math.MaxInt32:
			// A huge count: all the blocks.
			cfg.MaxBlocks = 0
		default:
			cfg.MaxBlocks = int(u)
		}
		return nil
	}
	t := []scriptOpt{
		boolOpt(optHelp{short: 'D', long: "dump-raw-trace", help: "dump raw trace in ASCII"}, func(c *runner.Config) *bool { return &c.DumpRaw }),
		boolOpt(optHelp{long: "dump-unsorted-raw-trace", help: "dump raw trace in ASCII, the records in file order"}, func(c *runner.Config) *bool { return &c.DumpUnsorted }),
		boolOpt(optHelp{short: 'v', long: "verbose", help: "more detail (demangled parameters, DWARF unwinds stopped early)"}, func(c *runner.Config) *bool { return &c.Verbose }),
		boolOpt(optHelp{short: 'L', long: "Latency", help: "the comm column 8 wide and the cpu without brackets (perf's latency format)"}, func(c *runner.Config) *bool { return &c.Latency }),
		// perf's list_available_scripts and list_available_dlfilters
		// print their lists and exit while the options are parsed.
		// perfpt runs no scripts and loads no dlfilters: its lists are
		// empty, as perf's with empty scripts and dlfilters folders.
		{optHelp: optHelp{short: 'l', long: "list", help: "list available scripts (perfpt has none)"},
			flag: func(*runner.Config) {}, unset: func(*runner.Config) {}},
		{optHelp: optHelp{long: "list-dlfilters", help: "list available dlfilters (perfpt has none)"},
			flag: func(*runner.Config) {}, unset: func(*runner.Config) {}},
		notDone('s', "script", "name", false, noScripts),
		notDone('g', "gen-script", "lang", false, noScripts),
		notDone(0, "dlfilter", "file", false, noDL),
		notDone(0, "dlarg", "argument", false, noDL),
		strOpt(optHelp{short: 'i', long: "input", argh: "file", help: "the recording to read (perf.data; - for a pipe)"}, func(c *runner.Config) *string { return &c.Input }),
		boolOpt(optHelp{short: 'd', long: "debug-mode", help: "check that samples come in time order; print none"}, func(c *runner.Config) *bool { return &c.DebugMode }),
		boolOpt(optHelp{long: "header", help: "print the header first"}, func(c *runner.Config) *bool { return &c.Header }),
		boolOpt(optHelp{long: "header-only", help: "print the header only"}, func(c *runner.Config) *bool { return &c.HeaderOnly }),
		strOpt(optHelp{short: 'k', long: "vmlinux", argh: "file", help: "the kernel image's symbols"}, func(c *runner.Config) *string { return &c.Vmlinux }),
		strOpt(optHelp{long: "kallsyms", argh: "file", help: "kernel symbols from this kallsyms file"}, func(c *runner.Config) *string { return &c.Kallsyms }),
		boolOpt(optHelp{short: 'G', long: "hide-call-graph", help: "no call chains"}, func(c *runner.Config) *bool { return &c.NoCallchain }),
		// perf's --no-symfs and --no-fields pass NULL to strdup.
		{optHelp: optHelp{long: "symfs", argh: "directory", help: "look for binaries and debug files under this root"},
			set: func(cfg *runner.Config, v string) error { cfg.Symfs = v; return nil }},
		{optHelp: optHelp{short: 'F', long: "fields", argh: "str", help: "fields to print, perf's: [type:]f1,f2 sets, +f adds, -f removes"},
			set: func(cfg *runner.Config, v string) error { cfg.Fields = append(cfg.Fields, v); return nil }},
		notDone('a', "all-cpus", "", false, "it is for the recording of a script, and "+noScripts),
		listOpt(optHelp{long: "dsos", argh: "dso[,dso...]", help: "only samples in these DSOs (short or long names)"}, func(c *runner.Config) **string { return &c.DSOs }),
		listOpt(optHelp{short: 'S', long: "symbols", argh: "symbol[,symbol...]", help: "only samples in these symbols, or at these hexadecimal addresses"}, func(c *runner.Config) **string { return &c.Symbols }),
		// OPT_INTEGER: strtol, the whole value a number; --no- is 0.
		{optHelp: optHelp{long: "addr-range", argh: "n", help: "with -S ADDRESS: samples in [ADDRESS, ADDRESS+n) too"},
			set: func(cfg *runner.Config, v string) error {
				n, ok := strtol10(v)
				if !ok {
					return errNotNumber
				}
				cfg.AddrRange = int(int32(n)) // C's long to int
				return nil
			},
			unset: func(cfg *runner.Config) { cfg.AddrRange = 0 }},
		// parse_insn_trace, parse_call_trace and parse_callret_trace:
		// -F and --itrace presets, nanoseconds, and for --call-trace
		// DSO names padded to 50 (symbol_conf.pad_output_len_dso).
		{optHelp: optHelp{long: "insn-trace", argh: "raw|disasm", optArg: true, help: "every instruction with its bytes (-F +insn,-event,-period --itrace=i0ns --ns)"},
			set: func(cfg *runner.Config, v string) error {
				switch v {
				case "", "raw":
					return presetTrace(cfg, "+insn,-event,-period", "i0ns", 0)
				case "disasm":
					// perf 6.1's -F has no disasm field.
					return perfMessage("Invalid field requested.")
				}
				return perfMessage("Only accept raw|disasm")
			},
			// perf's callback ignores unset (str is NULL): --no-insn-trace is --insn-trace.
			unset: func(cfg *runner.Config) { presetTrace(cfg, "+insn,-event,-period", "i0ns", 0) }},
		notDone(0, "xed", "...", true, "perf pipes its output through the xed disassembler; perfpt runs no xed"),
		{optHelp: optHelp{long: "call-trace", argh: "...", optArg: true, help: "calls, indented by depth (-F -ip,-addr,-event,-period,+callindent --itrace=cewp --ns)"},
			set: func(cfg *runner.Config, _ string) error {
				return presetTrace(cfg, "-ip,-addr,-event,-period,+callindent", "cewp", 50)
			},
			// perf's callback ignores unset: --no-call-trace is --call-trace.
			unset: func(cfg *runner.Config) { presetTrace(cfg, "-ip,-addr,-event,-period,+callindent", "cewp", 50) }},
		{optHelp: optHelp{long: "call-ret-trace", argh: "...", optArg: true, help: "calls and returns, indented (-F -ip,-addr,-event,-period,+callindent,+flags --itrace=crewp --ns)"},
			set: func(cfg *runner.Config, _ string) error {
				return presetTrace(cfg, "-ip,-addr,-event,-period,+callindent,+flags", "crewp", 0)
			},
			// perf's callback ignores unset: --no-call-ret-trace is --call-ret-trace.
			unset: func(cfg *runner.Config) { presetTrace(cfg, "-ip,-addr,-event,-period,+callindent,+flags", "crewp", 0) }},
		listOpt(optHelp{long: "graph-function", argh: "symbol[,symbol...]", help: "only print symbols and callees with --call-trace/--call-ret-trace"}, func(c *runner.Config) **string { return &c.GraphFunction }),
		listOpt(optHelp{long: "stop-bt", argh: "symbol[,symbol...]", help: "print call chains down to a frame of these symbols"}, func(c *runner.Config) **string { return &c.StopBT }),
		{optHelp: optHelp{short: 'C', long: "cpu", argh: "cpu", help: "only samples of these CPUs (0-2,5)"},
			set:   func(cfg *runner.Config, v string) error { cfg.CPUs, cfg.CPUsSet = v, true; return nil },
			unset: func(cfg *runner.Config) { cfg.CPUs, cfg.CPUsSet = "", false }},
		listOpt(optHelp{short: 'c', long: "comms", argh: "comm[,comm...]", help: "only samples of threads with these names"}, func(c *runner.Config) **string { return &c.Comms }),
		strOpt(optHelp{long: "pid", argh: "pid[,pid...]", help: "only these processes"}, func(c *runner.Config) *string { return &c.PIDs }),
		strOpt(optHelp{long: "tid", argh: "tid[,tid...]", help: "only these threads"}, func(c *runner.Config) *string { return &c.TIDs }),
		// --no-max-stack sets perf's unsigned option to 0.
		{optHelp: optHelp{long: "max-stack", argh: "n", help: "print at most n call chain entries"},
			set: maxStack, unset: func(cfg *runner.Config) { maxStack(cfg, "0") }},
		boolOpt(optHelp{long: "reltime", help: "times relative to the first sample"}, func(c *runner.Config) *bool { return &c.RelTime }),
		boolOpt(optHelp{long: "deltatime", help: "times relative to the previous event"}, func(c *runner.Config) *bool { return &c.DeltaTime }),
		boolOpt(optHelp{short: 'I', long: "show-info", help: "with --header: the extended header sections too"}, func(c *runner.Config) *bool { return &c.ShowInfo }),
		boolOpt(optHelp{long: "show-kernel-path", help: "print DSOs by their long names: kernel modules' paths, the vmlinux or kcore of the kernel"}, func(c *runner.Config) *bool { return &c.ShowKernelPath }),
		show("show-task-events"),
		show("show-mmap-events"),
		show("show-switch-events"),
		show("show-namespace-events"),
		show("show-cgroup-events"),
		show("show-lost-events"),
		show("show-round-events"),
		show("show-bpf-events"),
		show("show-text-poke-events"),
		boolOpt(optHelp{long: "per-event-dump", help: "each event's samples to a file of its own, <input>.<event>.dump"}, func(c *runner.Config) *bool { return &c.PerEventDump }),
		boolOpt(optHelp{short: 'f', long: "force", help: "read files owned by others"}, func(c *runner.Config) *bool { return &c.Force }),
		{optHelp: optHelp{long: "max-blocks", argh: "n", help: "print at most n branch stack entries"},
			set: maxBlocks, unset: func(cfg *runner.Config) { maxBlocks(cfg, "0") }},
		boolOpt(optHelp{long: "ns", help: "print times in nanoseconds"}, func(c *runner.Config) *bool { return &c.Nanosecs }),
		// --no-itrace (perf: decode no AUX area data) is not done.
		{optHelp: optHelp{long: "itrace", argh: "opts", optArg: true, help: "synthesize events from the instruction trace (perf's itrace options)"}},
		boolOpt(optHelp{long: "full-source-path", help: "print source lines with their files' whole paths"}, func(c *runner.Config) *bool { return &c.FullSourcePath }),
		{optHelp: optHelp{long: "demangle", help: "demangle symbol names (the default; --no-demangle: do not)"},
			flag: func(cfg *runner.Config) { cfg.NoDemangle = false }, unset: func(cfg *runner.Config) { cfg.NoDemangle = true }},
		// Kallsyms' names are never demangled, by perf either: this
		// demangles a -k/--vmlinux ELF's symbols.
		boolOpt(optHelp{long: "demangle-kernel", help: "demangle the kernel ELF's (-k) symbol names"}, func(c *runner.Config) *bool { return &c.DemangleKernel }),
		strOpt(optHelp{long: "time", argh: "str", help: "time ranges (start,stop in seconds, or percentages)"}, func(c *runner.Config) *string { return &c.Time }),
		{optHelp: optHelp{long: "inline", help: "show inlined functions in call chains (the default; --no-inline: do not)"},
			flag: func(cfg *runner.Config) { cfg.NoInline = false }, unset: func(cfg *runner.Config) { cfg.NoInline = true }},
		notDone(0, "guestmount", "directory", false, noGuest),
		notDone(0, "guestvmlinux", "file", false, noGuest),
		notDone(0, "guestkallsyms", "file", false, noGuest),
		notDone(0, "guestmodules", "file", false, noGuest),
		notDone(0, "guest-code", "", false, noGuest),
		boolOpt(optHelp{long: "stitch-lbr", help: "stitch LBR call stacks across samples"}, func(c *runner.Config) *bool { return &c.StitchLBR }),
		// OPTS_EVSWITCH: --no-switch-on and --no-switch-off are
		// perf's NULL, no switch.
		listOpt(optHelp{long: "switch-on", argh: "event", help: "print samples only from one of this event on"}, func(c *runner.Config) **string { return &c.SwitchOn }),
		listOpt(optHelp{long: "switch-off", argh: "event", help: "stop printing samples at one of this event"}, func(c *runner.Config) **string { return &c.SwitchOff }),
		boolOpt(optHelp{long: "show-on-off-events", help: "print the samples of the --switch-on and --switch-off events too"}, func(c *runner.Config) *bool { return &c.ShowOnOff }),
		{optHelp: optHelp{short: 'j', argh: "n", help: "decode and print with n workers (default: one per CPU)"},
			set: func(cfg *runner.Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 {
					return fmt.Errorf("invalid -j value %q", v)
				}
				cfg.Workers = n
				return nil
			}},
	}
	return t
}

// scriptHelp is perfpt script's usage in perf's shape: the options perfpt
// takes, and perf's whole table to resolve names against.
var scriptHelp = func() *perfUsage {
	u := &perfUsage{lines: []string{"perfpt script [<options>]"}}
	for _, o := range scriptOptTable() {
		if o.implemented() {
			u.opts = append(u.opts, o.optHelp)
		}
		u.perf = append(u.perf, o.optHelp)
	}
	return u
}()

// scriptSink applies the options parseOptions reads to a perf script
// command line (parseScriptArgs).
type scriptSink struct {
	table  []scriptOpt
	apply  func(o scriptOpt, short bool, at string, m longMatch, val string) error
	refuse func(error)
	cfg    *runner.Config
	u      *perfUsage
}

func (k *scriptSink) option(r optRead) error {
	o, u := k.table[r.i], k.u
	given := "--" + r.m.opt.long
	if r.short {
		given = "-" + r.given
	}
	switch {
	case o.long == "list" || o.long == "list-dlfilters":
		// --no-NAME too: perf's callbacks do not look at unset.
		return listed(o.long)
	case r.m.unset && o.unset == nil:
		k.refuse(o.refusal(u, negation(r.m.opt.long)))
	case r.m.unset:
		o.unset(k.cfg)
	case o.argh == "" && !o.implemented():
		k.refuse(o.refusal(u, given))
	case o.argh == "":
		o.flag(k.cfg)
	case !o.implemented():
		// perf's checks of its value first; a later error of perf's
		// is perf's answer.
		k.refuse(o.refusal(u, given))
	case o.long == "itrace":
		if _, err := sample.ParseItrace(r.val); err != nil {
			return u.valueError(false, r.given, err.Error())
		}
		if err := addItrace(k.cfg, r.val); err != nil {
			return u.notDoneValue(err)
		}
	default:
		return k.apply(o, r.short, r.given, r.m, r.val)
	}
	return nil
}

// listed is what perf script -l and --list-dlfilters print on stdout (and
// exit 0) as soon as the option is parsed: the headings of their lists,
// empty in perfpt.
type listed string

func (l listed) Error() string {
	if l == "list" {
		return "List of available trace scripts:\n"
	}
	return "List of available dlfilters:\n"
}

// operands: perf script takes what follows "--", or the first argument
// that is no option, as the name of a script to run.
func (k *scriptSink) operands(args []string) error {
	if args[0] == "--" {
		args = args[1:]
	}
	if len(args) > 0 {
		return noScript(k.u, args[0])
	}
	return nil
}

// noScript is perf script's answer to an argument that is no option: it
// is the name of a script to run, and perfpt runs none.
func noScript(u *perfUsage, name string) error {
	return &usageError{usage: u, full: true, raw: true,
		msg: fmt.Sprintf("  Error: Couldn't find script `%s'\n\n perfpt script runs no scripts.\n\n", name)}
}

// presetTrace is what perf's parse_insn_trace, parse_call_trace and
// parse_callret_trace set: fields changed as -F FIELDS changes them, the
// itrace options, nanoseconds, and (pad > 0) padded DSO names.
func presetTrace(cfg *runner.Config, fields, itrace string, pad int) error {
	cfg.Fields = append(cfg.Fields, fields)
	if err := addItrace(cfg, itrace); err != nil {
		return err
	}
	cfg.Nanosecs = true
	if pad > 0 {
		cfg.PadDSO = pad
	}
	return nil
}

// addItrace adds an --itrace value (or a preset's) to cfg's as perf's
// itrace_do_parse_synth_opts does: it sets the options it names on top of
// those set before, so that the letters of one value read after
// another's give the same options ("cewp" then "cr" is "cewpcr"; checked
// against perf 6.1 for presets and --itrace values). A value without
// options (perf's defaults) replaces them. But each call also gives
// instructions set before it the default period when it sets none
// itself, which no single string says: a value after one with
// instructions is refused unless it sets them again.
func addItrace(cfg *runner.Config, v string) error {
	if cfg.ItraceSet && cfg.Itrace != "" && v != "" {
		if strings.ContainsRune(cfg.Itrace, 'i') && !strings.ContainsRune(v, 'i') {
			return errors.New("perfpt does not implement --itrace=" + v + " after instructions were asked for (" + cfg.Itrace + ")")
		}
		v = cfg.Itrace + v
	}
	cfg.Itrace, cfg.ItraceSet = v, true
	return nil
}

// perfMessage is an option's refusal in perf's own words, printed as it is.
type perfMessage string

func (m perfMessage) Error() string { return string(m) }

// errNotNumber is a numeric option's value that is no number: perf's
// "expects a numerical value".
var errNotNumber = errors.New("expects a numerical value")

// strtol10 is C's strtol(v, &end, 10) as perf's OPT_INTEGER and
// OPT_UINTEGER read a value, with their check that *end is the end
// (cnum.Whole: "" is 0); false when it is not.
func strtol10(v string) (int64, bool) {
	n, k, _ := cnum.Strtol(v, 10)
	return n, cnum.Whole(v, k)
}

// errNotUnsigned is a negative value of an option perf reads unsigned.
var errNotUnsigned = errors.New("expects an unsigned numerical value")

// parseScriptArgs parses perf script's options as perf's parse-options
// does (parse_options_step). A command line perf refuses is refused with
// perf's message and status (usageError): an unknown option, a missing
// value, an ambiguous abbreviation, and the values perf checks while it
// parses (-F, --itrace, --max-stack). One of perf's options that perfpt
// does not implement is refused as such.
func parseScriptArgs(args []string) (cfg runner.Config, help bool, err error) {
	table := scriptOptTable()
	u := scriptHelp
	// fields checks each -F as perf's parse_output_fields does while
	// the options are parsed; the runner applies them again (and prints
	// their warnings) when the command line is good.
	fields := script.DefaultFields()
	var warns []string
	// apply gives o its value; at names the option as given (a letter,
	// or the text after "--"), m the long option found.
	apply := func(o scriptOpt, short bool, at string, m longMatch, val string) error {
		fail := func(msg string) error {
			if short {
				return u.valueError(true, at, msg)
			}
			e := u.longError(m, at, "")
			e.msg = msg + "\n"
			return e
		}
		if o.long == "fields" {
			w, err := fields.Parse(val)
			warns = append(warns, w...)
			if err != nil {
				return fail(strings.Join(append(warns, err.Error()), "\n"))
			}
		}
		if err := o.set(&cfg, val); err != nil {
			var pm perfMessage
			if errors.As(err, &pm) {
				return fail(string(pm))
			}
			if errors.Is(err, errNotNumber) || errors.Is(err, errNotUnsigned) {
				if short {
					return u.optError(true, at, err.Error())
				}
				return u.longError(m, at, err.Error())
			}
			return fail("perfpt: " + err.Error())
		}
		return nil
	}
	// An option perfpt does not implement is refused when the whole
	// command line has been read, as perf would have accepted it: a
	// later error of perf's is perf's answer.
	var refusal error
	refuse := func(err error) {
		if refusal == nil {
			refusal = err
		}
	}
	helps := make([]optHelp, len(table))
	kinds := make([]optKind, len(table))
	for i, o := range table {
		helps[i] = o.optHelp
		switch {
		case o.argh == "":
			kinds[i] = '-'
		case o.optArg:
			kinds[i] = 'o'
		default:
			kinds[i] = 'v'
		}
	}
	help, err = parseOptions(u, helps, kinds, args, &scriptSink{table: table, apply: apply, refuse: refuse, cfg: &cfg, u: u})
	if help || err != nil {
		return cfg, help, err
	}
	if refusal == nil && cfg.DebugMode && (cfg.CPUsSet || cfg.PIDs != "" || cfg.TIDs != "") {
		// perf checks the order before its -C, --pid and --tid
		// filters; perfpt's session filters first.
		refusal = u.notDoneValue(errors.New("perfpt does not implement -d/--debug-mode with -C, --pid or --tid"))
	}
	return cfg, false, refusal
}
