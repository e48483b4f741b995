package perfdata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// readEverything opens b and reads all it can, returning the first error.
func readEverything(b []byte, order Order) error {
	f, err := NewBytes(b)
	if err != nil {
		return err
	}
	rs := f.Records(order)
	for rs.Next() {
		_ = rs.Record.Common()
	}
	if err := rs.Err(); err != nil {
		return err
	}
	fs, err := f.Features()
	if err == nil && fs.LostErr != nil {
		// A damaged feature section is skipped, as perf skips it, and
		// reported in LostErr.
		err = fs.LostErr
	}
	return err
}

// recordEnds lists the offsets where a pipe-mode file may end cleanly:
// after each record of the stream (COMPRESSED records included).
func recordEnds(t *testing.T, b []byte) map[int]bool {
	ends := map[int]bool{pipeHeaderSize: true}
	for off := pipeHeaderSize; off+8 <= len(b); {
		size := int(binary.LittleEndian.Uint16(b[off+6:]))
		typ := RecordType(binary.LittleEndian.Uint32(b[off:]))
		if size < 8 {
			t.Fatalf("bad record at %d", off)
		}
		next := off + size
		if typ == RecordTypeAuxtrace {
			next += int(binary.LittleEndian.Uint64(b[off+8:]))
		}
		off = next
		ends[off] = true
	}
	return ends
}

// TestTruncated cuts fixtures at every byte: each cut must give an error
// (a pipe-mode stream may also end cleanly at a record boundary), never a
// panic.
func TestTruncated(t *testing.T) {
	for _, name := range []string{"pipe.data", "pipe-z.data", "compressed.data", "switch.data", "multi.data"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("../testdata/perf", name))
			if err != nil {
				t.Fatal(err)
			}
			pipe := binary.LittleEndian.Uint64(b[8:]) == pipeHeaderSize
			var ends map[int]bool
			if pipe {
				ends = recordEnds(t, b)
			}
			step := 1
			if testing.Short() {
				step = 7
			}
			for n := 0; n < len(b); n += step {
				err := readEverything(b[:n], FileOrder)
				if err == nil && !(pipe && ends[n]) {
					t.Fatalf("cut at %d of %d: no error", n, len(b))
				}
				if err != nil {
					var pe *Error
					if !errors.As(err, &pe) {
						t.Fatalf("cut at %d: error %v is not a *perfdata.Error", n, err)
					}
				}
			}
			if err := readEverything(b, TimeOrder); err != nil {
				t.Fatalf("whole file: %v", err)
			}
		})
	}
}

// TestTruncatedStream reads cut files through New(io.ReaderAt) (the
// buffered, non-mmap path).
func TestTruncatedStream(t *testing.T) {
	b, err := os.ReadFile("../testdata/perf/switch.data")
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n += 3 {
		f, err := New(bytes.NewReader(b[:n]))
		if err == nil {
			rs := f.Records(TimeOrder)
			for rs.Next() {
			}
			err = rs.Err()
		}
		if err == nil {
			// Cut in the feature sections: they are lost, the records not.
			fs, _ := f.Features()
			err = fs.LostErr
		}
		if err == nil {
			t.Fatalf("cut at %d: no error", n)
		}
	}
}

func putHeader(b []byte, typ RecordType, size int) {
	binary.LittleEndian.PutUint32(b, uint32(typ))
	binary.LittleEndian.PutUint16(b[6:], uint16(size))
}

func TestBadInput(t *testing.T) {
	good, err := os.ReadFile("../testdata/perf/switch.data")
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewBytes(good)
	if err != nil {
		t.Fatal(err)
	}
	data := f.Data.Offset
	mod := func(fn func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		fn(b)
		return b
	}
	tests := []struct {
		name   string
		b      []byte
		want   error
		offset int64
	}{
		{"empty", nil, ErrTruncated, 0},
		{"bad magic", mod(func(b []byte) { copy(b, "NOTPERF!") }), ErrBadMagic, 0},
		{"big endian", mod(func(b []byte) { binary.BigEndian.PutUint64(b, Magic) }), ErrBigEndian, 0},
		{"header size", mod(func(b []byte) { b[8] = 100 }), ErrBadSize, 8},
		{"data offset", mod(func(b []byte) { binary.LittleEndian.PutUint64(b[40:], 1<<63) }), ErrBadSize, 40},
		{"attr size", mod(func(b []byte) { binary.LittleEndian.PutUint64(b[16:], 8) }), ErrBadSize, 16},
		{"zero-size record", mod(func(b []byte) { putHeader(b[data:], RecordTypeMmap, 0) }), ErrBadSize, data + 6},
		{"record past end", mod(func(b []byte) { putHeader(b[data:], RecordTypeMmap, 0xfff8) }), ErrTruncated, data},
		{"sample too short", mod(func(b []byte) {
			// Make the first record a SAMPLE of 16 bytes: its fields are missing.
			putHeader(b[data:], RecordTypeSample, 16)
			binary.LittleEndian.PutUint32(b[data+16:], uint32(RecordTypeFinishedInit))
		}), ErrTruncated, data + 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := readEverything(tc.b, FileOrder)
			var pe *Error
			if !errors.Is(err, tc.want) || !errors.As(err, &pe) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if pe.Offset != tc.offset {
				t.Errorf("offset %#x, want %#x (%v)", pe.Offset, tc.offset, err)
			}
		})
	}
}

// TestCutDataSection reads recordings whose data section the end of the
// file cuts short as perf reads them through its mapping: the rest of the
// page where the file ends reads as zeros (a record runs on into them, then
// a header of size 0 is perf's "failed to process type: 0"), and the
// pages after it cannot be read (perf dies of SIGBUS; perfdata says where
// the file ends).
func TestCutDataSection(t *testing.T) {
	page := os.Getpagesize()
	b, err := os.ReadFile("../testdata/perf/cpu-clock-dwarf.data")
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	start, end := int(f.Data.Offset), int(f.Data.Offset+f.Data.Size)
	var starts []int // record offsets
	for off := start; off < end; off += int(binary.LittleEndian.Uint16(b[off+6:])) {
		starts = append(starts, off)
	}
	// read reads a cut file mapped and streamed: the two agree.
	read := func(cut []byte) (n int, last error) {
		for _, open := range []func() (*File, error){
			func() (*File, error) { return NewBytes(cut) },
			func() (*File, error) { return New(bytes.NewReader(cut)) },
		} {
			f, err := open()
			if err != nil {
				return 0, err
			}
			rs := f.Records(FileOrder)
			m := 0
			for rs.Next() {
				m++
			}
			if last != nil && m != n {
				return 0, fmt.Errorf("mapped and streamed reads give %d and %d records", n, m)
			}
			n, last = m, rs.Err()
			if last == nil {
				return n, errors.New("no error")
			}
		}
		return n, last
	}
	checked := 0
	for i, off := range starts[1:] {
		next := end
		if i+2 < len(starts) {
			next = starts[i+2]
		}
		page0, page1 := off/page, (next-1)/page
		if page0 == page1 && off%page != 0 {
			// Cut at a record inside a page: the zeros after it are
			// a header of size 0.
			n, err := read(b[:off])
			var hs *HeaderSizeError
			if !errors.As(err, &hs) || hs.Offset != int64(off) || n != i+1 {
				t.Fatalf("cut at record %d (%#x): %d records, %v; want %d and a header of size 0 there", i+1, off, n, err, i+1)
			}
			if next >= end {
				checked++
				continue
			}
			// Cut inside it: it reads with zeros, then the same.
			n, err = read(b[:off+8])
			if !errors.As(err, &hs) || hs.Offset != int64(next) || n != i+2 {
				t.Fatalf("cut in record %d (%#x): %d records, %v; want %d and a header of size 0 at %#x", i+1, off, n, err, i+2, next)
			}
			checked++
		} else if page0 != page1 {
			// Cut at the page boundary inside the record.
			cut := page1 * page
			n, err := read(b[:cut])
			var hs *HeaderSizeError
			if !errors.Is(err, ErrTruncated) || errors.As(err, &hs) || n != i+1 {
				t.Fatalf("cut at %#x in record %d: %d records, %v; want %d and the end of the file", cut, i+1, n, err, i+1)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Fatalf("only %d cuts checked", checked)
	}
}

// TestUnknownRecord checks that an unknown record type is returned as
// RecordUnknown and counted, not an error.
func TestUnknownRecord(t *testing.T) {
	good, err := os.ReadFile("../testdata/perf/switch.data")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := NewBytes(good)
	b := append([]byte(nil), good...)
	binary.LittleEndian.PutUint32(b[f.Data.Offset:], 60)
	g, err := NewBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	rs := g.Records(TimeOrder)
	var unknown int
	for rs.Next() {
		if u, ok := rs.Record.(*RecordUnknown); ok {
			unknown++
			if u.Type != 60 || len(u.Data) != u.Size-8 {
				t.Errorf("unknown record %+v", u)
			}
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if unknown != 1 || rs.Skipped[60] != 1 {
		t.Errorf("unknown %d skipped %v", unknown, rs.Skipped)
	}
}
