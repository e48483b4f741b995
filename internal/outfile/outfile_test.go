package outfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWrite writes files of sizes around the block and page sizes in
// writes of several sizes and reads them back.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	sizes := []int{0, 1, 4095, 4096, 4097, BlockSize - 1, BlockSize, BlockSize + 1, 2*Blocks*BlockSize + 12345}
	chunks := []int{4099, 3 * BlockSize}
	for _, size := range sizes {
		for _, chunk := range chunks {
			want := make([]byte, size)
			for i := range want {
				want[i] = byte(i*7 + i>>12)
			}
			path := filepath.Join(dir, "out")
			f, err := Create(path)
			if err != nil {
				t.Fatal(err)
			}
			for p := want; len(p) > 0; {
				k := min(chunk, len(p))
				if n, err := f.Write(p[:k]); n != k || err != nil {
					t.Fatalf("size %d chunk %d: Write = %d, %v", size, chunk, n, err)
				}
				p = p[k:]
			}
			if err := f.Close(); err != nil {
				t.Fatalf("size %d chunk %d: Close: %v", size, chunk, err)
			}
			if err := f.Close(); !errors.Is(err, os.ErrClosed) {
				t.Errorf("second Close: %v", err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("size %d chunk %d: read back %d bytes, differ from the %d written", size, chunk, len(got), len(want))
			}
		}
	}
}

// TestNotRegular writes to a file that is not a regular one (no
// O_DIRECT).
func TestNotRegular(t *testing.T) {
	f, err := Create(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	if f.direct {
		t.Errorf("%s: O_DIRECT set", os.DevNull)
	}
	if _, err := f.Write(make([]byte, 2*BlockSize+5)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWriteError: the writer goroutine's error comes back from Write or
// Close.
func TestWriteError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	f, err := Create("/dev/full")
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	for i := 0; i < 2*Blocks && werr == nil; i++ {
		_, werr = f.Write(make([]byte, BlockSize))
	}
	cerr := f.Close()
	if werr == nil && cerr == nil {
		t.Fatal("writing /dev/full: no error")
	}
}

// TestBlocks fills the blocks in place (Block, Next) with a tail past
// the last whole page each time and one that grew out of its block, and
// uses the file after Close (nothing written, no fault).
func TestBlocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	b := f.Block()
	for i := 0; i < 3*Blocks; i++ {
		n := BlockSize - 5000 - i
		if i == 5 {
			n = BlockSize + 100 // append moves it out of the block
		}
		for len(b) < n {
			c := byte(len(want) * 13 >> 3)
			b = append(b, c)
			want = append(want, c)
		}
		b = f.Next(b)
	}
	b = append(b, "end"...)
	want = append(want, "end"...)
	f.Next(b)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read back %d bytes, differ from the %d written", len(got), len(want))
	}
	b = append(f.Next(f.Block()), 1)
	f.Next(b)
	if _, err := f.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write after Close: %v", err)
	}
	if got2, _ := os.ReadFile(path); !bytes.Equal(got2, want) {
		t.Errorf("the file changed after Close")
	}
}
