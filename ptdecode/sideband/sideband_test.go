package sideband

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// rec builds a raw perf_event record: header, body, then the samples
// (TID, TIME) as the test's sample type 0x6 says.
func rec(typ uint32, misc uint16, body []byte, pid, tid uint32, time uint64) []byte {
	b := make([]byte, 8, 64)
	b = append(b, body...)
	b = binary.LittleEndian.AppendUint32(b, pid)
	b = binary.LittleEndian.AppendUint32(b, tid)
	b = binary.LittleEndian.AppendUint64(b, time)
	binary.LittleEndian.PutUint32(b, typ)
	binary.LittleEndian.PutUint16(b[4:], misc)
	binary.LittleEndian.PutUint16(b[6:], uint16(len(b)))
	return b
}

func mmapBody(addr, length, pgoff uint64, name string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 1)
	b = binary.LittleEndian.AppendUint32(b, 2)
	b = binary.LittleEndian.AppendUint64(b, addr)
	b = binary.LittleEndian.AppendUint64(b, length)
	b = binary.LittleEndian.AppendUint64(b, pgoff)
	b = append(b, name...)
	b = append(b, 0)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

var testConfig = PeventConfig{SampleType: SampleTID | SampleTime, TimeMult: 1}

func TestReadRecord(t *testing.T) {
	buf := append(rec(RecordMmap, 0, mmapBody(0x1000, 0x200, 0, "a.out"), 1, 2, 5),
		rec(RecordSwitch, MiscSwitchOut, nil, 1, 2, 7)...)
	var r Record
	n, err := testConfig.ReadRecord(&r, buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Type != RecordMmap || r.Filename != "a.out" || r.Addr != 0x1000 || r.Len != 0x200 ||
		r.Sample.PID != 1 || r.Sample.TID != 2 || r.Sample.Time != 5 || r.Sample.TSC != 5 {
		t.Errorf("mmap record: %+v", r)
	}
	if _, err := testConfig.ReadRecord(&r, buf, n); err != nil || r.Type != RecordSwitch || r.Misc != MiscSwitchOut {
		t.Errorf("switch record: %+v, %v", r, err)
	}
	// A record cut short is the end; a wrong size is out of sync.
	if _, err := testConfig.ReadRecord(&r, buf[:n-1], 0); !errors.Is(err, ErrEOS) {
		t.Errorf("short record: %v", err)
	}
	bad := append([]byte(nil), buf[:n]...)
	binary.LittleEndian.PutUint16(bad[6:], uint16(n-8))
	if _, err := testConfig.ReadRecord(&r, bad, 0); !errors.Is(err, ErrNoSync) {
		t.Errorf("bad size: %v", err)
	}
	if _, err := (&PeventConfig{SampleType: SampleTime}).ReadRecord(&r, buf, 0); err == nil {
		t.Error("wrong sample type accepted")
	}
}

func TestTimeConversion(t *testing.T) {
	c := PeventConfig{TimeZero: 100, TimeShift: 10, TimeMult: 3}
	for _, tsc := range []uint64{0, 1, 1000, 1 << 40} {
		time, err := c.TSCToTime(tsc)
		if err != nil {
			t.Fatal(err)
		}
		back, _ := c.TimeToTSC(time)
		if tsc != 0 && (back > tsc || tsc-back > 1<<10/3+1) {
			t.Errorf("tsc %d -> time %d -> tsc %d", tsc, time, back)
		}
	}
	if _, err := (&PeventConfig{}).TimeToTSC(5); !errors.Is(err, ErrBadConfig) {
		t.Errorf("time_mult 0: %v", err)
	}
}

// TestSessionOrder merges two files by time and prints up to a TSC; like
// libipt, Init fetches the file added last first and puts each file before
// those with an equal time.
func TestSessionOrder(t *testing.T) {
	a := append(rec(RecordItraceStart, 0, []byte{1, 0, 0, 0, 1, 0, 0, 0}, 1, 1, 1),
		rec(RecordSwitch, 0, nil, 1, 1, 4)...)
	b := rec(RecordSwitch, MiscSwitchOut, nil, 2, 2, 1)
	s := NewSession()
	s.AddDecoder(NewPevent(PeventConfig{Filename: "a", SampleType: 6, TimeMult: 1}, a))
	s.AddDecoder(NewPevent(PeventConfig{Filename: "b", SampleType: 6, TimeMult: 1}, b))
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	s.Init(w)
	s.SetDumpFlags(DumpCompact | DumpFilename)
	_ = s.Dump(w, 2)
	w.Flush()
	// b is fetched first (added last), then a is put before it.
	want := "a  PERF_RECORD_ITRACE_START  1/1  { 1/1 1 }\n" +
		"b  PERF_RECORD_SWITCH.OUT  { 2/2 1 }\n"
	if out.String() != want {
		t.Errorf("dump to 2:\n%s\nwant:\n%s", out.String(), want)
	}
	out.Reset()
	_ = s.Dump(w, ^uint64(0))
	w.Flush()
	if got := out.String(); !strings.HasPrefix(got, "a  PERF_RECORD_SWITCH.IN") || strings.Count(got, "\n") != 1 {
		t.Errorf("rest: %q", got)
	}
}

// FuzzReadRecord reads arbitrary bytes as sideband records with a few
// sample types: no panic, and every record read has a sane size.
func FuzzReadRecord(f *testing.F) {
	f.Add(rec(RecordMmap, 0, mmapBody(0x1000, 0x200, 0, "a.out"), 1, 2, 5), uint64(6))
	f.Add(rec(RecordComm, MiscCommExec, []byte("\x01\x00\x00\x00\x01\x00\x00\x00ls\x00\x00\x00\x00\x00\x00"), 1, 1, 9), uint64(6))
	f.Add(rec(RecordLost, 0, make([]byte, 16), 1, 1, 9), uint64(0x102c6))
	f.Fuzz(func(t *testing.T, data []byte, st uint64) {
		c := PeventConfig{SampleType: st, TimeMult: 1, SampleConfig: []SampleType{{ID: 1, Type: st | SampleIdentifier}}}
		var r Record
		for off := 0; off < len(data); {
			n, err := c.ReadRecord(&r, data, off)
			if err != nil {
				return
			}
			if n < 8 || off+n > len(data) || int(r.Size) != n {
				t.Fatalf("record at %d: size %d of %d", off, n, len(data))
			}
			p := NewPevent(c, data[off:off+n])
			if _, err := p.Fetch(); err != nil {
				t.Fatalf("Fetch of a record ReadRecord accepted: %v", err)
			}
			_ = AppendRecord(nil, p, DumpCompact|DumpVerbose|DumpOffset|DumpTime|DumpFilename)
			off += n
		}
	})
}
