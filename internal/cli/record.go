package cli

import ucli "github.com/urfave/cli/v2"

func recordCommand() *ucli.Command {
	return &ucli.Command{
		Name:   "record",
		Usage:  "(not implemented yet)",
		Action: func(*ucli.Context) error { return errNotImplemented },
	}
}
