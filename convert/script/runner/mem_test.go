package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// dataSrc builds a PERF_SAMPLE_DATA_SRC word (union perf_mem_data_src).
func dataSrc(op, lvl, snoop, lock, tlb, lvlNum, remote, snoopx, blk, hops uint64) uint64 {
	return op | lvl<<5 | snoop<<19 | lock<<24 | tlb<<26 | lvlNum<<33 | remote<<37 | snoopx<<38 | blk<<40 | hops<<43
}

// memRecording writes a recording of two memory events with perf's
// layouts: a raw PMU event with DATA_SRC, WEIGHT_STRUCT, ADDR, PHYS_ADDR
// and the page sizes (as cpu/mem-loads,ldlat=30/P records on Intel), and a
// hardware event with the plain WEIGHT; the data sources cover every
// decode, including ones longer than perf's 100-byte buffers.
func memRecording(t *testing.T) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "mem.data")
	w, err := perfdata.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	const common = perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime |
		perfdata.SampleFormatCPU | perfdata.SampleFormatPeriod | perfdata.SampleFormatAddr |
		perfdata.SampleFormatID | perfdata.SampleFormatDataSrc
	loads := perfdata.EventAttr{Type: perfdata.AttrType(4), Config: 0x1cd, SamplePeriod: 1000, Config1: 30,
		SampleType: common | perfdata.SampleFormatWeightStruct | perfdata.SampleFormatPhysAddr |
			perfdata.SampleFormatDataPageSize | perfdata.SampleFormatCodePageSize,
		Flags: perfdata.AttrFlagSampleIDAll | perfdata.AttrFlags(2)<<15} // precise_ip 2
	stores := perfdata.EventAttr{Type: perfdata.AttrTypeHardware, Config: 0, SamplePeriod: 2000,
		SampleType: common | perfdata.SampleFormatWeight, Flags: perfdata.AttrFlagSampleIDAll}
	if _, err := w.AddAttr(loads, []uint64{11}, "cpu/mem-loads,ldlat=30/P"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddAttr(stores, []uint64{12}, "cycles"); err != nil {
		t.Fatal(err)
	}
	srcs := []uint64{
		0,
		dataSrc(2, 8|2, 2, 0, 8|16|2, 0, 0, 0, 1, 0),        // a load hitting L1
		dataSrc(4, 0x3fff, 0x1f, 3, 0x7f, 0x0d, 1, 3, 6, 0), // everything at once: cut at 99 bytes
		dataSrc(2, 0, 4, 2, 4, 0x0b, 1, 2, 2, 3),            // hops instead of levels
		dataSrc(8, 0x40|4, 16, 1, 32, 5, 0, 1, 4, 0),        // L5 by number
		dataSrc(16, 1, 1, 0, 1, 0x0f, 0, 0, 0, 1),
		dataSrc(1, 0x80|2, 8, 0, 64|4, 0x09, 1, 0, 1, 4),
	}
	sizes := []uint64{0, 4096, 2 << 20, 1 << 30, 1024, 2048}
	for i, src := range srcs {
		for j, id := range []uint64{11, 12} {
			tm := uint64(1_000_000_000 + 1000*i + j)
			s := &perfdata.RecordSample{
				RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser,
					SampleID: perfdata.SampleID{PID: 100, TID: 100 + int32(j), Time: tm, CPU: uint32(i % 4), ID: id}},
				IP: 0x401000 + uint64(i), Addr: 0x7ffc0000 + uint64(64*i), Period: uint64(1000 * (i + 1)), DataSrc: src,
				Weight: uint64(37 * i), PhysAddr: 0x1234000 + uint64(i), DataPageSize: sizes[i%len(sizes)],
				CodePageSize: sizes[(i+2)%len(sizes)]}
			if id == 11 {
				// WEIGHT_STRUCT: weight, ins_lat, p_stage_cyc.
				s.Weight = uint64(100+i) | uint64(7*i)<<32 | uint64(3)<<48
			}
			if err := w.WriteRecord(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestMemFields compares the memory-access fields (data_src decoded as
// perf decodes it, weight, ins_lat, phys_addr, the page sizes) and perf's
// field checks with perf script on a synthesised recording.
func TestMemFields(t *testing.T) {
	need(t, "perf")
	data := memRecording(t)
	if d := os.Getenv("PERFPT_DUMP"); d != "" {
		exec.Command("cp", data, d).Run()
	}
	compare(t, data)
	compare(t, data, "-F", "raw:ip,addr,data_src,weight,ins_lat,phys_addr,data_page_size,code_page_size",
		"-F", "hw:ip,data_src,weight")
	compare(t, data, "-F", "+period,+event")
	compare(t, data, "-F", "raw:+ins_lat,+phys_addr,+data_page_size,+code_page_size,-sym,-symoff,-dso")
	compare(t, data, "-F", "tid,time,data_src,weight")
}
