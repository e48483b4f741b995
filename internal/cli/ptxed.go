package cli

import (
	"github.com/perfpt/perfpt/ptdecode/ptxed"
	ucli "github.com/urfave/cli/v2"
)

// ptxed takes libipt ptxed's own command line (options like --raw f:addr,
// --filter:addr0_cfg N, repeated and order-dependent), so flags are not
// parsed here but handed to ptdecode/ptxed as they are.
func ptxedCommand() *ucli.Command {
	return &ucli.Command{
		Name:            "ptxed",
		Usage:           "decode the instruction flow of an Intel PT trace like libipt's ptxed",
		UsageText:       "perfpt ptxed [--block-decoder|--insn-decoder] --raw FILE[:FROM[-TO]]:ADDR | --elf FILE[:ADDR] ... --pt FILE [-j N] [ptxed options]",
		Description:     "Options as libipt's ptxed. Without --no-inst, instructions are disassembled in AT&T syntax as GNU objdump spells it (x86asm), with or without --att: libipt's ptxed prints XED's Intel syntax by default and XED's AT&T spelling with --att, so only --no-inst output is libipt's. -j N decodes PSB chunks in parallel with N workers (block decoder); the output is the same.",
		SkipFlagParsing: true,
		Action: func(c *ucli.Context) error {
			if code := ptxed.Main(c.Args().Slice(), c.App.Writer, c.App.ErrWriter); code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
}
