package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// The perf-mirroring commands (script, dump, header, record) refuse a bad
// command line as perf's parse-options does (tools/lib/subcmd/
// parse-options.c): exit status 129, perf's error line, then a usage text
// of the same shape as perf's, listing perfpt's own options.

// usageStatus is perf's exit status for a command line it refuses.
const usageStatus = 129

// optHelp is one line of an option table as perf's print_option_help
// prints it.
type optHelp struct {
	short  byte   // 0: none
	long   string // "": none
	argh   string // the value's name; "" for an option without one
	optArg bool   // the value is optional ("--itrace[=<opts>]")
	help   string
}

// perfUsage is a command's usage text: its usage lines and option table.
type perfUsage struct {
	lines []string // "perfpt script [<options>]", ...
	opts  []optHelp
	// perf is perf's own option table, in its order, when perfpt
	// does not take all of it: names are resolved against it
	// (abbreviations as perf resolves them) and those not in opts
	// refused as not implemented.
	perf []optHelp
}

// usageOptsWidth and usageGap are parse-options' column layout: the help
// starts at column 26, on a line of its own when the option is wider.
const (
	usageOptsWidth = 24
	usageGap       = 2
)

// writeOption prints one option line (print_option_help).
func writeOption(w io.Writer, o optHelp) {
	var b strings.Builder
	b.WriteString("    ")
	if o.short != 0 {
		b.WriteString("-" + string(o.short))
	} else {
		b.WriteString("    ")
	}
	if o.short != 0 && o.long != "" {
		b.WriteString(", ")
	}
	if o.long != "" {
		b.WriteString("--" + o.long)
	}
	if o.argh == "..." {
		// parse-options' text for an option with no value name.
		switch {
		case !o.optArg:
			b.WriteString(" ...")
		case o.long != "":
			b.WriteString("[=...]")
		default:
			b.WriteString("[...]")
		}
	} else if o.argh != "" {
		switch {
		case !o.optArg:
			b.WriteString(" <" + o.argh + ">")
		case o.long != "":
			b.WriteString("[=<" + o.argh + ">]")
		default:
			b.WriteString("[<" + o.argh + ">]")
		}
	}
	pad := usageOptsWidth - b.Len()
	if pad < 0 {
		b.WriteByte('\n')
		pad = usageOptsWidth
	}
	fmt.Fprintf(w, "%s%*s%s\n", b.String(), pad+usageGap, "", o.help)
}

// sorted returns the option table in perf's order (options__order,
// option__cmp): by short letter ignoring case, options without one last,
// then by long name.
func (u *perfUsage) sorted() []optHelp {
	opts := append([]optHelp(nil), u.opts...)
	key := func(o optHelp) int {
		if o.short == 0 {
			return 'z' + 1
		}
		c := o.short
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		return int(c)
	}
	sort.SliceStable(opts, func(i, j int) bool {
		if ki, kj := key(opts[i]), key(opts[j]); ki != kj {
			return ki < kj
		}
		return opts[i].long < opts[j].long
	})
	return opts
}

// writeLines prints the usage lines ("\n Usage: ...", "    or: ...") and
// the blank line after them.
func (u *perfUsage) writeLines(w io.Writer) {
	for i, l := range u.lines {
		if i == 0 {
			fmt.Fprintf(w, "\n Usage: %s\n", l)
		} else {
			fmt.Fprintf(w, "    or: %s\n", l)
		}
	}
	fmt.Fprintln(w)
}

// writeFull prints the whole usage (usage_with_options): the lines, every
// option, a blank line.
func (u *perfUsage) writeFull(w io.Writer) {
	u.writeLines(w)
	for _, o := range u.sorted() {
		writeOption(w, o)
	}
	fmt.Fprintln(w)
}

// usageError is a command line refused as perf's parse-options refuses it;
// Main prints it and exits with usageStatus.
type usageError struct {
	usage *perfUsage
	// full: an unknown option: "  Error: msg", then the whole usage.
	// Otherwise msg is printed as it is (a value's own error line, or
	// parse-options' " Error: ..." without its newline), then the usage
	// lines and the table lines of the option at fault
	// (parse_options_usage): short names it given as a switch ("-F"), long
	// the text after "--" (options whose name starts with it; with
	// "=value" glued on, none).
	full bool
	// raw (with full): msg is printed as it is, not as "  Error: msg".
	raw   bool
	msg   string
	short byte
	long  string
}

func (e *usageError) Error() string { return strings.TrimSpace(e.msg) }

// write prints the refusal as perf does.
func (e *usageError) write(w io.Writer) {
	if e.full {
		if e.raw {
			io.WriteString(w, e.msg)
		} else {
			fmt.Fprintf(w, "  Error: %s\n", e.msg)
		}
		e.usage.writeFull(w)
		return
	}
	io.WriteString(w, e.msg)
	e.usage.writeLines(w)
	for _, o := range e.usage.opts {
		switch {
		case e.short != 0:
			if o.short == e.short {
				writeOption(w, o)
				return
			}
		case o.long != "" && e.long != "" && strings.HasPrefix(o.long, e.long):
			writeOption(w, o)
		}
	}
}

// unknownOption is parse-options' refusal of an option it does not know:
// arg is as given ("--bogus", "-x": the letter at fault).
func (u *perfUsage) unknownOption(arg string) *usageError {
	if strings.HasPrefix(arg, "--") {
		return &usageError{usage: u, full: true, msg: fmt.Sprintf("unknown option `%s'", arg[2:])}
	}
	return &usageError{usage: u, full: true, msg: fmt.Sprintf("unknown switch `%s'", strings.TrimPrefix(arg, "-"))}
}

// longMatch is the option parse_long_opt finds for the text after "--".
type longMatch struct {
	opt    optHelp
	unset  bool   // --no-NAME (OPT_UNSET)
	val    string // the value glued on with '=' (p->opt)
	hasVal bool
}

// parseLong mirrors parse_long_opt (tools/lib/subcmd/parse-options.c) over
// the command's table in perf's order (u.table): an exact name (with
// "=value"), else the one abbreviation of a name or of its negation
// "no-NAME"; two abbreviations are ambiguous and perf's error names the
// last two. arg is the text after "--".
func (u *perfUsage) parseLong(arg string) (longMatch, error) {
	name, _, hasEq := strings.Cut(arg, "=")
	var abbrev, ambiguous longMatch
	found, twice := false, false
	// pOpt is parse-options' p->opt, set by an abbreviation given with
	// "=value" and kept even if a later negated abbreviation wins.
	var pOpt string
	pSet := false
	abbreviated := func(o optHelp, unset bool) {
		if found {
			ambiguous, twice = abbrev, true
		}
		if !unset && hasEq {
			pOpt, pSet = arg[len(name)+1:], true
		}
		abbrev, found = longMatch{opt: o, unset: unset}, true
	}
	for _, o := range u.table() {
		if o.long == "" {
			continue
		}
		rest, ok := strings.CutPrefix(arg, o.long)
		unset := false
		if !ok {
			if neg, isNeg := strings.CutPrefix(o.long, "no-"); isNeg {
				// The name itself starts with "no-": NAME without it
				// is its negation.
				if r, ok2 := strings.CutPrefix(arg, neg); ok2 {
					rest, ok, unset = r, true, true
				} else if strings.HasPrefix(neg, arg) {
					abbreviated(o, true)
					continue
				}
			}
		}
		if !ok {
			switch {
			case strings.HasPrefix(o.long, name):
				abbreviated(o, false)
				continue
			case strings.HasPrefix("no-", arg):
				// "negated and abbreviated very much": --n, --no, --no-
				abbreviated(o, true)
				continue
			case !strings.HasPrefix(arg, "no-"):
				continue
			}
			unset = true
			r, ok2 := strings.CutPrefix(arg[3:], o.long)
			if !ok2 {
				if strings.HasPrefix(o.long, arg[3:]) {
					abbreviated(o, true)
				}
				continue
			}
			rest = r
		}
		if rest != "" {
			if rest[0] != '=' {
				continue
			}
			pOpt, pSet = rest[1:], true
		}
		return longMatch{opt: o, unset: unset, val: pOpt, hasVal: pSet}, nil
	}
	switch {
	case twice:
		no := func(m longMatch) string {
			if m.unset {
				return "no-"
			}
			return ""
		}
		e := &usageError{usage: u, long: arg}
		e.msg = fmt.Sprintf(" Error: Ambiguous option: %s (could be --%s%s or --%s%s)\n", arg, no(ambiguous), ambiguous.opt.long, no(abbrev), abbrev.opt.long)
		return longMatch{}, e
	case found:
		abbrev.val, abbrev.hasVal = pOpt, pSet
		return abbrev, nil
	}
	return longMatch{}, u.unknownOption("--" + arg)
}

// table is the option table parse-options searches: perf's whole table
// when the command refuses some of perf's options (u.perf), else the
// options perfpt lists.
func (u *perfUsage) table() []optHelp {
	if u.perf != nil {
		return u.perf
	}
	return u.opts
}

// longError is parse-options' opterror for a long option: " Error: option
// `NAME' REASON", NAME the option's whole name (with "no-" when negated);
// at is the argument as given after "--", whose matching options the
// usage lists (parse_options_usage).
func (u *perfUsage) longError(m longMatch, at, reason string) *usageError {
	name := m.opt.long
	if m.unset {
		name = "no-" + name
	}
	return &usageError{usage: u, long: at, msg: fmt.Sprintf(" Error: option `%s' %s", name, reason)}
}

// notDoneValue refuses a use of an option perfpt does not implement, err
// saying which, as notImplemented refuses an option.
func (u *perfUsage) notDoneValue(err error) *usageError {
	return &usageError{usage: u, full: true, msg: err.Error()}
}

// negation is how the negation of the long option name is given: "--no-X",
// or "--X" for an option named "no-X" (parse_long_opt).
func negation(name string) string {
	if rest, ok := strings.CutPrefix(name, "no-"); ok {
		return "--" + rest
	}
	return "--no-" + name
}

// notImplemented refuses an option of perf's that perfpt does not have
// (status 129, with the whole usage, as an unknown option is refused):
// given is how it was named ("-a", "--all-cpus", "--no-itrace").
func (u *perfUsage) notImplemented(given string, o optHelp) *usageError {
	name := given
	switch {
	case o.long != "" && given == negation(o.long):
		// the negation, named by itself
	case strings.Contains(given, "=") || (len(given) > 2 && given[1] != '-'):
		// perf's optional value ("-Se", "--snapshot=e")
		name = fmt.Sprintf("a value of --%s (%s)", o.long, given)
	case o.long != "" && o.short != 0:
		name = fmt.Sprintf("-%c/--%s", o.short, o.long)
	case o.long != "":
		name = "--" + o.long
	}
	return &usageError{usage: u, full: true, msg: "perfpt does not implement " + name + " (an option of perf's)"}
}

// optError is parse-options' opterror: " Error: switch `x' REASON" for an
// option given by its letter, " Error: option `name' REASON" otherwise; at
// is the option as given (a letter, or the text after "--").
func (u *perfUsage) optError(short bool, at, reason string) *usageError {
	e := &usageError{usage: u}
	if short {
		e.short = at[0]
		e.msg = fmt.Sprintf(" Error: switch `%c' %s", at[0], reason)
	} else {
		e.long = at
		name, _, _ := strings.Cut(at, "=")
		e.msg = fmt.Sprintf(" Error: option `%s' %s", name, reason)
	}
	return e
}

// valueError is a refusal by an option's own parser (perf's callbacks
// print their message, then parse_options_usage runs): msg is that
// message, without its newline.
func (u *perfUsage) valueError(short bool, at, msg string) *usageError {
	e := u.optError(short, at, "")
	e.msg = msg + "\n"
	return e
}

// flagsUsage is the usage of a urfave command in perf's shape: its flags,
// with one-letter aliases as short options.
func flagsUsage(line string, flags []ucli.Flag) *perfUsage {
	u := &perfUsage{lines: []string{line}}
	for _, f := range flags {
		var o optHelp
		for _, n := range f.Names() {
			if len(n) == 1 {
				o.short = n[0]
			} else if o.long == "" {
				o.long = n
			}
		}
		if d, ok := f.(ucli.DocGenerationFlag); ok {
			o.help = d.GetUsage()
			if d.TakesValue() {
				o.argh = "n"
				switch f.(type) {
				case *ucli.StringFlag:
					o.argh = "str"
				case *callGraphFlag:
					o.argh = "record_mode[,record_size]"
				}
			}
		}
		u.opts = append(u.opts, o)
	}
	return u
}

// errUsage is an action's way to say what perf's usage_with_options says
// after the options are parsed: the usage on stderr, status 129.
var errUsage = errors.New("usage")

// helpUsage is -h as parse-options answers it (usage_with_options): the
// whole usage, with no error line, on stderr, and status 129. --help gets
// the same: perf's opens the command's man page (status 0), which perfpt
// does not have, and the flag package that reads the options of dump,
// header and record cannot tell the two apart.
func helpUsage(u *perfUsage) *usageError {
	return &usageError{usage: u, full: true, raw: true}
}

// perfUsageErrors makes a urfave command read its command line as perf's
// command perfSpec (perfReportOpts, perfRecordOpts) reads it (perfArgs: short
// option clusters, abbreviations, negations), refuse its bad command lines
// as perf does (see usageError), with its usage text printed in perf's
// shape, refuse perf's options it does not implement as such, and answer
// -h/--help as perf does (helpUsage); line is its first usage line, same
// the options of perf's that the command is (dump is perf report -D).
func perfUsageErrors(c *ucli.Command, line, perfSpec string, same ...string) *ucli.Command {
	u := flagsUsage(line, c.Flags)
	t := perfOptTable(perfSpec, c.Flags, same...)
	for _, o := range t {
		u.perf = append(u.perf, o.optHelp)
	}
	c.HideHelp = true
	c.SkipFlagParsing = true
	action := c.Action
	c.Action = func(ctx *ucli.Context) error {
		nc, err := parsePerfArgs(ctx, c, u, t)
		if err != nil {
			return err
		}
		err = action(nc)
		if errors.Is(err, errUsage) {
			return helpUsage(u)
		}
		return err
	}
	return c
}

// fromFlagError turns the flag package's refusal into parse-options'.
// The flag package reads "-name" and "--name" alike: a one-letter name is
// taken as a switch, a longer one as a long option.
func (u *perfUsage) fromFlagError(err error) error {
	msg := err.Error()
	dashed := func(name string) string {
		if len(name) == 1 {
			return "-" + name
		}
		return "--" + name
	}
	if errors.Is(err, flag.ErrHelp) {
		// -h, -help or --help, which the command does not define.
		return helpUsage(u)
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return u.unknownOption(dashed(name))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return u.optError(len(name) == 1, name, "requires a value")
	}
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		if _, name, ok := strings.Cut(rest, " for -"); ok {
			name, _, _ = strings.Cut(name, ":")
			return u.optError(len(name) == 1, name+"=", "takes no value")
		}
	}
	return &usageError{usage: u, msg: " Error: " + msg}
}
