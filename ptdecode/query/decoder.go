package query

import (
	"errors"
	"math/bits"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// more is returned by the packet handlers when they need the next packet
// before an event is ready (libipt's positive return values). It is never
// returned to users.
const more Code = 0xff

// Decoder turns the packets of a trace into events (libipt's
// pt_event_decoder). It is a plain value: assigning it to another variable
// gives an independent decoder at the same position, which is how the
// higher layers read ahead. It never modifies the trace and allocates only
// to build errors.
type Decoder struct {
	cfg Config
	pd  packet.Decoder
	end int // no packet at or after this offset is decoded (sub-range end)

	// pkt is the packet being processed: the packet decoder's current
	// packet, or invalidPacket after a failure. A copy of the Decoder
	// points into the original's packet decoder until its next call;
	// every entry point re-points it (see repoint).
	pkt       *packet.Packet
	poff      int   // its offset, or the offset of the failure
	status    Code  // the packet layer's error when pkt is invalid
	statusErr error // its original error, if any

	// raw says that NextBranch stepped over the current packet without
	// decoding it into the packet decoder's (packet.Decoder.StepBranch):
	// it is the TNT-8 or TIP whose first byte is rawc and IP payload
	// rawp, and pkt is stale until repoint decodes it.
	raw  bool
	rawc byte
	rawp uint64

	ip    packet.LastIP
	clock clock
	evq   eventQueue
	cur   *Event // the event to publish, nil if none

	modeExecValid bool // the MODE.Exec state below is known
	iflag         bool
	csd           bool
	csl           bool
	enabled       bool // tracing is enabled (PacketEn)
	bound         bool // the current packet has been bound to an event
}

// NewDecoder returns a decoder for the trace buf with configuration cfg.
// It must be synchronised (SyncForward, SyncBackward or SyncSet) before
// Next is called.
func NewDecoder(buf []byte, cfg *Config) *Decoder {
	d := new(Decoder)
	d.Init(buf, cfg)
	return d
}

// Init prepares d like NewDecoder, for decoders embedded by value.
func (d *Decoder) Init(buf []byte, cfg *Config) {
	*d = Decoder{end: len(buf)}
	if cfg != nil {
		d.cfg = *cfg
	}
	d.pd.Reset(buf)
	d.pd.SetBlockItems(false)
	d.pd.SetErrata(d.cfg.Errata.SKD007, d.cfg.Errata.SKZ84)
	d.reset()
}

// Config returns the decoder's configuration.
func (d *Decoder) Config() *Config { return &d.cfg }

// Buffer returns the trace buffer.
func (d *Decoder) Buffer() []byte { return d.pd.Buffer() }

// SetEnd makes the decoder stop at off: a packet that starts at or after
// off is not decoded, and Next reports the end of the trace (CodeEOS)
// there. Look-ahead (overflow recovery, erratum checks) still sees the
// whole buffer, so that decoding the sub-range [SyncOffset, off) gives the
// same events as decoding the whole trace up to off; give off as the
// offset of a PSB. off beyond the buffer means its end.
func (d *Decoder) SetEnd(off uint64) {
	if off > uint64(len(d.pd.Buffer())) {
		off = uint64(len(d.pd.Buffer()))
	}
	d.end = int(off)
}

// End returns the offset set by SetEnd (the buffer length by default).
func (d *Decoder) End() uint64 { return uint64(d.end) }

// reset clears the decoding state but keeps the configuration, the packet
// decoder and the end (libipt's pt_evt_reset).
func (d *Decoder) reset() {
	d.pkt, d.raw = &invalidPacket, false
	d.status, d.statusErr = CodeNoSync, nil
	d.cur = nil
	d.enabled, d.bound, d.modeExecValid = false, false, false
	d.ip.Reset()
	d.clock.reset()
	d.evq.init()
}

// Pos returns the offset of the next packet the decoder will read
// (libipt's pt_evt_pos). It tells whether the decoder moved; comparing the
// Pos of a copy with the original's shows whether the copy read ahead.
func (d *Decoder) Pos() uint64 { return uint64(d.pd.Offset()) }

// Offset returns the offset of the packet being processed, or of the
// packet that failed (libipt's pt_evt_get_offset). Errors report it.
func (d *Decoder) Offset() uint64 { return uint64(d.poff) }

// SyncOffset returns the offset of the last synchronisation point: the last
// PSB read or the offset given to SyncSet (libipt's pt_evt_get_sync_offset);
// 0 if the decoder was never synchronised.
func (d *Decoder) SyncOffset() uint64 { return uint64(max(d.pd.SyncOffset(), 0)) }

// SyncForward synchronises at the next PSB after the current position (at
// the first PSB of a fresh decoder) and reads its PSB+ header. The PSB+
// state is reported by the following Next calls as status-update events.
// Errors wrap CodeEOS when no PSB follows.
func (d *Decoder) SyncForward() error {
	d.reset()
	if err := d.pd.SyncForward(); err != nil {
		return d.packetError(d.pd.Offset(), err)
	}
	return d.start()
}

// SyncBackward synchronises at the previous PSB before the current
// position (the last PSB of a fresh decoder), like libipt's
// pt_evt_sync_backward.
func (d *Decoder) SyncBackward() error {
	start := d.pd.Offset()
	if !d.synced() {
		start = len(d.pd.Buffer())
		d.pd.SyncSet(start)
	}
	sync := start
	for {
		d.reset()
		for {
			from := d.pd.Offset()
			if err := d.pd.SyncBackward(); err != nil {
				return d.packetError(d.pd.Offset(), err)
			}
			if d.pd.Offset() >= from {
				// Stuck: a PSB right after PSB-like bytes is found again
				// from its own start (libipt loops forever here).
				return &Error{Code: CodeEOS, Offset: uint64(from)}
			}
			if d.pd.Offset() < sync {
				break
			}
		}
		sync = d.pd.Offset()
		err := d.start()
		if d.pd.Offset() < start {
			return err
		}
	}
}

// synced reports whether the decoder was ever synchronised.
func (d *Decoder) synced() bool { return d.pd.SyncOffset() >= 0 }

// SyncSet synchronises at off, which must hold a PSB, and reads its PSB+
// header (libipt's pt_evt_sync_set).
func (d *Decoder) SyncSet(off uint64) error {
	d.reset()
	if off > uint64(len(d.pd.Buffer())) {
		return &Error{Code: CodeEOS, Offset: off}
	}
	if err := d.pd.SyncSet(int(off)); err != nil {
		return d.packetError(int(off), err)
	}
	return d.start()
}

// start reads the PSB at the current position and its header.
func (d *Decoder) start() error {
	d.status, d.statusErr = CodeOK, nil
	d.fetchPacket()
	switch d.pkt.Kind {
	case packet.KindPSB:
		if c := d.decodePSB(); c != more && c != CodeOK {
			return d.error(c)
		}
		return nil
	case packet.KindInvalid:
		if d.status == CodeOK {
			return d.error(CodeInternal)
		}
		return d.error(d.status)
	}
	return d.error(CodeNoSync)
}

// Next returns the next event in *ev. At the end of the trace (or of the
// range set by SetEnd) it returns an error wrapping CodeEOS. After an
// error, calling Next again repeats it; synchronise to go on.
func (d *Decoder) Next(ev *Event) error {
	d.repoint()
	// Fast path for the bulk of a trace: branch and timing packets while
	// tracing is enabled and no event is pending. It gives the same
	// result as the general path below.
loop:
	for d.enabled && d.evq.begin == d.evq.end {
		p := d.pkt
		done := false
		if d.bound {
			// A TIP whose event was published binds nothing more.
			if p.Kind != packet.KindTIP {
				break
			}
			d.bound = false
		} else {
			switch p.Kind {
			case packet.KindTNT8, packet.KindTNT64:
				*ev = Event{Type: EventTNT, Bits: p.Payload, Size: p.Bits}
				d.clock.eventTime(ev)
				done = true
			case packet.KindTIP:
				if err := d.ip.Update(p.IPC, p.Payload); err != nil {
					return d.error(CodeBadPacket)
				}
				*ev = Event{Type: EventTIP}
				d.eventIP(ev)
				d.clock.eventTime(ev)
				// Stay at the TIP, as libipt does (Offset reports it).
				d.bound = true
				return nil
			case packet.KindMTC, packet.KindCYC, packet.KindTSC, packet.KindTMA:
				if c := d.clock.apply(p, &d.cfg.Timing); c != CodeOK {
					return d.error(c)
				}
			default:
				break loop
			}
		}
		// fetchPacket, with its common case inline: the next packet is
		// before the end and is not PAD. This saves a call per packet.
		if off := d.pd.Offset(); off >= d.end {
			d.fail(off, CodeEOS, nil)
		} else if !d.pd.Next() {
			d.nextFailed(off)
		} else if q := d.pd.Packet(); q.Kind != packet.KindPad {
			d.pkt = q
			d.poff = d.pd.Offset() - int(q.Size)
		} else {
			d.fetchPacket()
		}
		if done {
			return nil
		}
	}
	c := d.fetchEvent()
	if c != CodeOK {
		return d.error(c)
	}
	*ev = *d.cur
	d.cur = nil
	return nil
}

// NextBranch is Next for the bulk of a trace, branch trace after branch
// trace: when the next event is a TNT or a TIP made from the packet after
// the last event's (or from the packet the last event was made from,
// when that was a TNT that left the next packet to be read), with nothing
// else in between, it writes it to *ev and returns true, as Next would.
// Else it returns false having done only what Next does first (passing the
// TIP of the last event): Next then gives the event. It is the path of the
// flow decoders' fast loop, short enough to stay cheap per event.
//
// Where the current packet is one stepBranch stepped over (d.raw), the
// next events are made from the packets' bytes, in this function: the
// packets from one event to the next are stepped over with the packet
// decoder's StepBranch, inlined, and decoded only when another path
// needs them (repoint).
func (d *Decoder) NextBranch(ev *Event) bool {
	if !d.raw || !d.enabled || d.evq.begin != d.evq.end {
		return d.nextBranch(ev)
	}
	if d.bound {
		// The TIP of the last event (a raw packet bound to an event is
		// one); the next packet follows.
		d.bound = false
		c, pl, ok := d.pd.StepBranch(d.end)
		if !ok {
			d.repoint()
			d.bound = true
			return d.nextBranch(ev)
		}
		d.rawc, d.rawp, d.poff = c, pl, d.pd.PacketOffset()
	}
	c := d.rawc
	if c&1 == 0 {
		// A TNT-8: the bits below the highest set bit of c>>1, the stop bit.
		n := bits.Len8(c>>1) - 1
		*ev = Event{Type: EventTNT, Bits: uint64(c>>1) &^ (1 << n), Size: uint8(n)}
		d.clock.eventTime(ev)
		if c, pl, ok := d.pd.StepBranch(d.end); ok {
			d.rawc, d.rawp, d.poff = c, pl, d.pd.PacketOffset()
		} else {
			d.raw = false
			d.advance()
		}
		return true
	}
	// A TIP with an IP.
	d.ip.UpdateIP(packet.IPC(c>>5), d.rawp)
	*ev = Event{Type: EventTIP, IP: d.ip.IP}
	d.clock.eventTime(ev)
	d.bound = true // stay at the TIP, as below
	return true
}

// nextBranch is NextBranch from a decoded packet.
func (d *Decoder) nextBranch(ev *Event) bool {
	if !d.enabled || d.evq.begin != d.evq.end || d.pkt == &invalidPacket {
		return false
	}
	p := d.pd.Packet() // (repoint)
	d.pkt = p
	if d.bound {
		// A TIP whose event was published binds nothing more.
		if p.Kind != packet.KindTIP {
			return false
		}
		d.bound = false
		if d.stepBranch() {
			return d.NextBranch(ev)
		}
		if !d.advance() {
			return false
		}
		p = d.pkt
	}
	switch p.Kind {
	case packet.KindTNT8, packet.KindTNT64:
		*ev = Event{Type: EventTNT, Bits: p.Payload, Size: p.Bits}
		d.clock.eventTime(ev)
		if !d.stepBranch() {
			d.advance()
		}
		return true
	case packet.KindTIP:
		if p.IPC == packet.IPCSuppressed || d.ip.Update(p.IPC, p.Payload) != nil {
			return false
		}
		*ev = Event{Type: EventTIP, IP: d.ip.IP}
		d.clock.eventTime(ev)
		// Stay at the TIP, as libipt does (Offset reports it).
		d.bound = true
		return true
	}
	return false
}

// stepBranch moves to the next packet, as advance does, when that is a
// TNT-8 or a TIP with an IP that StepBranch steps over: d is then raw. It
// reports whether it did.
func (d *Decoder) stepBranch() bool {
	c, pl, ok := d.pd.StepBranch(d.end)
	if ok {
		d.raw, d.rawc, d.rawp = true, c, pl
		d.poff = d.pd.PacketOffset()
	}
	return ok
}

// advance is fetchPacket with its common case inline: the next packet is
// before the end and is not PAD. It reports whether there is a packet.
func (d *Decoder) advance() bool {
	if off := d.pd.Offset(); off >= d.end {
		d.fail(off, CodeEOS, nil)
		return false
	} else if !d.pd.Next() {
		d.nextFailed(off)
		return false
	} else if q := d.pd.Packet(); q.Kind != packet.KindPad {
		d.pkt = q
		d.poff = d.pd.Offset() - int(q.Size)
		return true
	}
	d.fetchPacket()
	return d.pkt != &invalidPacket
}

// fetchEvent runs the packet handlers until one publishes an event in
// d.cur (libipt's pt_evt_fetch_event).
func (d *Decoder) fetchEvent() Code {
	for {
		c := d.decodePacket()
		if c != more {
			return c
		}
		if d.cur != nil {
			return CodeInternal
		}
		// The handler wants the next packet; that one is not bound yet.
		d.bound = false
		d.fetchPacket()
	}
}

// fetchPacket reads the next packet other than PAD into d.pkt, or records
// the packet layer's error (or the end) in d.status with an invalid pkt.
func (d *Decoder) fetchPacket() {
	for {
		off := d.pd.Offset()
		if off >= d.end {
			d.fail(off, CodeEOS, nil)
			return
		}
		if !d.pd.Next() {
			d.nextFailed(off)
			return
		}
		p := d.pd.Packet()
		if p.Kind != packet.KindPad {
			d.pkt = p
			// libipt's pt_evt_get_offset: the position minus the packet
			// size (not the packet's offset for SKD007's OVF).
			d.poff = d.pd.Offset() - int(p.Size)
			return
		}
	}
}

// nextFailed records why the packet decoder's Next, called at off, gave
// no packet (fetchPacket's handling of that case).
func (d *Decoder) nextFailed(off int) {
	if err := d.pd.Err(); err != nil {
		d.fail(d.pd.Offset(), packetCode(err), err)
	} else {
		d.fail(off, CodeEOS, nil)
	}
}

// invalidPacket stands for the packet after a failure; never written.
var invalidPacket packet.Packet

// repoint makes d.pkt point into d's own packet decoder again after d
// was copied.
func (d *Decoder) repoint() {
	if d.pkt != &invalidPacket {
		if d.raw {
			d.raw = false
			d.pd.Redecode()
		}
		d.pkt = d.pd.Packet()
	}
}

func (d *Decoder) fail(off int, c Code, err error) {
	d.pkt, d.raw = &invalidPacket, false
	d.poff = off
	d.status, d.statusErr = c, err
}

// error builds the error for code c at the current offset.
func (d *Decoder) error(c Code) error {
	var err error
	if c == d.status && d.pkt.Kind == packet.KindInvalid {
		err = d.statusErr
	}
	return &Error{Code: c, Offset: uint64(d.poff), Err: err}
}

func (d *Decoder) packetError(off int, err error) error {
	var pe *packet.Error
	if errors.As(err, &pe) {
		off = pe.Offset
	}
	return &Error{Code: packetCode(err), Offset: uint64(off), Err: err}
}

// packetCode maps a packet-layer error to a Code.
func packetCode(err error) Code {
	switch {
	case err == nil:
		return CodeOK
	case errors.Is(err, packet.ErrEOS):
		return CodeEOS
	case errors.Is(err, packet.ErrBadOpcode):
		return CodeBadOpc
	case errors.Is(err, packet.ErrBadPacket):
		return CodeBadPacket
	case errors.Is(err, packet.ErrNoSync):
		return CodeNoSync
	case errors.Is(err, packet.ErrNoIP):
		return CodeNoIP
	case errors.Is(err, packet.ErrSuppress):
		return CodeIPSuppressed
	case errors.Is(err, packet.ErrBadConfig):
		return CodeBadConfig
	}
	return CodeInternal
}

// peekPacket reads the next packet of a look-ahead decoder into *p.
func peekPacket(pd *packet.Decoder, p *packet.Packet) Code {
	if !pd.Next() {
		if err := pd.Err(); err != nil {
			return packetCode(err)
		}
		return CodeEOS
	}
	*p = *pd.Packet()
	return CodeOK
}
