package ptperf

import (
	"bytes"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// firstPSBTSC returns the TSC of the first PSB+ in buf (intel_pt_next_psb
// then intel_pt_next_tsc), and where that PSB starts.
func firstPSBTSC(buf []byte) (tsc uint64, psb int, ok bool) {
	psb = bytes.Index(buf, psbBytes)
	if psb < 0 {
		return 0, 0, false
	}
	tsc, ok = nextTSC(buf[psb:])
	return tsc, psb, ok
}

// nextTSC mirrors intel_pt_next_tsc: the first TSC before PSBEND.
func nextTSC(buf []byte) (uint64, bool) {
	for len(buf) > 0 {
		var p packet.Packet
		err := decodePacket(&p, buf)
		if err != nil || p.Size == 0 {
			return 0, false
		}
		if p.Kind == packet.KindTSC {
			return p.Payload, true
		}
		if p.Kind == packet.KindPSBEnd {
			return 0, false
		}
		buf = buf[p.Size:]
	}
	return 0, false
}

// FastForward mirrors intel_pt_fast_forward: it repositions the decoder at
// the last PSB whose TSC is before timestamp, skipping whole buffers found
// with Params.Lookahead.
func (d *Decoder) FastForward(timestamp uint64) {
	var bufTS uint64
	if d.p.Lookahead != nil {
		d.p.Lookahead(func(b *Buffer) bool {
			tsc, _, ok := firstPSBTSC(b.Data)
			if !ok {
				return false
			}
			tsc = tsc8b(tsc, b.RefTimestamp)
			if tsc < timestamp {
				bufTS = b.RefTimestamp
				return false
			}
			return true
		})
	}
	if bufTS != 0 {
		for {
			d.pos += uint64(len(d.buf))
			d.buf = d.buf[len(d.buf):]
			s := d.getNextData(true)
			if s != ok && s != eNOLINK {
				return
			}
			if d.bufTimestamp == bufTS {
				break
			}
		}
	}
	if len(d.buf) == 0 {
		return
	}
	buf := d.buf
	i := bytes.Index(buf, psbBytes)
	if i < 0 {
		return
	}
	buf = buf[i:]
	for {
		tsc, ok := nextTSC(buf)
		if !ok {
			break
		}
		tsc = tsc8b(tsc, d.bufTimestamp)
		if tsc >= timestamp {
			break
		}
		d.pos += uint64(len(d.buf) - len(buf))
		d.buf = buf
		d.step = 0
		d.reposition()
		if len(buf) == 0 {
			break
		}
		j := bytes.Index(buf[1:], psbBytes)
		if j < 0 {
			break
		}
		buf = buf[1+j:]
	}
}
