package cli

import ucli "github.com/urfave/cli/v2"

func dumpCommand() *ucli.Command {
	return &ucli.Command{
		Name:   "dump",
		Usage:  "(not implemented yet)",
		Action: func(*ucli.Context) error { return errNotImplemented },
	}
}
