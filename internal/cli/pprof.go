package cli

import ucli "github.com/urfave/cli/v2"

func pprofCommand() *ucli.Command {
	return &ucli.Command{
		Name:   "pprof",
		Usage:  "(not implemented yet)",
		Action: func(*ucli.Context) error { return errNotImplemented },
	}
}
