package cli

import (
	ucli "github.com/urfave/cli/v2"

	"github.com/perfpt/perfpt/ptdecode/ptdump"
)

// ptdump's options are libipt's, parsed by hand in ptdump.Main: they are
// order-sensitive (--pevent:* settings apply to the sideband files named
// after them) and have names urfave/cli cannot take (--cpuid-0x15.eax,
// --sb:compact).
func ptdumpCommand() *ucli.Command {
	return &ucli.Command{
		Name:            "ptdump",
		Usage:           "print an Intel PT trace packet by packet, like libipt's ptdump",
		ArgsUsage:       "[<options>] <ptfile>[:<from>[-<to>]]",
		SkipFlagParsing: true,
		Action: func(c *ucli.Context) error {
			if code := ptdump.Main(c.Args().Slice(), c.App.Writer, c.App.ErrWriter); code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
}
