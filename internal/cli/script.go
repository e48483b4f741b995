package cli

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/script/runner"
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

// scriptOpt is one of perf script's options that perfpt takes.
type scriptOpt struct {
	optHelp
	set  func(cfg *runner.Config, v string) error // an option with a value
	flag func(cfg *runner.Config)                 // one without
	// unset is --no-NAME of a flag (parse-options' negation of a
	// boolean option).
	unset func(cfg *runner.Config)
}

// scriptOptTable lists perfpt script's options (--itrace, whose value is
// optional, is parsed apart but listed for the usage; -h/--help, parsed
// apart too, is not listed, as perf does not list it).
func scriptOptTable() []scriptOpt {
	str := func(dst func(*runner.Config) *string) func(*runner.Config, string) error {
		return func(cfg *runner.Config, v string) error { *dst(cfg) = v; return nil }
	}
	on := func(dst func(*runner.Config) *bool) func(*runner.Config) {
		return func(cfg *runner.Config) { *dst(cfg) = true }
	}
	off := func(dst func(*runner.Config) *bool) func(*runner.Config) {
		return func(cfg *runner.Config) { *dst(cfg) = false }
	}
	t := []scriptOpt{
		{optHelp: optHelp{short: 'i', long: "input", argh: "file", help: "the recording to read (perf.data; - for a pipe)"},
			set: str(func(c *runner.Config) *string { return &c.Input })},
		{optHelp: optHelp{short: 'F', long: "fields", argh: "str", help: "fields to print, perf's: [type:]f1,f2 sets, +f adds, -f removes"},
			set: func(cfg *runner.Config, v string) error { cfg.Fields = append(cfg.Fields, v); return nil }},
		{optHelp: optHelp{short: 'C', long: "cpu", argh: "cpu", help: "only samples of these CPUs (0-2,5)"},
			set: str(func(c *runner.Config) *string { return &c.CPUs })},
		{optHelp: optHelp{long: "pid", argh: "pid[,pid...]", help: "only these processes"},
			set: str(func(c *runner.Config) *string { return &c.PIDs })},
		{optHelp: optHelp{long: "tid", argh: "tid[,tid...]", help: "only these threads"},
			set: str(func(c *runner.Config) *string { return &c.TIDs })},
		{optHelp: optHelp{long: "time", argh: "str", help: "time ranges (start,stop in seconds, or percentages)"},
			set: str(func(c *runner.Config) *string { return &c.Time })},
		{optHelp: optHelp{long: "symfs", argh: "directory", help: "look for binaries and debug files under this root"},
			set: str(func(c *runner.Config) *string { return &c.Symfs })},
		{optHelp: optHelp{short: 'k', long: "vmlinux", argh: "file", help: "the kernel image's symbols"},
			set: str(func(c *runner.Config) *string { return &c.Vmlinux })},
		{optHelp: optHelp{long: "kallsyms", argh: "file", help: "kernel symbols from this kallsyms file"},
			set: str(func(c *runner.Config) *string { return &c.Kallsyms })},
		{optHelp: optHelp{long: "max-stack", argh: "n", help: "print at most n call chain entries"},
			set: func(cfg *runner.Config, v string) error {
				n, err := strconv.Atoi(v)
				switch {
				case err != nil:
					return errNotNumber
				case n < 0:
					return errNotUnsigned
				}
				cfg.MaxStack = n
				if n == 0 {
					cfg.MaxStack = -1 // perf: no entries at all
				}
				return nil
			}},
		{optHelp: optHelp{long: "max-blocks", argh: "n", help: "print at most n branch stack entries"},
			set: func(cfg *runner.Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil {
					return errNotNumber
				}
				switch {
				case n == -1:
					// perf's count+1 wraps to 0 and it reads
					// before the branch stack.
					return errors.New("--max-blocks -1: perf reads out of bounds with it")
				case n < 0:
					// perf reads it with strtol into an unsigned
					// int: a huge count, all the blocks.
					n = 0
				}
				cfg.MaxBlocks = n
				return nil
			}},
		{optHelp: optHelp{short: 'j', argh: "n", help: "decode and print with n workers (default: one per CPU)"},
			set: func(cfg *runner.Config, v string) error {
				n, err := strconv.Atoi(v)
				if err != nil || n < 1 {
					return fmt.Errorf("invalid -j value %q", v)
				}
				cfg.Workers = n
				return nil
			}},
		{optHelp: optHelp{long: "itrace", argh: "opts", optArg: true, help: "synthesize events from the instruction trace (perf's itrace options)"}},
		{optHelp: optHelp{long: "ns", help: "print times in nanoseconds"}, flag: on(func(c *runner.Config) *bool { return &c.Nanosecs }), unset: off(func(c *runner.Config) *bool { return &c.Nanosecs })},
		{optHelp: optHelp{long: "reltime", help: "times relative to the first sample"}, flag: on(func(c *runner.Config) *bool { return &c.RelTime }), unset: off(func(c *runner.Config) *bool { return &c.RelTime })},
		{optHelp: optHelp{long: "deltatime", help: "times relative to the previous event"}, flag: on(func(c *runner.Config) *bool { return &c.DeltaTime }), unset: off(func(c *runner.Config) *bool { return &c.DeltaTime })},
		{optHelp: optHelp{short: 'G', long: "hide-call-graph", help: "no call chains"}, flag: on(func(c *runner.Config) *bool { return &c.NoCallchain }), unset: off(func(c *runner.Config) *bool { return &c.NoCallchain })},
		{optHelp: optHelp{long: "header", help: "print the header first"}, flag: on(func(c *runner.Config) *bool { return &c.Header }), unset: off(func(c *runner.Config) *bool { return &c.Header })},
		{optHelp: optHelp{long: "header-only", help: "print the header only"}, flag: on(func(c *runner.Config) *bool { return &c.HeaderOnly }), unset: off(func(c *runner.Config) *bool { return &c.HeaderOnly })},
		{optHelp: optHelp{short: 'I', long: "show-info", help: "with --header: the extended header sections too"}, flag: on(func(c *runner.Config) *bool { return &c.ShowInfo }), unset: off(func(c *runner.Config) *bool { return &c.ShowInfo })},
		{optHelp: optHelp{short: 'f', long: "force", help: "read files owned by others"}, flag: on(func(c *runner.Config) *bool { return &c.Force }), unset: off(func(c *runner.Config) *bool { return &c.Force })},
		{optHelp: optHelp{long: "no-demangle", help: "do not demangle symbol names"}, flag: on(func(c *runner.Config) *bool { return &c.NoDemangle })},
		// Kallsyms' names are never demangled, by perf either: this
		// demangles a -k/--vmlinux ELF's symbols.
		{optHelp: optHelp{long: "demangle-kernel", help: "demangle the kernel ELF's (-k) symbol names"}, flag: on(func(c *runner.Config) *bool { return &c.DemangleKernel }), unset: off(func(c *runner.Config) *bool { return &c.DemangleKernel })},
		{optHelp: optHelp{long: "demangle", help: "demangle symbol names (the default)"}, flag: off(func(c *runner.Config) *bool { return &c.NoDemangle })},
		{optHelp: optHelp{short: 'v', long: "verbose", help: "more detail (demangled parameters)"}, flag: on(func(c *runner.Config) *bool { return &c.Verbose }), unset: off(func(c *runner.Config) *bool { return &c.Verbose })},
		{optHelp: optHelp{long: "inline", help: "show inlined functions in call chains (default)"}, flag: func(cfg *runner.Config) { cfg.NoInline = false }},
		{optHelp: optHelp{long: "no-inline", help: "no inlined functions in call chains"}, flag: on(func(c *runner.Config) *bool { return &c.NoInline })},
		{optHelp: optHelp{long: "stitch-lbr", help: "stitch LBR call stacks across samples"}, flag: on(func(c *runner.Config) *bool { return &c.StitchLBR }), unset: off(func(c *runner.Config) *bool { return &c.StitchLBR })},
		{optHelp: optHelp{short: 'D', long: "dump-raw-trace", help: "dump raw trace in ASCII"}, flag: on(func(c *runner.Config) *bool { return &c.DumpRaw }), unset: off(func(c *runner.Config) *bool { return &c.DumpRaw })},
	}
	var show []string
	for name := range runner.ShowOptions {
		show = append(show, name)
	}
	sort.Strings(show)
	for _, name := range show {
		bit := runner.ShowOptions[name]
		t = append(t, scriptOpt{optHelp: optHelp{long: name, help: "print the " + strings.TrimSuffix(strings.TrimPrefix(name, "show-"), "-events") + " side-band events"},
			flag: func(cfg *runner.Config) { cfg.Show |= bit }, unset: func(cfg *runner.Config) { cfg.Show &^= bit }})
	}
	return t
}

// scriptHelp is perfpt script's usage in perf's shape.
var scriptHelp = func() *perfUsage {
	u := &perfUsage{lines: []string{"perfpt script [<options>]"}}
	for _, o := range scriptOptTable() {
		u.opts = append(u.opts, o.optHelp)
	}
	return u
}()

// scriptOptions is perf script's option table for cfg: the options that
// take a value (short letter or long name -> setter), and those that do not.
// --itrace (whose value is optional) and -h/--help are parsed apart.
func scriptOptions(cfg *runner.Config) (set map[string]func(string) error, flags map[string]func()) {
	set = map[string]func(string) error{}
	flags = map[string]func(){}
	for _, o := range scriptOptTable() {
		var names []string
		if o.short != 0 {
			names = append(names, string(o.short))
		}
		if o.long != "" {
			names = append(names, o.long)
		}
		for _, n := range names {
			switch {
			case o.set != nil:
				set[n] = func(v string) error { return o.set(cfg, v) }
			case o.flag != nil:
				flags[n] = func() { o.flag(cfg) }
			}
		}
	}
	return set, flags
}

// scriptNegations are the --no-NAME forms of the flags that have one, by
// NAME: perf's parse-options takes them for every boolean option.
func scriptNegations(cfg *runner.Config) map[string]func() {
	m := map[string]func(){}
	for _, o := range scriptOptTable() {
		if o.unset != nil && o.long != "" {
			m[o.long] = func() { o.unset(cfg) }
		}
	}
	return m
}

// errNotNumber is a numeric option's value that is no number: perf's
// "expects a numerical value".
var errNotNumber = errors.New("expects a numerical value")

// errNotUnsigned is a negative value of an option perf reads unsigned.
var errNotUnsigned = errors.New("expects an unsigned numerical value")

// parseScriptArgs parses perf script's options. A command line perf
// refuses is refused with perf's message and status (usageError): an
// unknown option, a missing value, and the values perf checks while it
// parses (-F, --itrace, --max-stack).
func parseScriptArgs(args []string) (cfg runner.Config, help bool, err error) {
	set, flags := scriptOptions(&cfg)
	unsets := scriptNegations(&cfg)
	u := scriptHelp
	// fields checks each -F as perf's parse_output_fields does while
	// the options are parsed; the runner applies them again (and prints
	// their warnings) when the command line is good.
	fields := script.DefaultFields()
	var warns []string
	apply := func(short bool, at, name, val string) error {
		if name == "F" || name == "fields" {
			w, err := fields.Parse(val)
			warns = append(warns, w...)
			if err != nil {
				return u.valueError(short, at, strings.Join(append(warns, err.Error()), "\n"))
			}
		}
		if err := set[name](val); err != nil {
			if errors.Is(err, errNotNumber) || errors.Is(err, errNotUnsigned) {
				return u.optError(short, at, err.Error())
			}
			return u.valueError(short, at, "perfpt: "+err.Error())
		}
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help":
			return cfg, true, nil
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			if rest, ok := strings.CutPrefix(name, "no-"); ok && flags[name] == nil && unsets[rest] != nil {
				if hasVal {
					return cfg, false, u.optError(false, a[2:], "takes no value")
				}
				unsets[rest]()
				continue
			}
			name, err := u.longName(name, a[2:])
			if err != nil {
				return cfg, false, err
			}
			switch name {
			case "help":
				return cfg, true, nil
			case "itrace":
				cfg.ItraceSet = true
				cfg.Itrace = val
				if _, err := sample.ParseItrace(cfg.Itrace); err != nil {
					return cfg, false, u.valueError(false, a[2:], err.Error())
				}
				continue
			}
			if f, ok := flags[name]; ok {
				if hasVal {
					return cfg, false, u.optError(false, a[2:], "takes no value")
				}
				f()
				continue
			}
			if _, ok := set[name]; !ok {
				return cfg, false, u.unknownOption("--" + name)
			}
			if !hasVal {
				if i+1 >= len(args) {
					return cfg, false, u.optError(false, a[2:], "requires a value")
				}
				i++
				val = args[i]
			}
			if err := apply(false, a[2:], name, val); err != nil {
				return cfg, false, err
			}
		case len(a) > 1 && a[0] == '-':
			// Glued short options: "-Gi file", "-Fip,sym", "-j4".
			for k := 1; k < len(a); k++ {
				l := a[k : k+1]
				if f, ok := flags[l]; ok {
					f()
					continue
				}
				if _, ok := set[l]; !ok {
					return cfg, false, u.unknownOption("-" + l)
				}
				val := a[k+1:]
				if val == "" {
					if i+1 >= len(args) {
						return cfg, false, u.optError(true, l, "requires a value")
					}
					i++
					val = args[i]
				}
				if err := apply(true, l, l, val); err != nil {
					return cfg, false, err
				}
				break
			}
		default:
			// perf script takes a further argument as the name of a
			// script to run; perfpt runs none.
			return cfg, false, &usageError{usage: u, full: true, raw: true,
				msg: fmt.Sprintf("  Error: Couldn't find script `%s'\n\n perfpt script runs no scripts.\n\n", a)}
		}
	}
	return cfg, false, nil
}
