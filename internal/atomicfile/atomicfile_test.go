package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a", "b", "f")
	if err := Write(file, []byte("ab"), nil, []byte("cd")); err != nil {
		t.Fatal(err)
	}
	if err := Write(file, []byte("xyz")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "xyz" {
		t.Fatalf("read %q, %v", b, err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(file)); len(ents) != 1 {
		t.Errorf("%d files left in the directory, want 1", len(ents))
	}
}

func TestWriteCannotCreate(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory cannot be made below a regular file.
	if err := Write(filepath.Join(blocker, "sub", "f"), []byte("x")); !errors.Is(err, ErrCreate) {
		t.Fatalf("err %v, want ErrCreate", err)
	}
}
