package flow

import (
	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// Insn is one executed instruction.
type Insn struct {
	insn.Insn
	Speculative bool   // executed inside a TSX transaction
	MapID       uint64 // image mapping it was read from
}

// InsnDecoder reconstructs the execution flow instruction by instruction
// (libipt's pt_insn_decoder). Like libipt's, it is built on the block
// decoder, so both report the same instructions, events and errors.
type InsnDecoder struct {
	blk    *BlockDecoder
	block  Block
	status Status
	err    error
}

// NewInsnDecoder returns an instruction decoder over the trace in buf.
func NewInsnDecoder(buf []byte, img *image.Image, cfg *Config) *InsnDecoder {
	return &InsnDecoder{blk: NewBlockDecoder(buf, img, cfg)}
}

// Blocks returns the underlying block decoder (for Offset, Time, SetImage...).
func (d *InsnDecoder) Blocks() *BlockDecoder { return d.blk }

func (d *InsnDecoder) set(s Status, err error) (Status, error) {
	d.block = Block{}
	d.status, d.err = s, err
	return s, err
}

// SyncForward synchronises at the next PSB.
func (d *InsnDecoder) SyncForward() (Status, error) { return d.set(d.blk.SyncForward()) }

// SyncSet synchronises at the PSB at off.
func (d *InsnDecoder) SyncSet(off uint64) (Status, error) { return d.set(d.blk.SyncSet(off)) }

// Resync recovers from an error (see BlockDecoder.Resync).
func (d *InsnDecoder) Resync() (Status, error) { return d.set(d.blk.Resync()) }

// Event returns the pending event.
func (d *InsnDecoder) Event(ev *query.Event) (Status, error) {
	if d.block.NInsn != 0 {
		return 0, query.CodeBadQuery
	}
	s, err := d.blk.Event(ev)
	if err != nil {
		return s, err
	}
	d.status, d.err = s, nil
	return s, nil
}

// Next returns the next instruction in in. When an event is pending first
// it returns StatusEventPending with the error query.CodeEventIgnored.
// After an error, in.Class is insn.ClassUnknown unless the instruction
// itself was decoded (then it executed and the error is about what follows).
func (d *InsnDecoder) Next(in *Insn) (Status, error) {
	b := &d.block
	*in = Insn{Speculative: b.Speculative, MapID: b.MapID}
	in.IP, in.Mode = b.IP, b.Mode
	for b.NInsn == 0 {
		if d.err != nil {
			return 0, d.err
		}
		if d.status&StatusEventPending != 0 {
			return StatusEventPending, query.CodeEventIgnored
		}
		d.status, d.err = d.blk.Next(b)
		*in = Insn{Speculative: b.Speculative, MapID: b.MapID}
		in.IP, in.Mode = b.IP, b.Mode
		if b.NInsn != 0 {
			break
		}
		if d.err != nil {
			return 0, d.err
		}
		if d.status&StatusEventPending != 0 {
			return StatusEventPending, query.CodeEventIgnored
		}
	}
	var c query.Code
	if b.Truncated && b.NInsn == 1 {
		if insn.Decode(&in.Insn, b.Raw[:b.RawSize], b.Mode) != nil {
			c = query.CodeBadInsn
		}
		in.Truncated = true
	} else {
		var raw [insn.MaxSize]byte
		_, c = decodeInsn(d.blk.img, &in.Insn, d.blk.curMsec(), &raw)
	}
	if c != 0 {
		in.Class = insn.ClassUnknown
		return 0, c
	}
	b.NInsn--
	if b.NInsn != 0 {
		ip, c := nextIP(&in.Insn)
		if c != 0 {
			return 0, c
		}
		b.IP = ip
		return 0, nil
	}
	if b.IP != b.EndIP {
		return 0, query.CodeInternal
	}
	return d.status, d.err
}
