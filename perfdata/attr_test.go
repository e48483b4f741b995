package perfdata

import (
	"encoding/binary"
	"os"
	"testing"
)

// TestAttrSizes re-encodes the attrs of a recording with every
// perf_event_attr size perf has used (VER0 64 bytes, with size 0 meaning
// VER0, up to VER8 136) and checks that the fields they hold are read and
// the others are zero.
func TestAttrSizes(t *testing.T) {
	orig, err := os.ReadFile("../testdata/perf/multi.data")
	if err != nil {
		t.Fatal(err)
	}
	f0, err := NewBytes(orig)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	idsOff := le.Uint64(orig[24:]) // the old attrs: reuse their ids sections
	for _, size := range []int{0, 64, 72, 80, 96, 104, 112, 120, 128, 136} {
		stored := size
		if stored == 0 {
			stored = 64
		}
		b := append([]byte(nil), orig...)
		off := len(b)
		for i, a := range f0.Attrs {
			full := appendAttr(nil, &a.EventAttr)
			full = append(full, make([]byte, 8)...) // config3 = 0
			le.PutUint32(full[4:], uint32(size))
			b = append(b, full[:stored]...)
			old := idsOff + uint64(i)*(AttrSize+16) + AttrSize
			b = append(b, orig[old:old+16]...)
		}
		le.PutUint64(b[16:], uint64(stored+16))
		le.PutUint64(b[24:], uint64(off))
		le.PutUint64(b[32:], uint64(len(f0.Attrs)*(stored+16)))
		f, err := NewBytes(b)
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		for i, a := range f.Attrs {
			w := f0.Attrs[i].EventAttr
			w.Size = uint32(size)
			if stored < 72 {
				w.BranchSampleType = 0
			}
			if stored < 80 {
				w.SampleRegsUser, w.SampleStackUser, w.ClockID = 0, 0, 0
			}
			if stored < 96 {
				w.SampleRegsIntr = 0
			}
			if stored < 104 {
				w.AuxWatermark, w.SampleMaxStack = 0, 0
			}
			if a.EventAttr != w || len(a.IDs) != len(f0.Attrs[i].IDs) {
				t.Errorf("size %d attr %d:\n got %+v\nwant %+v", size, i, a.EventAttr, w)
			}
		}
		rs := f.Records(TimeOrder)
		n := 0
		for rs.Next() {
			n++
		}
		if err := rs.Err(); err != nil || n == 0 {
			t.Errorf("size %d: %d records, %v", size, n, err)
		}
	}
}
