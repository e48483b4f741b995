package packet

// Decoder iterates the packets of a trace buffer (libipt's pt_packet_decoder):
//
//	d := packet.NewDecoder(buf)
//	if err := d.SyncForward(); err != nil { ... }
//	for d.Next() {
//		p := d.Packet() // valid until the next call of Next
//		...
//	}
//	if err := d.Err(); err != nil { ... } // nil at the end of buf
//
// After an error, Next keeps returning false until the decoder is
// repositioned with SyncForward, SyncBackward or SyncSet; Offset then still
// points at the packet that failed. A Decoder never allocates except to
// build an error, and never modifies buf. A Decoder is a plain value: copy
// it (saved := *d) to look ahead and restore it (*d = saved) without
// allocating.
type Decoder struct {
	buf    []byte
	pos    int // offset of the next packet
	cur    int // offset of the packet returned by the last Next
	sync   int // offset of the last synchronisation point, -1 if none
	block  int // inside a BBP..BEP block: the BIP payload size (4 or 8), else 0
	pkt    Packet
	err    error
	noBIPs bool
	skd007 bool
	skz84  bool
	// fast is buf while Next may take its fast paths, and buf[:0] when it
	// must take the general one (after an error, inside a block).
	fast []byte
	// stride is the distance of Batch's lanes, from the last round;
	// special the share of long CYC and TNT-64 packets (in 64).
	stride, special int
}

// NewDecoder returns a decoder for buf positioned at offset 0 but not
// synchronised: call SyncForward to start at the first PSB, or Next to decode
// from offset 0 regardless.
func NewDecoder(buf []byte) *Decoder {
	return &Decoder{buf: buf, fast: buf, sync: -1}
}

// Reset makes d decode buf from offset 0, unsynchronised, as NewDecoder does.
func (d *Decoder) Reset(buf []byte) {
	*d = Decoder{buf: buf, fast: buf, sync: -1, noBIPs: d.noBIPs, skd007: d.skd007, skz84: d.skz84}
}

// SetErrata turns on the packet-level erratum workarounds of libipt:
//
//   - SKD007: an OVF may sit inside a 2-byte CYC whose second byte reads as
//     the extended opcode 0x02. When such a CYC is followed by 0xf3, Next
//     drops the CYC and returns the OVF at the CYC's offset, with Size 2
//     although 3 bytes are consumed.
//   - SKZ84: a TMA with reserved bits set is followed by a bogus byte. Next
//     returns it as a KindInvalid packet of Size 8 instead of failing.
func (d *Decoder) SetErrata(skd007, skz84 bool) { d.skd007, d.skz84 = skd007, skz84 }

// SetBlockItems chooses whether d decodes the PEBS-via-PT packets BBP, BIP
// and BEP (the default; BIP is told apart from TNT inside BBP..BEP blocks,
// as the SDM says) or, when on is false, behaves as libipt, which does not
// know them: BBP and BEP are ErrBadOpcode errors.
func (d *Decoder) SetBlockItems(on bool) { d.noBIPs = !on }

// Buffer returns the buffer d decodes.
func (d *Decoder) Buffer() []byte { return d.buf }

// Next decodes the packet at the current offset and advances past it. It
// returns false at the end of the buffer (Err is nil) or on an error (Err
// says why).
func (d *Decoder) Next() bool {
	// Fast path: the packets whose kind and size the first byte tells
	// (TNT-8, PAD, short CYC, TIP/FUP/TIP.PGE/TIP.PGD, MTC, TSC), decoded
	// without branching on their kind, when at least 9 bytes remain and
	// nothing special is going on. The function is too big to inline
	// anyway (any call to next costs most of the inlining budget), so it
	// is written for the fewest instructions.
	pos, b := d.pos, d.fast
	if pos >= 0 && pos <= len(b)-9 {
		b := b[pos:]
		c := b[0]
		if s := tmplSize[c]; s != 0 {
			w := le64(b[1:9])
			// Copy the template whole, then patch it: building the value
			// field by field and copying it would stall store forwarding.
			t := &tmpl[c]
			d.pkt = *t
			d.pkt.Payload = t.Payload | w&tmplMask[c]
			d.pkt.CTC = uint16(w) & t.CTC
			d.cur, d.pos = pos, pos+int(s)
			return true
		}
		// TNT-64 and long CYC (but not with SKD007, which looks at
		// 2-byte CYCs), here rather than in next to save a call.
		w := le64(b[1:9])
		if c == opcExt && uint8(w) == extTNT64 {
			if n := tnt64Bits(w); n != 0 {
				d.pkt = Packet{Kind: KindTNT64, Size: 8, Bits: uint8(n), Payload: w >> 8 & (1<<n - 1)}
				d.cur, d.pos = pos, pos+8
				return true
			}
		} else if c&7 == 7 && !d.skd007 {
			if v, n := longCYC(c, w); n != 0 {
				d.pkt = Packet{Kind: KindCYC, Size: uint8(n), Payload: v}
				d.cur, d.pos = pos, pos+n
				return true
			}
		}
	}
	return d.next()
}

// StepBranch is Next for callers that decode the bulk of a trace, TNT-8
// and TIP packets, themselves: when the packet at the current offset is a
// TNT-8 or a TIP with an IP (IP compression 1, 2, 3, 4 or 6) that starts
// before end and that Next's fast path would decode, it moves past it as
// Next would and returns its first byte and, for a TIP, its IP payload.
// It does not fill Packet: call Redecode before reading it. Otherwise
// (any other packet, PAD included) it returns ok false and leaves d as it
// was. It is small enough to be inlined.
func (d *Decoder) StepBranch(end int) (c byte, payload uint64, ok bool) {
	pos, b := d.pos, d.fast
	if uint(pos) < uint(end) && pos <= len(b)-9 {
		c = b[pos]
		if s := branchSize[c]; s != 0 {
			d.cur, d.pos = pos, pos+int(s)
			return c, le64(b[pos+1:pos+9]) & tmplMask[c], true
		}
	}
	return 0, 0, false
}

// Redecode fills Packet with the packet at PacketOffset after StepBranch
// stepped over it.
func (d *Decoder) Redecode() {
	b := d.buf[d.cur:]
	quick(&d.pkt, b[0], le64(b[1:9]), !d.skd007)
}

// next is the general case of Next.
func (d *Decoder) next() bool {
	pos, buf := d.pos, d.buf
	if uint(pos) >= uint(len(buf)) || d.err != nil {
		return false
	}
	d.pkt = Packet{}
	b := buf[pos:]
	var err error
	if d.block != 0 && b[0]&7 == 4 {
		err = decodeBIP(&d.pkt, b, d.block == 4)
	} else {
		err = decode(&d.pkt, b)
	}
	adv := 0
	if err != nil {
		if !(d.skz84 && err == ErrBadPacket && b[0] == opcExt && len(b) > 1 && b[1] == extTMA) {
			d.err = errAt(pos, err)
			d.fast = buf[:0]
			return false
		}
		d.pkt = Packet{Kind: KindInvalid, Size: 8}
	}
	switch d.pkt.Kind {
	case KindCYC:
		// SKD007: a 2-byte CYC with payload 0x20..0x3f followed by 0xf3.
		if d.skd007 && d.pkt.Size == 2 && d.pkt.Payload&^0x1f == 0x20 && len(b) > 2 && b[2] == extOVF {
			d.pkt = Packet{Kind: KindOVF, Size: 2}
			adv = 1
		}
	case KindPSB:
		d.sync = pos
		d.block = 0
	case KindBBP, KindBEP:
		if d.noBIPs {
			d.err = errAt(pos, ErrBadOpcode)
			d.fast = buf[:0]
			return false
		}
		d.block = 0
		if d.pkt.Kind == KindBBP {
			d.block = 8
			if d.pkt.Flags&FlagSZ != 0 {
				d.block = 4
			}
		}
	}
	d.fast = buf
	if d.block != 0 {
		d.fast = buf[:0]
	}
	d.cur = pos
	d.pos = pos + int(d.pkt.Size) + adv
	return true
}

// Read decodes the next packet into *p, like Next. At the end of the buffer
// it returns an *Error wrapping ErrEOS at the buffer's length; on a decode
// error it returns that error (and keeps returning it until the decoder is
// repositioned).
func (d *Decoder) Read(p *Packet) error {
	if d.Next() {
		*p = d.pkt
		return nil
	}
	if d.err != nil {
		return d.err
	}
	return errAt(d.pos, ErrEOS)
}

// Packet returns the packet decoded by the last successful Next. The pointer
// stays the same; the value is overwritten by the next call of Next.
func (d *Decoder) Packet() *Packet { return &d.pkt }

// PacketOffset returns the offset of the packet returned by the last Next.
func (d *Decoder) PacketOffset() int { return d.cur }

// Offset returns the offset of the next packet to decode (after an error:
// the offset of the packet that failed).
func (d *Decoder) Offset() int { return d.pos }

// SyncOffset returns the offset of the last synchronisation point (the last
// PSB decoded or synchronised to, or the offset given to SyncSet), or -1.
func (d *Decoder) SyncOffset() int { return d.sync }

// Err returns the error that stopped Next, or nil.
func (d *Decoder) Err() error { return d.err }

// SyncForward moves d to the next PSB after the current position, the way
// libipt's pt_pkt_sync_forward does: a PSB that the last synchronisation
// point is skipped, and the search starts up to 15 bytes back so that a PSB
// partly consumed by a misread packet is still found. It clears any error.
// It returns an error wrapping ErrEOS when no PSB follows.
func (d *Decoder) SyncForward() error {
	pos := d.pos
	if pos == d.sync {
		pos += PSBSize
	}
	pos -= min(pos, PSBSize-1)
	f, err := SyncForward(d.buf, min(pos, len(d.buf)))
	if err != nil {
		return err
	}
	d.setSync(f)
	return nil
}

// SyncBackward moves d to the previous PSB before the current position, or
// the last PSB of the buffer if d was never synchronised (libipt's
// pt_pkt_sync_backward), clearing any error. It returns an error
// wrapping ErrEOS when there is none.
func (d *Decoder) SyncBackward() error {
	pos := d.pos
	if d.sync < 0 && pos == 0 {
		pos = len(d.buf) // never positioned: search from the end, as libipt
	}
	f, err := SyncBackward(d.buf, pos)
	if err != nil {
		return err
	}
	d.setSync(f)
	return nil
}

// SyncSet moves d to off and makes that the synchronisation point, without
// checking for a PSB there (libipt's pt_pkt_sync_set). It clears any error.
func (d *Decoder) SyncSet(off int) error {
	if off < 0 || off > len(d.buf) {
		return errAt(off, ErrEOS)
	}
	d.setSync(off)
	return nil
}

func (d *Decoder) setSync(off int) {
	d.sync, d.pos, d.cur, d.err, d.block, d.fast = off, off, off, nil, 0, d.buf
}
