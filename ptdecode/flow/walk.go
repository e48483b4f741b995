package flow

import (
	"errors"

	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// ErrorKind says at which step a decode error happened.
type ErrorKind uint8

const (
	ErrSync   ErrorKind = iota // synchronising at a PSB failed
	ErrDecode                  // decoding failed
	ErrResync                  // recovering from an error failed
)

var errorKindNames = [...]string{"sync error", "error", "resync error"}

func (k ErrorKind) String() string { return errorKindNames[k] }

// DecodeError is an error the walk reported and went on after (or
// stopped at): the trace offset (of the packet being processed) and the
// IP the error is attributed to, as ptxed prints them.
type DecodeError struct {
	Kind   ErrorKind
	Offset uint64
	IP     uint64
	Err    error
}

func (e *DecodeError) Error() string { return e.Kind.String() + ": " + e.Err.Error() }
func (e *DecodeError) Unwrap() error { return e.Err }

// Handler receives what a walk decodes, in trace order. The pointers are
// only valid during the call, and what they point to must not be changed
// (the walk goes on with the block it handed over). Block must not change
// the decoder's image; Event may (SetImage).
type Handler interface {
	// Block is called for every block (also empty ones) with the trace
	// offset at which it was decoded; only by WalkBlocks.
	Block(b *Block, offset uint64)
	// Insn is called for every instruction; only by WalkInsns.
	Insn(in *Insn, offset uint64)
	// Event is called for every event (status updates included; they have
	// StatusUpdate set) with the trace offset of the event decoder.
	Event(ev *query.Event, offset uint64)
	// Error reports a decode error.
	Error(e *DecodeError)
	// EndOfTrace is called when the trace ends with tracing enabled.
	EndOfTrace()
	// ResyncDisabled is called when a resync lands where tracing is disabled.
	ResyncDisabled()
}

// WalkOptions configure a walk.
type WalkOptions struct {
	// ResyncOnError resynchronises at the next event or PSB after an error
	// (ptxed --resync-on-error); otherwise the walk goes on at the next PSB.
	ResyncOnError bool
}

func codeOf(err error) query.Code { return query.CodeOf(err) }

// xedNextIP returns the IP after in the way ptxed computes it for error
// reports: fall-through plus the displacement of direct branches.
func xedNextIP(in *insn.Insn) uint64 {
	ip := in.IP + uint64(in.Size)
	if in.Direct && in.IClass != insn.IJmpAbs {
		ip += uint64(in.Disp)
	}
	return ip
}

// WalkBlocks decodes the whole trace with the block decoder, calling h for
// every block, event and error (ptxed's decode_block loop). It synchronises
// at every PSB the decoder cannot go on from.
func WalkBlocks(d *BlockDecoder, opt WalkOptions, h Handler) {
	d.walkBlocks(opt, h, nil)
}

// walkBlocks is WalkBlocks over the whole trace (c nil) or over one chunk
// of a parallel decode.
func (d *BlockDecoder) walkBlocks(opt WalkOptions, h Handler, c *chunk) {
	var sync uint64
	b := &d.scratchBlock
	first := true
	d.stall = stall{errOff: ^uint64(0)}
	for {
		*b = Block{}
		var s Status
		var err error
		if first && c != nil && !c.first {
			s, err = d.SyncSet(c.start)
			if c.spec && err == nil {
				// The walk before the chunk ended in a transaction
				// that the header does not end (parallel.go).
				d.speculative = true
			}
		} else {
			if c != nil && !c.last && !d.syncInChunk(c) {
				return // the walk goes on in a later chunk, or ends
			}
			s, err = d.SyncForward()
		}
		first = false
		if err != nil {
			if codeOf(err) == query.CodeEOS {
				return
			}
			d.diagnoseBlock(h, ErrSync, err, b)
			if ns := d.Offset(); ns <= sync {
				if c != nil {
					c.resume = noResume // a sequential walk gives up here
				}
				return
			} else {
				sync = ns
			}
			continue
		}
		for {
			for {
				if s == 0 && d.fastReady() {
					// The bulk of a trace: blocks that end at branch
					// trace, with nothing pending in between.
					if s, err = d.fastBlocks(b, blockHandler(h)); err != nil {
						break
					}
					continue
				}
				s, err = d.drain(h, s)
				if err != nil {
					break
				}
				if s&StatusEOS != 0 {
					if s&StatusIPSuppressed == 0 && (c == nil || c.last) {
						h.EndOfTrace()
					}
					err = query.CodeEOS
					break
				}
				if d.fastReady() {
					if s, err = d.fastBlocks(b, blockHandler(h)); err != nil {
						break
					}
					continue
				}
				off := d.Offset()
				s, err = d.Next(b)
				h.Block(b, off)
				if err != nil {
					break
				}
				if err = d.stall.check(off, uint64(b.NInsn)); err != nil {
					break
				}
			}
			if codeOf(err) == query.CodeEOS {
				if c != nil {
					c.endSpec = d.speculative
				}
				return
			}
			d.diagnoseBlock(h, ErrDecode, err, b)
			if !opt.ResyncOnError || d.stall.resyncLoops(d.Offset()) {
				break
			}
			d.resyncedAt = noResume
			s, err = d.resyncWalk(h)
			if err != nil {
				d.diagnoseBlock(h, ErrResync, err, b)
				break
			}
			if c != nil && !c.last && d.resyncedAt != noResume && d.resyncedAt >= c.next {
				c.resume = d.resyncedAt // resynchronised at a later chunk's PSB
				return
			}
		}
	}
}

// syncInChunk tells whether the next synchronisation of a sequential walk
// lands inside chunk c. If not, it sets c.resume to the PSB where it lands
// (noResume if none) and returns false.
func (d *BlockDecoder) syncInChunk(c *chunk) bool {
	probe := *d.evd
	probe.SetEnd(uint64(len(probe.Buffer())))
	if err := probe.SyncForward(); err != nil && codeOf(err) == query.CodeEOS {
		c.resume = noResume
		return false
	}
	// On other errors the walk reports a sync error at that PSB and goes
	// on from there.
	if off := probe.SyncOffset(); off >= c.next {
		c.resume = off
		return false
	}
	return true
}

// drain processes pending events.
func (d *BlockDecoder) drain(h Handler, s Status) (Status, error) {
	ev := &d.scratchEv
	for s&StatusEventPending != 0 {
		off := d.Offset()
		var err error
		s, err = d.Event(ev)
		if err != nil {
			return s, err
		}
		h.Event(ev, off)
	}
	return s, nil
}

func (d *BlockDecoder) resyncWalk(h Handler) (Status, error) {
	ev := &d.scratchEv
	for {
		s, err := d.Resync()
		if err == nil {
			if s&StatusIPSuppressed != 0 {
				h.ResyncDisabled()
			}
			return s, nil
		}
		if codeOf(err) != query.CodeEventIgnored {
			return s, err
		}
		off := d.Offset()
		if _, err := d.Event(ev); err != nil {
			return 0, err
		}
		h.Event(ev, off)
	}
}

// diagnoseBlock reports err at the IP ptxed attributes it to.
func (d *BlockDecoder) diagnoseBlock(h Handler, kind ErrorKind, err error, b *Block) {
	ip := b.IP
	if b.NInsn != 0 {
		ip = b.EndIP
		if codeOf(err) != query.CodeBadQuery {
			if in, ok := blockLastInsn(d.img, b); ok {
				ip = xedNextIP(&in)
			}
		}
	}
	h.Error(&DecodeError{Kind: kind, Offset: d.Offset(), IP: ip, Err: err})
}

// blockLastInsn decodes the last instruction of b.
func blockLastInsn(img *image.Image, b *Block) (insn.Insn, bool) {
	in := insn.Insn{IP: b.EndIP, Mode: b.Mode}
	if b.Truncated {
		err := insn.Decode(&in, b.Raw[:b.RawSize], b.Mode)
		in.IP = b.EndIP
		return in, err == nil
	}
	var raw [insn.MaxSize]byte
	_, c := decodeInsn(img, &in, nil, &raw)
	return in, c == 0
}

// WalkInsns decodes the whole trace with the instruction decoder (ptxed's
// decode_insn loop).
func WalkInsns(d *InsnDecoder, opt WalkOptions, h Handler) {
	var sync uint64
	blk := d.blk
	blk.stall = stall{errOff: ^uint64(0)}
	var in Insn
	for {
		in = Insn{}
		s, err := d.SyncForward()
		if err != nil {
			if codeOf(err) == query.CodeEOS {
				return
			}
			d.diagnose(h, ErrSync, err, &in)
			if ns := blk.Offset(); ns <= sync {
				return
			} else {
				sync = ns
			}
			continue
		}
		for {
			for {
				s, err = d.drain(h, s)
				if err != nil {
					break
				}
				if s&StatusEOS != 0 {
					if s&StatusIPSuppressed == 0 {
						h.EndOfTrace()
					}
					err = query.CodeEOS
					break
				}
				off := blk.Offset()
				s, err = d.Next(&in)
				if err != nil {
					if codeOf(err) == query.CodeEventIgnored {
						s, err = StatusEventPending, nil
						continue
					}
					if in.Class == insn.ClassUnknown {
						break
					}
				}
				h.Insn(&in, off)
				if err != nil {
					break
				}
				if err = blk.stall.check(off, 1); err != nil {
					break
				}
			}
			if codeOf(err) == query.CodeEOS {
				return
			}
			d.diagnose(h, ErrDecode, err, &in)
			if !opt.ResyncOnError || blk.stall.resyncLoops(blk.Offset()) {
				break
			}
			s, err = d.resyncWalk(h)
			if err != nil {
				d.diagnose(h, ErrResync, err, &in)
				break
			}
		}
	}
}

func (d *InsnDecoder) drain(h Handler, s Status) (Status, error) {
	ev := &d.blk.scratchEv
	for s&StatusEventPending != 0 {
		off := d.blk.Offset()
		var err error
		s, err = d.Event(ev)
		if err != nil {
			return s, err
		}
		h.Event(ev, off)
	}
	return s, nil
}

func (d *InsnDecoder) resyncWalk(h Handler) (Status, error) {
	ev := &d.blk.scratchEv
	for {
		s, err := d.Resync()
		if err == nil {
			if s&StatusIPSuppressed != 0 {
				h.ResyncDisabled()
			}
			return s, nil
		}
		if codeOf(err) != query.CodeEventIgnored {
			return s, err
		}
		off := d.blk.Offset()
		if _, err := d.Event(ev); err != nil {
			return 0, err
		}
		h.Event(ev, off)
	}
}

func (d *InsnDecoder) diagnose(h Handler, kind ErrorKind, err error, in *Insn) {
	ip := in.IP
	if codeOf(err) != query.CodeBadQuery && in.Class != insn.ClassUnknown {
		ip = xedNextIP(&in.Insn)
	}
	h.Error(&DecodeError{Kind: kind, Offset: d.blk.Offset(), IP: ip, Err: err})
}

// ErrorCode returns the libipt error code of err (for messages).
func ErrorCode(err error) query.Code {
	var de *DecodeError
	if errors.As(err, &de) {
		return codeOf(de.Err)
	}
	return codeOf(err)
}

// stallLimit is how many instructions may run without any trace before a
// walk gives up: code like "jmp ." would otherwise keep it busy forever
// (libipt's ptxed hangs there).
const stallLimit = 64 << 16

// maxResyncRepeats is how often a walk resynchronises after errors at the
// same trace offset before it gives up and synchronises at the next PSB
// (libipt's ptxed can loop forever there, e.g. on a TIP.PGE without IP).
const maxResyncRepeats = 16

// stall watches a walk for progress in the trace.
type stall struct {
	off     uint64
	insns   uint64
	errOff  uint64
	repeats int
}

// resyncLoops reports whether errors keep happening at trace offset off.
func (s *stall) resyncLoops(off uint64) bool {
	if off != s.errOff {
		s.errOff, s.repeats = off, 0
		return false
	}
	s.repeats++
	return s.repeats > maxResyncRepeats
}

// check counts n instructions decoded at trace offset off.
func (s *stall) check(off, n uint64) error {
	if s.add(off, n) {
		return query.CodeBadQuery
	}
	return nil
}

// add is check that reports with true that the walk is stuck.
func (s *stall) add(off, n uint64) bool {
	if off != s.off {
		s.off, s.insns = off, 0
		return false
	}
	s.insns += n
	if s.insns > stallLimit {
		s.insns = 0
		return true
	}
	return false
}
