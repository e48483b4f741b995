package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/perfpt/perfpt/convert/pprof"
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
			&ucli.StringFlag{Name: "time", Usage: "only samples in START,STOP (seconds, as perf script --time)"},
			&ucli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "PT decode workers (default: one per CPU)"},
			&ucli.StringFlag{Name: "symfs", Usage: "look for binaries below this directory"},
		},
		Action: func(c *ucli.Context) error {
			var o pprof.Options
			var err error
			if o.Granularity, err = pprof.ParseGranularity(c.String("granularity")); err != nil {
				return err
			}
			if o.PIDs, err = parseIDList(c.String("pid")); err != nil {
				return err
			}
			if o.TIDs, err = parseIDList(c.String("tid")); err != nil {
				return err
			}
			if o.TimeFrom, o.TimeTo, err = parseTimeRange(c.String("time")); err != nil {
				return err
			}
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

// parseIDList parses "1,2,3"; "" gives nil (no filter).
func parseIDList(s string) (map[int32]bool, error) {
	if s == "" {
		return nil, nil
	}
	m := map[int32]bool{}
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("invalid id %q", f)
		}
		m[int32(v)] = true
	}
	return m, nil
}

// parseTimeRange parses perf's "START,STOP" in seconds (either may be
// empty) into nanoseconds.
func parseTimeRange(s string) (from, to uint64, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, _ := strings.Cut(s, ",")
	conv := func(v string) (uint64, error) {
		v = strings.TrimSpace(v)
		if v == "" {
			return 0, nil
		}
		sec, frac, _ := strings.Cut(v, ".")
		n, err := strconv.ParseUint(sec, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("invalid time %q", v)
		}
		ns := n * 1e9
		if frac != "" {
			frac = (frac + "000000000")[:9]
			f, err := strconv.ParseUint(frac, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("invalid time %q", v)
			}
			ns += f
		}
		return ns, nil
	}
	if from, err = conv(a); err != nil {
		return
	}
	to, err = conv(b)
	return
}
