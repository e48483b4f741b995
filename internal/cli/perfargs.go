package cli

import (
	"flag"
	"io"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// perf's option tables for the commands that dump, header and record mirror
// (perf report, perf record), as perf 6.1 lists them: in the order of
// `perf CMD --list-opts` (the order parse_long_opt searches, which decides
// what an abbreviation resolves to), each "LETTER NAME KIND;" where LETTER
// is "." for none, NAME "." for none, and KIND how it takes a value
// (from `perf CMD -h`): "-" none, "v" a value, "o" an optional value given
// only with "=" or glued to its letter, "l" a value, the next argument
// when there is one (PARSE_OPT_LASTARG_DEFAULT).
const (
	perfReportOpts = "i input v;v verbose -;q quiet -;D dump-raw-trace -;. stats -;. tasks -;. mmaps -;k vmlinux v;" +
		". ignore-vmlinux -;. kallsyms v;f force -;m modules -;n show-nr-samples -;T threads -;. pretty v;. tui -;" +
		". stdio -;. header -;. header-only -;s sort v;F fields v;. show-cpu-utilization -;. showcpuutilization -;" +
		"p parent v;x exclude-other -;g call-graph l;. children -;. max-stack v;G inverted -;. ignore-callees v;" +
		"d dsos v;c comms v;. pid v;. tid v;S symbols v;. symbol-filter v;w column-widths v;t field-separator v;" +
		"U hide-unresolved -;. symfs v;C cpu v;I show-info -;. source -;. asm-raw -;M disassembler-style v;" +
		". prefix v;. prefix-strip v;. show-total-period -;. group -;. group-sort-idx v;b branch-stack -;" +
		". branch-history -;. objdump v;. demangle -;. demangle-kernel -;. mem-mode -;. samples v;. percent-limit v;" +
		". percentage v;. itrace o;. full-source-path -;. show-ref-call-graph -;. stitch-lbr -;. socket-filter v;" +
		". raw-trace -;. hierarchy -;. stdio-color v;. time v;. inline -;. percent-type v;. ns -;. time-quantum v;" +
		". switch-on v;. switch-off v;. show-on-off-events -;. total-cycles -;. disable-order -;. skip-empty -;"
	// perf record's -g has no long name (--call-graph takes a value).
	perfRecordOpts = "e event v;. filter v;. exclude-perf -;p pid v;t tid v;r realtime v;. no-buffering -;R raw-samples -;" +
		"a all-cpus -;C cpu v;c count v;o output v;i no-inherit -;. tail-synthesize -;. overwrite -;" +
		". no-bpf-event -;. strict-freq -;F freq v;m mmap-pages v;. mmap-flush v;. group -;. call-graph v;" +
		"v verbose -;q quiet -;s stat -;d data -;. phys-data -;. data-page-size -;. code-page-size -;. sample-cpu -;" +
		". sample-identifier -;T timestamp -;P period -;n no-samples -;N no-buildid-cache -;B no-buildid -;" +
		"G cgroup v;D delay v;. kcore -;u uid v;b branch-any -;j branch-filter v;W weight -;. transaction -;" +
		". per-thread -;I intr-regs o;. user-regs o;. running-time -;k clockid v;S snapshot o;. aux-sample o;" +
		". proc-map-timeout v;. namespaces -;. all-cgroups -;. switch-events -;. all-kernel -;. all-user -;" +
		". kernel-callchains -;. user-callchains -;. clang-path v;. clang-opt v;. vmlinux v;. buildid-all -;" +
		". buildid-mmap -;. timestamp-filename -;. timestamp-boundary -;. switch-output o;. switch-output-event v;" +
		". switch-max-files v;. dry-run -;. aio o;. affinity v;z compression-level o;. max-size v;" +
		". num-thread-synthesize v;. control v;. synth v;. debuginfod o;. threads o;. off-cpu -;g . -;"
)

// perfOpt is one option of a perf command's table, and perfpt's flag for
// it (nil: perfpt does not implement it).
type perfOpt struct {
	optHelp
	kind byte // '-', 'v', 'o', 'l' (see perfReportOpts)
	ours ucli.Flag
}

// takesValue says whether a urfave flag reads a value.
func takesValue(f ucli.Flag) bool {
	d, ok := f.(ucli.DocGenerationFlag)
	return ok && d.TakesValue()
}

// perfOptTable is a perf command's table (perfReportOpts, perfRecordOpts)
// joined with a perfpt command's flags: perf's options in perf's order,
// each with perfpt's flag of the same long name (or, for one without, the
// same letter), those named in same (perf's option that the command is:
// dump is perf report -D) taken as they are; perfpt's own flags before
// them.
func perfOptTable(spec string, flags []ucli.Flag, same ...string) []perfOpt {
	byName := map[string]ucli.Flag{}
	for _, f := range flags {
		for _, n := range f.Names() {
			byName[n] = f
		}
	}
	used := map[ucli.Flag]bool{}
	var t []perfOpt
	for _, e := range strings.Split(strings.TrimSuffix(spec, ";"), ";") {
		p := strings.Fields(e)
		o := perfOpt{kind: p[2][0]}
		if p[0] != "." {
			o.short = p[0][0]
		}
		if p[1] != "." {
			o.long = p[1]
			o.ours = byName[o.long]
		} else {
			o.ours = byName[p[0]]
		}
		if o.kind != '-' {
			o.argh = "..."
			o.optArg = o.kind == 'o'
		}
		for _, s := range same {
			if o.long == s {
				o.kind = 's'
			}
		}
		if o.ours != nil {
			used[o.ours] = true
		}
		t = append(t, o)
	}
	// perfpt's own options come first: an abbreviation that is
	// ambiguous among perf's options names the same two as perf's error.
	var own []perfOpt
	for _, f := range flags {
		if used[f] {
			continue
		}
		o := perfOpt{kind: '-', ours: f}
		for _, n := range f.Names() {
			if len(n) == 1 {
				o.short = n[0]
			} else if o.long == "" {
				o.long = n
			}
		}
		if takesValue(f) {
			o.kind, o.argh = 'v', "..."
		}
		own = append(own, o)
	}
	return append(own, t...)
}

// valueChecker is a flag whose values perf's option callback checks as
// the command line is read: checkValue returns perf's message for a value
// perf refuses, or perfpt's refusal of one perf takes and perfpt does not.
type valueChecker interface {
	checkValue(v string) (perfMsg string, notDone error)
}

// perfArgs reads a command line as perf's parse-options reads it
// (parse_options_step) against t, and writes it again for the flag package
// behind perfpt's command: clusters of short options split ("-fi FILE",
// "-ifile": the flag package would read "-bogus" as an option named
// "bogus" where perf reads -b, -o, ...), long options by their whole names
// (abbreviations resolved in perf's order, "--no-X" of a flag as
// "--X=false"). An unknown letter or name is refused as perf refuses it;
// one of perf's options perfpt does not implement is refused as such once
// the whole command line is read (perf would take it: a later error is
// perf's answer). Reading stops at the first argument that is no option,
// or "--", as perf record's does.
func perfArgs(u *perfUsage, t []perfOpt, args []string) (out []string, help bool, err error) {
	helps := make([]optHelp, len(t))
	kinds := make([]optKind, len(t))
	for i, o := range t {
		helps[i], kinds[i] = o.optHelp, o.kind
		switch {
		case o.kind == 's' || o.ours == nil:
		case !takesValue(o.ours) && o.kind != 'o':
			kinds[i] = '-' // perfpt's switch for perf's option with a value
		case takesValue(o.ours) && o.kind == 'o':
			kinds[i] = 'v'
		}
	}
	k := &flagSink{t: t, u: u}
	help, err = parseOptions(u, helps, kinds, args, k)
	if help || err != nil {
		return nil, help, err
	}
	return k.out, false, k.refusal
}

// flagSink writes the options parseOptions reads again for the flag
// package behind a perfpt command (perfArgs).
type flagSink struct {
	t       []perfOpt
	u       *perfUsage
	out     []string
	refusal error
}

func (k *flagSink) refuse(given string, o perfOpt) {
	if k.refusal == nil {
		k.refusal = k.u.notImplemented(given, o.optHelp)
	}
}

// name is how the flag package knows o.
func (k *flagSink) name(o perfOpt) string {
	if o.long != "" && o.ours != nil {
		for _, n := range o.ours.Names() {
			if n == o.long {
				return "--" + n
			}
		}
	}
	return "-" + o.ours.Names()[0]
}

func (k *flagSink) option(r optRead) error {
	o := k.t[r.i]
	given := "--" + o.long
	if r.short {
		given = "-" + r.given
	}
	switch {
	case o.kind == 's':
		if r.m.unset {
			k.refuse(negation(o.long), o)
		}
	case r.m.unset:
		if o.ours == nil || takesValue(o.ours) {
			k.refuse(negation(o.long), o)
			return nil
		}
		k.out = append(k.out, k.name(o)+"=false")
	case o.kind == 'o' && o.ours != nil && !takesValue(o.ours) && r.hasVal:
		// perf's optional value, which perfpt's flag has not.
		if r.short {
			k.refuse(given+r.val, o)
		} else {
			k.refuse(given+"="+r.val, o)
		}
	case o.ours == nil || !r.hasVal && o.kind == 'l':
		k.refuse(given, o)
	case !takesValue(o.ours):
		k.out = append(k.out, k.name(o))
	case o.kind == '-':
		// perf's switch, perfpt's flag with a value.
		if r.short {
			k.refuse(given, o)
			return nil
		}
		k.out = append(k.out, k.name(o))
	default:
		if vc, ok := o.ours.(valueChecker); ok {
			msg, notDone := vc.checkValue(r.val)
			if msg != "" {
				at, _, _ := strings.Cut(r.given, "=")
				return k.u.valueError(r.short, at, msg)
			}
			if notDone != nil && k.refusal == nil {
				k.refusal = k.u.notDoneValue(notDone)
			}
		}
		k.out = append(k.out, k.name(o)+"="+r.val)
	}
	return nil
}

// operands: perf record's command and its arguments ("--" kept for the
// flag package).
func (k *flagSink) operands(args []string) error {
	k.out = append(k.out, args...)
	return nil
}

// parsePerfArgs is a perf-mirroring command's flag parsing: perfArgs, then
// the flag package on what it wrote, into a context for the command's
// action. Refusals are perf's (usageError).
func parsePerfArgs(c *ucli.Context, cmd *ucli.Command, u *perfUsage, t []perfOpt) (*ucli.Context, error) {
	args, help, err := perfArgs(u, t, c.Args().Slice())
	switch {
	case help:
		return nil, helpUsage(u)
	case err != nil:
		return nil, err
	}
	set := flag.NewFlagSet(cmd.Name, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	for _, f := range cmd.Flags {
		if err := f.Apply(set); err != nil {
			return nil, err
		}
	}
	if err := set.Parse(args); err != nil {
		return nil, u.fromFlagError(err)
	}
	nc := ucli.NewContext(c.App, set, c)
	nc.Command = cmd
	return nc, nil
}
