package perfdata

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenDir reads perf record's directory layout (--kcore, --threads):
// the records in DIR/data; a directory without it fails naming DIR/data, as
// perf's open_file_read does.
func TestOpenDir(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "perf", "switch.data"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Dir != dir || f.Path() != filepath.Join(dir, "data") {
		t.Errorf("Dir %q Path %q", f.Dir, f.Path())
	}
	n := 0
	rs := f.Records(FileOrder)
	for rs.Next() {
		n++
	}
	if err := rs.Err(); err != nil || n == 0 {
		t.Fatalf("%d records, %v", n, err)
	}

	// The error names DIR/data, the file perf fails to open.
	empty := t.TempDir()
	_, err = Open(empty)
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != filepath.Join(empty, "data") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(empty dir) = %v, want a PathError for %s", err, filepath.Join(empty, "data"))
	}
}

// TestDirTurns: perf reads a perf.data directory's files in turns of 2 MB
// of records each (__perf_session__process_dir_events, READER_MAX_SIZE),
// the header file's data section first; perfpt read each file whole, one
// after the other, so that a data.N file of 2 MB or more gave its records
// in another order than perf's (in dumps, unordered script output and
// among records of one time).
func TestDirTurns(t *testing.T) {
	dir := t.TempDir()
	writeSamples(t, filepath.Join(dir, "data"), 10, true)
	const turn = 2 << 20 / sampleSize
	// Both data.N files hold 1.5 turns, so that the runs are the same in
	// whatever order the directory lists them.
	for i := range 2 {
		part := writeSamples(t, filepath.Join(t.TempDir(), "part"), turn+turn/2, false)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("data.%d", i)), part, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var runs []string
	src, n := -1, 0
	rs := f.Records(FileOrder)
	for rs.Next() {
		s := rs.Raw().Source
		if s != src && n > 0 {
			runs = append(runs, fmt.Sprintf("%d:%d", src, n))
			n = 0
		}
		src = s
		n++
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	runs = append(runs, fmt.Sprintf("%d:%d", src, n))
	want := fmt.Sprintf("[0:10 1:%d 2:%d 1:%d 2:%d]", turn, turn, turn/2, turn/2)
	if got := fmt.Sprint(runs); got != want {
		t.Errorf("records by file (file:count) %s, want %s", got, want)
	}
}

// TestDirFileError: a record cut short in a perf.data directory's data.N
// file is an error naming that file, whose offset it gives; it said
// "perf.data offset X", an offset of no file the user opened.
func TestDirFileError(t *testing.T) {
	dir := t.TempDir()
	writeSamples(t, filepath.Join(dir, "data"), 3, true)
	part := writeSamples(t, filepath.Join(t.TempDir(), "part"), 3, false)
	cut := filepath.Join(dir, "data.0")
	if err := os.WriteFile(cut, part[:len(part)-8], 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs := f.Records(FileOrder)
	for rs.Next() {
	}
	err = rs.Err()
	var pe *Error
	if !errors.As(err, &pe) || pe.File != cut || pe.Offset != 64 || !strings.HasPrefix(err.Error(), cut+" offset 0x40: ") {
		t.Errorf("records of %s = %v, want an Error at offset 0x40 of %s", dir, err, cut)
	}
}

// sampleSize is the size of writeSamples' samples: header, ip, pid/tid,
// time.
const sampleSize = 32

// writeSamples makes a perf.data with n samples at path (HEADER_DIR_FORMAT
// with dirFormat) and returns its data section.
func writeSamples(t *testing.T, path string, n int, dirFormat bool) []byte {
	t.Helper()
	attr := EventAttr{Type: AttrTypeSoftware, Config: SWDummy, SampleType: SampleFormatIP | SampleFormatTID | SampleFormatTime, SamplePeriod: 1}
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddAttr(attr, []uint64{1}, "dummy"); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		s := &RecordSample{RecordCommon: RecordCommon{Misc: MiscUser, SampleID: SampleID{PID: 1, TID: 1, Time: uint64(i + 1)}}, IP: 0x1000}
		if err := w.WriteRecord(s); err != nil {
			t.Fatal(err)
		}
	}
	fs := testFeatures()
	if dirFormat {
		fs.Set(FeatDirFormat)
		fs.DirFormat = 1
	}
	w.Features = fs
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Data.Size != int64(n*sampleSize) {
		t.Fatalf("%s: data section of %d bytes, want %d", path, f.Data.Size, n*sampleSize)
	}
	return b[f.Data.Offset : f.Data.Offset+f.Data.Size]
}
