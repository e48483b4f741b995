package cli

import ucli "github.com/urfave/cli/v2"

func scriptCommand() *ucli.Command {
	return &ucli.Command{
		Name:   "script",
		Usage:  "(not implemented yet)",
		Action: func(*ucli.Context) error { return errNotImplemented },
	}
}
