// Package cli holds perfpt's subcommands. Each command lives in a file of its
// own (dump.go, ptdump.go, ...) and is listed once in App.
package cli

import (
	"errors"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v2"

	"github.com/perfpt/perfpt/convert/srcline"
	"github.com/perfpt/perfpt/internal/cachedir"
	"github.com/perfpt/perfpt/internal/perfopt"
)

// exitError carries an exit status without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// App builds the perfpt command-line application writing to the given streams.
func App(stdin io.Reader, stdout, stderr io.Writer) *ucli.App {
	return &ucli.App{
		Name:      "perfpt",
		Usage:     "decode Intel PT perf.data recordings into perf script text, pprof and gcov",
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		// Errors are printed once, by Main.
		ExitErrHandler: func(*ucli.Context, error) {},
		Before: func(*ucli.Context) error {
			// Inflated debug sections are cached between runs.
			srcline.SetCacheDir(cachedir.Path("dwarf"))
			return nil
		},
		After: func(*ucli.Context) error {
			// The unit tables built in this run (srcline's unit cache).
			srcline.FlushCaches()
			return nil
		},
		Commands: []*ucli.Command{
			// The commands that mirror perf's refuse a bad command
			// line as perf does (perfusage.go).
			perfUsageErrors(recordCommand(), "perfpt record [<options>] [<command>]", perfRecordOpts),
			scriptCommand(),
			pprofCommand(),
			gcovCommand(),
			perfUsageErrors(dumpCommand(), "perfpt dump [<options>]", perfReportOpts, "dump-raw-trace"),
			perfUsageErrors(headerCommand(), "perfpt header [<options>]", perfReportOpts, "header-only"),
			ptdumpCommand(),
			ptxedCommand(),
			timelineCommand(),
		},
	}
}

// Main runs perfpt with args (args[0] is the program name) and returns the
// process exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := App(stdin, stdout, stderr).Run(args)
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		ue.write(stderr)
		return usageStatus
	}
	var pe *perfopt.Exit
	if errors.As(err, &pe) {
		// perf's own message and status, then perfpt's detail.
		if pe.Msg != "" {
			fmt.Fprintln(stderr, pe.Msg)
		}
		if pe.Detail != nil {
			fmt.Fprintf(stderr, "perfpt: %v\n", pe.Detail)
		}
		return pe.Status
	}
	fmt.Fprintf(stderr, "perfpt: %v\n", err)
	return 1
}
