package perfpkt

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/linediff"
	"github.com/perfpt/perfpt/perfdata"
)

// everyKind is an Intel PT stream with a packet of every kind perf's
// decoder knows, each IP compression, the block items after a BBP of
// either size, zero bytes folded into the packet before them, bytes that
// start no packet, and a packet cut short by the end of the buffer.
func everyKind() []byte {
	var b []byte
	add := func(p ...byte) { b = append(b, p...) }
	add(0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82) // PSB
	add(0x19, 0x10, 0x32, 0x54, 0x76, 0x98, 0x00, 0x00)                                                 // TSC
	add(0x02, 0x73, 0x34, 0x12, 0x00, 0x56, 0x01)                                                       // TMA
	add(0x02, 0x03, 0x1c, 0x00)                                                                         // CBR
	add(0x02, 0x23)                                                                                     // PSBEND
	add(0x99, 0x01, 0x99, 0x00, 0x99, 0x02, 0x99, 0x05, 0x99, 0x03)                                     // MODE.Exec 64, 16, 32, IF, bad
	add(0x99, 0x20, 0x99, 0x21, 0x99, 0x22, 0x99, 0x23, 0x99, 0x40)                                     // MODE.TSX, bad
	add(0x0d, 0x2d, 0x34, 0x12, 0x4d, 0x78, 0x56, 0x34, 0x12)                                           // TIP no ip, 2 and 4 bytes
	add(0x6d, 1, 2, 3, 4, 5, 6, 0x8d, 1, 2, 3, 4, 5, 0xff, 0xcd, 1, 2, 3, 4, 5, 6, 7, 0x80)             // 6, 6 (sext), 8 bytes
	add(0xad, 0x11, 0x31, 0x40, 0x12, 0x01, 0x21, 0x40, 0x12, 0x1d, 0x3d, 0x00, 0x10)                   // bad IPBytes, PGE, PGD, FUP
	add(0x06, 0x0a, 0x7e, 0xfe, 0x80)                                                                   // short TNTs
	add(0x02, 0xa3, 0xff, 0x00, 0x00, 0x00, 0x80, 0x01)                                                 // long TNT
	add(0x02, 0xa3, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00)                                                 // long TNT without stop bit
	add(0x03, 0x07, 0x04, 0x0f, 0xff, 0xff, 0x02)                                                       // CYC
	add(0x59, 0x42)                                                                                     // MTC
	add(0x02, 0x43, 0x01, 0x20, 0x30, 0x40, 0x00, 0x00)                                                 // PIP (NR=1)
	add(0x02, 0xc8, 0x01, 0x02, 0x03, 0x04, 0x05)                                                       // VMCS
	add(0x02, 0xf3, 0x02, 0x83)                                                                         // OVF, TraceSTOP
	add(0x02, 0xc3, 0x88, 1, 2, 3, 4, 5, 6, 7, 8, 0x02, 0xc3, 0x00)                                     // MNT, bad 3-byte header
	add(0x02, 0x12, 1, 2, 3, 4, 0x02, 0x32, 1, 2, 3, 4, 5, 6, 7, 8, 0x02, 0xb2, 1, 2, 3, 4, 5, 6, 7, 8) // PTWRITEs
	add(0x02, 0x52, 0x02, 0x62, 0x02, 0xe2)                                                             // bad PTWRITE, EXSTOPs
	add(0x02, 0xc2, 0x03, 0, 0, 0, 0x02, 0, 0, 0)                                                       // MWAIT
	add(0x02, 0x22, 0x81, 0x21, 0x02, 0xa2, 0x21, 0x03, 0, 0, 0)                                        // PWRE, PWRX
	add(0x02, 0x63, 0x81, 0x0c, 1, 2, 3, 4, 0x14, 5, 6, 7, 8, 0x02, 0x33)                               // BBP 4-byte, BIPs, BEP
	add(0x02, 0x63, 0x02, 0x1c, 1, 2, 3, 4, 5, 6, 7, 8, 0x02, 0xb3)                                     // BBP 8-byte, BIP, BEP.IP
	add(0x0c, 0x02, 0x13, 0x05, 0x20, 0x02, 0x13, 0x81, 0x0e)                                           // no BIP outside a block, CFEs
	add(0x02, 0x53, 0x01, 1, 2, 3, 4, 5, 6, 7, 8)                                                       // EVD
	add(0x06, 0, 0, 0, 0, 0, 0, 0, 0, 0)                                                                // zeros folded up to 8 bytes
	add(0x39, 0x02, 0xff, 0x02, 0x82, 0x02, 0x82, 0x00, 0x00, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82)
	for len(b)%8 != 3 {
		add(0x06)
	}
	add(0x19, 0x01, 0x02, 0x0d, 0x2d) // cut short
	return b
}

// writeTrace writes a perf.data file with an Intel PT AUXTRACE_INFO
// record and one AUXTRACE buffer holding trace.
func writeTrace(t *testing.T, path string, trace []byte) {
	t.Helper()
	w, err := perfdata.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	st := perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime | perfdata.SampleFormatIdentifier
	pt := perfdata.EventAttr{Type: 8, Config: 1 | 1<<13, SampleType: st, SamplePeriod: 1,
		Flags: perfdata.AttrFlagSampleIDAll | perfdata.AttrFlagExcludeKernel}
	if _, err := w.AddAttr(pt, []uint64{1}, "intel_pt//u"); err != nil {
		t.Fatal(err)
	}
	info := perfdata.IntelPTInfo{PMUType: 8, TimeMult: 1, CapUserTimeZero: 1, TSCBit: 1 << 10, NoRetCompBit: 1 << 11}
	for _, r := range []perfdata.Record{
		&perfdata.RecordAuxtraceInfo{AuxType: perfdata.AuxtraceIntelPT, Priv: info.Priv()},
		&perfdata.RecordAuxtrace{Reference: 1, TID: 1, CPU: -1, Data: trace},
	} {
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestDumpMatchesPerf compares AppendDump with the Intel PT data perf
// report -D prints for a buffer of every packet kind.
func TestDumpMatchesPerf(t *testing.T) {
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not installed: cannot compare with perf report -D")
	}
	trace := everyKind()
	path := filepath.Join(t.TempDir(), "pt.data")
	writeTrace(t, path, trace)
	out, err := exec.Command(perf, "report", "-D", "-i", path).Output()
	if err != nil {
		t.Fatalf("perf report -D: %v", err)
	}
	s := string(out)
	i := strings.Index(s, ".\n. ... Intel Processor Trace data")
	if i < 0 {
		t.Fatalf("no Intel PT data in perf's dump:\n%s", s)
	}
	j := strings.Index(s[i:], "\n\n")
	want := s[i : i+j+1]
	got := string(AppendDump(nil, trace))
	t.Logf("%d lines compared", strings.Count(want, "\n"))
	if d := linediff.Compare(got, want); d.N != 0 {
		t.Errorf("%d of %d lines differ from perf; %s", d.N, d.Lines, d.String("perfpt", "perf"))
	}
}

// FuzzAppendDump checks that any buffer dumps without a panic, each byte
// on exactly one line.
func FuzzAppendDump(f *testing.F) {
	f.Add(everyKind())
	if b, err := os.ReadFile("../../testdata/pt/all-kinds.pt"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out := AppendDump(nil, data)
		n := 0
		for _, line := range bytes.Split(out, []byte("\n"))[2:] {
			if len(line) == 0 {
				continue
			}
			// ".  %08x: " then " %02x" a byte, the padding and the text.
			n += len(bytes.Fields(line[13:min(len(line), 13+16*3)]))
		}
		if n != len(data) {
			t.Fatalf("%d bytes dumped, want %d", n, len(data))
		}
	})
}
