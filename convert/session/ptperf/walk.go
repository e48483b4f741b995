package ptperf

import (
	"bytes"
	"errors"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

func (d *Decoder) nextSample() uint64 {
	switch d.p.PeriodType {
	case PeriodInstructions:
		return d.p.Period - d.periodInsnCnt
	case PeriodTicks:
		return d.nextPeriod()
	}
	return 0
}

func (d *Decoder) nextPeriod() uint64 {
	ts := d.timestamp + d.timestampInsnCnt
	masked := ts & d.periodMask
	if d.continuousPeriod {
		if masked > d.lastMaskedTS {
			return 1
		}
	} else {
		ts++
		masked = ts & d.periodMask
		if masked > d.lastMaskedTS {
			d.lastMaskedTS = masked
			d.continuousPeriod = true
		}
	}
	if masked < d.lastMaskedTS {
		return d.periodTicks
	}
	return d.periodTicks - (ts - masked)
}

func (d *Decoder) sampleInsn() {
	switch d.p.PeriodType {
	case PeriodInstructions:
		d.periodInsnCnt = 0
	case PeriodTicks:
		ts := d.timestamp + d.timestampInsnCnt
		masked := ts & d.periodMask
		if masked > d.lastMaskedTS {
			d.lastMaskedTS = masked
		} else {
			d.lastMaskedTS += d.periodTicks
		}
	}
	d.state.Type |= TypeInstruction
}

func (d *Decoder) addInsns(n uint64) {
	d.totInsnCnt += n
	d.timestampInsnCnt += n
	d.sampleInsnCnt += n
	d.periodInsnCnt += n
}

// walkInsn mirrors intel_pt_walk_insn.
func (d *Decoder) walkInsn(in *Insn, ip uint64) status {
	if !d.mtcInsn {
		d.mtcInsn = true
	}
	maxCnt := d.nextSample()
	if maxCnt == 1 && ip == 0 && d.straightW != nil {
		d.walkStraight()
	}
	d.walkCnt = 0
	err := d.p.Walker.WalkInsn(in, &d.walkCnt, &d.ip, ip, maxCnt, d.state.ToNR)
	cnt := d.walkCnt
	d.addInsns(cnt)
	if err != nil {
		d.noProgress = 0
		d.pktState = stNoIP // ERR2
		var we WalkError
		if errors.As(err, &we) && we == WalkNoData {
			return eNOLINK
		}
		return eILSEQ
	}
	var s status
	if ip != 0 && d.ip == ip {
		s = eAGAIN
		goto out
	}
	if maxCnt != 0 && cnt >= maxCnt {
		d.sampleInsn()
	}
	if in.Branch == BrNone {
		d.state.Type = TypeInstruction
		d.state.FromIP = d.ip
		d.state.ToIP = 0
		d.ip += uint64(in.Length)
		s = ptReturn
		goto out
	}
	if in.Op == OpCall {
		if in.Branch != BrUnconditional || in.Rel != 0 {
			d.push(d.ip + uint64(in.Length))
		}
	} else if in.Op == OpRet {
		d.retAddr = d.pop()
	}
	if in.Branch == BrUnconditional {
		c := d.noProgress
		d.noProgress++
		d.state.FromIP = d.ip
		d.ip += uint64(in.Length) + uint64(int64(in.Rel))
		d.state.ToIP = d.ip
		s = ptReturn
		if c != 0 {
			if c == 1 {
				d.stuckIP = d.state.ToIP
				d.stuckIPPrd = 1
				d.stuckIPCnt = 1
			} else if c > d.p.MaxLoops || d.state.ToIP == d.stuckIP {
				d.pktState = stErrResync
				s = eLOOP
				goto out
			} else {
				d.stuckIPCnt--
				if d.stuckIPCnt == 0 {
					d.stuckIPPrd++
					d.stuckIPCnt = d.stuckIPPrd
					d.stuckIP = d.state.ToIP
				}
			}
		}
		goto outNoProgress
	}
out:
	d.noProgress = 0
outNoProgress:
	d.state.InsnOp = in.Op
	d.state.InsnLen = in.Length
	d.state.Insn = in.Buf
	if d.txFlags&FlagInTx != 0 {
		d.state.Flags |= FlagInTx
	}
	return s
}

func (d *Decoder) clearFUPEvent() {
	d.setFUPTxFlags = false
	d.setFUPPTW = false
	d.setFUPMWait = false
	d.setFUPPwrE = false
	d.setFUPExStop = false
	d.setFUPModeEx = false
}

// fupEvent mirrors intel_pt_fup_event for the events modelled (MODE.Exec,
// TSX, PTWRITE, MWAIT, PWRE, EXSTOP and overflow recovery).
func (d *Decoder) fupEvent(noTip bool) bool {
	typ := d.state.Type
	ret := false
	d.state.Type &^= TypeBranch
	if d.setFUPModeEx {
		d.setFUPModeEx = false
		// intel_pt_sample_iflag: iflag changes are not modelled, and
		// sample_fup_insn only matters with event tracing.
		ret = true
		_ = noTip
	}
	if d.setFUPTxFlags {
		d.setFUPTxFlags = false
		d.txFlags = d.fupTxFlags
		d.state.Type |= TypeTransaction
		if d.fupTxFlags&FlagAbortTx != 0 {
			d.state.Type |= TypeBranch
		}
		d.state.Flags = d.fupTxFlags
		ret = true
	}
	if d.setFUPPTW {
		d.setFUPPTW = false
		d.state.Type |= TypePTW
		d.state.Flags |= FlagFUPIP
		d.state.PTWPayload = d.fupPTWPayload
		ret = true
	}
	if d.setFUPMWait {
		d.setFUPMWait = false
		d.state.Type |= TypeMWaitOp
		d.state.MWaitPayload = d.fupMWaitPayload
		ret = true
	}
	if d.setFUPPwrE {
		d.setFUPPwrE = false
		d.state.Type |= TypePwrEntry
		d.state.PwrEPayload = d.fupPwrEPayload
		ret = true
	}
	if d.setFUPExStop {
		d.setFUPExStop = false
		d.state.Type |= TypeExStop
		d.state.Flags |= FlagFUPIP
		ret = true
	}
	if d.overflow {
		d.overflow = false
		if !ret && !d.pge {
			if d.hop {
				d.state.Type = 0
				d.pktState = stResample
			}
			d.pge = true
			d.state.Type |= TypeBranch | TypeTraceBegin
			d.state.FromIP = 0
			d.state.ToIP = d.ip
			return true
		}
	}
	if ret {
		d.state.FromIP = d.ip
		d.state.ToIP = 0
	} else {
		d.state.Type = typ
	}
	return ret
}

// walkFUP mirrors intel_pt_walk_fup.
func (d *Decoder) walkFUP() status {
	in := &d.scratch
	// perf's instruction here is a fresh local: when the FUP is at the
	// current IP (nothing walked) the state's operation is not the last
	// instruction walked before (perf script shows no branch type for a
	// transaction that starts or ends right after a jump).
	in.Op, in.Branch = OpOther, BrNone
	ip := d.lastIP
	for {
		s := d.walkInsn(in, ip)
		if s == ptReturn {
			return ok
		}
		if s == eAGAIN {
			noTip := d.pktState != stFUP
			d.pktState = stInSync
			if d.fupEvent(noTip) && noTip {
				return ok
			}
			return eAGAIN
		}
		d.setFUPTxFlags = false
		if s != ok {
			return s
		}
		if in.Branch == BrIndirect || in.Branch == BrConditional {
			d.pktState = stErrResync
			return eNOENT
		}
		// perf calls intel_pt_bug here, drops its -ENOSYS and walks on;
		// returning it stops the walk at the impossible case instead.
		//lint:ignore SA4004 the loop ends on every path but one that cannot happen
		return eNOSYS
	}
}

// walkTIP mirrors intel_pt_walk_tip (no address filters).
func (d *Decoder) walkTIP() status {
	in := &d.scratch
	s := d.walkInsn(in, 0)
	if s == ptReturn {
		return ok
	}
	if s != ok {
		return s
	}
	d.updateNR()
	if in.Branch == BrIndirect {
		if d.pktState == stTIPPGD {
			d.pge = false
			d.continuousPeriod = false
			d.pktState = stInSync
			d.state.FromIP = d.ip
			if d.pkt.IPC == packet.IPCSuppressed {
				d.state.ToIP = 0
			} else {
				d.state.ToIP = d.lastIP
				d.ip = d.lastIP
			}
			d.state.Type |= TypeTraceEnd
		} else {
			d.pktState = stInSync
			d.state.FromIP = d.ip
			if d.pkt.IPC == packet.IPCSuppressed {
				d.state.ToIP = 0
			} else {
				d.state.ToIP = d.lastIP
				d.ip = d.lastIP
			}
		}
		return ok
	}
	if in.Branch == BrConditional {
		d.pktState = stErrResync
		return eNOENT
	}
	return eNOSYS
}

// The non-root (VMX guest) bit of the last PIP packet, and the states' NR
// bits: perf's intel_pt_update_pip, intel_pt_update_nr, intel_pt_set_nr and
// intel_pt_set_pip. A PIP changes the NR of the states from the next branch
// on (updateNR, at TIPs); PSB+, TIP.PGE, overflows and errors apply it at
// once (setNR).
func (d *Decoder) updatePIP() { d.pipNR = d.pkt.Flags&packet.FlagNR != 0 }
func (d *Decoder) updateNR()  { d.nextNR = d.pipNR }
func (d *Decoder) setNR()     { d.nr, d.nextNR = d.pipNR, d.pipNR }
func (d *Decoder) setPIP()    { d.updatePIP(); d.setNR() }

// walkTNT mirrors intel_pt_walk_tnt.
func (d *Decoder) walkTNT() status {
	in := &d.scratch
	for {
		if d.bulkW != nil {
			// The edge-graph path (bulk.go): many runs at once.
			var s status
			switch d.walkBulk(d.bulkW, &s) {
			case bulkBranch:
				return ok
			case bulkAgain:
				return eAGAIN
			case bulkStatus:
				return s
			}
		}
		s := d.walkInsn(in, 0)
		if s == ptReturn {
			return ok
		}
		if s != ok {
			return s
		}
		if in.Op == OpRet {
			if !d.p.ReturnCompression || d.retAddr == 0 || d.tntPayload>>63 == 0 {
				d.pktState = stErrResync // ERR3
				return eNOENT
			}
			d.tntCount--
			if d.tntCount != 0 {
				d.pktState = stTNTCont
			} else {
				d.pktState = stInSync
			}
			d.tntPayload <<= 1
			d.state.FromIP = d.ip
			d.ip = d.retAddr
			d.state.ToIP = d.ip
			return ok
		}
		if in.Branch == BrIndirect {
			if s := d.getNextPacket(); s != ok {
				return s
			}
			if d.pkt.Kind != packet.KindTIP || d.pkt.IPC == packet.IPCSuppressed {
				d.pktState = stErrResync
				d.step = 0
				return eNOENT
			}
			d.setLastIP()
			d.state.FromIP = d.ip
			d.state.ToIP = d.lastIP
			d.ip = d.lastIP
			d.updateNR()
			return ok
		}
		if in.Branch == BrConditional {
			d.tntCount--
			if d.tntCount != 0 {
				d.pktState = stTNTCont
			} else {
				d.pktState = stInSync
			}
			if d.tntPayload>>63 != 0 {
				d.tntPayload <<= 1
				d.state.FromIP = d.ip
				d.ip += uint64(in.Length) + uint64(int64(in.Rel))
				d.state.ToIP = d.ip
				return ok
			}
			if d.state.Type&TypeInstruction != 0 {
				d.tntPayload <<= 1
				d.state.Type = TypeInstruction
				d.state.FromIP = d.ip
				d.state.ToIP = 0
				d.ip += uint64(in.Length)
				return ok
			}
			d.sampleCyc = false
			d.ip += uint64(in.Length)
			if d.tntCount == 0 {
				d.updateSampleTime()
				return eAGAIN
			}
			d.tntPayload <<= 1
			continue
		}
		return eNOSYS
	}
}

func tsc8b(ts, ref uint64) uint64 {
	ts |= ref & (0xff << 56)
	if ts < ref {
		if ref-ts > 1<<55 {
			ts += 1 << 56
		}
	} else if ts-ref > 1<<55 {
		ts -= 1 << 56
	}
	return ts
}

// calcTSC mirrors intel_pt_calc_tsc_timestamp.
func (d *Decoder) calcTSC() {
	d.haveTMA = false
	if d.refTimestamp != 0 {
		ts := tsc8b(d.pkt.Payload, d.refTimestamp)
		d.tscTimestamp = ts
		d.timestamp = ts
		d.refTimestamp = 0
		d.timestampInsnCnt = 0
	} else if d.timestamp != 0 {
		ts := d.pkt.Payload | d.timestamp&(0xff<<56)
		d.tscTimestamp = ts
		if ts < d.timestamp && d.timestamp-ts < d.tscSlip {
			ts = d.timestamp
		}
		if ts < d.timestamp {
			if d.bufTimestamp == 0 || ts+(1<<56) < d.bufTimestamp {
				ts += 1 << 56
				d.tscTimestamp = ts
			} else {
				ts = d.timestamp
			}
		}
		d.timestamp = ts
		d.timestampInsnCnt = 0
	}
	d.cycAfterTiming(false)
}

// calcTMA mirrors intel_pt_calc_tma.
func (d *Decoder) calcTMA() {
	ctc := uint32(d.pkt.CTC)
	fc := uint64(d.pkt.FC)
	rem := ctc & d.ctcRemMask
	if d.p.TSCCTCRatioD == 0 {
		return
	}
	if d.pge && !d.inPSB {
		d.mtcCycCntPGE()
	} else {
		d.mtcCycCntUpd()
	}
	d.lastMTC = (ctc >> d.mtcShift) & 0xff
	d.lastCTC = ctc - rem
	d.ctcTimestamp = d.tscTimestamp - fc
	if d.tscCTCMult != 0 {
		d.ctcTimestamp -= uint64(rem) * uint64(d.tscCTCMult)
	} else {
		d.ctcTimestamp -= multdiv(uint64(rem), d.p.TSCCTCRatioN, d.p.TSCCTCRatioD)
	}
	d.ctcDelta = 0
	d.haveTMA = true
	d.fixupLastMTC = true
}

func multdiv(t uint64, n, dd uint32) uint64 {
	if dd == 0 {
		return 0
	}
	return (t/uint64(dd))*uint64(n) + ((t%uint64(dd))*uint64(n))/uint64(dd)
}

// fixupLastMTC mirrors intel_pt_fixup_last_mtc: with mtc_shift > 8 the
// TMA's CTC lacks high bits of the MTC; take them from the current MTC,
// assuming it comes after the last one.
func fixupLastMTC(mtc uint32, shift uint32, last *uint32) {
	first := uint32(1) << (16 - shift)
	mask := ^(first - 1)
	*last |= mtc & mask
	if *last >= mtc {
		*last -= first
		*last &= 0xff
	}
}

// calcMTC mirrors intel_pt_calc_mtc_timestamp.
func (d *Decoder) calcMTC() {
	if !d.haveTMA {
		return
	}
	mtc := uint32(d.pkt.CTC)
	if d.mtcShift > 8 && d.fixupLastMTC {
		d.fixupLastMTC = false
		fixupLastMTC(mtc, d.mtcShift, &d.lastMTC)
	}
	var delta uint32
	if mtc > d.lastMTC {
		delta = mtc - d.lastMTC
	} else {
		delta = mtc + 256 - d.lastMTC
	}
	d.ctcDelta += uint64(delta) << d.mtcShift
	var ts uint64
	if d.tscCTCMult != 0 {
		ts = d.ctcTimestamp + d.ctcDelta*uint64(d.tscCTCMult)
	} else {
		ts = d.ctcTimestamp + multdiv(d.ctcDelta, d.p.TSCCTCRatioN, d.p.TSCCTCRatioD)
	}
	if ts >= d.timestamp {
		d.timestamp = ts
	}
	d.mtcCycCntUpd()
	d.timestampInsnCnt = 0
	d.lastMTC = mtc
	d.cycAfterTiming(true)
}

func (d *Decoder) calcCBR() {
	cbr := uint32(d.pkt.Payload & 0xff)
	d.cbrPayload = d.pkt.Payload
	if d.cbr == cbr {
		return
	}
	if d.cbr != 0 {
		// A change the decoder that reached a MidStream start sees
		// too (the first CBR of that start's PSB+ may be none).
		d.cycRefUnsure = false
	}
	d.cbr = cbr
	d.cbrCycToTSC = d.maxNonTurboFP / float64(cbr)
	// perf 6.1.y stable ("Fix CYC timestamps after standalone CBR"):
	// CYC cycles count from the CBR change.
	d.cycRefTimestamp = d.timestamp
	d.cycleCnt = 0
	d.mtcCycCntCBR()
}

func (d *Decoder) overflowed() status {
	d.txFlags = 0
	d.setNR()
	d.timestampInsnCnt = 0
	d.pktState = stInSync
	d.state.FromIP = d.ip
	d.ip = 0
	d.pge = false
	d.clearFUPEvent()
	d.overflow = true
	return eOVERFLOW
}

func (d *Decoder) modeExecStatus() { d.execMode = d.pkt.ExecMode() }
func (d *Decoder) modeExec()       { d.execMode = d.pkt.ExecMode() }

// walkPSBEnd mirrors intel_pt_walk_psbend.
func (d *Decoder) walkPSBEnd() status {
	d.inPSB = true
	defer func() { d.inPSB = false }()
	for {
		if s := d.getNextPacket(); s != ok {
			return s
		}
		switch d.pkt.Kind {
		case packet.KindPSBEnd:
			return ok
		case packet.KindTIPPGD, packet.KindTIPPGE, packet.KindTIP, packet.KindTNT8, packet.KindTNT64,
			packet.KindStop, packet.KindPSB, packet.KindPTW, packet.KindExStop, packet.KindMWait,
			packet.KindPwrE, packet.KindPwrX, packet.KindBBP, packet.KindBIP, packet.KindBEP,
			packet.KindCFE, packet.KindEVD:
			d.haveTMA = false
			return eAGAIN
		case packet.KindOVF:
			return d.overflowed()
		case packet.KindTSC:
			d.calcTSC()
		case packet.KindTMA:
			d.calcTMA()
		case packet.KindCBR:
			d.calcCBR()
		case packet.KindModeExec:
			d.modeExecStatus()
		case packet.KindPIP:
			d.setPIP()
		case packet.KindModeTSX:
			d.updateInTx()
		case packet.KindFUP:
			d.pge = true
			if d.pkt.IPC != packet.IPCSuppressed {
				d.setLastIP()
				d.psbIP = d.lastIP
			}
		case packet.KindMTC:
			d.calcMTC()
			if d.p.PeriodType == PeriodMTC {
				d.state.Type |= TypeInstruction
			}
		case packet.KindCYC:
			d.calcCycTimestamp()
		}
	}
}

// walkFUPTIP mirrors intel_pt_walk_fup_tip.
func (d *Decoder) walkFUPTIP() status {
	if d.txFlags&FlagAbortTx != 0 {
		d.txFlags = 0
		d.state.Flags &^= FlagInTx
		d.state.Flags |= FlagAbortTx
	} else {
		d.state.Flags |= FlagAsync
	}
	for {
		if s := d.getNextPacket(); s != ok {
			return s
		}
		switch d.pkt.Kind {
		case packet.KindTNT8, packet.KindTNT64, packet.KindFUP, packet.KindStop, packet.KindPSB,
			packet.KindTSC, packet.KindTMA, packet.KindModeTSX, packet.KindPSBEnd, packet.KindPTW,
			packet.KindExStop, packet.KindMWait, packet.KindPwrE, packet.KindPwrX, packet.KindBBP,
			packet.KindBIP, packet.KindBEP, packet.KindCFE, packet.KindEVD:
			d.pktState = stErrResync
			d.step = 0
			return eNOENT
		case packet.KindCBR:
			d.calcCBR()
		case packet.KindOVF:
			return d.overflowed()
		case packet.KindTIPPGD:
			d.state.FromIP = d.ip
			if d.pkt.IPC == packet.IPCSuppressed {
				d.state.ToIP = 0
			} else {
				d.setIP()
				d.state.ToIP = d.ip
			}
			d.pge = false
			d.continuousPeriod = false
			d.state.Type |= TypeTraceEnd
			d.updateNR()
			return ok
		case packet.KindTIPPGE:
			d.pge = true
			d.state.FromIP = 0
			if d.pkt.IPC == packet.IPCSuppressed {
				d.state.ToIP = 0
			} else {
				d.setIP()
				d.state.ToIP = d.ip
			}
			d.state.Type |= TypeTraceBegin
			d.mtcCycCntPGE()
			d.setNR()
			return ok
		case packet.KindTIP:
			d.state.FromIP = d.ip
			if d.pkt.IPC == packet.IPCSuppressed {
				d.state.ToIP = 0
			} else {
				d.setIP()
				d.state.ToIP = d.ip
			}
			d.updateNR()
			return ok
		case packet.KindPIP:
			d.updatePIP()
		case packet.KindMTC:
			d.calcMTC()
			if d.p.PeriodType == PeriodMTC {
				d.state.Type |= TypeInstruction
			}
		case packet.KindModeExec:
			d.modeExec()
		case packet.KindCYC:
			d.calcCycTimestamp()
		case packet.KindVMCS, packet.KindMNT, packet.KindPad:
		default:
			return eNOSYS
		}
	}
}

// psb mirrors intel_pt_psb.
func (d *Decoder) psb() status {
	d.lastIP = 0
	d.psbIP = 0
	d.haveLastIP = true
	d.clearStack()
	if s := d.walkPSBEnd(); s != ok {
		return s
	}
	d.state.Type = TypePSBEvt
	d.state.FromIP = d.psbIP
	d.state.ToIP = 0
	return ok
}

// fupInPSB mirrors intel_pt_fup_in_psb.
func (d *Decoder) fupInPSB() status {
	if d.ip != d.lastIP {
		s := d.walkFUP()
		if s == ok || s != eAGAIN {
			return s
		}
	}
	d.pktState = stInSync
	if s := d.psb(); s != ok {
		d.pktState = stErrResync
		return eNOENT
	}
	return ok
}

// psbWithFUP mirrors intel_pt_psb_with_fup.
func (d *Decoder) psbWithFUP(s *status) bool {
	if !d.p.BranchEnable {
		return false
	}
	var fup packet.Packet
	haveFUP := false
	after := 0
	d.lookahead(func(p *packet.Packet) bool {
		switch p.Kind {
		case packet.KindPad, packet.KindMNT, packet.KindTSC, packet.KindTMA, packet.KindModeExec,
			packet.KindModeTSX, packet.KindMTC, packet.KindCYC, packet.KindVMCS, packet.KindCBR, packet.KindPIP:
			if after != 0 {
				after--
				if after == 0 {
					return true
				}
			}
			return false
		case packet.KindFUP:
			if after != 0 {
				return true
			}
			if haveFUP || p.IPC == packet.IPCSuppressed {
				return true
			}
			fup, haveFUP = *p, true
			return false
		case packet.KindPSBEnd:
			if !haveFUP {
				return true
			}
			after = 6
			return false
		case packet.KindTIPPGE:
			if after != 0 {
				haveFUP = false
			}
			return true
		case packet.KindPTW, packet.KindExStop, packet.KindMWait, packet.KindPwrE, packet.KindPwrX,
			packet.KindBBP, packet.KindBIP, packet.KindBEP, packet.KindCFE, packet.KindEVD:
			if after != 0 {
				after--
				return after == 0
			}
			return true
		}
		return true
	})
	if !haveFUP {
		return false
	}
	d.pkt = fup
	d.setLastIP()
	d.pktState = stFUPInPSB
	*s = d.fupInPSB()
	return true
}

// walkTrace mirrors intel_pt_walk_trace.
func (d *Decoder) walkTrace() status {
	noTip := false
	last := packet.KindPad
	for {
		if s := d.getNextPacket(); s != ok {
			return s
		}
	next:
		if d.cycThreshold != 0 {
			if d.sampleCyc && last != packet.KindCYC {
				d.sampleCyc = false
			}
			last = d.pkt.Kind
		}
		if d.hop {
			var s status
			switch d.hopTrace(&noTip, &s) {
			case hopIgnore:
				continue
			case hopReturn:
				return s
			case hopAgain:
				goto next
			}
		}
		switch d.pkt.Kind {
		case packet.KindTNT8, packet.KindTNT64:
			if d.pkt.Bits == 0 {
				break
			}
			d.tntCount = int(d.pkt.Bits)
			d.tntPayload = d.pkt.Payload << (64 - uint(d.pkt.Bits))
			d.pktState = stTNT
			s := d.walkTNT()
			if s == eAGAIN {
				break
			}
			return s
		case packet.KindTIPPGD:
			if d.pkt.IPC != packet.IPCSuppressed {
				d.setLastIP()
			}
			d.pktState = stTIPPGD
			return d.walkTIP()
		case packet.KindTIPPGE:
			d.pge = true
			d.overflow = false
			d.mtcCycCntPGE()
			d.setNR()
			if d.pkt.IPC == packet.IPCSuppressed {
				break
			}
			d.setIP()
			d.state.FromIP = 0
			d.state.ToIP = d.ip
			d.state.Type |= TypeTraceBegin
			if d.hop {
				// Resample to get the IP as an instruction.
				d.pktState = stResample
			}
			return ok
		case packet.KindOVF:
			return d.overflowed()
		case packet.KindTIP:
			if d.pkt.IPC != packet.IPCSuppressed {
				d.setLastIP()
			}
			d.pktState = stTIP
			return d.walkTIP()
		case packet.KindFUP:
			if d.pkt.IPC == packet.IPCSuppressed {
				noTip = false
				break
			}
			d.setLastIP()
			if !d.p.BranchEnable || !d.pge {
				d.ip = d.lastIP
				if d.fupEvent(noTip) {
					return ok
				}
				noTip = false
				break
			}
			if d.setFUPMWait {
				noTip = true
			}
			if noTip {
				d.pktState = stFUPNoTIP
			} else {
				d.pktState = stFUP
			}
			s := d.walkFUP()
			if s != eAGAIN {
				return s
			}
			if noTip {
				noTip = false
				break
			}
			return d.walkFUPTIP()
		case packet.KindStop:
			d.pge = false
			d.continuousPeriod = false
			d.txFlags = 0
			d.haveTMA = false
		case packet.KindPSB:
			d.state.PSBOffset = d.pos
			d.psbIP = 0
			var s status
			if d.psbWithFUP(&s) {
				return s
			}
			s = d.psb()
			if s == eAGAIN {
				goto next
			}
			return s
		case packet.KindMTC:
			d.calcMTC()
			if d.p.PeriodType != PeriodMTC {
				break
			}
			if !d.mtcInsn {
				break
			}
			d.mtcInsn = false
			if d.timestamp == 0 {
				break
			}
			d.state.Type = TypeInstruction
			d.state.FromIP = d.ip
			d.state.ToIP = 0
			return ok
		case packet.KindTSC:
			d.calcTSC()
		case packet.KindTMA:
			d.calcTMA()
		case packet.KindCYC:
			d.calcCycTimestamp()
		case packet.KindCBR:
			d.calcCBR()
			if d.cbr != d.cbrSeen {
				d.state.Type = 0
				return ok
			}
		case packet.KindModeExec:
			d.modeExec()
			if s := d.getNextPacket(); s != ok {
				return s
			}
			if d.pkt.Kind == packet.KindFUP {
				d.setFUPModeEx = true
				noTip = true
			}
			goto next
		case packet.KindModeTSX:
			// MODE.TSX need not be followed by a FUP.
			if !d.pge || d.inPSB {
				d.updateInTx()
				break
			}
			if s := d.modeTSX(&noTip); s != ok {
				return s
			}
			goto next
		case packet.KindPIP:
			d.updatePIP()
		case packet.KindPSBEnd, packet.KindVMCS, packet.KindMNT, packet.KindPad:
		case packet.KindPTW:
			if d.pkt.Flags&packet.FlagIP != 0 {
				d.fupPTWPayload = d.pkt.Payload
				if s := d.getNextPacket(); s != ok {
					return s
				}
				if d.pkt.Kind == packet.KindFUP {
					d.setFUPPTW = true
					noTip = true
				}
				goto next
			}
			d.state.Type = TypePTW
			d.state.FromIP = d.ip
			d.state.ToIP = 0
			d.state.PTWPayload = d.pkt.Payload
			return ok
		case packet.KindMWait:
			d.fupMWaitPayload = d.rawPayload(10)
			d.setFUPMWait = true
		case packet.KindPwrE:
			if d.setFUPMWait {
				d.fupPwrEPayload = d.rawPayload(4)
				d.setFUPPwrE = true
				break
			}
			// perf stores a lone PWRE's payload as the PWRX one (the
			// pwre sample then shows the last FUP-bound PWRE's).
			d.state.Type = TypePwrEntry
			d.state.FromIP = d.ip
			d.state.ToIP = 0
			d.state.PwrXPayload = d.rawPayload(4)
			return ok
		case packet.KindExStop:
			if d.pkt.Flags&packet.FlagIP != 0 {
				if s := d.getNextPacket(); s != ok {
					return s
				}
				if d.pkt.Kind == packet.KindFUP {
					d.setFUPExStop = true
					noTip = true
				}
				goto next
			}
			d.state.Type = TypeExStop
			d.state.FromIP = d.ip
			d.state.ToIP = 0
			return ok
		case packet.KindPwrX:
			d.state.Type = TypePwrExit
			d.state.FromIP = d.ip
			d.state.ToIP = 0
			d.state.PwrXPayload = d.rawPayload(7)
			return ok
		case packet.KindBBP, packet.KindBIP, packet.KindBEP, packet.KindCFE, packet.KindEVD, packet.KindTrig:
			// Not modelled: ignored.
		default:
			return eNOSYS
		}
	}
}

// walkPSB mirrors intel_pt_walk_psb.
func (d *Decoder) walkPSB() status {
	d.inPSB = true
	defer func() { d.inPSB = false }()
	for {
		if s := d.getNextPacket(); s != ok {
			return s
		}
		switch d.pkt.Kind {
		case packet.KindTIPPGD, packet.KindTIPPGE, packet.KindTIP, packet.KindPTW, packet.KindExStop,
			packet.KindMWait, packet.KindPwrE, packet.KindPwrX, packet.KindBBP, packet.KindBIP,
			packet.KindBEP, packet.KindCFE, packet.KindEVD:
			if d.pkt.Kind == packet.KindTIPPGD {
				d.continuousPeriod = false
			}
			return eNOENT
		case packet.KindFUP:
			d.pge = true
			if d.haveIP() {
				d.setIP()
				d.psbIP = d.ip
			}
		case packet.KindMTC:
			d.calcMTC()
		case packet.KindTSC:
			d.calcTSC()
		case packet.KindTMA:
			d.calcTMA()
		case packet.KindCYC:
			d.calcCycTimestamp()
		case packet.KindCBR:
			d.calcCBR()
		case packet.KindPIP:
			d.setPIP()
		case packet.KindModeExec:
			d.modeExecStatus()
		case packet.KindModeTSX:
			d.updateInTx()
		case packet.KindStop, packet.KindTNT8, packet.KindTNT64:
			if d.pkt.Kind == packet.KindStop {
				d.pge = false
				d.continuousPeriod = false
				d.txFlags = 0
			}
			d.haveTMA = false
			if d.ip != 0 {
				d.pktState = stInSync // ERR4
			} else {
				d.pktState = stErrResync // ERR3
			}
			return eNOENT
		case packet.KindOVF:
			return d.overflowed()
		case packet.KindPSBEnd:
			return ok
		}
	}
}

// walkToIP mirrors intel_pt_walk_to_ip.
func (d *Decoder) walkToIP() status {
	for {
		if s := d.getNextPacket(); s != ok {
			return s
		}
		switch d.pkt.Kind {
		case packet.KindTIPPGD:
			d.continuousPeriod = false
			d.pge = false
			if d.haveIP() {
				d.setIP()
			}
			if d.ip == 0 {
				break
			}
			d.state.Type |= TypeTraceEnd
			return ok
		case packet.KindTIPPGE:
			d.pge = true
			d.mtcCycCntPGE()
			if d.haveIP() {
				d.setIP()
			}
			if d.ip == 0 {
				break
			}
			d.state.Type |= TypeTraceBegin
			return ok
		case packet.KindTIP:
			d.pge = true
			if d.haveIP() {
				d.setIP()
			}
			if d.ip == 0 {
				break
			}
			return ok
		case packet.KindFUP:
			if d.haveIP() {
				d.setIP()
			}
			if d.ip != 0 {
				return ok
			}
		case packet.KindMTC:
			d.calcMTC()
		case packet.KindTSC:
			d.calcTSC()
		case packet.KindTMA:
			d.calcTMA()
		case packet.KindCYC:
			d.calcCycTimestamp()
		case packet.KindCBR:
			d.calcCBR()
		case packet.KindPIP:
			d.setPIP()
		case packet.KindModeExec:
			d.modeExecStatus()
		case packet.KindModeTSX:
			d.updateInTx()
		case packet.KindOVF:
			return d.overflowed()
		case packet.KindStop:
			d.pge = false
			d.continuousPeriod = false
			d.txFlags = 0
			d.haveTMA = false
		case packet.KindPSB:
			d.state.PSBOffset = d.pos
			d.psbIP = 0
			d.lastIP = 0
			d.haveLastIP = true
			d.clearStack()
			if s := d.walkPSB(); s != ok {
				return s
			}
			d.state.Type = TypePSBEvt
			d.state.FromIP = d.psbIP
			d.state.ToIP = 0
			return ok
		}
	}
}

// syncIP mirrors intel_pt_sync_ip.
func (d *Decoder) syncIP() status {
	d.clearFUPEvent()
	d.overflow = false
	if !d.p.BranchEnable {
		d.pktState = stInSync
		d.state.Type = 0
		return ok
	}
	s := d.walkToIP()
	if s != ok || (d.state.Type&TypePSBEvt != 0 && d.ip == 0) {
		return s
	}
	d.pktState = d.inSyncOrResample()
	d.state.FromIP = 0
	d.state.ToIP = d.ip
	return ok
}

var psbBytes = []byte{0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82}

// scanForPSB mirrors intel_pt_scan_for_psb (PSBs split across buffers are
// not joined: perf's 64-bit build does not join split packets either, but
// it does join split PSBs; see partPSB).
func (d *Decoder) scanForPSB() status {
	for {
		if len(d.buf) == 0 {
			if s := d.getNextData(false); s != ok {
				return s
			}
		}
		i := bytes.Index(d.buf, psbBytes)
		if i < 0 {
			if part := partPSB(d.buf); part != 0 {
				if s := d.getSplitPSB(part); s != ok {
					return s
				}
			} else {
				d.pos += uint64(len(d.buf))
				d.buf = d.buf[len(d.buf):]
			}
			continue
		}
		d.step = i
		return d.getNextPacket()
	}
}

func partPSB(buf []byte) int {
	for i := len(psbBytes) - 1; i > 0; i-- {
		if i > len(buf) {
			continue
		}
		if bytes.Equal(buf[len(buf)-i:], psbBytes[:i]) {
			return i
		}
	}
	return 0
}

func (d *Decoder) getSplitPSB(part int) status {
	d.pos += uint64(len(d.buf))
	d.buf = d.buf[len(d.buf):]
	if s := d.getNextData(false); s != ok {
		return s
	}
	rest := len(psbBytes) - part
	if rest > len(d.buf) || !bytes.Equal(d.buf[:rest], psbBytes[part:]) {
		return ok
	}
	d.pos -= uint64(part)
	d.nextBuf = d.buf[rest:]
	d.buf = append([]byte(nil), psbBytes...)
	return ok
}

// sync mirrors intel_pt_sync.
func (d *Decoder) sync() status {
	d.pge = false
	d.continuousPeriod = false
	d.haveLastIP = false
	d.lastIP = 0
	d.psbIP = 0
	d.ip = 0
	d.clearStack()
	if s := d.scanForPSB(); s != ok {
		return s
	}
	d.haveLastIP = true
	d.pktState = stInSync
	if s := d.walkPSB(); s != ok {
		return s
	}
	d.state.Type = TypePSBEvt
	d.state.FromIP = d.psbIP
	d.state.ToIP = 0
	if d.ip != 0 {
		d.pktState = d.inSyncOrResample()
	}
	return ok
}

func (d *Decoder) estTimestamp() uint64 {
	est := d.sampleInsnCnt << 1
	if d.cbr != 0 && d.p.MaxNonTurboRatio != 0 {
		est *= uint64(d.p.MaxNonTurboRatio)
		est /= uint64(d.cbr)
	}
	return d.sampleTimestamp + est
}

// Decode mirrors intel_pt_decode: the next state.
func (d *Decoder) Decode() *State {
	var s status
	for {
		d.state.Type = TypeBranch
		d.state.Flags = 0
		switch d.pktState {
		case stNoPSB:
			s = d.sync()
		case stNoIP, stErrResync:
			if d.pktState == stNoIP {
				d.haveLastIP = false
				d.lastIP = 0
				d.ip = 0
			}
			s = d.syncIP()
		case stInSync:
			s = d.walkTrace()
		case stTNT, stTNTCont:
			s = d.walkTNT()
			if s == eAGAIN {
				s = d.walkTrace()
			}
		case stTIP, stTIPPGD:
			s = d.walkTIP()
		case stFUP:
			s = d.walkFUP()
			if s == eAGAIN {
				s = d.walkFUPTIP()
			}
		case stFUPNoTIP:
			s = d.walkFUP()
			if s == eAGAIN {
				s = d.walkTrace()
			}
		case stFUPInPSB:
			s = d.fupInPSB()
		case stResample:
			d.pktState = stInSync
			d.state.Type = TypeInstruction
			d.state.FromIP = d.ip
			d.state.ToIP = 0
			s = ok
		default:
			s = eNOSYS
		}
		if s != eNOLINK {
			break
		}
	}
	if s != ok {
		d.state.Err = extErr(s)
		if s != eOVERFLOW {
			d.state.FromIP = d.ip
		}
		d.updateSampleTime() // flushes the MTC estimate
		d.sampleTotCycCnt = d.totCycCnt
		d.setNR()
	} else {
		d.state.Err = 0
		if d.cbr != d.cbrSeen {
			d.cbrSeen = d.cbr
			if d.state.Type == 0 {
				d.state.FromIP = d.ip
				d.state.ToIP = 0
			}
			d.state.Type |= TypeCBRChg
			d.state.CBRPayload = d.cbrPayload
			d.state.CBR = d.cbr
		}
		if sampleTime(d.pktState) {
			d.updateSampleTime() // flushes the MTC estimate
			if d.sampleCyc && d.p.IPC {
				d.sampleTotCycCnt = d.totCycCnt
				d.state.Flags |= FlagSampleIPC
				d.sampleCyc = false
			}
		}
	}
	if d.state.Type&TypePSBEvt != 0 && d.tscTimestamp != 0 {
		d.sampleTimestamp = d.tscTimestamp
	}
	d.state.FromNR, d.state.ToNR = d.nr, d.nextNR
	d.nr = d.nextNR
	d.state.Timestamp = d.sampleTimestamp
	d.state.EstTimestamp = d.estTimestamp()
	d.state.TotInsnCnt = d.totInsnCnt
	if d.p.IPC {
		// Without CYC (cycles from TSC/MTC only) IPC can be sampled as
		// soon as the cycle count changes.
		if s == ok && !d.haveCyc {
			d.state.Flags |= FlagSampleIPC
		}
		d.state.TotCycCnt = d.sampleTotCycCnt
	}
	return &d.state
}

// rawPayload returns the current packet's bytes from offset 2 to n,
// little endian: perf's payload of MWAIT (n 10), PWRE (4) and PWRX (7).
func (d *Decoder) rawPayload(n int) uint64 {
	if n > len(d.buf) || n > d.pktLen {
		return 0
	}
	var v uint64
	for i := n - 1; i >= 2; i-- {
		v = v<<8 | uint64(d.buf[i])
	}
	return v
}

// txPayload is the current MODE.TSX packet's InTX and TXAbort bits.
func (d *Decoder) txPayload() uint32 {
	if len(d.buf) < 2 {
		return 0
	}
	return uint32(d.buf[1] & 3)
}

// updateInTx mirrors intel_pt_update_in_tx.
func (d *Decoder) updateInTx() { d.txFlags = d.txPayload() & FlagInTx }

// modeTSX mirrors intel_pt_mode_tsx: a MODE.TSX followed by a FUP is
// bound to it (a transaction state at the FUP's IP; an abort goes on to
// the TIP that follows).
func (d *Decoder) modeTSX(noTip *bool) status {
	flags := d.txPayload() & (FlagInTx | FlagAbortTx)
	if s := d.getNextPacket(); s != ok {
		return s
	}
	if d.pkt.Kind == packet.KindFUP {
		d.fupTxFlags = flags
		d.setFUPTxFlags = true
		if flags&FlagAbortTx == 0 {
			*noTip = true
		}
	} else {
		// A MODE.TSX without FUP: perf updates the flags from the
		// payload of the packet read after it.
		d.txFlags = uint32(d.pkt.Payload) & FlagInTx
	}
	return ok
}
