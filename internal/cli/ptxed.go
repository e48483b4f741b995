package cli

import ucli "github.com/urfave/cli/v2"

func ptxedCommand() *ucli.Command {
	return &ucli.Command{
		Name:   "ptxed",
		Usage:  "(not implemented yet)",
		Action: func(*ucli.Context) error { return errNotImplemented },
	}
}
