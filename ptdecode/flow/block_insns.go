package flow

import (
	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// BlockInsns calls fn with each instruction of b in execution order,
// decoding them from img (the image b was decoded with), until fn returns
// false. It follows direct jumps and calls inside the block. The error is
// query.CodeNoMap or query.CodeBadInsn when an instruction cannot be read
// again (the image changed), after fn saw the instructions before it.
func BlockInsns(img *image.Image, b *Block, fn func(in *insn.Insn) bool) error {
	var m *image.Mapping
	ip := b.IP
	for n := b.NInsn; n > 0; n-- {
		in := insn.Insn{IP: ip, Mode: b.Mode}
		if ip == b.EndIP && b.Truncated {
			if insn.Decode(&in, b.Raw[:b.RawSize], b.Mode) != nil {
				return query.CodeBadInsn
			}
			in.IP, in.Truncated = ip, true
		} else {
			if m == nil || !m.Contains(ip) {
				var ok bool
				if m, ok = img.Find(ip); !ok {
					return query.CodeNoMap
				}
			}
			if insn.Decode(&in, m.Bytes(ip), b.Mode) != nil {
				return query.CodeBadInsn
			}
		}
		if !fn(&in) {
			return nil
		}
		if next, ok := in.NextIP(); ok {
			ip = next
		} else {
			ip += uint64(in.Size)
		}
	}
	return nil
}
