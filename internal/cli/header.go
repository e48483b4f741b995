package cli

import (
	"os"
	"path/filepath"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/perfpt/perfpt/convert/script/runner"
	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/perftext"
)

func headerCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "header",
		Usage:     "print the header feature sections, like perf report --header-only",
		UsageText: "perfpt header [-i perf.data|-] [-I]",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "input", Aliases: []string{"i"}, Value: "perf.data", Usage: "input file, - for standard input (pipe or file mode)"},
			&ucli.BoolFlag{Name: "show-info", Aliases: []string{"I"}, Usage: "also print the sections perf shows only with -I (topology, caches)"},
		},
		Action: func(c *ucli.Context) error {
			path := inputPath(c)
			f, err := openInput(c, path)
			if err != nil {
				return err
			}
			defer f.Close()
			warnNoData(c, f)
			if err := session.CheckTracepointFormats(f); err != nil {
				return err
			}
			opt := perftext.HeaderOptions{Full: c.Bool("show-info")}
			if st, err := inputStat(c, path); err == nil {
				opt.Captured = st.ModTime().In(time.Local)
			}
			return reportRecordError(c.App.ErrWriter, perftext.Header(c.App.Writer, f, opt), f.Pipe, false)
		},
	}
}

// inputPath is the recording -i names, else standard input when it is a
// pipe (perf_data's check_pipe), else perf.data.
func inputPath(c *ucli.Context) string {
	if !c.IsSet("input") && stdinIsPipe(c) {
		return "-"
	}
	return c.String("input")
}

// stdinIsPipe says whether the command's standard input is a FIFO.
func stdinIsPipe(c *ucli.Context) bool {
	f, ok := c.App.Reader.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeNamedPipe != 0
}

// inputStat is the fstat perf's "captured on" line reads: of the file (a
// perf.data directory's data file, perf_data__fd), or of standard input
// for "-".
func inputStat(c *ucli.Context, path string) (os.FileInfo, error) {
	if path != "-" {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return os.Stat(filepath.Join(path, "data"))
		}
		return os.Stat(path)
	}
	if f, ok := c.App.Reader.(*os.File); ok {
		return f.Stat()
	}
	return nil, os.ErrNotExist
}

// openInput opens a perf.data file, or standard input for "-", with
// perf's messages and exit statuses for files it cannot open.
func openInput(c *ucli.Context, path string) (*perfdata.File, error) {
	if path == "-" {
		return perfdata.NewReader(c.App.Reader)
	}
	if err := runner.CheckEmpty(path); err != nil {
		return nil, err
	}
	f, err := perfdata.Open(path)
	if err != nil {
		return nil, runner.OpenError(path, err)
	}
	return f, nil
}
