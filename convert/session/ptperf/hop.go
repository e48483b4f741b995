package ptperf

import "github.com/perfpt/perfpt/ptdecode/packet"

// The answers of hopTrace (perf's HOP_PROCESS, HOP_IGNORE, HOP_RETURN and
// HOP_AGAIN).
const (
	hopProcess = iota // walkTrace processes the packet as usual
	hopIgnore         // walkTrace reads the next packet
	hopReturn         // walkTrace returns the status
	hopAgain          // walkTrace processes the current packet again
)

// hopTrace mirrors intel_pt_hop_trace, the quick modes (--itrace=q, and
// qq; Params.Quick): in hop mode TNT packets are ignored and no code is
// walked, the IPs coming from TIP and FUP packets (each an instruction
// state) and PSB+ FUPs; in leap mode the decoder also jumps from PSB to PSB
// (intel_pt_scan_for_psb), taking only the IPs of the FUPs in PSB+ and of
// what it meets before the next PSB.
func (d *Decoder) hopTrace(noTip *bool, s *status) int {
	*s = ok
	// Leap from PSB to PSB, getting the IP from the FUP within PSB+.
	if d.leap && !d.inPSB && d.pkt.Kind != packet.KindPSB {
		if *s = d.scanForPSB(); *s != ok {
			return hopReturn
		}
	}
	switch d.pkt.Kind {
	case packet.KindTNT8, packet.KindTNT64:
		return hopIgnore
	case packet.KindTIPPGD:
		d.pge = false
		if d.pkt.IPC == packet.IPCSuppressed {
			d.setNR()
			return hopIgnore
		}
		d.setIP()
		d.state.Type |= TypeTraceEnd
		d.state.FromIP = 0
		d.state.ToIP = d.ip
		d.updateNR()
		return hopReturn
	case packet.KindTIP:
		if d.pkt.IPC == packet.IPCSuppressed {
			d.setNR()
			return hopIgnore
		}
		d.setIP()
		d.state.Type = TypeInstruction
		d.state.FromIP = d.ip
		d.state.ToIP = 0
		d.updateNR()
		// (intel_pt_sample_iflag_chg: interrupt flag changes, which
		// only event tracing shows, are not modelled.)
		return hopReturn
	case packet.KindFUP:
		if d.pkt.IPC == packet.IPCSuppressed {
			return hopIgnore
		}
		d.setIP()
		if d.setFUPMWait || d.setFUPPwrE || !d.p.BranchEnable || !d.pge {
			*noTip = true
		}
		if *noTip {
			d.state.Type = TypeInstruction
			d.state.FromIP = d.ip
			d.state.ToIP = 0
			d.fupEvent(*noTip)
			return hopReturn
		}
		d.fupEvent(*noTip)
		d.state.Type |= TypeInstruction | TypeBranch
		*s = d.walkFUPTIP()
		if *s == ok && d.state.ToIP != 0 {
			// Resample to get the TIP's IP as an instruction.
			d.pktState = stResample
		}
		return hopReturn
	case packet.KindPSB:
		d.state.PSBOffset = d.pos
		d.psbIP = 0
		d.lastIP = 0
		d.haveLastIP = true
		*s = d.walkPSBEnd()
		if *s == eAGAIN {
			*s = ok
			return hopAgain
		}
		if *s != ok {
			return hopReturn
		}
		d.state.Type = TypePSBEvt
		if d.psbIP != 0 {
			d.state.Type |= TypeInstruction
			d.ip = d.psbIP
		}
		d.state.FromIP = d.psbIP
		d.state.ToIP = 0
		return hopReturn
	}
	return hopProcess
}

// inSyncOrResample is the state after a sync to an IP: in hop mode a
// resample, so that the IP is also an instruction state.
func (d *Decoder) inSyncOrResample() pktState {
	if d.hop {
		return stResample
	}
	return stInSync
}
