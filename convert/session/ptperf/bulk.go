package ptperf

import (
	"encoding/binary"
	"math/bits"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// Bulk walks: the edge-graph path of the decoder.
//
// Step by step, the decoder walks one run of code per call of the Walker
// (walkInsn), reads one packet at a time (walkTrace) and returns a state
// for every branch that went somewhere. A Walker that also implements
// BulkWalker is offered the trace whenever walkTNT starts on a run: it
// follows its graph of cached runs from the current IP, taking a TNT bit
// at every conditional branch or compressed return, following direct jumps
// and calls (pushing the return address as walkInsn does), and, with a TIP
// packet, to the next indirect branch and the TIP's target. walkBulk
// reads the TNT and TIP packets that follow each other for it (the packet
// loop of walkTrace and walkTIP for those two kinds) and stops at any
// other packet, at the end of a buffer, and before any run the Walker
// does not take (an indirect branch with TNT bits left, code not in its
// graph, an unconditional branch whose loop check fails): the
// step-by-step decoder goes on from exactly there.
//
// The states Decode would have returned on the way (one per branch that
// went somewhere) are skipped only where nobody would see them
// (BulkWalk.Pass: the Walker's say, and no CBR or non-root change the
// state would carry); the decoder's own bookkeeping at each of them (the
// sample time) is replayed, so that the decoder ends in exactly the state
// the step-by-step decode leaves.

// BulkWalker is a Walker that can walk many runs of code in one call.
type BulkWalker interface {
	Walker
	// WalkBulk walks runs from w.IP as the package comment says,
	// calling w.Next where it needs the trace, and updates w; it walks
	// nothing when it cannot.
	WalkBulk(w *BulkWalk)
}

// BulkWalk is the decoder state a bulk walk reads and advances.
type BulkWalk struct {
	IP      uint64 // the next instruction, the start of a run
	Payload uint64 // the TNT bits left, the next one in bit 63
	Count   int    // how many
	// Stack is the return-compression stack (the top at the end): calls
	// push, returns pop. RetComp says returns may be compressed.
	Stack   []uint64
	RetComp bool
	// NoProgress is walkInsn's count of unconditional branches in a row,
	// StuckIP, StuckPrd and StuckCnt its loop check's state (walkInsn),
	// MaxLoops its limit.
	NoProgress         int
	StuckIP            uint64
	StuckPrd, StuckCnt int
	MaxLoops           int
	// Timestamp is the latest time the states skipped could carry (the
	// decoder's timestamp, or its sample time where a state does not
	// take the timestamp).
	Timestamp uint64
	// Time is the decoder's timestamp: a state skipped that takes the
	// sample time carries it (the others the sample time before).
	// Timing: Next may read MTC packets before the TNT or TIP packet it
	// reads, with walkTrace's time bookkeeping (calcMTC), which may move
	// Time; the Walker sets it where it can take a new time.
	Time   uint64
	Timing bool
	// TIP: a TIP packet gives the target of the next indirect branch
	// (walkTIP), instead of TNT bits.
	TIP bool
	// Pass: the walk may go on after a branch that went somewhere (a
	// state Decode would return); the decoder says whether it may, the
	// Walker may take it back.
	Pass bool

	// Set by the walk.
	Insns uint64 // instructions walked
	// RetAddr is the last address popped (walkInsn's retAddr), when
	// Popped.
	RetAddr uint64
	Popped  bool
	// Passed counts the branches passed that went somewhere (the states
	// skipped); sampled says the decoder took its sample time on the way
	// (Decode at a state skipped whose packet state asks for it, or
	// walkTNT at the end of the bits), which the decoder's timestamp
	// does not change: only the instructions walked since differ.
	Passed  int
	sampled bool
	// sampleState: the packet state now asks for the sample time (a bit
	// was taken from the current TNT packet, or the last TIP's target).
	sampleState bool
	// NotTaken: a not-taken conditional branch was walked.
	NotTaken bool
	// Branch: the walk ended right after a branch that went somewhere
	// (From -> To, the instruction In): the state Decode returns next.
	// Indirect: in TIP mode, the walk ended right after an indirect
	// branch (From, In), which takes the TIP's target.
	Branch, Indirect bool
	From, To         uint64
	In               *Insn
	// PendTo, when not 0, is the target of the indirect branch of
	// Indirect, whose state Next skipped: the Walker resolves the run
	// that ended there with it.
	PendTo uint64

	d     *Decoder
	again bool // the walk ended where walkTrace reads on
	// added: the instructions of Insns already counted by the decoder
	// (addInsns, before an MTC Next read).
	added uint64
}

// Passing notes that the walk goes on after a branch that went somewhere
// (a state skipped).
func (w *BulkWalk) Passing() {
	w.Passed++
	if w.sampleState {
		w.sampled = true
	}
}

// TookBit notes that the walk took a TNT bit (for a conditional branch or
// a compressed return): the packet state is then stTNTCont or stInSync.
func (w *BulkWalk) TookBit() { w.sampleState = true }

// Next is called by the Walker where its walk needs the trace: after it
// walked, in TIP mode, a run that ends at an indirect branch (Indirect,
// From and In set), and when the TNT bits ran out (Count 0, not TIP). It
// reads on as walkTIP and walkTrace would and reports whether the walk
// goes on: from IP, with the TNT bits of Payload and Count, or in TIP
// mode. When it does not, the walk ends: at the branch state of Branch,
// or where walkTrace reads on.
func (w *BulkWalk) Next() bool {
	d := w.d
	if w.Indirect {
		// walkTIP's end: the TIP's target.
		w.Indirect = false
		d.ip = d.lastIP
		w.IP = d.ip
		d.nextNR = d.pipNR   // updateNR
		w.sampleState = true // stInSync
		w.TIP = false
		if !w.Pass || d.nr != d.nextNR {
			w.Branch, w.To = true, d.ip
			return false
		}
		w.PendTo = d.ip
		w.Passing()
		if w.Count != 0 {
			return true // (not reached: TIP mode starts without bits)
		}
	}
	// The bits ran out (after a not-taken branch, walkTNT's eAGAIN,
	// which takes the sample time; or after a state skipped, which took
	// it): the packets that follow, while they are TNT or TIP.
	w.sampled = true
	if !d.bulkPacket() {
		w.again = true
		return false
	}
	if d.pkt.Kind == packet.KindTIP {
		d.setLastIP()
		w.TIP = true
		w.sampleState = false // stTIP
	} else {
		w.Count = int(d.pkt.Bits)
		w.Payload = d.pkt.Payload << (64 - uint(d.pkt.Bits))
		w.sampleState = false // stTNT
	}
	return true
}

// Sampled says whether the decoder took its sample time on the way
// since its last MTC (Passing, Next at the end of the bits): a state
// skipped then carries the decoder's timestamp (Time), as with
// SampleState.
func (w *BulkWalk) Sampled() bool { return w.sampled }

// SampleState says whether the packet state asks for the sample time
// (a bit was taken from the current TNT packet, or the last TIP's target).
func (w *BulkWalk) SampleState() bool { return w.sampleState }

// Walked notes what a Walker's own loop did between calls of Passing and
// TookBit: passed branch states passed (Passing), the sample time taken
// on the way (sampled: a state passed while the packet state asked for it,
// or a packet read), and the packet state's sample flag now (state).
func (w *BulkWalk) Walked(passed int, sampled, state bool) {
	w.Passed += passed
	if sampled {
		w.sampled = true
	}
	w.sampleState = state
}

// More returns the trace bytes after the current packet where Next could
// read more packets: up to the end of the buffer or the stop position (a
// packet must start before it).
func (w *BulkWalk) More() []byte {
	d := w.d
	if d.pos >= d.stopPos || d.step > len(d.buf) {
		return nil
	}
	end := len(d.buf)
	if lim := d.stopPos - d.pos; lim < uint64(end) {
		end = int(lim)
	}
	if end < d.step {
		return nil
	}
	return d.buf[d.step:end]
}

// Packets notes that the Walker read packets from More itself: n TNT-8
// or TIP packets (TIPTarget), whose targets it took at indirect branches
// as Next would, in its first used bytes (and the PADs before them), the
// last of them starting with byte c (a TIP's payload pl), the one before
// it with byte prev (when n > 1); lastIP is the last IP after them, where
// tip says a TIP was read. The decoder is where Next would have left it
// after reading them (the Walker has the bits).
func (w *BulkWalk) Packets(used, n int, c, prev byte, pl uint64, tip bool, lastIP uint64) {
	d := w.d
	if n > 1 {
		d.lastPacketKind = packet.KindTNT8
		if prev&1 != 0 {
			d.lastPacketKind = packet.KindTIP
		}
	} else {
		d.lastPacketKind = d.pkt.Kind
	}
	if c&1 == 0 {
		d.pkt = tnt8Packets[c]
	} else {
		d.pkt = tipPackets[c>>5]
		d.pkt.Payload = pl
	}
	size := int(d.pkt.Size)
	adv := d.step + used - size
	d.pos += uint64(adv)
	d.buf = d.buf[adv:]
	d.pktLen, d.step = size, size
	if tip {
		// setLastIP, and walkTIP's updateNR at each target.
		d.lastIP, d.haveLastIP = lastIP, true
		d.nextNR = d.pipNR
	}
}

// LastIP returns the decoder's last IP, the base of the next TIP's
// compressed IP, and whether the target of a TIP the walk takes passes
// (BulkWalk.Pass, and the NR state that Next checks at each target).
func (w *BulkWalk) LastIP() (uint64, bool) {
	d := w.d
	return d.lastIP, w.Pass && d.nr == d.pipNR
}

// TIPTarget decodes the TIP packet at the start of b, as bulkPacket does
// (at least 9 bytes: else it reports false), with the last IP last: its
// target, its payload and its size. It reports false for anything else
// (another packet, a suppressed or reserved IP compression).
func TIPTarget(b []byte, last uint64) (ip, pl uint64, size int, ok bool) {
	if len(b) < 9 || b[0]&0x1f != 0x0d {
		return 0, 0, 0, false
	}
	t := &tipPackets[b[0]>>5]
	if t.Size == 0 {
		return 0, 0, 0, false
	}
	pl = binary.LittleEndian.Uint64(b[1:9]) & tipMasks[b[0]>>5]
	l := packet.LastIP{IP: last}
	l.UpdateIP(t.IPC, pl) // (calcIP)
	ip = l.IP
	return ip, pl, int(t.Size), true
}

// tipPackets holds, per IP compression, the TIP packet without its
// payload when the compression carries one (else a zero Packet); tipMasks
// the payload's bits in the 8 bytes after the packet's first.
var tipPackets, tipMasks = func() (t [8]packet.Packet, m [8]uint64) {
	for ipc := range t {
		if n := packet.IPC(ipc).PayloadSize(); n > 0 {
			t[ipc] = packet.Packet{Kind: packet.KindTIP, Size: uint8(1 + n), IPC: packet.IPC(ipc)}
			m[ipc] = ^uint64(0) >> (64 - 8*uint(n))
		}
	}
	return t, m
}()

// tnt8Packets holds the TNT-8 packet whose byte is c at c (and zero
// Packets at the other bytes). The decoder copies its packets whole from
// here: a packet built field by field and then copied (to d.pkt) stalls
// store forwarding on the copy.
var tnt8Packets = func() (t [256]packet.Packet) {
	for c := 4; c < 256; c += 2 {
		pl := uint64(c >> 1)
		b := uint8(bits.Len64(pl) - 1)
		t[c] = packet.Packet{Kind: packet.KindTNT8, Size: 1, Bits: b, Payload: pl &^ (1 << b)}
	}
	return t
}()

// bulk results for walkTNT.
const (
	bulkNone   = iota // nothing walked, or stopped before a run: walk it step by step
	bulkBranch        // a branch state to return
	bulkAgain         // the TNT bits ran out: walkTrace reads on
	bulkStatus        // walkBulk's status is the walk's
)

// walkBulk offers the trace to the Walker's bulk walk from walkTNT's loop
// and leaves the decoder as the steps would. With bulkStatus, *s is what
// walkTNT returns.
func (d *Decoder) walkBulk(bw BulkWalker, s *status) int {
	if d.tntCount <= 0 || d.p.PeriodType != PeriodNone || d.p.IPC || d.txFlags != 0 || d.state.ToNR ||
		d.state.Type != TypeBranch || d.cycThreshold != 0 {
		return bulkNone
	}
	w := &d.bulk
	w.IP, w.Payload, w.Count, w.Stack, w.NoProgress = d.ip, d.tntPayload, d.tntCount, d.stack, d.noProgress
	w.StuckIP, w.StuckPrd, w.StuckCnt, w.MaxLoops = d.stuckIP, d.stuckIPPrd, d.stuckIPCnt, d.p.MaxLoops
	w.RetComp, w.Timestamp, w.TIP = d.p.ReturnCompression, max(d.timestamp, d.sampleTimestamp), false
	w.Pass = d.cbr == d.cbrSeen && d.nr == d.nextNR
	w.Insns, w.Popped, w.Passed, w.sampled, w.NotTaken, w.PendTo = 0, false, 0, false, false, 0
	w.sampleState = sampleTime(d.pktState)
	w.Branch, w.Indirect, w.again, w.d = false, false, false, d
	w.Time, w.Timing, w.added = d.timestamp, false, 0
	bw.WalkBulk(w)
	w.Timing = false
	res := bulkNone
	switch {
	case w.Branch:
		res = bulkBranch
	case w.again:
		res = bulkAgain
	}
	if w.Insns != 0 {
		d.mtcInsn = true
		d.addInsns(w.Insns - w.added)
	}
	d.ip, d.tntPayload, d.tntCount, d.stack, d.noProgress = w.IP, w.Payload, w.Count, w.Stack, w.NoProgress
	d.stuckIP, d.stuckIPPrd, d.stuckIPCnt = w.StuckIP, w.StuckPrd, w.StuckCnt
	if w.Popped {
		d.retAddr = w.RetAddr
	}
	if w.NotTaken {
		d.sampleCyc = false
	}
	if w.sampled {
		// The sample time taken on the way, and the instructions
		// walked since (addInsns): the timestamp has not changed.
		d.updateSampleTime()
	}
	// The packet state the steps would be in.
	switch {
	case w.TIP:
		d.pktState = stTIP
	case !w.sampleState:
		d.pktState = stTNT
	case w.Count != 0:
		d.pktState = stTNTCont
	default:
		d.pktState = stInSync
	}
	switch res {
	case bulkBranch:
		d.state.FromIP, d.state.ToIP = w.From, w.To
		in := w.In
		d.state.InsnOp, d.state.InsnLen, d.state.Insn = in.Op, in.Length, in.Buf
		return bulkBranch
	case bulkAgain:
		// walkTNT's end of the bits (after a state skipped: the same).
		d.updateSampleTime()
		return bulkAgain
	}
	if w.TIP {
		// Stopped in walkTIP's walk: it goes on from there.
		*s = d.walkTIP()
		return bulkStatus
	}
	if w.Insns == 0 && w.Passed == 0 {
		return bulkNone
	}
	if d.tntCount == 0 {
		return bulkAgain // (not reached: the bits ran out above)
	}
	return bulkNone
}

// bulkPacket reads the next packet when it is a TNT with bits or a TIP
// with an IP, in the current buffer and before any stop position, as
// getNextPacket would (PADs skipped); it reads nothing else. TNT-8s and
// TIPs with 9 bytes of buffer left are decoded here, from their first
// byte; the rest by packet.DecodeInto.
func (d *Decoder) bulkPacket() bool {
	step, buf, pos := d.step, d.buf, d.pos
	// The MTCs before the packet (BulkWalk.Timing), read only with it.
	var mtcs [4]uint8
	nm := 0
	for {
		if step > len(buf) {
			return false
		}
		pos += uint64(step)
		buf = buf[step:]
		if len(buf) == 0 {
			return false
		}
		c := buf[0]
		if c == 0 {
			step = 1 // PAD
			continue
		}
		if c == 0x59 && d.bulk.Timing && len(buf) >= 2 && nm < len(mtcs) && !d.hop {
			if pos >= d.stopPos {
				return false
			}
			mtcs[nm] = buf[1] // (MTC: its CTC)
			nm++
			step = 2
			continue
		}
		// The packet goes to d.pkt whole (see tnt8Packets), from a table
		// or by DecodeInto, only once it is known to be read.
		if len(buf) >= 9 {
			if c&1 == 0 && c != 2 {
				// TNT-8 (c >= 4: at least one bit).
				if pos >= d.stopPos {
					return false
				}
				if nm != 0 {
					d.bulkMTCs(mtcs[:nm])
				}
				d.lastPacketKind = d.pkt.Kind
				d.pkt = tnt8Packets[c]
				break
			}
			if c&0x1f == 0x0d {
				// TIP: a compressed IP of 2, 4, 6 or 8 bytes.
				t := &tipPackets[c>>5]
				if t.Size == 0 {
					return false // suppressed, or reserved (a bad packet)
				}
				if pos >= d.stopPos {
					return false
				}
				if nm != 0 {
					d.bulkMTCs(mtcs[:nm])
				}
				d.lastPacketKind = d.pkt.Kind
				d.pkt = *t
				d.pkt.Payload = binary.LittleEndian.Uint64(buf[1:9]) & tipMasks[c>>5]
				break
			}
		}
		var p packet.Packet
		if packet.DecodeInto(&p, buf, 0) != nil || p.Size == 0 {
			return false
		}
		if p.Kind == packet.KindPad {
			step = int(p.Size)
			continue
		}
		switch p.Kind {
		case packet.KindTNT8, packet.KindTNT64:
			if p.Bits == 0 {
				return false
			}
		case packet.KindTIP:
			if p.IPC == packet.IPCSuppressed {
				return false
			}
		default:
			return false
		}
		if pos >= d.stopPos {
			return false
		}
		if nm != 0 {
			d.bulkMTCs(mtcs[:nm])
		}
		d.lastPacketKind = d.pkt.Kind
		d.pkt = p
		break
	}
	d.pos, d.buf = pos, buf
	d.pktLen, d.step = int(d.pkt.Size), int(d.pkt.Size)
	return true
}

// bulkMTCs reads, for bulkPacket, the MTC packets (their CTCs) before the
// packet it reads, as walkTrace would after the bits ran out: walkBulk's
// count of the instructions walked so far and walkTNT's sample time at
// the end of the bits (BulkWalk.Next took it), then calcMTC at each.
func (d *Decoder) bulkMTCs(ctcs []uint8) {
	w := &d.bulk
	if n := w.Insns - w.added; n != 0 {
		d.addInsns(n)
		w.added = w.Insns
	}
	if w.sampled {
		d.updateSampleTime()
		w.sampled = false
	}
	for _, ctc := range ctcs {
		d.lastPacketKind = d.pkt.Kind
		d.pkt = packet.Packet{Kind: packet.KindMTC, Size: 2, CTC: uint16(ctc)}
		d.calcMTC()
	}
	w.Time = d.timestamp
}
