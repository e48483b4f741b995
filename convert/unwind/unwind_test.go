package unwind

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// testdir holds recordings made with perf record --call-graph dwarf of
// programs built there (see its README); the recordings name the programs
// by their paths at recording time, which testSpace maps to the copies
// in testdir by base name.
const testdir = "../../testdata/unwind"

type testMap struct {
	start, end, pgoff uint64
	name              string
}

// testSpace is a thread's maps as MMAP2 records give them, with the files
// read from testdir (others are unreadable, as a missing binary is).
type testSpace struct {
	maps  []testMap
	cache *Cache
	files map[string][]byte
}

func (s *testSpace) find(a uint64) *testMap {
	for i := len(s.maps) - 1; i >= 0; i-- {
		if m := &s.maps[i]; a >= m.start && a < m.end {
			return m
		}
	}
	return nil
}

func (s *testSpace) file(name string) []byte {
	b, ok := s.files[name]
	if !ok {
		if !strings.HasPrefix(name, "[") {
			b, _ = os.ReadFile(filepath.Join(testdir, filepath.Base(name)))
		}
		s.files[name] = b
	}
	return b
}

func (s *testSpace) Module(pc uint64) (*Table, uint64, bool) {
	m := s.find(pc)
	if m == nil {
		return nil, 0, false
	}
	b := s.file(m.name)
	if b == nil {
		return nil, 0, true
	}
	t := s.cache.Get(m.name, func() *Table {
		t, err := Load(m.name, bytes.NewReader(b))
		if err != nil {
			return nil
		}
		return t
	})
	if t == nil {
		return nil, 0, true
	}
	base := ^uint64(0)
	for _, o := range s.maps {
		if o.name == m.name && o.start < base {
			base = o.start - o.pgoff
		}
	}
	return t, base - t.LoadBase, true
}

func (s *testSpace) ReadMapped(a uint64) (uint64, int) {
	m := s.find(a)
	if m == nil {
		return 0, -1
	}
	b := s.file(m.name)
	off := a - m.start + m.pgoff
	if off+8 < off || off+8 > uint64(len(b)) {
		return 0, 1
	}
	return binary.LittleEndian.Uint64(b[off:]), 0
}

type testSample struct {
	space *testSpace
	regs  Regs
	stack Stack
}

// readSamples reads a recording's samples with their address spaces.
func readSamples(tb testing.TB, name string) []testSample {
	f, err := perfdata.Open(filepath.Join(testdir, name))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	cache := &Cache{}
	spaces := map[int32]*testSpace{}
	get := func(pid int32) *testSpace {
		s := spaces[pid]
		if s == nil {
			s = &testSpace{cache: cache, files: map[string][]byte{}}
			spaces[pid] = s
		}
		return s
	}
	var out []testSample
	rs := f.Records(perfdata.TimeOrder)
	for rs.Next() {
		switch r := rs.Record.(type) {
		case *perfdata.RecordMmap2:
			s := get(r.PID)
			s.maps = append(s.maps, testMap{r.Addr, r.Addr + r.Len, r.PgOff, r.Filename})
		case *perfdata.RecordSample:
			ts := testSample{space: get(r.PID)}
			ts.regs.FromPerf(r.Attr.SampleRegsUser, r.RegsUser)
			ts.stack = Stack{Data: append([]byte(nil), r.StackUser...), DynSize: r.StackUserDynSize}
			// A later MMAP2 must not change an earlier sample's maps.
			sp := *ts.space
			sp.maps = append([]testMap(nil), sp.maps...)
			ts.space = &sp
			out = append(out, ts)
		}
	}
	if err := rs.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestStaticMatchesPerf unwinds a static binary's samples and compares
// the map-relative addresses with perf script --no-inline -F ip's (the
// kernel frames left out).
func TestStaticMatchesPerf(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(testdir, "cwork-static.chains"))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	var u Unwinder
	var ips []uint64
	for _, s := range readSamples(t, "cwork-static.data") {
		ips, _, _ = u.Unwind(&s.regs, s.stack, s.space, 127, ips[:0])
		got.WriteString("\n")
		for _, ip := range ips {
			m := s.space.find(ip)
			fmt.Fprintf(&got, "\t%16x\n", ip-m.start+m.pgoff)
		}
		got.WriteString("\n")
	}
	if !bytes.Equal(got.Bytes(), want) {
		diffLines(t, want, got.Bytes())
	}
}

func diffLines(t *testing.T, want, got []byte) {
	t.Helper()
	w := bufio.NewScanner(bytes.NewReader(want))
	g := bufio.NewScanner(bytes.NewReader(got))
	for n := 1; ; n++ {
		wok, gok := w.Scan(), g.Scan()
		if !wok && !gok {
			return
		}
		if w.Text() != g.Text() || wok != gok {
			t.Fatalf("line %d: want %q, got %q", n, w.Text(), g.Text())
		}
	}
}

// BenchmarkUnwind unwinds every sample of the static recording; steady
// state allocates nothing.
func BenchmarkUnwind(b *testing.B) {
	samples := readSamples(b, "cwork-static.data")
	var u Unwinder
	ips := make([]uint64, 0, 128)
	for _, s := range samples { // warm the table cache
		ips, _, _ = u.Unwind(&s.regs, s.stack, s.space, 127, ips[:0])
	}
	b.ReportAllocs()
	b.ResetTimer()
	frames := 0
	for i := 0; i < b.N; i++ {
		s := &samples[i%len(samples)]
		ips, _, _ = u.Unwind(&s.regs, s.stack, s.space, 127, ips[:0])
		frames += len(ips)
	}
	b.ReportMetric(float64(frames)/float64(b.N), "frames/op")
}
