package cli

import (
	"errors"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v2"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/perfdata/perftext"
)

func dumpCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "dump",
		Usage:     "list every record, like perf report -D",
		UsageText: "perfpt dump [-i perf.data|-] [--file-order]",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "input", Aliases: []string{"i"}, Value: "perf.data", Usage: "input file, - for standard input (pipe or file mode)"},
			&ucli.BoolFlag{Name: "file-order", Usage: "list records as stored instead of in perf's time order"},
		},
		Action: func(c *ucli.Context) error {
			f, err := openInput(c, c.String("input"))
			if err != nil {
				return err
			}
			defer f.Close()
			if !f.Pipe && f.Data.Size == 0 {
				// perf_session__read_header's warning; perf report -D
				// then fails on the first record.
				fmt.Fprintf(c.App.ErrWriter, "WARNING: The %s file's data size field is 0 which is unexpected.\n"+
					"Was the 'perf record' command properly terminated?\n", c.String("input"))
			}
			opt := perftext.DumpOptions{Order: perfdata.TimeOrder}
			if c.Bool("file-order") {
				opt.Order = perfdata.FileOrder
			}
			return reportRecordError(c.App.ErrWriter, perftext.Dump(c.App.Writer, f, opt), f.Pipe, true)
		},
	}
}

// reportRecordError prints what perf report prints when a record cannot be
// processed (a header smaller than itself): the session's message, then,
// with -D, its own "Error: failed to process sample"; perf report still
// exits 0. Other errors are returned.
func reportRecordError(w io.Writer, err error, pipe, dump bool) error {
	var hs *perfdata.HeaderSizeError
	if !errors.As(err, &hs) {
		return err
	}
	if pipe {
		fmt.Fprintln(w, "bad event header size")
	} else {
		fmt.Fprintf(w, "%s [%s]: failed to process type: %d [Invalid argument]\n", cHex(uint64(hs.Offset)), cHex(uint64(hs.Size)), hs.Type)
	}
	if dump {
		fmt.Fprint(w, "Error:\nfailed to process sample\n")
	}
	return nil
}

// cHex is C's %#x: 0 has no prefix.
func cHex(v uint64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%#x", v)
}
