package perfdata

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
