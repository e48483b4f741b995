package flow

import (
	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// lookup returns the mapping containing ip, remembering the last one.
func (d *BlockDecoder) lookup(ip uint64) *image.Mapping {
	if m := d.curMsec(); m != nil && m.Contains(ip) {
		return m
	}
	m, ok := d.img.Find(ip)
	if !ok {
		return nil
	}
	d.msec = m
	return m
}

// decodeInsn decodes the instruction at in.IP in in.Mode from the image
// (pt_insn_decode). An instruction that runs past the end of its mapping is
// completed from the next one and marked Truncated, its bytes copied to raw.
// It returns the mapping of its first byte.
func decodeInsn(img *image.Image, in *insn.Insn, m *image.Mapping, raw *[insn.MaxSize]byte) (*image.Mapping, query.Code) {
	if m == nil || !m.Contains(in.IP) {
		var ok bool
		if m, ok = img.Find(in.IP); !ok {
			return nil, query.CodeNoMap
		}
	}
	code := m.Bytes(in.IP)
	err := insn.Decode(in, code, in.Mode)
	if err == nil {
		in.Truncated = false
		return m, 0
	}
	if err != insn.ErrShort || len(code) >= insn.MaxSize {
		return m, query.CodeBadInsn
	}
	// Read the rest from the following mappings.
	n := copy(raw[:], code)
	for n < insn.MaxSize {
		k, rerr := img.Read(raw[n:], in.IP+uint64(n))
		if rerr != nil || k == 0 {
			break
		}
		n += k
		if err = insn.Decode(in, raw[:n], in.Mode); err == nil {
			in.Truncated = true
			return m, 0
		}
		if err != insn.ErrShort {
			break
		}
	}
	return m, query.CodeBadInsn
}

// curMsec returns the remembered mapping, unless the image changed since.
func (d *BlockDecoder) curMsec() *image.Mapping {
	if d.imgGen != d.img.Generation() {
		d.msec, d.imgGen = nil, d.img.Generation()
	}
	return d.msec
}
