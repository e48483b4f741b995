package flow

import (
	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// modeOf converts the event layer's execution mode.
func modeOf(m query.ExecMode) insn.Mode { return insn.Mode(m) }

// blockCache caches decoded straight-line runs per image mapping.
type blockCache struct{}

func (d *BlockDecoder) proceedNoEventCached(b *Block, m *image.Mapping) query.Code {
	return d.proceedNoEventUncached(b)
}
