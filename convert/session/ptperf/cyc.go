package ptperf

import "github.com/perfpt/perfpt/ptdecode/packet"

// Cycle counting, as perf's decoder does it. With CYC packets the cycles
// are their payloads, counted while tracing is enabled (tot_cyc_cnt);
// without them (have_cyc false) the count is estimated from MTC/TMA
// timestamps times CBR / max non-turbo ratio. CYC packets also move the
// timestamp between MTCs: cycles times TSC ticks per cycle, taken from the
// MTC that follows when a lookahead finds one (calc_cyc_to_tsc), else from
// the CBR.

// mtcCycCntPGE mirrors intel_pt_mtc_cyc_cnt_pge.
func (d *Decoder) mtcCycCntPGE() {
	if d.haveCyc || !d.p.IPC {
		return
	}
	d.cycEstFlush()
	d.cycCntTimestamp = d.timestamp
	d.baseCycCnt = d.totCycCnt
}

// mtcCycCntCBR mirrors intel_pt_mtc_cyc_cnt_cbr.
func (d *Decoder) mtcCycCntCBR() {
	d.cycEstFlush()
	d.tscToCyc = float64(d.cbr) / d.maxNonTurboFP
	if d.pge {
		d.mtcCycCntPGE()
	}
}

// mtcCycCntUpd mirrors intel_pt_mtc_cyc_cnt_upd, lazily: perf raises the
// count to the estimate at each MTC/TMA; the estimate grows with the
// timestamp (for a given base), so only the greatest timestamp since the
// count was last used matters. cycEstFlush applies it before the count is
// read or changed, or the base or ratio change.
func (d *Decoder) mtcCycCntUpd() {
	if d.haveCyc || !d.p.IPC {
		return
	}
	d.sampleCyc = true
	if !d.pge || d.timestamp <= d.cycCntTimestamp {
		return
	}
	if d.timestamp > d.cycEstTS {
		d.cycEstTS = d.timestamp
	}
}

// cycEstFlush raises the cycle count to the pending MTC estimate.
func (d *Decoder) cycEstFlush() {
	if d.cycEstTS == 0 {
		return
	}
	delta := d.cycEstTS - d.cycCntTimestamp
	d.cycEstTS = 0
	// The explicit conversion keeps the product rounded (no fused
	// multiply-add), as C computes it.
	tot := f2u(float64(float64(delta)*d.tscToCyc) + float64(d.baseCycCnt))
	if tot > d.totCycCnt {
		d.totCycCnt = tot
	}
}

// f2u converts as C's double to uint64_t does for the values that occur
// (NaN and negative values, undefined in C, give 0).
func f2u(f float64) uint64 {
	if !(f > 0) {
		return 0
	}
	if f >= 18446744073709551616.0 {
		return 1<<64 - 1
	}
	return uint64(f)
}

// calcCycTimestamp mirrors intel_pt_calc_cyc_timestamp.
func (d *Decoder) calcCycTimestamp() {
	ts := d.cycRefTimestamp
	d.cycEstFlush()
	d.haveCyc = true
	d.cycleCnt += d.pkt.Payload
	if d.pge {
		d.totCycCnt += d.pkt.Payload
		if d.p.Ctl&ctlCYCEnable != 0 {
			// Only a trace recorded with cyc has cycles to hand out
			// (TakeCycles): a CYC packet read from damaged data in
			// another one counts for nothing.
			d.cycPend += d.pkt.Payload
		}
	}
	d.sampleCyc = true
	if d.cycRefUnsure {
		d.strayCYC = true
	}
	if d.cycRefTimestamp == 0 {
		return
	}
	if d.haveCalcCycToTSC {
		ts = f2u(float64(ts) + float64(float64(d.cycleCnt)*d.cycToTSC))
	} else if d.cbr != 0 {
		ts = f2u(float64(ts) + float64(float64(d.cycleCnt)*d.cbrCycToTSC))
	} else {
		return
	}
	if ts >= d.timestamp {
		d.timestamp = ts
	}
	d.timestampInsnCnt = 0
}

// cycAfterTiming is the end of intel_pt_calc_tsc_timestamp and
// intel_pt_calc_mtc_timestamp: a timing packet right after a CYC restarts
// the CYC reference there.
func (d *Decoder) cycAfterTiming(fromMTC bool) {
	if d.lastPacketKind != packet.KindCYC {
		return
	}
	d.cycRefTimestamp = d.timestamp
	d.cycleCnt = 0
	d.cycRefUnsure = false
	d.haveCalcCycToTSC = false
	if fromMTC {
		// TSC packets are not used (perf: timing may have stopped, and
		// TSCs in PSB+ slip against CYCs).
		d.calcCycToTSC()
	}
}

// calcCycToTSC mirrors intel_pt_calc_cyc_to_tsc (from an MTC) and its
// lookahead callback intel_pt_calc_cyc_cb: it looks for the next MTC that
// follows a CYC in the current buffer and derives TSC ticks per cycle.
func (d *Decoder) calcCycToTSC() {
	var (
		cycleCnt     uint64
		cbr          uint32
		lastMTC      = d.lastMTC
		ctcTimestamp = d.ctcTimestamp
		ctcDelta     = d.ctcDelta
		timestamp    = d.timestamp
		haveTMA      = d.haveTMA
		fixup        = d.fixupLastMTC
		cbrCycToTSC  float64
	)
	last := d.lastPacketKind
	buf := d.buf
	n := d.step
	var p packet.Packet
	for {
		buf = buf[n:]
		if len(buf) == 0 {
			return
		}
		if err := decodePacket(&p, buf); err != nil || p.Size == 0 {
			return
		}
		n = int(p.Size)
		if p.Kind == packet.KindPad {
			continue
		}
		var ts uint64
		switch p.Kind {
		case packet.KindTNT8, packet.KindTNT64, packet.KindTIPPGE, packet.KindTIP, packet.KindFUP,
			packet.KindPSB, packet.KindPIP, packet.KindModeExec, packet.KindModeTSX, packet.KindPSBEnd,
			packet.KindVMCS, packet.KindMNT, packet.KindPTW, packet.KindBBP, packet.KindBIP,
			packet.KindBEP, packet.KindCFE, packet.KindEVD:
			last = p.Kind
			continue
		case packet.KindMTC:
			if !haveTMA {
				last = p.Kind
				continue
			}
			mtc := uint32(p.CTC)
			if d.mtcShift > 8 && fixup {
				fixup = false
				fixupLastMTC(mtc, d.mtcShift, &lastMTC)
			}
			var delta uint32
			if mtc > lastMTC {
				delta = mtc - lastMTC
			} else {
				delta = mtc + 256 - lastMTC
			}
			ctcDelta += uint64(delta) << d.mtcShift
			lastMTC = mtc
			if d.tscCTCMult != 0 {
				ts = ctcTimestamp + ctcDelta*uint64(d.tscCTCMult)
			} else {
				ts = ctcTimestamp + multdiv(ctcDelta, d.p.TSCCTCRatioN, d.p.TSCCTCRatioD)
			}
			if ts < timestamp {
				return
			}
			if last != packet.KindCYC {
				timestamp = ts
				last = p.Kind
				continue
			}
		case packet.KindTSC, packet.KindTMA:
			// Called from an MTC only: TSC and TMA end the lookahead.
			return
		case packet.KindCYC:
			cycleCnt += p.Payload
			last = p.Kind
			continue
		case packet.KindCBR:
			c := uint32(p.Payload & 0xff)
			if cbr != 0 && cbr != c {
				return
			}
			cbr = c
			cbrCycToTSC = d.maxNonTurboFP / float64(c)
			last = p.Kind
			continue
		default:
			return
		}
		if cbr == 0 && d.cbr != 0 {
			cbr = d.cbr
			cbrCycToTSC = d.cbrCycToTSC
		}
		if cycleCnt == 0 {
			return
		}
		c2t := float64(ts-d.timestamp) / float64(cycleCnt)
		if cbr != 0 && c2t > cbrCycToTSC && c2t/cbrCycToTSC > 1.25 {
			return
		}
		d.cycToTSC = c2t
		d.haveCalcCycToTSC = true
		return
	}
}
