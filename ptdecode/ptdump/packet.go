package ptdump

import (
	"strconv"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

const hexdigits = "0123456789abcdef"

func appendHex(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 16) }

func appendHex16(b []byte, v uint64) []byte {
	var t [16]byte
	for i := 15; i >= 0; i-- {
		t[i] = hexdigits[v&0xf]
		v >>= 4
	}
	return append(b, t[:]...)
}

func appendHexN(b []byte, v uint64, n int) []byte {
	var t [16]byte
	for i := n - 1; i >= 0; i-- {
		t[i] = hexdigits[v&0xf]
		v >>= 4
	}
	return append(b, t[:n]...)
}

func appendDec(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 10) }

func appendIf(b []byte, cond bool, s string) []byte {
	if cond {
		return append(b, s...)
	}
	return b
}

// The control flow event types and their ptdump names.
var cfeNames = [...]string{1: "intr", 2: "iret", 3: "smi", 4: "rsm", 5: "sipi", 6: "init",
	7: "vmentry", 8: "vmexit", 9: "vmexit_intr", 10: "shutdown", 12: "uintr", 13: "uiret",
	14: "swintr", 15: "syscall"}

var evdNames = [...]string{"cr2", "vmxq", "vmxr"}

func nameOf(names []string, i uint8) string {
	if int(i) < len(names) && names[i] != "" {
		return names[i]
	}
	return "unknown"
}

// packet fills the line for p and tracks state (ptdump's print_packet).
func (d *dumper) packet(off uint64, p *packet.Packet) {
	ln := &d.ln
	ln.opcode = p.Kind.String()
	pl := ln.payload
	switch p.Kind {
	case packet.KindPSB:
		if d.track {
			d.cal.UpdatePSB(&d.cfg)
		}
		d.header = true
	case packet.KindPSBEnd:
		d.header = false
	case packet.KindPad:
		ln.skip = d.opt.NoPad
	case packet.KindOVF:
		if d.track {
			if d.opt.KeepTCalOnOVF {
				d.cal.UpdateOVF()
			} else {
				d.cal.Reset()
			}
		}
	case packet.KindTIP, packet.KindTIPPGE, packet.KindTIPPGD, packet.KindFUP:
		pl = appendIP(pl, p)
		if d.opt.LastIP {
			d.trackLastIP(off, p)
		}
	case packet.KindPIP:
		pl = appendHex(pl, p.Payload)
		pl = appendIf(pl, p.Flags&packet.FlagNR != 0, ", nr")
		d.setTrack("cr3", appendHex16(d.tbuf[:0], p.Payload))
	case packet.KindVMCS:
		pl = appendHex(pl, p.Payload)
		d.setTrack("vmcs", appendHex16(d.tbuf[:0], p.Payload))
	case packet.KindTNT8, packet.KindTNT64:
		ln.ext = true
		for i := int(p.Bits) - 1; i >= 0; i-- {
			if p.Payload>>uint(i)&1 != 0 {
				pl = append(pl, '!')
			} else {
				pl = append(pl, '.')
			}
		}
	case packet.KindModeExec:
		csd, csl := p.Flags&packet.FlagCSD != 0, p.Flags&packet.FlagCSL != 0
		pl = appendIf(pl, csd, "cs.d")
		pl = appendIf(pl, csd && csl, ", ")
		pl = appendIf(pl, csl, "cs.l")
		iflag := p.Flags&packet.FlagIF != 0
		pl = appendIf(pl, iflag && (csd || csl), ", ")
		pl = appendIf(pl, iflag, "if")
		if d.opt.ExecMode {
			d.setTrack("em", append(d.tbuf[:0], p.ExecMode().String()...))
		}
	case packet.KindModeTSX:
		intx, abrt := p.Flags&packet.FlagInTX != 0, p.Flags&packet.FlagTXAbort != 0
		pl = appendIf(pl, intx, "intx")
		pl = appendIf(pl, intx && abrt, ", ")
		pl = appendIf(pl, abrt, "abrt")
	case packet.KindTSC:
		pl = appendHex(pl, p.Payload)
		ln.payload = pl
		if d.track {
			d.trackTSC(off, p.Payload)
		}
		ln.skip = d.opt.NoTiming
	case packet.KindCBR:
		pl = appendHex(pl, p.Payload)
		ln.payload = pl
		if d.track {
			d.trackCBR(off, uint8(p.Payload))
		}
		ln.skip = d.opt.NoTiming
	case packet.KindTMA:
		pl = appendHex(pl, uint64(p.CTC))
		pl = append(pl, ", "...)
		pl = appendHex(pl, uint64(p.FC))
		ln.payload = pl
		if d.track {
			d.trackTMA(off, p.CTC, p.FC)
		}
		ln.skip = d.opt.NoTiming
	case packet.KindMTC:
		pl = appendHex(pl, uint64(p.CTC))
		ln.payload = pl
		if d.track {
			d.trackMTC(off, uint8(p.CTC))
		}
		ln.skip = d.opt.NoTiming
	case packet.KindCYC:
		pl = appendHex(pl, p.Payload)
		ln.payload = pl
		if d.track && !d.opt.NoCYC {
			d.trackCYC(off, p.Payload)
		}
		ln.skip = d.opt.NoTiming || d.opt.NoCYC
	case packet.KindMNT:
		pl = appendHex(pl, p.Payload)
	case packet.KindExStop:
		pl = appendIf(pl, p.Flags&packet.FlagIP != 0, "ip")
	case packet.KindMWait:
		pl = appendHexN(pl, p.Payload, 8)
		pl = append(pl, ", "...)
		pl = appendHexN(pl, uint64(p.Ext), 8)
	case packet.KindPwrE:
		pl = append(pl, 'c')
		pl = appendDec(pl, uint64((p.State+1)&0xf))
		pl = append(pl, '.')
		pl = appendDec(pl, uint64((p.SubState+1)&0xf))
		pl = appendIf(pl, p.Flags&packet.FlagHW != 0, ", hw")
	case packet.KindPwrX:
		pl = append(pl, pwrxReason(p.Flags)...)
		pl = append(pl, ": c"...)
		pl = appendDec(pl, uint64((p.State+1)&0xf))
		pl = append(pl, ", c"...)
		pl = appendDec(pl, uint64((p.SubState+1)&0xf))
	case packet.KindPTW:
		pl = appendHex(pl, uint64(p.Bits))
		pl = append(pl, ": "...)
		pl = appendHex(pl, p.Payload)
		pl = appendIf(pl, p.Flags&packet.FlagIP != 0, ", ip")
	case packet.KindCFE:
		d.setTrack("type", append(d.tbuf[:0], nameOf(cfeNames[:], p.Type)...))
		pl = appendDec(pl, uint64(p.Type))
		switch p.Type {
		case 1, 9, 12, 14: // intr, vmexit_intr, uintr, swintr
			pl = append(pl, ": "...)
			pl = appendDec(pl, uint64(p.Vector))
		case 5: // sipi
			pl = append(pl, ": "...)
			pl = appendHex(pl, uint64(p.Vector))
		}
		pl = appendIf(pl, p.Flags&packet.FlagIP != 0, ", ip")
	case packet.KindEVD:
		pl = appendDec(pl, uint64(p.Type))
		pl = append(pl, ": "...)
		pl = appendHex(pl, p.Payload)
		d.setTrack("type", append(d.tbuf[:0], nameOf(evdNames[:], p.Type)...))
	case packet.KindTrig:
		ln.ext = true
		pl = appendHexN(pl, p.Payload, 2)
		pl = appendIf(pl, p.Flags&packet.FlagIP != 0, ", ip")
		pl = appendIf(pl, p.Flags&packet.FlagMult != 0, ", mult")
		if p.Flags&packet.FlagICNTV != 0 {
			pl = append(pl, ", icnt: "...)
			pl = appendDec(pl, uint64(p.Ext))
		}
	case packet.KindBBP:
		pl = appendHex(pl, uint64(p.Type))
		pl = appendIf(pl, p.Flags&packet.FlagSZ != 0, ", sz")
	case packet.KindBIP:
		pl = appendHex(pl, uint64(p.Type))
		pl = append(pl, ": "...)
		pl = appendHex(pl, p.Payload)
	case packet.KindBEP:
		pl = appendIf(pl, p.Flags&packet.FlagIP != 0, "ip")
	}
	ln.payload = pl
}

// quiet tracks p without formatting anything but diagnostics (--quiet).
// quietWork returns the kinds of packets for which quiet does something,
// given --lastip and time tracking.
func quietWork(lastIP, track bool) (w [256]bool) {
	w[packet.KindPSB], w[packet.KindPSBEnd] = true, true
	for _, k := range []packet.Kind{packet.KindTIP, packet.KindTIPPGE, packet.KindTIPPGD, packet.KindFUP} {
		w[k] = lastIP
	}
	for _, k := range []packet.Kind{packet.KindOVF, packet.KindTSC, packet.KindCBR, packet.KindTMA, packet.KindMTC, packet.KindCYC} {
		w[k] = track
	}
	return w
}

func (d *dumper) quiet(off uint64, p *packet.Packet) {
	switch p.Kind {
	case packet.KindTNT8, packet.KindTNT64, packet.KindPad, packet.KindMNT:
	case packet.KindTIP, packet.KindTIPPGE, packet.KindTIPPGD, packet.KindFUP:
		if d.opt.LastIP {
			d.ln = line{payload: d.pbuf[:0], track: d.tbuf[:0]}
			d.trackLastIP(off, p)
		}
	case packet.KindPSB, packet.KindPSBEnd, packet.KindOVF,
		packet.KindTSC, packet.KindCBR, packet.KindTMA, packet.KindMTC, packet.KindCYC:
		if d.track || p.Kind == packet.KindPSB || p.Kind == packet.KindPSBEnd {
			d.ln = line{payload: d.pbuf[:0], track: d.tbuf[:0]}
			d.packet(off, p)
		}
	}
}

// pwrxReason is ptdump's print_pwrx_wr: exactly one wake reason, else "bad".
func pwrxReason(f packet.Flags) string {
	wr := ""
	n := 0
	if f&packet.FlagInterrupt != 0 {
		wr, n = "int", n+1
	}
	if f&packet.FlagStore != 0 {
		wr, n = " st", n+1
	}
	if f&packet.FlagAutonomous != 0 {
		wr, n = " hw", n+1
	}
	if n != 1 {
		return "bad"
	}
	return wr
}

// appendIP formats an IP payload with '?' for the bytes not carried.
func appendIP(b []byte, p *packet.Packet) []byte {
	b = appendDec(b, uint64(p.IPC))
	b = append(b, ": "...)
	switch p.IPC {
	case packet.IPCSuppressed:
		return append(b, "????????????????"...)
	case packet.IPCUpdate16:
		return appendHexN(append(b, "????????????"...), p.Payload, 4)
	case packet.IPCUpdate32:
		return appendHexN(append(b, "????????"...), p.Payload, 8)
	case packet.IPCUpdate48:
		return appendHexN(append(b, "????"...), p.Payload, 12)
	case packet.IPCSext48:
		return appendHex16(b, packet.Sext48(p.Payload))
	}
	return appendHex16(b, p.Payload)
}

func (d *dumper) trackLastIP(off uint64, p *packet.Packet) {
	if err := d.lastIP.Update(p.IPC, p.Payload); err != nil {
		d.setTrack("ip", []byte("<unavailable>"))
		d.diag(off, "error tracking last-ip", err)
		return
	}
	ip, err := d.lastIP.Query()
	switch {
	case err == packet.ErrSuppress:
		d.setTrack("ip", append(d.tbuf[:0], "<suppressed>"...))
	case err != nil:
		d.setTrack("ip", append(d.tbuf[:0], "<unavailable>"...))
		d.diag(off, "error tracking last-ip", err)
	default:
		d.setTrack("ip", appendHex16(d.tbuf[:0], ip))
	}
}
