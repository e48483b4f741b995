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
	if o.argh != "" {
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

// longName mirrors parse_long_opt's lookup of a long option given as
// name: the option of that name, else the one whose name it starts (an
// abbreviation), in the table's order; "" when there is none. Two
// abbreviated matches are ambiguous: perf's error names the last two
// (at is the argument after "--", for the usage's option lines).
func (u *perfUsage) longName(name, at string) (string, error) {
	if name == "help" {
		return name, nil // parse-options' own
	}
	var prev, last string
	for _, o := range u.opts {
		switch {
		case o.long == name:
			return name, nil
		case o.long != "" && strings.HasPrefix(o.long, name):
			prev, last = last, o.long
		}
	}
	switch {
	case last == "":
		return "", u.unknownOption("--" + name)
	case prev != "":
		e := u.optError(false, at, "")
		e.msg = fmt.Sprintf(" Error: Ambiguous option: %s (could be --%s or --%s)\n", name, prev, last)
		return "", e
	}
	return last, nil
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
				if _, ok := f.(*ucli.StringFlag); ok {
					o.argh = "str"
				}
			}
		}
		u.opts = append(u.opts, o)
	}
	return u
}

// helpUsage is -h as parse-options answers it (usage_with_options): the
// whole usage, with no error line, on stderr, and status 129. --help gets
// the same: perf's opens the command's man page (status 0), which perfpt
// does not have, and the flag package that reads the options of dump,
// header and record cannot tell the two apart.
func helpUsage(u *perfUsage) *usageError {
	return &usageError{usage: u, full: true, raw: true}
}

// perfUsageErrors makes a urfave command refuse its bad command lines as
// perf does (see usageError), its usage text printed in perf's shape,
// and answer -h/--help as perf does (helpUsage); line is its first usage
// line.
func perfUsageErrors(c *ucli.Command, line string) *ucli.Command {
	u := flagsUsage(line, c.Flags)
	c.HideHelp = true // -h and --help come to fromFlagError
	c.OnUsageError = func(_ *ucli.Context, err error, _ bool) error {
		return u.fromFlagError(err)
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
