package inflate

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"io"
	"math/rand"
	"testing"
)

// inputs are data of several kinds: random bytes (stored blocks),
// text-like and repetitive data (long matches, short distances).
func inputs() map[string][]byte {
	r := rand.New(rand.NewSource(1))
	random := make([]byte, 200_000)
	r.Read(random)
	var text bytes.Buffer
	words := []string{"DW_TAG_subprogram", "main", "\x00", "__libc_start_main", "x", "inline", "\x01\x02\x03"}
	for text.Len() < 500_000 {
		text.WriteString(words[r.Intn(len(words))])
		if r.Intn(5) == 0 {
			text.WriteByte(byte(r.Intn(256)))
		}
	}
	rep := bytes.Repeat([]byte("ab"), 100_000)
	return map[string][]byte{
		"empty": {}, "one": {42}, "random": random, "text": text.Bytes(),
		"repeat": rep, "zeros": make([]byte, 70_000), "short": []byte("hello, hello, hello"),
	}
}

func compress(t testing.TB, b []byte, level int) []byte {
	var w bytes.Buffer
	zw, err := zlib.NewWriterLevel(&w, level)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(b)
	zw.Close()
	return w.Bytes()
}

func TestMatchesCompressFlate(t *testing.T) {
	for name, b := range inputs() {
		for _, level := range []int{flate.NoCompression, flate.BestSpeed, flate.DefaultCompression, flate.BestCompression, flate.HuffmanOnly} {
			z := compress(t, b, level)
			d, err := New(z, len(b))
			if err != nil {
				t.Fatalf("%s/%d: %v", name, level, err)
			}
			// In steps, as a reader of prefixes asks.
			for want := 1; want < len(b); want *= 3 {
				got, err := d.Fill(want)
				if err != nil || len(got) < want || !bytes.Equal(got, b[:len(got)]) {
					t.Fatalf("%s/%d: Fill(%d) = %d bytes, %v", name, level, want, len(got), err)
				}
			}
			got, err := d.Bytes()
			if err != nil || !bytes.Equal(got, b) {
				t.Fatalf("%s/%d: %d bytes, %v", name, level, len(got), err)
			}
		}
	}
}

func TestBadStreams(t *testing.T) {
	b := inputs()["text"]
	z := compress(t, b, flate.DefaultCompression)
	for _, c := range []struct {
		name string
		in   []byte
		size int
		want error
	}{
		{"short size", z, len(b) - 1, ErrSize},
		{"long size", z, len(b) + 1, ErrSize},
		{"truncated", z[:len(z)/2], len(b), ErrTruncated},
		{"no checksum", z[:len(z)-4], len(b), ErrTruncated},
		{"checksum", append(append([]byte{}, z[:len(z)-1]...), z[len(z)-1]^1), len(b), ErrChecksum},
	} {
		d, err := New(c.in, c.size)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, err := d.Bytes(); err != c.want {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := New([]byte{0x78, 0x9d}, 1); err != ErrHeader {
		t.Errorf("bad header: %v", err)
	}
}

// FuzzInflate: no panic on any stream, and where compress/zlib decodes
// one, the same bytes.
func FuzzInflate(f *testing.F) {
	for _, b := range inputs() {
		if len(b) < 5000 {
			f.Add(compress(f, b, flate.DefaultCompression), len(b))
		}
	}
	f.Add(compress(f, []byte("abcabcabcabcabc"), flate.BestCompression), 15)
	f.Fuzz(func(t *testing.T, in []byte, size int) {
		if size < 0 || size > 1<<20 {
			return
		}
		d, err := New(in, size)
		if err != nil {
			return
		}
		got, err := d.Bytes()
		zr, zerr := zlib.NewReader(bytes.NewReader(in))
		if zerr != nil {
			return
		}
		want, zerr := io.ReadAll(io.LimitReader(zr, 1<<21))
		if zerr == nil && len(want) == size && (err != nil || !bytes.Equal(got, want)) {
			t.Fatalf("compress/zlib decodes %d bytes, inflate: %d bytes, %v", len(want), len(got), err)
		}
		if err == nil && (zerr != nil || !bytes.Equal(got, want)) {
			t.Fatalf("inflate decodes what compress/zlib does not: %v", zerr)
		}
	})
}

func BenchmarkInflate(b *testing.B) {
	in := inputs()["text"]
	z := compress(b, in, flate.DefaultCompression)
	b.Run("inflate", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		for i := 0; i < b.N; i++ {
			d, _ := New(z, len(in))
			if _, err := d.Bytes(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compress-zlib", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		out := make([]byte, len(in))
		for i := 0; i < b.N; i++ {
			zr, _ := zlib.NewReader(bytes.NewReader(z))
			if _, err := io.ReadFull(zr, out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
