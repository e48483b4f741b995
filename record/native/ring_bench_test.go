package native

import (
	"encoding/binary"
	"testing"
)

// BenchmarkReadRecords drains a 512 KiB data ring full of 48-byte records
// (the size of a cpu-clock sample without call chain).
func BenchmarkReadRecords(b *testing.B) {
	meta, data := ring(512 << 10)
	r := NewRing(meta, data, nil)
	var pos uint64
	payload := make([]byte, 40)
	for pos+48 <= uint64(len(data)) {
		pos = putRec(data, pos, 9, payload)
	}
	b.SetBytes(int64(pos))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		binary.LittleEndian.PutUint64(meta[pageDataTail:], 0)
		binary.LittleEndian.PutUint64(meta[pageDataHead:], pos)
		if _, err := r.ReadRecords(func([]byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuxSnapshot takes a snapshot of a wrapped 4 MiB AUX area
// (perf's default snapshot size), without copying it.
func BenchmarkAuxSnapshot(b *testing.B) {
	r, meta, aux := snapRing(4 << 20)
	writeAux(meta, aux, 0, 5<<20)
	b.SetBytes(int64(len(aux)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var s AuxSnapshot
		if n, _ := r.ReadAuxSnapshot(&s, 0, func([]byte, uint64) error { return nil }); n != uint64(len(aux)) {
			b.Fatal(n)
		}
	}
}
