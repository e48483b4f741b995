package ptdump

import (
	"bufio"
	"errors"
	"io"
	"math"

	"github.com/perfpt/perfpt/ptdecode/errata"
	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/ptdecode/timing"
)

// Column widths of ptdump's line (the sizes of its snprintf buffers: a
// field holds one character less than its width).
const (
	widthOffset  = 17
	widthRaw     = 33
	widthOpcode  = 10
	widthPayload = 25 // standard payload
	widthExt     = 48 // TNT and TRIG payloads
	widthID      = 5
	widthTrack   = 17
)

// line is one output line being built, like ptdump's struct ptdump_buffer.
type line struct {
	opcode   string
	payload  []byte // standard or extended payload
	ext      bool   // payload may use the extended width
	id       string // tracking column label
	track    []byte // tracking column value
	skip     bool   // do not print
	skipTime bool   // no time column at this packet
	skipTCal bool   // no calibration column at this packet
}

// dumper holds the state of one dump (ptdump's struct ptdump_tracking).
type dumper struct {
	w       *bufio.Writer
	buf     []byte
	opt     *Options
	cfg     timing.Config
	lastIP  packet.LastIP
	cal     timing.Cal
	time    timing.Time
	tsc     uint64 // last printed TSC, for --time-delta
	fcr     uint64 // last printed FCR, for --time-delta
	header  bool   // inside PSB+
	track   bool   // time tracking on
	ln      line
	scratch []byte
	pbuf    [widthExt]byte
	tbuf    [widthTrack]byte
	items   []packet.Item // --quiet's batch
}

// Dump writes the packet dump of buf to w as ptdump does with opt. It
// returns only write errors: decode errors are part of the dump, as
// bracketed lines after which Dump resynchronises at the next PSB.
func Dump(w io.Writer, buf []byte, opt *Options) error {
	bw, ok := w.(*bufio.Writer)
	if !ok {
		bw = bufio.NewWriterSize(w, 1<<16)
	}
	d := &dumper{w: bw, buf: buf, opt: opt, cfg: opt.Timing, track: opt.trackTime()}
	d.scratch = make([]byte, 0, 256)
	dec := packet.NewDecoder(buf)
	dec.SetBlockItems(opt.BlockItems) // libipt knows no BBP/BIP/BEP
	if opt.CPU.Vendor != errata.VendorUnknown {
		e, err := errata.ForCPU(opt.CPU)
		if err != nil {
			d.diag(0, "failed to determine errata", err)
		}
		d.cfg.SKL168 = e.SKL168
		dec.SetErrata(e.SKD007, e.SKZ84)
	}
	d.reset()
	d.run(dec)
	if opt.Sideband != nil {
		if err := opt.Sideband.Dump(bw, math.MaxUint64); err != nil {
			d.diag(math.MaxUint64, "sideband dump error", err)
		}
	}
	return bw.Flush()
}

func (d *dumper) reset() {
	d.lastIP.Reset()
	d.cal.Reset()
	d.time.Reset()
	d.tsc, d.fcr, d.header = 0, 0, false
}

// run is ptdump's dump_sync: sync, dump until an error, resync, repeat.
func (d *dumper) run(dec *packet.Decoder) {
	if d.opt.NoSync {
		_ = dec.SyncSet(0)
	} else if err := dec.SyncForward(); err != nil {
		return
	}
	for {
		if !d.packets(dec) {
			return
		}
		if err := dec.SyncForward(); err != nil {
			return
		}
		d.reset()
	}
}

// packets dumps packets until the end (false) or an error (true).
func (d *dumper) packets(dec *packet.Decoder) bool {
	if d.opt.Quiet && !d.opt.Raw {
		// --quiet: most packets need no work at all; one well predicted
		// test per packet skips them.
		// Packets come in batches (Decoder.Batch, 1.5 times Next's
		// speed); the few that need work are decoded whole again.
		work := quietWork(d.opt.LastIP, d.track)
		if d.items == nil {
			d.items = make([]packet.Item, packet.BatchSize)
		}
		for n := dec.Batch(d.items); n > 0; n = dec.Batch(d.items) {
			for i := range d.items[:n] {
				if it := &d.items[i]; work[it.Kind()] {
					p := it.Packet()
					d.quiet(uint64(it.Offset()), &p)
				}
			}
		}
	} else {
		for dec.Next() {
			if !d.one(dec.PacketOffset(), dec.Packet()) {
				return true
			}
		}
	}
	err := dec.Err()
	if err == nil || errors.Is(err, packet.ErrEOS) {
		return false
	}
	d.diag(uint64(dec.Offset()), "error decoding packet", err)
	return true
}

// errstr returns libipt's text for err.
func errstr(err error) string {
	var pe *packet.Error
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

// diag prints a bracketed diagnostic line, as ptdump's diag.
func (d *dumper) diag(off uint64, msg string, err error) {
	b := append(d.scratch[:0], '[')
	b = appendHex(b, off)
	b = append(b, ": "...)
	b = append(b, msg...)
	if err != nil {
		b = append(b, ": "...)
		b = append(b, errstr(err)...)
	}
	b = append(b, "]\n"...)
	d.w.Write(b)
	d.scratch = b
}

// one dumps one packet; false means stop and resync.
func (d *dumper) one(off int, p *packet.Packet) bool {
	if d.opt.Raw && off+int(p.Size) > len(d.buf) {
		d.diag(uint64(off), "bad packet size", packet.ErrBadPacket)
		return false
	}
	if d.opt.Quiet {
		d.quiet(uint64(off), p)
		return true
	}
	d.ln = line{payload: d.pbuf[:0], track: d.tbuf[:0]}
	d.packet(uint64(off), p)
	if d.ln.skip {
		return true
	}
	d.print(off, p)
	return true
}

func pad(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

// print writes the line, as ptdump's print_buffer.
func (d *dumper) print(off int, p *packet.Packet) {
	ln := &d.ln
	b := d.scratch[:0]
	sep := false
	if d.opt.ShowOffset {
		b = appendHex16(b, uint64(off))
		b = pad(b, widthOffset-16)
		sep = true
	}
	if d.opt.Raw {
		if sep {
			b = append(b, ' ')
		}
		n := min(int(p.Size), (widthRaw-1)/2)
		for _, c := range d.buf[off : off+n] {
			b = append(b, hexdigits[c>>4], hexdigits[c&0xf])
		}
		b = pad(b, widthRaw-2*n)
		sep = true
	}
	if sep {
		b = append(b, ' ')
	}
	payload := ln.payload
	if !ln.ext && len(payload) > widthPayload-1 {
		payload = payload[:widthPayload-1]
	}
	b = append(b, ln.opcode...)
	if len(payload) > 0 {
		b = pad(b, widthOpcode-len(ln.opcode))
	}
	switch {
	case ln.id != "":
		b = append(b, ' ')
		b = append(b, payload...)
		b = pad(b, widthPayload-len(payload))
		b = append(b, ' ')
		b = append(b, ln.id...)
		b = pad(b, widthID-len(ln.id))
		b = append(b, ln.track...)
	case len(payload) > 0:
		b = append(b, ' ')
		b = append(b, payload...)
	}
	b = append(b, '\n')
	d.w.Write(b)
	d.scratch = b
}

// setTrack sets the tracking column (at most 16 characters, as ptdump).
func (d *dumper) setTrack(id string, v []byte) {
	d.ln.id = id
	if len(v) > widthTrack-1 {
		v = v[:widthTrack-1]
	}
	d.ln.track = append(d.ln.track[:0], v...)
}
