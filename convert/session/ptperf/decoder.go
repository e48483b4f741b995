package ptperf

import (
	"math"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// State types (enum intel_pt_sample_type).
const (
	TypeBranch      = 1 << 0
	TypeInstruction = 1 << 1
	TypeTransaction = 1 << 2
	TypePTW         = 1 << 3
	TypeMWaitOp     = 1 << 4
	TypePwrEntry    = 1 << 5
	TypeExStop      = 1 << 6
	TypePwrExit     = 1 << 7
	TypeCBRChg      = 1 << 8
	TypeTraceBegin  = 1 << 9
	TypeTraceEnd    = 1 << 10
	TypePSBEvt      = 1 << 12
)

// State flags.
const (
	FlagInTx      = 1 << 0
	FlagAbortTx   = 1 << 1
	FlagAsync     = 1 << 2
	FlagFUPIP     = 1 << 3
	FlagSampleIPC = 1 << 4
)

// Error codes of a state (INTEL_PT_ERR_*), and their messages.
const (
	ErrNoMem  = 1
	ErrIntern = 2
	ErrBadPkt = 3
	ErrNoData = 4
	ErrNoInsn = 5
	ErrMismat = 6
	ErrOvr    = 7
	ErrLost   = 8
	ErrUnk    = 9
	ErrNELoop = 10
)

var errMsgs = [...]string{
	ErrNoMem:  "Memory allocation failed",
	ErrIntern: "Internal error",
	ErrBadPkt: "Bad packet",
	ErrNoData: "No more data",
	ErrNoInsn: "Failed to get instruction",
	ErrMismat: "Trace doesn't match instruction",
	ErrOvr:    "Overflow packet",
	ErrLost:   "Lost trace data",
	ErrUnk:    "Unknown error!",
	ErrNELoop: "Never-ending loop (refer perf config intel-pt.max-loops)",
}

// ErrMsg returns perf's message for an error code.
func ErrMsg(code int) string {
	if code < 1 || code >= len(errMsgs) {
		code = ErrUnk
	}
	return errMsgs[code]
}

// internal status codes (perf's negative errnos and INTEL_PT_RETURN).
type status int

const (
	ok        status = 0
	ptReturn  status = 1
	eAGAIN    status = -11
	eNOLINK   status = -67
	eBADMSG   status = -74
	eNODATA   status = -61
	eILSEQ    status = -84
	eNOENT    status = -2
	eOVERFLOW status = -75
	eNOSPC    status = -28
	eLOOP     status = -40
	eINVAL    status = -22
	eNOSYS    status = -38
)

func extErr(s status) int {
	switch s {
	case eNOSYS:
		return ErrIntern
	case eBADMSG:
		return ErrBadPkt
	case eNODATA:
		return ErrNoData
	case eILSEQ:
		return ErrNoInsn
	case eNOENT:
		return ErrMismat
	case eOVERFLOW:
		return ErrOvr
	case eNOSPC:
		return ErrLost
	case eLOOP:
		return ErrNELoop
	}
	return ErrUnk
}

// packet states (enum intel_pt_pkt_state).
type pktState int

const (
	stNoPSB pktState = iota
	stNoIP
	stErrResync
	stInSync
	stTNTCont
	stTNT
	stTIP
	stTIPPGD
	stFUP
	stFUPNoTIP
	stFUPInPSB
	stResample
)

func sampleTime(s pktState) bool {
	switch s {
	case stTNT, stTIP, stTIPPGD, stFUP, stFUPNoTIP, stFUPInPSB:
		return false
	}
	return true
}

// Buffer is one AUX buffer handed to the decoder (struct intel_pt_buffer).
type Buffer struct {
	Data         []byte
	Consecutive  bool
	RefTimestamp uint64
	TraceNr      uint64
}

// WalkError is what a Walker returns when it cannot read an instruction.
type WalkError int

// Walker errors: no map/thread/bytes (perf's -EINVAL) or a DSO whose data
// failed before (-ENOENT).
const (
	WalkNoInsn WalkError = 1
	WalkNoData WalkError = 2
)

func (e WalkError) Error() string { return "cannot walk instruction" }

// Walker walks instructions from *ip as intel_pt_walk_next_insn does: it
// stops at the first branch (counting it, *ip left at it), after maxInsnCnt
// instructions (the last one not stepped over), or when *ip reaches toIP
// (in.Length = 0). It adds the instructions walked to *insnCnt.
type Walker interface {
	WalkInsn(in *Insn, insnCnt *uint64, ip *uint64, toIP, maxInsnCnt uint64, toNR bool) error
}

// PeriodType selects instruction sampling (enum intel_pt_period_type).
type PeriodType int

// Period types.
const (
	PeriodNone PeriodType = iota
	PeriodInstructions
	PeriodTicks
	PeriodMTC
)

// Params configures a decoder (struct intel_pt_params).
type Params struct {
	// GetTrace returns the next buffer; an empty Data means the end.
	GetTrace func(*Buffer) error
	// Lookahead calls f with each buffer after the current one until f
	// returns true (for FastForward); nil means no lookahead.
	Lookahead         func(f func(*Buffer) bool)
	Walker            Walker
	ReturnCompression bool
	BranchEnable      bool
	Period            uint64
	PeriodType        PeriodType
	MaxLoops          int
	MTCPeriod         uint32
	TSCCTCRatioN      uint32
	TSCCTCRatioD      uint32
	MaxNonTurboRatio  uint32
	// Ctl is the intel_pt event's config (perf's params.ctl): its cyc
	// bit and cyc_thresh field change when IPC may be sampled.
	Ctl uint64
	// IPC asks for the cycle counts of the states (TotCycCnt, Cycles and
	// FlagSampleIPC); without it the estimate from MTC and CBR is skipped
	// (CYC payloads are still counted for TakeCycles).
	IPC bool
	// Straight, when set, takes over the walks of straight-line code
	// between branches while every instruction is sampled (straight.go).
	Straight StraightWalker
	// Quick is perf's params.quick (--itrace=q, qq): 1 is hop mode, 2
	// leap mode (hopTrace).
	Quick int
}

// State is one decoder state (struct intel_pt_state).
type State struct {
	Type         uint32
	Err          int
	FromIP, ToIP uint64
	FromNR, ToNR bool
	TotInsnCnt   uint64
	TotCycCnt    uint64 // cycles at the last IPC sample point (tot_cyc_cnt)
	Timestamp    uint64
	EstTimestamp uint64
	TraceNr      uint64
	PSBOffset    uint64
	CBR          uint32
	CBRPayload   uint64
	Flags        uint32
	InsnOp       Op
	InsnLen      int
	Insn         [16]byte
	// (after the fields read for every sample)
	Cycles uint64 // cycles at the last sample time (approximate IPC)
	// Payloads of PTWRITE, MWAIT, PWRE and PWRX (perf's raw packet
	// payloads: the synthesised events' raw data).
	PTWPayload   uint64
	MWaitPayload uint64
	PwrEPayload  uint64
	PwrXPayload  uint64
}

// Decoder is perf's struct intel_pt_decoder, for the packets modelled.
type Decoder struct {
	// First, so that the instruction bytes copied for every walk (scratch
	// to state.Insn) do not straddle cache lines (TestInsnLayout).
	scratch Insn   // the instruction walked (kept here: it would escape)
	walkCnt uint64 // likewise the walker's instruction count
	state   State
	p       Params
	// bulkW is p.Walker when it walks in bulk (bulk.go), bulk its state.
	bulkW BulkWalker
	bulk  BulkWalk
	// straightW is Params.Straight (straight.go).
	straightW StraightWalker

	buf    []byte
	pos    uint64
	step   int
	pkt    packet.Packet
	pktLen int

	lastPacketKind packet.Kind
	nextBuf        []byte
	bufTimestamp   uint64

	pktState pktState

	// IPs and flow
	ip, lastIP uint64
	haveLastIP bool
	psbIP      uint64
	retAddr    uint64
	stack      []uint64
	pge        bool
	inPSB      bool
	hop, leap  bool // Params.Quick >= 1, >= 2
	overflow   bool

	// FUP-bound events (intel_pt_fup_event) and TSX
	setFUPPTW, setFUPMWait, setFUPPwrE, setFUPExStop bool
	setFUPTxFlags                                    bool
	fupPTWPayload, fupMWaitPayload, fupPwrEPayload   uint64
	fupTxFlags, txFlags                              uint32

	tntPayload   uint64 // next branch in bit 63
	tntCount     int
	setFUPModeEx bool
	noProgress   int
	stuckIP      uint64
	stuckIPPrd   int
	stuckIPCnt   int
	nr, nextNR   bool
	pipNR        bool // the NR bit of the last PIP (pip_payload & 1)
	execMode     packet.ExecMode

	// timing
	timestamp, tscTimestamp, refTimestamp uint64
	sampleTimestamp                       uint64
	timestampInsnCnt, sampleInsnCnt       uint64
	ctcTimestamp, ctcDelta                uint64
	lastMTC                               uint32
	lastCTC                               uint32
	haveTMA                               bool
	fixupLastMTC                          bool
	mtcShift                              uint32
	ctcRemMask                            uint32
	tscCTCMult                            uint32
	tscSlip                               uint64
	cbr, cbrSeen                          uint32
	cbrPayload                            uint64

	// cycles (CYC packets, or estimated from MTC and CBR without them)
	haveCyc          bool
	cycleCnt         uint64 // CYC cycles since cycRefTimestamp
	cycRefTimestamp  uint64
	cbrCycToTSC      float64
	cycToTSC         float64 // calc_cyc_to_tsc
	haveCalcCycToTSC bool
	totCycCnt        uint64
	sampleTotCycCnt  uint64
	baseCycCnt       uint64
	cycCntTimestamp  uint64
	cycThreshold     uint64
	tscToCyc         float64
	maxNonTurboFP    float64
	cycPend          uint64 // CYC payloads counted while tracing, not yet taken
	cycEstTS         uint64 // the timestamp of a pending MTC estimate (cycEstFlush), or 0

	// cycRefUnsure: cycRefTimestamp and cycleCnt are a MidStream
	// decoder's own, not those of the decoder that reached its start,
	// in a trace without CYC packets (see CYCRef); strayCYC: a CYC
	// packet of damaged data used them then
	cycRefUnsure, strayCYC bool

	// sampling
	totInsnCnt       uint64
	periodInsnCnt    uint64
	periodMask       uint64
	periodTicks      uint64
	lastMaskedTS     uint64
	continuousPeriod bool
	mtcInsn          bool
	sampleCyc        bool

	// chunked decoding (chunk.go)
	stopPos uint64
	stop    int
}

// New returns a decoder.
func New(p Params) *Decoder {
	d := &Decoder{p: p, stopPos: math.MaxUint64, hop: p.Quick >= 1, leap: p.Quick >= 2}
	d.bulkW, _ = p.Walker.(BulkWalker)
	if p.PeriodType == PeriodInstructions && p.Period == 1 && !p.IPC && p.Quick == 0 {
		d.straightW = p.Straight
	}
	if d.p.MaxLoops == 0 {
		d.p.MaxLoops = 100000
	}
	if p.PeriodType == PeriodTicks {
		per := uint64(1)
		for per*2 <= p.Period && per*2 != 0 {
			per *= 2
		}
		if p.Period == 0 {
			per = 0
		}
		d.periodMask = ^(per - 1)
		d.periodTicks = per
	}
	d.mtcShift = p.MTCPeriod
	d.ctcRemMask = (1 << d.mtcShift) - 1
	if d.p.TSCCTCRatioN == 0 {
		d.p.TSCCTCRatioD = 0
	}
	if d.p.TSCCTCRatioD != 0 && d.p.TSCCTCRatioN%d.p.TSCCTCRatioD == 0 {
		d.tscCTCMult = d.p.TSCCTCRatioN / d.p.TSCCTCRatioD
	}
	d.tscSlip = 0x10000
	d.cbrSeen = 0
	d.maxNonTurboFP = float64(p.MaxNonTurboRatio)
	if p.Ctl&ctlCYCEnable != 0 {
		d.cycThreshold = (p.Ctl >> 19) & 0xf
	}
	return d
}

// Pos returns the decoder's position in the queue's data.
func (d *Decoder) Pos() uint64 { return d.pos }

func (d *Decoder) push(ip uint64) { d.stack = append(d.stack, ip) }

func (d *Decoder) pop() uint64 {
	n := len(d.stack)
	if n == 0 {
		return 0
	}
	ip := d.stack[n-1]
	d.stack = d.stack[:n-1]
	return ip
}

func (d *Decoder) clearStack() { d.stack = d.stack[:0] }

func calcIP(p *packet.Packet, last uint64) uint64 {
	switch p.IPC {
	case packet.IPCUpdate16:
		return last&0xffffffffffff0000 | p.Payload
	case packet.IPCUpdate32:
		return last&0xffffffff00000000 | p.Payload
	case packet.IPCSext48:
		ip := p.Payload
		if ip&0x800000000000 != 0 {
			ip |= 0xffff000000000000
		}
		return ip
	case packet.IPCUpdate48:
		return last&0xffff000000000000 | p.Payload
	case packet.IPCFull:
		return p.Payload
	}
	return 0
}

func (d *Decoder) setLastIP() {
	d.lastIP = calcIP(&d.pkt, d.lastIP)
	d.haveLastIP = true
}

func (d *Decoder) setIP() {
	d.setLastIP()
	d.ip = d.lastIP
}

func (d *Decoder) haveIP() bool {
	c := d.pkt.IPC
	return c != packet.IPCSuppressed && (d.haveLastIP || c == packet.IPCSext48 || c == packet.IPCFull)
}

func (d *Decoder) updateSampleTime() {
	d.sampleTimestamp = d.timestamp
	d.sampleInsnCnt = d.timestampInsnCnt
	if d.p.IPC {
		d.sampleCycles()
	}
}

// sampleCycles is updateSampleTime's part for IPC (not inlined, so that
// updateSampleTime is).
//
//go:noinline
func (d *Decoder) sampleCycles() {
	d.cycEstFlush()
	d.state.Cycles = d.totCycCnt
}

// ctlCYCEnable is the cyc bit of the config (RTIT_CTL.CYCEn).
const ctlCYCEnable = 1 << 1

// TakeCycles returns the cycles counted from CYC packets while tracing was
// enabled since its last call (0 without CYC packets, and always 0 when
// the config has no cyc bit). Unlike
// State.TotCycCnt it moves at each CYC packet and has no estimate from MTC.
func (d *Decoder) TakeCycles() uint64 {
	c := d.cycPend
	if c != 0 {
		d.cycPend = 0
	}
	return c
}

// CyclesPending reports whether TakeCycles would return cycles.
func (d *Decoder) CyclesPending() bool { return d.cycPend != 0 }

func (d *Decoder) reposition() {
	d.ip = 0
	d.pktState = stNoPSB
	d.timestamp = 0
	d.haveTMA = false
}

// getData mirrors intel_pt_get_data.
func (d *Decoder) getData(reposition bool) status {
	d.step = 0
	var b Buffer
	if err := d.p.GetTrace(&b); err != nil {
		return eNOMEMish
	}
	d.buf = b.Data
	if len(d.buf) == 0 {
		return eNODATA
	}
	d.bufTimestamp = b.RefTimestamp
	if !b.Consecutive || reposition {
		d.reposition()
		d.refTimestamp = b.RefTimestamp
		d.state.TraceNr = b.TraceNr
		return eNOLINK
	}
	return ok
}

const eNOMEMish status = -12

func (d *Decoder) getNextData(reposition bool) status {
	if len(d.nextBuf) == 0 {
		d.nextBuf = nil
		return d.getData(reposition)
	}
	d.buf = d.nextBuf
	d.nextBuf = nil
	return ok
}

// getNextPacket mirrors intel_pt_get_next_packet (PAD skipped).
func (d *Decoder) getNextPacket() status {
	d.lastPacketKind = d.pkt.Kind
	for {
		if d.step > len(d.buf) {
			d.step = len(d.buf)
		}
		d.pos += uint64(d.step)
		d.buf = d.buf[d.step:]
		if len(d.buf) == 0 {
			if s := d.getNextData(false); s != ok {
				return s
			}
		}
		// In place: a copy of a just-built packet would stall.
		err := decodePacket(&d.pkt, d.buf)
		p := &d.pkt
		if err != nil || p.Size == 0 {
			return d.badPacket()
		}
		d.pktLen = int(p.Size)
		d.step = int(p.Size)
		if p.Kind != packet.KindPad {
			if d.pos >= d.stopPos {
				d.watch()
			}
			return ok
		}
	}
}

func (d *Decoder) badPacket() status {
	d.txFlags = 0
	d.haveTMA = false
	d.pktLen = 1
	d.step = 1
	d.pkt = packet.Packet{}
	if d.pktState != stNoPSB {
		// INTEL_PT_STATE_ERR1 keeps the current state.
	}
	return eBADMSG
}

// lookahead mirrors intel_pt_pkt_lookahead within the current buffer.
func (d *Decoder) lookahead(cb func(p *packet.Packet) bool) {
	buf := d.buf
	n := d.step
	for {
		buf = buf[n:]
		if len(buf) == 0 {
			return
		}
		var p packet.Packet
		err := decodePacket(&p, buf)
		if err != nil || p.Size == 0 {
			return
		}
		n = int(p.Size)
		if p.Kind == packet.KindPad {
			continue
		}
		if cb(&p) {
			return
		}
	}
}

// decodePacket decodes the packet at the start of buf into p as perf's
// packet decoder does (intel_pt_do_get_packet): ptdecode/packet's rules,
// which are libipt's, where perf agrees, and perf's where they differ.
// Corrupted trace data shows every difference, and each changes where perf
// reports a bad packet and resynchronises:
//   - a CYC with nine extension bytes is a packet (intel_pt_get_cyc reads
//     up to ten bytes; the payload bits past 64 are lost);
//   - a TMA's reserved byte and the FC's bits 9..15 are not checked
//     (intel_pt_get_tma keeps bit 8 of the FC from bit 0 of the last byte);
//   - a TNT-64 with no bit before its stop bit, or no stop bit, is a TNT of
//     no bits (intel_pt_get_long_tnt), which the walker skips;
//   - a MODE.Exec with CS.L and CS.D both set, or a MODE.TSX with InTX and
//     TXAbort both set, is a bad packet (intel_pt_get_mode);
//   - TRIG is not a packet perf 6.1 knows.
func decodePacket(p *packet.Packet, buf []byte) error {
	err := packet.DecodeInto(p, buf, 0)
	if err == nil {
		switch p.Kind {
		case packet.KindModeExec:
			if p.Flags&(packet.FlagCSL|packet.FlagCSD) == packet.FlagCSL|packet.FlagCSD {
				err = packet.ErrBadPacket
			}
		case packet.KindModeTSX:
			if p.Flags&(packet.FlagInTX|packet.FlagTXAbort) == packet.FlagInTX|packet.FlagTXAbort {
				err = packet.ErrBadPacket
			}
		case packet.KindTrig:
			err = packet.ErrBadOpcode
		}
		if err != nil {
			*p = packet.Packet{}
		}
		return err
	}
	if len(buf) == 0 {
		return err
	}
	switch {
	case buf[0]&3 == 3:
		if v, n, ok := perfCYC(buf); ok {
			*p = packet.Packet{Kind: packet.KindCYC, Size: uint8(n), Payload: v}
			return nil
		}
	case buf[0] == 0x02 && len(buf) >= 7 && buf[1] == 0x73: // TMA
		*p = packet.Packet{Kind: packet.KindTMA, Size: 7, CTC: uint16(buf[2]) | uint16(buf[3])<<8,
			FC: uint16(buf[5]) | uint16(buf[6]&1)<<8}
		return nil
	case buf[0] == 0x02 && len(buf) >= 8 && buf[1] == 0xa3: // TNT-64
		*p = packet.Packet{Kind: packet.KindTNT64, Size: 8}
		return nil
	}
	return err
}

// perfCYC mirrors intel_pt_get_cyc.
func perfCYC(buf []byte) (payload uint64, n int, ok bool) {
	b := uint(buf[0])
	payload = uint64(b >> 3)
	b >>= 2
	n = 1
	for shift := uint(5); b&1 != 0; shift += 7 {
		if n > 9 || n >= len(buf) {
			return 0, 0, false
		}
		b = uint(buf[n])
		n++
		payload |= uint64(b>>1) << shift
	}
	return payload, n, true
}
