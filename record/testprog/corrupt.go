package testprog

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/ptdecode/packet"
)

// CorruptAux copies the recording data and overwrites trace bytes: n bytes
// with fill a fraction at of the way into each AUXTRACE buffer longer than
// 4n. The copy is in a temporary directory of t.
func CorruptAux(t testing.TB, data string, fill byte, n int, at float64) string {
	t.Helper()
	spans := auxSpans(t, data, uint64(4*n))
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range spans {
		o := s.off + int64(float64(s.size)*at)
		for i := int64(0); i < int64(n); i++ {
			b[o+i] = fill
		}
	}
	return writeCopy(t, b)
}

// CorruptPacket copies the recording data and overwrites, in each AUXTRACE
// buffer, the first packet of kind that starts a fraction at of the way
// into the buffer or later: its payload bytes (those after the opcode, or
// after the extended opcode of an extended packet; the last byte of a packet
// without payload) with fill. It fails the test when no buffer has such a packet, so
// that no case passes without corrupting anything. The copy is in a
// temporary directory of t.
func CorruptPacket(t testing.TB, data string, kind packet.Kind, fill byte, at float64) string {
	t.Helper()
	return editFirst(t, data, at, kind.String()+" packet", func(p *packet.Packet, _ bool) bool { return p.Kind == kind },
		func(pkt []byte) {
			first := 1
			if pkt[0] == 0x02 {
				first = 2
			}
			if first >= len(pkt) { // PAD, TNT, short CYC; PSBEND, OVF...
				first = len(pkt) - 1
			}
			for i := first; i < len(pkt); i++ {
				pkt[i] = fill
			}
		})
}

// editFirst copies the recording data and edits, in each AUXTRACE buffer,
// the bytes of the first packet that starts a fraction at of the way into
// the buffer or later and that match accepts (inPSB: between a PSB and its
// PSBEND). It fails the test when no buffer has such a packet (what names
// it), so that no case passes without changing anything. The copy is in a
// temporary directory of t.
func editFirst(t testing.TB, data string, at float64, what string, match func(p *packet.Packet, inPSB bool) bool, edit func(pkt []byte)) string {
	t.Helper()
	return editPackets(t, data, at, true, what, match, edit)
}

// EditPackets copies the recording data and edits, in each AUXTRACE
// buffer, the bytes of every packet that match accepts (inPSB: between a
// PSB and its PSBEND), in order. It fails the test when it edits none.
func EditPackets(t testing.TB, data string, match func(p *packet.Packet, inPSB bool) bool, edit func(pkt []byte)) string {
	t.Helper()
	return editPackets(t, data, 0, false, "packet to edit", match, edit)
}

// editPackets is editFirst, or with first false EditPackets from a
// fraction at of the way into each buffer on.
func editPackets(t testing.TB, data string, at float64, first bool, what string, match func(p *packet.Packet, inPSB bool) bool, edit func(pkt []byte)) string {
	t.Helper()
	spans := auxSpans(t, data, 0)
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	hit := 0
	for _, s := range spans {
		buf := b[s.off : s.off+s.size]
		from := int(float64(s.size) * at)
		inPSB := false
		for off := 0; off < len(buf); {
			p, err := packet.Decode(buf, off)
			if err != nil {
				break
			}
			if off >= from && match(&p, inPSB) {
				edit(buf[off : off+int(p.Size)])
				hit++
				if first {
					break
				}
			}
			switch p.Kind {
			case packet.KindPSB:
				inPSB = true
			case packet.KindPSBEnd:
				inPSB = false
			}
			off += int(p.Size)
		}
	}
	if hit == 0 {
		t.Fatalf("no %s past %.0f%% of any AUX buffer", what, at*100)
	}
	return writeCopy(t, b)
}

type auxSpan struct{ off, size int64 }

// auxSpans returns where the data of the AUXTRACE buffers longer than min
// bytes are in the file data.
func auxSpans(t testing.TB, data string, min uint64) []auxSpan {
	t.Helper()
	f, err := perfdata.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var spans []auxSpan
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		if r, ok := rs.Record.(*perfdata.RecordAuxtrace); ok && r.AuxSize > min {
			spans = append(spans, auxSpan{r.DataOffset, int64(r.AuxSize)})
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if len(spans) == 0 {
		t.Fatal("the recording has no AUXTRACE buffer large enough to corrupt")
	}
	return spans
}

// writeCopy writes b to a file in a temporary directory of t.
func writeCopy(t testing.TB, b []byte) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "corrupt.data")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// SetPIPNR copies the recording data and sets, in each AUXTRACE buffer,
// the NR (VMX non-root) bit of the first PIP packet outside PSB+ that
// starts a fraction at of the way into the buffer or later (a MOV CR3 of
// a process change): the code after it looks like a guest's from the next
// branch on. It fails the test when no buffer has such a packet.
func SetPIPNR(t testing.TB, data string, at float64) string {
	t.Helper()
	return editFirst(t, data, at, "PIP packet outside PSB+",
		func(p *packet.Packet, inPSB bool) bool { return p.Kind == packet.KindPIP && !inPSB },
		func(pkt []byte) { pkt[2] |= 1 }) // the payload's bit 0
}
