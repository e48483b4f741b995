package runner

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// TestEventNames compares the names perf gives events that the recording
// does not name (evsel__name: hardware and software events with their
// modifiers, hardware cache events, raw and breakpoint events, unknown
// types) with perf script's, on a recording written with perfdata.
func TestEventNames(t *testing.T) {
	need(t, "perf")
	const (
		exKernel = perfdata.AttrFlagExcludeKernel
		exHV     = perfdata.AttrFlagExcludeHV
		exUser   = perfdata.AttrFlagExcludeUser
		exGuest  = perfdata.AttrFlagExcludeGuest
		exHost   = perfdata.AttrFlagExcludeHost
	)
	precise := func(n int) perfdata.AttrFlags { return perfdata.AttrFlags(n) << 15 }
	attrs := []perfdata.EventAttr{
		{Type: 0, Config: 0, Flags: precise(2)},                    // cycles:pp
		{Type: 0, Config: 1, Flags: exKernel | exHV},               // instructions:u
		{Type: 0, Config: 5, Flags: exUser | precise(3) | exGuest}, // branch-misses:kppp... with guest
		{Type: 0, Config: 42},                                      // unknown-hardware
		{Type: 1, Config: 0, Flags: exHost},                        // cpu-clock with H/G rules
		{Type: 1, Config: 10},                                      // bpf-output: unknown-software in 6.1
		{Type: 1, Config: 11, Flags: exKernel},
		{Type: 3, Config: 0 | 0<<8 | 1<<16},                             // L1-dcache-load-misses
		{Type: 3, Config: 2 | 1<<8},                                     // LLC-stores
		{Type: 3, Config: 1 | 1<<8},                                     // invalid-cache
		{Type: 3, Config: 9},                                            // unknown type
		{Type: 3, Config: 4 | 2<<8 | 1<<16, Flags: exKernel | exHV},     // iTLB prefetch: invalid
		{Type: 4, Config: 0x1cd, Flags: precise(1)},                     // raw 0x1cd:p
		{Type: 5, Config1: 0x601040, BPType: 3, Flags: exKernel | exHV}, // mem:0x601040:rw:u
		{Type: 5, Config1: 0xffff, BPType: 4},
		{Type: 9},
	}
	// An EVENT_DESC without events: perf names the events itself.
	compare(t, writeUnnamed(t, "names.data", attrs, false), "-F", "tid,time,event,ip")
	// An empty name in EVENT_DESC is a name: perf prints "".
	compare(t, writeUnnamed(t, "empty-names.data", attrs[:3], true), "-F", "tid,time,event,ip")
}

// writeUnnamed writes a recording of one sample of each of attrs, with
// an empty EVENT_DESC (perf names the events) or one that names them "".
func writeUnnamed(t *testing.T, name string, attrs []perfdata.EventAttr, emptyNames bool) string {
	t.Helper()
	const st = perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime |
		perfdata.SampleFormatID | perfdata.SampleFormatPeriod
	data := filepath.Join(t.TempDir(), name)
	w, err := perfdata.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	if !emptyNames {
		w.Features.Set(perfdata.FeatEventDesc)
	}
	for i, a := range attrs {
		a.SampleType, a.SamplePeriod = st, 1000
		a.Flags |= perfdata.AttrFlagSampleIDAll
		if _, err := w.AddAttr(a, []uint64{uint64(100 + i)}, ""); err != nil {
			t.Fatal(err)
		}
	}
	for i := range attrs {
		s := &perfdata.RecordSample{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser,
			SampleID: perfdata.SampleID{PID: 7, TID: 7, Time: uint64(1e9 + i), ID: uint64(100 + i)}},
			IP: 0x400000, Period: 1000}
		if err := w.WriteRecord(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCheckAttrAuxtraceListed: perf script lets -F +addr through for
// events without PERF_SAMPLE_ADDR when the header lists an AUXTRACE
// section (perf_header__has_feat), even one it fails to read: simpleperf's
// CoreSight recordings index their AUX data their own way ("Failed to
// process auxtrace index"), and perf prints their samples all the same.
func TestCheckAttrAuxtraceListed(t *testing.T) {
	for _, damaged := range []bool{false, true} {
		data := filepath.Join(t.TempDir(), "aux.data")
		w, err := perfdata.Create(data)
		if err != nil {
			t.Fatal(err)
		}
		w.Features.Set(perfdata.FeatAuxtrace)
		w.Features.AuxtraceIndex = []perfdata.AuxtraceIndexEntry{{Offset: 0x1000, Size: 0x30}}
		a := perfdata.EventAttr{Type: 8, SampleType: perfdata.SampleFormatIP | perfdata.SampleFormatTID |
			perfdata.SampleFormatTime | perfdata.SampleFormatID, SamplePeriod: 1, Flags: perfdata.AttrFlagSampleIDAll}
		if _, err := w.AddAttr(a, []uint64{100}, "cs_etm//u"); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRecord(&perfdata.RecordSample{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser,
			SampleID: perfdata.SampleID{PID: 7, TID: 7, Time: 1e9, ID: 100}}, IP: 0x400000}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if damaged {
			// The index's entry count, past what the section holds.
			f, err := perfdata.Open(data)
			if err != nil {
				t.Fatal(err)
			}
			off := f.FeatureSections[perfdata.FeatAuxtrace].Offset
			f.Close()
			b, err := os.ReadFile(data)
			if err != nil {
				t.Fatal(err)
			}
			binary.LittleEndian.PutUint64(b[off:], 0x26a8)
			if err := os.WriteFile(data, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var out, errb bytes.Buffer
		if err := Run(Config{Input: data, Fields: []string{"+addr"}}, &out, &errb); err != nil {
			t.Errorf("damaged index %v: %v, want the sample printed", damaged, err)
		} else if !bytes.Contains(out.Bytes(), []byte("cs_etm//u")) {
			t.Errorf("damaged index %v: printed %q, want the sample", damaged, out.String())
		}
	}
}
