// Package atomicfile writes a file whole or not at all: the bytes go to
// a temporary file beside it, renamed over it once complete, so that a
// concurrent reader or a run cut short never sees a partial file.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ErrCreate marks a failure to make the file's directory or its
// temporary file (no space, no permission): writing there again will
// likely fail the same way.
var ErrCreate = errors.New("atomicfile: cannot create")

// Write makes file's directory if needed and replaces file with the
// concatenation of parts. The temporary file is named file's base name
// followed by ".tmp" and a random suffix, and is removed on failure.
func Write(file string, parts ...[]byte) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrCreate, err)
	}
	tmp, err := os.CreateTemp(dir, filepath.Base(file)+".tmp*")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCreate, err)
	}
	for _, p := range parts {
		if _, err = tmp.Write(p); err != nil {
			break
		}
	}
	if err2 := tmp.Close(); err == nil {
		err = err2
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
