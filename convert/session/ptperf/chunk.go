package ptperf

import (
	"bytes"
	"math"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// Chunked decoding. A queue's trace can be cut at PSBs and the pieces
// decoded on several goroutines: each piece by a decoder started in the
// middle of the stream (MidStream) as if the trace continued there, and
// the result checked afterwards against the decoder that reached that PSB
// from the start (StopAt, Reached, Snap). The caller keeps a piece's output
// only when the two snapshots are equal; a snapshot holds what survives a
// PSB and can change later states for a decoder that samples every
// instruction of an untimed trace (see Snap).

// Stop states reported by Reached.
const (
	StopNone    = 0 // the PSB at the stop position has not been read yet
	StopReached = 1 // it was read as a packet
	StopPassed  = 2 // the decoder went past it without reading it there
)

// StopAt makes the decoder watch for the PSB packet at queue position pos
// (a position as Pos reports it); math.MaxUint64 stops watching.
func (d *Decoder) StopAt(pos uint64) {
	d.stopPos = pos
	d.stop = StopNone
}

// Reached says whether the PSB given to StopAt has been read.
func (d *Decoder) Reached() int { return d.stop }

// watch is called for each packet read at d.pos (rarely: only once the
// stop position is reached or passed).
func (d *Decoder) watch() {
	if d.stop != StopNone {
		return
	}
	if d.pos == d.stopPos && d.pkt.Kind == packet.KindPSB {
		d.stop = StopReached
	} else if d.pos > d.stopPos {
		d.stop = StopPassed
	}
	if d.stop != StopNone {
		d.stopPos = math.MaxUint64
	}
}

// MidStream positions a new decoder at a PSB in the middle of a queue's
// trace: data starts with the PSB, pos is its queue position and traceNr
// the queue's trace number. The decoder proceeds as one that was in sync
// before the PSB: tracing enabled at the IP of the PSB+'s FUP (when it has
// one), no trace-begin state. Later buffers come from Params.GetTrace,
// which must return them as consecutive.
func (d *Decoder) MidStream(data []byte, pos, traceNr, bufTimestamp uint64) {
	d.buf = data
	d.pos = pos
	d.step = 0
	d.state.TraceNr = traceNr
	d.bufTimestamp = bufTimestamp
	// A timestamp is known: the PSB+'s TSC extends it (intel_pt_calc_tsc_timestamp).
	d.timestamp = 1
	d.haveLastIP = true
	d.pktState = stInSync
	d.cycRefUnsure = d.p.Ctl&ctlCYCEnable == 0
	if ip, ok := psbFUP(data); ok {
		d.ip, d.lastIP = ip, ip
		d.pge = true
	}
}

// psbFUP returns the IP of the FUP in the PSB+ at the start of buf.
func psbFUP(buf []byte) (uint64, bool) {
	if !bytes.HasPrefix(buf, psbBytes) {
		return 0, false
	}
	for buf = buf[len(psbBytes):]; len(buf) > 0; {
		var p packet.Packet
		err := decodePacket(&p, buf)
		if err != nil || p.Size == 0 {
			return 0, false
		}
		switch p.Kind {
		case packet.KindFUP:
			if p.IPC == packet.IPCSuppressed {
				return 0, false
			}
			return calcIP(&p, 0), true
		case packet.KindPSBEnd, packet.KindPSB:
			return 0, false
		}
		buf = buf[p.Size:]
	}
	return 0, false
}

// Snap is the part of a decoder's state that survives a PSB and can change
// the states it returns later, when instructions are sampled one by one
// (PeriodInstructions, period 1) and timestamps are not used (the caller
// ignores State.Timestamp, EstTimestamp, CBR and PSBOffset):
//
//   - cleared by the PSB (last IP, PSB IP, return stack) or set by its
//     PSB+ (exec mode, FUP IP) but kept here to prove it;
//   - the flow: current IP, trace enable, packet state, overflow and
//     MODE.Exec pending, the never-ending-loop counters, the position;
//   - the instruction counts: the period count, and the total count
//     relative to the caller's last sample (Snap has the total; the caller
//     subtracts);
//   - the trace number.
//
// Timing holds the timing state (TSC, MTC, TMA, CBR and the timestamp
// instruction counts), which only moves timestamps and CBR events: a
// caller that ignores them may clear it before comparing. Left out, with
// why: the
// TNT bits (read only in the TNT states, which set them first); the last
// return address (always set by the return just walked before it is
// read); the scratch instruction and the stale State fields (InsnOp, Insn,
// InsnLen, FromIP, ToIP of an earlier state: an instruction state always
// sets them from the walk that made it); the tick period state (ticks
// periods only).
type Snap struct {
	PktState     int
	IP, LastIP   uint64
	PSBIP        uint64
	HaveLastIP   bool
	Stack        int
	PGE, InPSB   bool
	Overflow     bool
	SetFUPModeEx bool
	NoProgress   int
	StuckIP      uint64
	StuckIPPrd   int
	StuckIPCnt   int
	NR, NextNR   bool
	PIPNR        bool
	ExecMode     packet.ExecMode
	PeriodInsn   uint64
	TotInsn      uint64
	TraceNr      uint64
	Pos          uint64
	BufLen       int
	Step         int
	NextBufLen   int
	InSync       bool
	Timing       Timing
}

// Timing is the decoder's timing state, part of a Snap when timestamps
// matter (a timed trace).
type Timing struct {
	Timestamp, TSCTimestamp, RefTimestamp, BufTimestamp uint64
	SampleTimestamp, TimestampInsnCnt, SampleInsnCnt    uint64
	CTCTimestamp, CTCDelta                              uint64
	LastMTC, LastCTC                                    uint32
	HaveTMA, FixupLastMTC                               bool
	CBR, CBRSeen                                        uint32
	CBRPayload                                          uint64
	// CYC-based timestamps (the cycle totals for IPC are not here: a
	// caller that wants IPC from chunks must not decode in chunks)
	HaveCyc, HaveCalcCycToTSC bool
	CycleCnt, CycRefTimestamp uint64
	CBRCycToTSC, CycToTSC     float64
}

// Snapshot returns the decoder's Snap.
func (d *Decoder) Snapshot() Snap {
	s := Snap{
		PktState: int(d.pktState), IP: d.ip, LastIP: d.lastIP, PSBIP: d.psbIP, HaveLastIP: d.haveLastIP,
		Stack: len(d.stack), PGE: d.pge, InPSB: d.inPSB, Overflow: d.overflow, SetFUPModeEx: d.setFUPModeEx,
		NoProgress: d.noProgress, NR: d.nr, NextNR: d.nextNR, PIPNR: d.pipNR, ExecMode: d.execMode,
		PeriodInsn: d.periodInsnCnt, TotInsn: d.totInsnCnt, TraceNr: d.state.TraceNr,
		Pos: d.pos, BufLen: len(d.buf), Step: d.step, NextBufLen: len(d.nextBuf),
		InSync: d.pktState == stInSync,
		Timing: Timing{Timestamp: d.timestamp, TSCTimestamp: d.tscTimestamp, RefTimestamp: d.refTimestamp,
			BufTimestamp: d.bufTimestamp, SampleTimestamp: d.sampleTimestamp, TimestampInsnCnt: d.timestampInsnCnt,
			SampleInsnCnt: d.sampleInsnCnt, CTCTimestamp: d.ctcTimestamp, CTCDelta: d.ctcDelta, LastMTC: d.lastMTC,
			LastCTC: d.lastCTC, HaveTMA: d.haveTMA, FixupLastMTC: d.fixupLastMTC, CBR: d.cbr, CBRSeen: d.cbrSeen,
			CBRPayload: d.cbrPayload, HaveCyc: d.haveCyc, HaveCalcCycToTSC: d.haveCalcCycToTSC,
			CycleCnt: d.cycleCnt, CycRefTimestamp: d.cycRefTimestamp, CBRCycToTSC: d.cbrCycToTSC,
			CycToTSC: d.cycToTSC},
	}
	if d.p.Ctl&ctlCYCEnable == 0 {
		// Without CYC packets the CYC timing state is used only by
		// CYC packets of damaged data (a CBR change still moves its
		// reference): see CYCRef.
		s.Timing.CycleCnt, s.Timing.CycRefTimestamp, s.Timing.CBRCycToTSC = 0, 0, 0
	}
	if d.noProgress >= 2 {
		// Read (not just overwritten) only from the third jump on.
		s.StuckIP, s.StuckIPPrd, s.StuckIPCnt = d.stuckIP, d.stuckIPPrd, d.stuckIPCnt
	}
	return s
}

// CYCRef is the CYC timing reference of a decoder of a trace recorded
// without CYC packets, which Snap leaves out: only a CYC packet read from
// damaged data uses it (calc_cyc_timestamp). It is the timestamp of the
// last CBR change and the cycles of such packets since, which a decoder
// started by MidStream does not know (its start's PSB+ sets its first
// CBR) until the CBR changes or a stray CYC is followed by a timing
// packet.
type CYCRef struct {
	timestamp, cycles uint64
	unsure            bool
}

// CYCRef returns the decoder's CYC reference.
func (d *Decoder) CYCRef() CYCRef {
	return CYCRef{d.cycRefTimestamp, d.cycleCnt, d.cycRefUnsure}
}

// StrayCYC says whether a CYC packet used a CYC reference the decoder did
// not know: the states after it may differ from those of the decoder that
// reached its start.
func (d *Decoder) StrayCYC() bool { return d.strayCYC }

// InheritCYCRef gives a decoder started by MidStream, once it has decoded
// its piece without a stray CYC, the reference r of the decoder that
// reached the piece's start (whose Snap there was equal), unless a CBR
// change in the piece set its own.
func (d *Decoder) InheritCYCRef(r CYCRef) {
	if d.cycRefUnsure {
		d.cycRefTimestamp, d.cycleCnt, d.cycRefUnsure = r.timestamp, r.cycles, r.unsure
	}
}

// IsPSBEvent says whether st is a PSB event state (no error).
func IsPSBEvent(st *State) bool { return st.Err == 0 && st.Type&TypePSBEvt != 0 }

// NextPSB returns the index of the first PSB in buf at or after from, or -1.
func NextPSB(buf []byte, from int) int {
	if from >= len(buf) {
		return -1
	}
	i := bytes.Index(buf[from:], psbBytes)
	if i < 0 {
		return -1
	}
	return from + i
}
