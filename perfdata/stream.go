package perfdata

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
)

// NewReader reads a perf.data from r whatever its mode, e.g. standard
// input for `-i -`: a pipe-mode stream is read as it comes (NewPipe); a
// file-mode file is read through r's ReadAt when r is a regular file, else
// it is read into memory first.
func NewReader(r io.Reader) (*File, error) {
	if fh, ok := r.(*os.File); ok {
		if st, err := fh.Stat(); err == nil && st.Mode().IsRegular() {
			if off, err := fh.Seek(0, io.SeekCurrent); err == nil && off == 0 {
				var h [pipeHeaderSize]byte
				if n, _ := fh.ReadAt(h[:], 0); n == pipeHeaderSize && binary.LittleEndian.Uint64(h[8:]) != pipeHeaderSize {
					return newFile(fh, nil, st.Size())
				}
			}
		}
	}
	var h [pipeHeaderSize]byte
	n, err := io.ReadFull(r, h[:])
	if err != nil {
		return nil, errAt(int64(n), "perf.data header", wrapEOF(err))
	}
	if err := checkMagic(h[:]); err != nil {
		return nil, err
	}
	if binary.LittleEndian.Uint64(h[8:]) == pipeHeaderSize {
		return NewPipe(io.MultiReader(bytes.NewReader(h[:]), r))
	}
	rest, err := io.ReadAll(r)
	if err != nil {
		return nil, errAt(pipeHeaderSize, "read", err)
	}
	return NewBytes(append(h[:], rest...))
}
