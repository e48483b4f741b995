package cli

import (
	"errors"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v2"

	"github.com/perfpt/perfpt/convert/session"
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
			f, err := openInput(c, inputPath(c))
			if err != nil {
				return err
			}
			defer f.Close()
			noData := warnNoData(c, f)
			opt := perftext.DumpOptions{Order: perfdata.TimeOrder}
			if c.Bool("file-order") {
				opt.Order = perfdata.FileOrder
			}
			// perf report's machine prints a sample's thread and DSO.
			// It loads the symbols of each sample's map (machine__resolve:
			// map__find_symbol), with perf's warnings.
			s, err := session.New(f, session.Options{Warn: func(msg string) { fmt.Fprintln(c.App.ErrWriter, msg) }})
			if err != nil {
				return err
			}
			if err := s.CheckTracepointFormats(); err != nil {
				return err
			}
			opt.Machine = s.DumpMachine()
			opt.Aux = session.DumpAux
			opt.Warn = c.App.ErrWriter
			if err := reportRecordError(c.App.ErrWriter, perftext.Dump(c.App.Writer, f, opt), f.Pipe, true); err != nil {
				return err
			}
			if noData {
				// __perf_session__process_events fails without a record.
				fmt.Fprint(c.App.ErrWriter, "Error:\nfailed to process sample\n")
			}
			return nil
		},
	}
}

// warnNoData prints perf_session__read_header's warning about a file-mode
// recording whose data size is 0 (perf report then has no records to
// process) and reports whether it did.
func warnNoData(c *ucli.Context, f *perfdata.File) bool {
	if f.Pipe || f.Data.Size != 0 {
		return false
	}
	fmt.Fprintf(c.App.ErrWriter, "WARNING: The %s file's data size field is 0 which is unexpected.\n"+
		"Was the 'perf record' command properly terminated?\n", c.String("input"))
	return true
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
