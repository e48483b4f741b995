package cli

import ucli "github.com/urfave/cli/v2"

func gcovCommand() *ucli.Command {
	return &ucli.Command{
		Name:   "gcov",
		Usage:  "(not implemented yet)",
		Action: func(*ucli.Context) error { return errNotImplemented },
	}
}
