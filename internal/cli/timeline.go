package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/timeline"
	"github.com/perfpt/perfpt/internal/perfopt"
)

const timelineUsage = `perfpt timeline [-i perf.data] [-o FILE] [--format fxt|json] [--itrace=ewxp]
       [--pid PIDS] [--tid TIDS] [--time START,STOP] [--min-duration D]
       [--max-depth N] [-j N] [--symfs DIR] [--kallsyms FILE]

Writes the recording as a timeline: the Fuchsia trace format (.fxt,
.fxt.gz), which Perfetto UI (ui.perfetto.dev) opens, or Chrome's JSON
Trace Event Format (.json, .json.gz), which Perfetto UI, chrome://tracing,
speedscope and Firefox Profiler open; the extension chooses, or --format.`

func timelineCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "timeline",
		Usage:     "write the decoded flow (or the samples) as a timeline for Perfetto, chrome://tracing or speedscope",
		UsageText: timelineUsage,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "input", Aliases: []string{"i"}, Value: "perf.data", Usage: "perf.data file to read (\"-\": a pipe-mode stream on stdin)"},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "timeline.fxt", Usage: "timeline to write: .fxt, .fxt.gz, .json or .json.gz (\"-\": stdout, with --format)"},
			&ucli.StringFlag{Name: "format", Usage: "fxt (Fuchsia trace format) or json (Chrome Trace Event Format); default: from the extension"},
			&ucli.StringFlag{Name: "itrace", Value: "ewxp", Usage: "PT events besides calls and returns, perf's letters: e (decode errors), w (ptwrite), x (transactions), p (CBR and power events); without w, x and p the decode is faster (and can run in parallel)"},
			&ucli.StringFlag{Name: "pid", Usage: "only these process ids (comma-separated)"},
			&ucli.StringFlag{Name: "tid", Usage: "only these thread ids (comma-separated)"},
			&ucli.StringFlag{Name: "time", Usage: "only this window, as perf script --time: START,STOP (seconds) or a percentage (10%/2, 20%-30%); one range"},
			&ucli.StringFlag{Name: "min-duration", Usage: "leave out slices shorter than this (a duration: 500ns, 2us, 1ms; a number is nanoseconds)"},
			&ucli.IntFlag{Name: "max-depth", Usage: "leave out slices deeper than this many calls (0: all)"},
			&ucli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "PT decode workers (default: one per CPU; used where the --itrace events allow, as perf script)"},
			&ucli.StringFlag{Name: "symfs", Usage: "look for binaries below this directory"},
			&ucli.StringFlag{Name: "kallsyms", Usage: "kernel symbols from this file instead of /proc/kallsyms"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("timeline: unexpected argument %q", c.Args().First())
			}
			o, err := timelineOptions(c)
			if err != nil {
				return err
			}
			out := c.String("output")
			f, gz, err := timelineFormat(out, c.String("format"))
			if err != nil {
				return err
			}
			if f, ok := c.App.ErrWriter.(*os.File); ok && isTerminal(f) {
				o.Progress = progressTo(f)
			}
			strs := timeline.NewStrings()
			var w timeline.Writer
			var closeOut func() error
			if out == "-" {
				w = timeline.NewWriter(f, c.App.Writer, strs)
				closeOut = w.Close
			} else {
				file, err := timeline.Create(out, f, gz, strs)
				if err != nil {
					return err
				}
				w, closeOut = file, file.Close
			}
			sum, err := timeline.Convert(c.String("input"), w, strs, o)
			if cerr := closeOut(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			report(c.App.ErrWriter, out, f, sum)
			return nil
		},
	}
}

// timelineOptions reads the options of perfpt timeline.
func timelineOptions(c *ucli.Context) (timeline.Options, error) {
	var o timeline.Options
	var err error
	if o.PIDs, err = perfopt.ParseIDs(c.String("pid"), "pid"); err != nil {
		return o, err
	}
	if o.TIDs, err = perfopt.ParseIDs(c.String("tid"), "tid"); err != nil {
		return o, err
	}
	o.Time = c.String("time")
	if o.Itrace, err = timelineItrace(c.String("itrace")); err != nil {
		return o, err
	}
	if s := c.String("min-duration"); s != "" {
		if o.MinDuration, err = parseDuration(s); err != nil {
			return o, err
		}
	}
	if o.MaxDepth = c.Int("max-depth"); o.MaxDepth < 0 {
		return o, fmt.Errorf("--max-depth %d: not a depth", o.MaxDepth)
	}
	if o.Workers = c.Int("jobs"); o.Workers < 0 {
		return o, fmt.Errorf("invalid -j value %d", o.Workers)
	}
	o.Symfs, o.Kallsyms = c.String("symfs"), c.String("kallsyms")
	if o.Kallsyms != "" {
		// perf's symbol__validate_sym_arguments: a file it cannot read.
		if f, err := os.Open(o.Kallsyms); err != nil {
			return o, fmt.Errorf("Invalid file: %s", o.Kallsyms)
		} else {
			f.Close()
		}
	}
	return o, nil
}

// timelineItrace parses --itrace: perf's letters e, w, x and p only (the
// flow, calls and returns, is always there).
func timelineItrace(s string) (*sample.Itrace, error) {
	it := &sample.Itrace{Set: true}
	for _, l := range s {
		switch l {
		case 'e':
			it.Errors = true
		case 'w':
			it.Ptwrites = true
		case 'x':
			it.Transactions = true
		case 'p':
			it.PwrEvents = true
		default:
			return nil, fmt.Errorf("--itrace=%s: a timeline takes e, w, x and p (it always shows calls and returns), not %q", s, l)
		}
	}
	return it, nil
}

// parseDuration reads a Go duration, or a number of nanoseconds.
func parseDuration(s string) (uint64, error) {
	if n, err := strconv.ParseUint(s, 10, 64); err == nil {
		return n, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("--min-duration %q: not a duration (500ns, 2us, 1ms)", s)
	}
	return uint64(d), nil
}

// timelineFormat chooses the format of out: --format, else its
// extension.
func timelineFormat(out, format string) (timeline.Format, bool, error) {
	ext, gz, known := timeline.FormatOf(out)
	if format == "" {
		if !known {
			return 0, false, fmt.Errorf("cannot tell the timeline format of %q: name it .fxt, .fxt.gz, .json or .json.gz, or give --format", out)
		}
		return ext, gz, nil
	}
	f, err := timeline.ParseFormat(format)
	if err != nil {
		return 0, false, err
	}
	if known && ext != f {
		return 0, false, fmt.Errorf("--format %s, but %q names a %s file", format, out, ext)
	}
	if out == "-" && gz {
		return 0, false, errors.New("-o -: no compression on stdout")
	}
	return f, gz, nil
}

// report tells what the timeline holds and how to open it.
func report(w io.Writer, out string, f timeline.Format, sum *timeline.Summary) {
	if sum.Timeless {
		fmt.Fprintln(w, "perfpt timeline: the recording has no timestamps: the timeline counts instructions (one instruction is shown as 1 ns)")
	}
	if sum.BeforeBase > 0 {
		fmt.Fprintf(w, "perfpt timeline: %d events timed before the recording's start were placed at it\n", sum.BeforeBase)
	}
	fmt.Fprintf(w, "perfpt timeline: %s\n", sum)
	if out == "-" {
		return
	}
	size := ""
	if st, err := os.Stat(out); err == nil {
		size = fmt.Sprintf(" (%.1f MB)", float64(st.Size())/1e6)
	}
	how := "open it in Perfetto UI (https://ui.perfetto.dev, Open trace file)"
	if f == timeline.FormatJSON {
		how = "open it in Perfetto UI (https://ui.perfetto.dev), chrome://tracing or speedscope (https://www.speedscope.app)"
	}
	fmt.Fprintf(w, "perfpt timeline: wrote %s%s: %s\n", out, size, how)
}

// progressTo prints the decode's progress on a terminal now and then.
func progressTo(w io.Writer) func(done, total int64) {
	last := time.Now()
	return func(done, total int64) {
		if time.Since(last) < time.Second || total <= 0 {
			return
		}
		last = time.Now()
		fmt.Fprintf(w, "\rperfpt timeline: %3d%%", done*100/total)
	}
}
