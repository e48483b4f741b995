package packet

// LastIP is the last-IP register against which IP packets are compressed
// (libipt's pt_last_ip). The zero value has no IP.
type LastIP struct {
	IP         uint64 // the last IP, valid when Have is set
	Have       bool   // an IP has been seen since the last Reset
	Suppressed bool   // the last update had its IP suppressed
}

// Reset forgets the last IP (done at PSB and after OVF by decoders).
func (l *LastIP) Reset() { *l = LastIP{} }

// Update applies the payload of an IP packet with compression ipc. A
// suppressed IP only marks the register suppressed; it keeps the IP.
func (l *LastIP) Update(ipc IPC, payload uint64) error {
	switch ipc {
	case IPCSuppressed:
		l.Suppressed = true
		return nil
	case IPCUpdate16:
		l.IP = l.IP&^0xffff | payload&0xffff
	case IPCUpdate32:
		l.IP = l.IP&^0xffffffff | payload&0xffffffff
	case IPCSext48:
		l.IP = Sext48(payload)
	case IPCUpdate48:
		l.IP = l.IP&^0xffffffffffff | payload&0xffffffffffff
	case IPCFull:
		l.IP = payload
	default:
		return ErrBadPacket
	}
	l.Have, l.Suppressed = true, false
	return nil
}

// UpdateIP is Update for an IP compression with a payload (not
// suppressed, not reserved) and a payload no wider than it says, such as
// packet.Decoder.StepBranch gives. It is small enough to be inlined.
func (l *LastIP) UpdateIP(ipc IPC, payload uint64) {
	ip := l.IP&keepIP[ipc&7] | payload
	if ipc == IPCSext48 {
		ip = Sext48(ip)
	}
	l.IP, l.Have, l.Suppressed = ip, true, false
}

// keepIP is, per IP compression, the bits of the last IP that its payload
// leaves as they are.
var keepIP = [8]uint64{IPCUpdate16: ^uint64(0xffff), IPCUpdate32: ^uint64(0xffffffff), IPCUpdate48: ^uint64(0xffffffffffff)}

// UpdatePacket applies p if it is an IP packet; other packets are ignored.
func (l *LastIP) UpdatePacket(p *Packet) error {
	if !p.Kind.IsIP() {
		return nil
	}
	return l.Update(p.IPC, p.Payload)
}

// Query returns the last IP, or ErrNoIP if none is known, or ErrSuppress if
// the last update was suppressed.
func (l *LastIP) Query() (uint64, error) {
	if !l.Have {
		return 0, ErrNoIP
	}
	if l.Suppressed {
		return 0, ErrSuppress
	}
	return l.IP, nil
}

// Sext48 sign-extends a 48-bit value to 64 bits.
func Sext48(v uint64) uint64 { return uint64(int64(v<<16) >> 16) }

// CompressIP returns the shortest compression, and the payload to carry, for
// ip given the last-IP register l: an update of the low 16, 32 or 48 bits
// when the rest matches l, a sign-extended 48-bit IP (canonical addresses),
// or the full 64 bits.
func CompressIP(l LastIP, ip uint64) (IPC, uint64) {
	if l.Have {
		switch {
		case ip>>16 == l.IP>>16:
			return IPCUpdate16, ip & 0xffff
		case ip>>32 == l.IP>>32:
			return IPCUpdate32, ip & 0xffffffff
		}
	}
	if Sext48(ip) == ip {
		return IPCSext48, ip & 0xffffffffffff
	}
	if l.Have && ip>>48 == l.IP>>48 {
		return IPCUpdate48, ip & 0xffffffffffff
	}
	return IPCFull, ip
}
