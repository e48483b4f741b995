package native

import (
	"encoding/binary"
	"testing"
)

func FuzzParseEvent(f *testing.F) {
	for _, s := range []string{"intel_pt//u", "intel_pt/cyc,mtc_period=3/", "cpu-clock:u", "task-clock", "intel_pt/tsc=0x1/k", "/", "a/b"} {
		f.Add(s)
	}
	pmu, err := LoadPMU(testSysfs(), "intel_pt")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ev, err := ParseEvent(s)
		if err != nil {
			return
		}
		if ev.PMU != "" {
			IntelPTConfig(pmu, ev) // must not panic
		}
	})
}

func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"config:0", "config:14-17", "config1:0,5,8-9", "config:63", "config:9-3", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fld, err := parseFormat(s)
		if err != nil {
			return
		}
		w, err := fld.Put(0, 1)
		if err == nil && w&fld.Mask() == 0 {
			t.Errorf("%q: put 1 gave %#x", s, w)
		}
	})
}

// FuzzRing reads records from arbitrary ring contents and heads: never a
// panic, never past the head.
func FuzzRing(f *testing.F) {
	f.Add(make([]byte, 64), uint64(0), uint64(16))
	f.Add([]byte{9, 0, 0, 0, 0, 0, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8}, uint64(8), uint64(40))
	f.Fuzz(func(t *testing.T, data []byte, tail, head uint64) {
		if len(data) == 0 || len(data)&(len(data)-1) != 0 || len(data) > 1<<16 {
			return
		}
		meta := make([]byte, 4096)
		binary.LittleEndian.PutUint64(meta[pageDataTail:], tail)
		binary.LittleEndian.PutUint64(meta[pageDataHead:], head)
		binary.LittleEndian.PutUint64(meta[pageAuxTail:], tail)
		binary.LittleEndian.PutUint64(meta[pageAuxHead:], head)
		r := NewRing(meta, data, data)
		r.ReadRecords(func(rec []byte) error {
			if len(rec) < 8 {
				t.Fatalf("short record %d", len(rec))
			}
			return nil
		})
		if got := binary.LittleEndian.Uint64(meta[pageDataTail:]); head >= tail && got > head {
			t.Fatalf("tail %d past head %d", got, head)
		}
		r.ReadAux(func(d []byte, off uint64) error { return nil })
	})
}

// FuzzAuxSnapshot takes snapshots of arbitrary overwrite-mode areas and
// heads: never a panic, never more than the area, parts contiguous.
func FuzzAuxSnapshot(f *testing.F) {
	f.Add(make([]byte, 8192), uint64(100), uint64(9000), uint64(0))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint64(3), uint64(5), uint64(2))
	f.Fuzz(func(t *testing.T, aux []byte, h1, h2, limit uint64) {
		if len(aux) == 0 || len(aux) > 1<<16 {
			return
		}
		meta := make([]byte, 4096)
		r := NewRing(meta, make([]byte, 64), aux)
		var s AuxSnapshot
		for _, h := range []uint64{h1, h2} {
			binary.LittleEndian.PutUint64(meta[pageAuxHead:], h)
			next, total := uint64(1<<63), uint64(0)
			n, _ := r.ReadAuxSnapshot(&s, limit, func(d []byte, off uint64) error {
				if next != 1<<63 && off != next {
					t.Fatalf("part at %d, want %d", off, next)
				}
				next, total = off+uint64(len(d)), total+uint64(len(d))
				return nil
			})
			if n != total || n > uint64(len(aux)) || limit > 0 && n > limit {
				t.Fatalf("n=%d total=%d size=%d limit=%d", n, total, len(aux), limit)
			}
		}
	})
}
