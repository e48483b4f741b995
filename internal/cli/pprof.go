package cli

import (
	"os"

	ucli "github.com/urfave/cli/v2"

	"github.com/perfpt/perfpt/convert/pprof"
	"github.com/perfpt/perfpt/internal/perfopt"
)

func pprofCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "pprof",
		Usage:     "write a pprof profile from a PT or sampled recording",
		UsageText: "perfpt pprof [-i perf.data] [-o profile.pb.gz] [--granularity function|line|address] [--pid PIDS] [--tid TIDS] [--time START,STOP] [-j N]",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "input", Aliases: []string{"i"}, Value: "perf.data", Usage: "perf.data file to read"},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "profile.pb.gz", Usage: "profile to write (\"-\" for stdout)"},
			&ucli.StringFlag{Name: "granularity", Value: "address", Usage: "what a location stands for: function, line or address"},
			&ucli.StringFlag{Name: "pid", Usage: "only these process ids (comma-separated)"},
			&ucli.StringFlag{Name: "tid", Usage: "only these thread ids (comma-separated)"},
			&ucli.StringFlag{Name: "time", Usage: "only samples in these time ranges, as perf report --time: START,STOP (seconds; several separated by spaces) or percentages (10%/2, 0%-10%)"},
			&ucli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "PT decode workers (default: 1, where the decoder counts the profile itself; -j N decodes N chunks in parallel at more CPU)"},
			&ucli.StringFlag{Name: "symfs", Usage: "look for binaries below this directory"},
		},
		Action: func(c *ucli.Context) error {
			var o pprof.Options
			var err error
			if o.Granularity, err = pprof.ParseGranularity(c.String("granularity")); err != nil {
				return err
			}
			if o.PIDs, err = perfopt.ParseIDs(c.String("pid"), "pid"); err != nil {
				return err
			}
			if o.TIDs, err = perfopt.ParseIDs(c.String("tid"), "tid"); err != nil {
				return err
			}
			o.Time = c.String("time")
			o.Workers, o.Symfs = c.Int("jobs"), c.String("symfs")
			p, err := pprof.Convert(c.String("input"), o)
			if err != nil {
				return err
			}
			out := c.String("output")
			if out == "-" {
				return pprof.Write(c.App.Writer, p)
			}
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			if err := pprof.Write(f, p); err != nil {
				f.Close()
				return err
			}
			return f.Close()
		},
	}
}
