package perfpkt

import "strconv"

// AppendDesc appends perf's description of p (intel_pt_pkt_desc).
func (p *Packet) AppendDesc(b []byte) []byte {
	name := p.Type.String()
	b = append(b, name...)
	v := p.Payload
	switch p.Type {
	case Bad, PAD, PSB, PSBEnd, TraceStop, OVF:
	case TNT:
		b = append(b, ' ')
		for i := 0; i < p.Count; i++ {
			if v&(1<<63) != 0 {
				b = append(b, 'T')
			} else {
				b = append(b, 'N')
			}
			v <<= 1
		}
		b = append(b, " ("...)
		b = strconv.AppendInt(b, int64(p.Count), 10)
		b = append(b, ')')
	case TIPPGD, TIPPGE, TIP, FUP:
		if p.Count == 0 {
			return append(b, " no ip"...)
		}
		b = appendHex(b, v)
	case CYC, VMCS, MTC, MNT, CBR, TSC:
		b = appendHex(b, v)
	case TMA:
		b = append(b, " CTC"...)
		b = appendHex(b, uint64(uint32(v)))
		b = append(b, " FC"...)
		b = appendHex(b, uint64(p.Count))
	case ModeExec:
		b = append(b, " IF:"...)
		b = append(b, "01"[p.Count>>2&1], ' ')
		b = strconv.AppendInt(b, int64(v), 10)
	case ModeTSX:
		b = append(b, " TXAbort:"...)
		b = strconv.AppendUint(b, v>>1&1, 10)
		b = append(b, " InTX:"...)
		b = strconv.AppendUint(b, v&1, 10)
	case PIP:
		b = appendHex(b, (v&^1)>>1)
		b = append(b, " (NR="...)
		b = strconv.AppendUint(b, v&1, 10)
		b = append(b, ')')
	case PTWrite, PTWriteIP:
		b = appendHex(b, v)
		b = append(b, " IP:"...)
		b = append(b, "01"[b2i(p.Type == PTWriteIP)])
	case BEP, ExStop, BEPIP, ExStopIP:
		b = append(b, " IP:"...)
		b = append(b, "01"[b2i(p.Type == BEPIP || p.Type == ExStopIP)])
	case MWait:
		b = appendHex(b, v)
		b = append(b, " Hints"...)
		b = appendHex(b, v&0xff)
		b = append(b, " Extensions"...)
		b = appendHex(b, v>>32&3)
	case PwrE:
		b = appendHex(b, v)
		b = append(b, " HW:"...)
		b = append(b, "01"[v>>7&1])
		b = append(b, " CState:"...)
		b = strconv.AppendUint(b, v>>12&0xf, 10)
		b = append(b, " Sub-CState:"...)
		b = strconv.AppendUint(b, v>>8&0xf, 10)
	case PwrX:
		b = appendHex(b, v)
		b = append(b, " Last CState:"...)
		b = strconv.AppendUint(b, v>>4&0xf, 10)
		b = append(b, " Deepest CState:"...)
		b = strconv.AppendUint(b, v&0xf, 10)
		b = append(b, " Wake Reason"...)
		b = appendHex(b, v>>8&0xf)
	case BBP:
		b = append(b, " SZ "...)
		if p.Count != 0 {
			b = append(b, '4')
		} else {
			b = append(b, '8')
		}
		b = append(b, "-byte Type"...)
		b = appendHex(b, v)
	case BIP:
		b = append(b, " ID"...)
		b = appendHex2(b, uint64(p.Count))
		b = append(b, " Value"...)
		b = appendHex(b, v)
	case CFE, CFEIP:
		b = append(b, " IP:"...)
		b = append(b, "01"[b2i(p.Type == CFEIP)])
		b = append(b, " Type"...)
		b = appendHex2(b, uint64(p.Count))
		b = append(b, " Vector"...)
		b = appendHex(b, v)
	case EVD:
		b = append(b, " Type"...)
		b = appendHex2(b, uint64(p.Count))
		b = append(b, " Payload"...)
		b = appendHex(b, v)
	default:
		b = appendHex(b, v)
		b = append(b, " ("...)
		b = strconv.AppendInt(b, int64(p.Count), 10)
		b = append(b, ')')
	}
	return b
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// appendHex appends " 0x%llx".
func appendHex(b []byte, v uint64) []byte {
	b = append(b, " 0x"...)
	return strconv.AppendUint(b, v, 16)
}

// appendHex2 appends " 0x%02x".
func appendHex2(b []byte, v uint64) []byte {
	b = append(b, " 0x"...)
	if v < 16 {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, v, 16)
}

const hexDigits = "0123456789abcdef"

// AppendDump appends the dump of an AUX area buffer of Intel PT data as
// perf report -D prints it (intel_pt_dump_event): a line with its size,
// then each packet at its offset, its bytes padded to 16 and its
// description; a byte that starts no packet is a one-byte "Bad packet!".
func AppendDump(b []byte, buf []byte) []byte {
	b = append(b, ".\n. ... Intel Processor Trace data: size "...)
	b = strconv.AppendInt(b, int64(len(buf)), 10)
	b = append(b, " bytes\n"...)
	var p Packet
	ctx := NoCtx
	for pos := 0; pos < len(buf); {
		n := Get(buf[pos:], &p, &ctx)
		ok := n > 0
		if !ok {
			n = 1
		}
		b = append(b, ".  "...)
		for shift := 28; shift >= 0; shift -= 4 {
			b = append(b, hexDigits[pos>>shift&15])
		}
		b = append(b, ':', ' ')
		for _, c := range buf[pos : pos+n] {
			b = append(b, ' ', hexDigits[c>>4], hexDigits[c&15])
		}
		for i := n; i < 16; i++ {
			b = append(b, "   "...)
		}
		if ok {
			b = append(b, ' ')
			b = p.AppendDesc(b)
			b = append(b, '\n')
		} else {
			b = append(b, " Bad packet!\n"...)
		}
		pos += n
	}
	return b
}
