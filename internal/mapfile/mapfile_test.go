package mapfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		size int
	}{
		{"empty", 0},
		{"small", 100},
		{"mapped", MinMapSize + 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := bytes.Repeat([]byte{0xa5, 0x3c, 0x00}, tc.size/3+1)[:tc.size]
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			got, release, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			if !bytes.Equal(got, want) {
				t.Fatalf("contents differ (len %d, want %d)", len(got), len(want))
			}
		})
	}
	if _, _, err := Open(filepath.Join(dir, "missing")); !os.IsNotExist(err) {
		t.Fatalf("missing file: got %v, want a not-exist error", err)
	}
}
