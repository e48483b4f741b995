//go:build linux

package perfdata

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"unsafe"
)

// residentPages counts the pages of b (a mapping) present in this
// process's page table, from /proc/self/pagemap (bit 63 of each entry).
func residentPages(t *testing.T, b []byte) int {
	t.Helper()
	pm, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("no pagemap: %v", err)
	}
	defer pm.Close()
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(&b[0])) / page
	n := (uintptr(len(b)) + page - 1) / page
	ents := make([]byte, 8*n)
	if _, err := pm.ReadAt(ents, int64(start*8)); err != nil {
		t.Skipf("pagemap: %v", err)
	}
	present := 0
	for i := uintptr(0); i < n; i++ {
		if binary.LittleEndian.Uint64(ents[8*i:])>>63 != 0 {
			present++
		}
	}
	return present
}

// TestRecordsDropPages: a pass over a mapped file, in file or time order,
// leaves few of its pages resident (the RSS of a decode must not grow
// with the file), and the data of records read earlier stays readable.
func TestRecordsDropPages(t *testing.T) {
	const nbuf, bufSize = 256, 64 << 10 // 16 MiB of AUXTRACE data
	path := filepath.Join(t.TempDir(), "big.data")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	st := SampleFormatTID | SampleFormatTime | SampleFormatIdentifier
	for id := uint64(1); id <= 2; id++ {
		a := EventAttr{Type: AttrTypeSoftware, Config: SWDummy, SampleType: st, SamplePeriod: 1, Flags: AttrFlagSampleIDAll}
		if _, err := w.AddAttr(a, []uint64{id}, "dummy:u"); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteRecord(&RecordAuxtraceInfo{AuxType: AuxtraceIntelPT, Priv: make([]uint64, 10)}); err != nil {
		t.Fatal(err)
	}
	data := make([]byte, bufSize)
	for i := range nbuf {
		for j := range data {
			data[j] = byte(i + j)
		}
		c := RecordCommon{SampleID: SampleID{PID: 1, TID: 1, Time: uint64(1000 + i), ID: 1}}
		recs := []Record{
			&RecordAux{RecordCommon: c, AuxOffset: uint64(i * bufSize), AuxSize: bufSize},
			&RecordAuxtrace{AuxOffset: uint64(i * bufSize), Idx: 0, TID: 1, CPU: -1, Data: data},
			&RecordFinishedRound{},
		}
		for _, r := range recs {
			if err := w.WriteRecord(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, order := range []Order{FileOrder, TimeOrder} {
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if !f.mapped {
			f.Close()
			t.Skip("the file is not mapped")
		}
		var kept [][]byte
		aux, n := 0, 0
		rs := f.Records(order)
		for rs.Next() {
			n++
			if r, ok := rs.Record.(*RecordAuxtrace); ok {
				aux++
				kept = append(kept, r.Data)
			}
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		if aux != nbuf {
			t.Fatalf("order %v: %d AUXTRACE records, want %d", order, aux, nbuf)
		}
		if got, limit := residentPages(t, f.mem), 2*dropStep/os.Getpagesize(); got > limit {
			t.Errorf("order %v: %d pages of the file resident after the pass, want at most %d", order, got, limit)
		}
		for i := range kept {
			for j := range data {
				data[j] = byte(i + j)
			}
			if !bytes.Equal(kept[i], data) {
				t.Fatalf("order %v: the data of AUXTRACE record %d changed after its pages were dropped", order, i)
			}
		}
		f.Close()
	}
}

// TestRecordsKeptBytes: byte slices of records read in time order from a
// mapped file (here MMAP2 build ids) stay intact after later records,
// although the queue copies the records into reused buffers.
func TestRecordsKeptBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ids.data")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	st := SampleFormatTID | SampleFormatTime | SampleFormatIdentifier
	a := EventAttr{Type: AttrTypeSoftware, Config: SWDummy, SampleType: st, SamplePeriod: 1,
		Flags: AttrFlagSampleIDAll | AttrFlagMmap2}
	if _, err := w.AddAttr(a, []uint64{1}, "dummy:u"); err != nil {
		t.Fatal(err)
	}
	const n = 50
	id := func(i int) []byte { return bytes.Repeat([]byte{byte(i + 1)}, 20) }
	for i := range n {
		c := RecordCommon{Misc: MiscUser | MiscMmapBuildID, SampleID: SampleID{PID: 1, TID: 1, Time: uint64(1000 + i), ID: 1}}
		r := &RecordMmap2{RecordCommon: c, PID: 1, TID: 1, Addr: 0x1000, Len: 0x1000, BuildID: id(i), Filename: "/bin/x"}
		if err := w.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
		if i%5 == 4 {
			if err := w.WriteRecord(&RecordFinishedRound{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ids [][]byte
	for rs := f.Records(TimeOrder); rs.Next(); {
		if r, ok := rs.Record.(*RecordMmap2); ok {
			ids = append(ids, r.BuildID)
		}
	}
	if len(ids) != n {
		t.Fatalf("%d MMAP2 records, want %d", len(ids), n)
	}
	for i, b := range ids {
		if !bytes.Equal(b, id(i)) {
			t.Fatalf("build id %d is %x after the pass, want %x", i, b, id(i))
		}
	}
}
