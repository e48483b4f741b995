package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/perfpt/perfpt/convert/gcov"
	"github.com/perfpt/perfpt/internal/perfopt"
)

func gcovCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "gcov",
		Usage:     "write .gcov (and gcov JSON, lcov) coverage from a PT recording",
		UsageText: "perfpt gcov [-i perf.data] [-o DIR] [-b] [-c] [-f] [-m] [--json] [--lcov FILE] [--pid PIDS] [--tid TIDS] [-j N]",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "input", Aliases: []string{"i"}, Value: "perf.data", Usage: "perf.data file to read"},
			&ucli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: ".", Usage: "directory for the .gcov files"},
			&ucli.BoolFlag{Name: "branch-probabilities", Aliases: []string{"b"}, Usage: "function, branch and call lines"},
			&ucli.BoolFlag{Name: "branch-counts", Aliases: []string{"c"}, Usage: "branch counts rather than percentages"},
			&ucli.BoolFlag{Name: "function-summaries", Aliases: []string{"f"}, Usage: "print a summary per function"},
			&ucli.BoolFlag{Name: "demangled-names", Aliases: []string{"m"}, Usage: "demangled function names (in the .gcov files and -f's summaries)"},
			&ucli.BoolFlag{Name: "json", Usage: "also write gcov's JSON intermediate format (.gcov.json.gz)"},
			&ucli.StringFlag{Name: "lcov", Usage: "also write an lcov tracefile to `FILE`"},
			&ucli.StringFlag{Name: "pid", Usage: "only these process ids (comma-separated)"},
			&ucli.StringFlag{Name: "tid", Usage: "only these thread ids (comma-separated)"},
			&ucli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "PT decode workers (default: 1; -j N decodes N chunks in parallel, each counting its own edges, merged in order, at a little more CPU)"},
			&ucli.StringFlag{Name: "symfs", Usage: "look for binaries below this directory"},
		},
		Action: func(c *ucli.Context) error {
			var o gcov.RecordingOptions
			var err error
			if o.PIDs, err = perfopt.ParseIDs(c.String("pid"), "pid"); err != nil {
				return err
			}
			if o.TIDs, err = perfopt.ParseIDs(c.String("tid"), "tid"); err != nil {
				return err
			}
			o.Workers, o.Symfs = c.Int("jobs"), c.String("symfs")
			input := c.String("input")
			rep, progs, err := gcov.FromRecording(input, o)
			if err != nil {
				return err
			}
			if len(rep.Files) == 0 {
				return fmt.Errorf("%s: no executed code with debug information (build with -g)", input)
			}
			dir := c.String("output")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			w := c.App.Writer
			topt := gcov.TextOptions{Branches: c.Bool("b"), Counts: c.Bool("c"), Demangle: c.Bool("m")}
			for _, f := range rep.Files {
				var src []string
				for _, p := range progs {
					if src = p.SourceLines(f.Name); src != nil {
						break
					}
				}
				var b bytes.Buffer
				if err := rep.WriteText(&b, f, src, topt); err != nil {
					return err
				}
				name := gcov.OutputName(f.Name)
				rep.WriteSummary(w, f, gcov.SummaryOptions{Functions: c.Bool("f"), Branches: c.Bool("b"), Demangle: c.Bool("m")})
				fmt.Fprintf(w, "Creating '%s'\n\n", name)
				if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
					return err
				}
			}
			if c.Bool("json") {
				cwd, _ := os.Getwd()
				base := strings.TrimSuffix(filepath.Base(input), filepath.Ext(input))
				if len(progs) > 0 {
					base = filepath.Base(progs[0].Path)
				}
				var b bytes.Buffer
				if err := rep.WriteJSONGz(&b, gcov.JSONOptions{CWD: cwd, DataFile: input, Branches: c.Bool("b")}); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, base+".gcov.json.gz"), b.Bytes(), 0o644); err != nil {
					return err
				}
			}
			if path := c.String("lcov"); path != "" {
				var b bytes.Buffer
				if err := rep.WriteLCOV(&b, ""); err != nil {
					return err
				}
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					return err
				}
			}
			return nil
		},
	}
}
