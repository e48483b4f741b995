package cli

import ucli "github.com/urfave/cli/v2"

func ptdumpCommand() *ucli.Command {
	return &ucli.Command{
		Name:   "ptdump",
		Usage:  "(not implemented yet)",
		Action: func(*ucli.Context) error { return errNotImplemented },
	}
}
