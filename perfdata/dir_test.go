package perfdata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenDir reads perf record's directory layout (--kcore, --threads):
// the records in DIR/data; a directory without it fails with perf's
// message (open_file_read).
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

	empty := t.TempDir()
	_, err = Open(empty)
	want := "failed to open " + filepath.Join(empty, "data") + ": no such file or directory"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Open(empty dir) = %v, want %q", err, want)
	}
}
