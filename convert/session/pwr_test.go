package session_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/ptdecode/packet"
)

// pwrPackets are MWAIT, PWRE and EXSTOP packets bound to FUPs at ip, an
// EXSTOP without IP, a PWRX and a PWRE without MWAIT (perf 6.1 raw
// encodings: 02 c2, 02 22, 02 62 (| 80 with IP), 02 a2).
func pwrPackets(ip uint64) []byte {
	fup := func(b []byte) []byte {
		b = append(b, 0x7d) // FUP, sext48 IP
		var v [8]byte
		binary.LittleEndian.PutUint64(v[:], ip)
		return append(b, v[:6]...)
	}
	var b []byte
	b = append(b, 0x02, 0xc2, 0x21, 0, 0, 0, 0x01, 0, 0, 0) // MWAIT hints 0x21 ext 1
	b = append(b, 0x02, 0x22, 0x80, 0x21)                   // PWRE hw, cstate 2, sub-cstate 1
	b = fup(b)
	b = append(b, 0x02, 0xe2) // EXSTOP with IP
	b = fup(b)
	b = append(b, 0x02, 0x62)                            // EXSTOP without IP
	b = append(b, 0x02, 0xa2, 0x43, 0x05, 0, 0, 0)       // PWRX deepest 3 last 4 wake 5
	b = append(b, 0x02, 0x22, 0x00, 0x13)                // PWRE cstate 1 sub-cstate 3
	b = append(b, 0x02, 0xc2, 0x07, 0, 0, 0, 0, 0, 0, 0) // MWAIT hints 7, then
	b = append(b, 0x02, 0x22, 0x00, 0x30)                // PWRE cstate 3 bound to it
	b = fup(b)
	return b
}

// withPwrEvents copies the recording src to a new file, with the pwr_evt
// bit in the intel_pt config and pwrPackets(ip) inserted before the first
// MODE.TSX packet of each AUX buffer (whose FUP is at ip).
func withPwrEvents(t *testing.T, src string, ip uint64) string {
	t.Helper()
	f, err := perfdata.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := filepath.Join(t.TempDir(), "pwr.perf.data")
	w, err := perfdata.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, a := range f.Attrs {
		ea := a.EventAttr
		if a.Name != "" && a.Name[0] == 'i' { // intel_pt//u
			ea.Config |= 1 << 4
		}
		if _, err := w.AddAttr(ea, a.IDs, a.Name); err != nil {
			t.Fatal(err)
		}
	}
	inserted := 0
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		r := rs.Record
		if a, ok := r.(*perfdata.RecordAuxtrace); ok {
			data := a.Data
			for off := 0; off < len(data); {
				p, err := packet.Decode(data[off:], 0)
				if err != nil || p.Size == 0 {
					t.Fatalf("bad packet at %#x", off)
				}
				if p.Kind == packet.KindModeTSX {
					nd := append(append(append([]byte(nil), data[:off]...), pwrPackets(ip)...), data[off:]...)
					a.Data = nd
					inserted++
					break
				}
				off += int(p.Size)
			}
		}
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if inserted == 0 {
		t.Fatal("no MODE.TSX packet to insert power events before")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPwrEventsPerf compares --itrace=p (mwait, pwre, exstop, pwrx, with
// cbr and psb) on the PTWRITE/TSX fixtures with power event packets added.
func TestPwrEventsPerf(t *testing.T) {
	needTools(t, "perf")
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "ptwtsx"))
	if err != nil {
		t.Fatal(err)
	}
	symfs := "--symfs=" + filepath.Join(dir, "symfs")
	for _, name := range []string{"tsx", "ptw-fup"} {
		t.Run(name, func(t *testing.T) {
			src := filepath.Join(dir, name+".perf.data")
			if _, err := os.Stat(src); err != nil {
				t.Fatalf("committed fixture missing: %v", err)
			}
			data := withPwrEvents(t, src, 0x40106c)
			for _, inv := range [][]string{
				{"--itrace=p"}, {"--itrace=p", "-F", "+flags,+addr"}, {"--itrace=pxw", "--ns"},
				{"--itrace=pb", "-F", "+flags"}, {"--itrace=i0ns"}, {},
			} {
				perfCompare(t, data, 1, append(inv, symfs)...)
			}
		})
	}
}
