package packet

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// addSeeds seeds f with the sample packets, a generated trace and the
// trace fixtures of testdata/pt.
func addSeeds(f *testing.F) {
	for _, s := range samples {
		f.Add(s.want)
	}
	f.Add(genTrace(2048, 7))
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "pt", "*.pt"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil && len(data) <= 1<<16 {
			f.Add(data)
		}
	}
}

// FuzzDecode decodes arbitrary bytes: the decoder must not panic, must agree
// with Decode, must report errors as *Error at the failing offset, and every
// packet it returns must re-encode to bytes that decode to the same packet.
func FuzzDecode(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(data)
		d.SetBlockItems(round0(data))
		for round := 0; round < 4; round++ {
			for d.Next() {
				p := *d.Packet()
				off := d.PacketOffset()
				var q Packet
				var err error
				if p.Kind == KindBIP {
					q, err = DecodeBIP(data, off, p.Bits == 4)
				} else {
					q, err = Decode(data, off)
				}
				if err != nil || q != p {
					t.Fatalf("at %d: Decoder %+v, Decode %+v, %v", off, p, q, err)
				}
				if p.Kind != KindBIP {
					if err := DecodeInto(&q, data, off); err != nil || q != p {
						t.Fatalf("at %d: Decoder %+v, DecodeInto %+v, %v", off, p, q, err)
					}
				}
				if off+int(p.Size) > len(data) || d.Offset() != off+int(p.Size) {
					t.Fatalf("at %d: size %d runs past %d or next %d", off, p.Size, len(data), d.Offset())
				}
				enc, err := Append(nil, p)
				if err != nil {
					t.Fatalf("at %d: Append(%+v): %v", off, p, err)
				}
				var r Packet
				if p.Kind == KindBIP {
					r, err = DecodeBIP(enc, 0, p.Bits == 4)
				} else {
					r, err = Decode(enc, 0)
				}
				if err != nil || r != p || len(enc) != int(p.Size) {
					t.Fatalf("at %d: % x re-encodes to % x = %+v, %v", off, data[off:off+int(p.Size)], enc, r, err)
				}
			}
			if err := d.Err(); err != nil {
				var pe *Error
				if !errors.As(err, &pe) || pe.Offset != d.Offset() {
					t.Fatalf("error %v not at offset %d", err, d.Offset())
				}
				want, werr := Decode(data, d.Offset())
				var q Packet
				if qerr := DecodeInto(&q, data, d.Offset()); q != want || (qerr == nil) != (werr == nil) ||
					qerr != nil && qerr.Error() != werr.Error() {
					t.Fatalf("at %d: Decode %+v, %v; DecodeInto %+v, %v", d.Offset(), want, werr, q, qerr)
				}
			}
			if d.SyncForward() != nil {
				break
			}
		}
		// With the errata workarounds and block items on, decoding must not
		// panic and must move forward.
		e := NewDecoder(data)
		e.SetErrata(true, true)
		for round := 0; round < 4; round++ {
			last := -1
			for e.Next() {
				if e.PacketOffset() <= last {
					t.Fatalf("decoder went back from %d to %d", last, e.PacketOffset())
				}
				last = e.PacketOffset()
			}
			if e.SyncForward() != nil {
				break
			}
		}
		idx := PSBIndex(nil, data)
		for i, off := range idx {
			if !isPSB(data, off) || (i > 0 && off < idx[i-1]+PSBSize) {
				t.Fatalf("PSBIndex %v: bad entry %d", idx, off)
			}
		}
	})
}

// round0 picks the block-item mode from the input, to fuzz both.
func round0(data []byte) bool { return len(data)%2 == 0 }

// FuzzRoundTrip builds packets from arbitrary fields: whatever Append
// accepts must decode to exactly the same packet, and the bytes must be as
// long as the decoded Size.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range samples {
		p := s.p
		f.Add(uint8(p.Kind), p.Payload, p.Ext, p.CTC, p.FC, uint8(p.IPC), p.Bits, uint16(p.Flags), p.Type, p.Vector, p.State, p.SubState)
	}
	f.Fuzz(func(t *testing.T, kind uint8, payload uint64, ext uint32, ctc, fc uint16, ipc, bits uint8, flags uint16, typ, vec, state, sub uint8) {
		p := Packet{Kind: Kind(kind), Payload: payload, Ext: ext, CTC: ctc, FC: fc, IPC: IPC(ipc),
			Bits: bits, Flags: Flags(flags), Type: typ, Vector: vec, State: state, SubState: sub}
		enc, err := Append([]byte{0xaa}, p)
		if q, ok := appendQuick([]byte{0xaa}, &p); ok {
			// The fast path must agree with the general one.
			gen := []byte(nil)
			if check(&p) == nil {
				gen = appendPacket([]byte{0xaa}, &p)
			}
			if !bytes.Equal(q, gen) {
				t.Fatalf("appendQuick(%+v) = % x, general path % x", p, q, gen)
			}
		}
		if err != nil {
			if !errors.Is(err, ErrBadConfig) || len(enc) != 1 {
				t.Fatalf("Append(%+v) = % x, %v", p, enc, err)
			}
			return
		}
		enc = enc[1:]
		var q Packet
		if p.Kind == KindBIP {
			q, err = DecodeBIP(enc, 0, p.Bits == 4)
		} else {
			q, err = Decode(enc, 0)
		}
		p.Size = uint8(len(enc))
		if err != nil || q != p {
			t.Fatalf("Append(%+v) = % x decodes to %+v, %v", p, enc, q, err)
		}
	})
}
