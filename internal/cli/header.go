package cli

import ucli "github.com/urfave/cli/v2"

func headerCommand() *ucli.Command {
	return &ucli.Command{
		Name:   "header",
		Usage:  "(not implemented yet)",
		Action: func(*ucli.Context) error { return errNotImplemented },
	}
}
