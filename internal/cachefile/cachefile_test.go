package cachefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var testFormat = Format{Magic: "perfpt test cache\n", Version: 3}

// sealed returns a whole file of testFormat for key holding parts.
func sealed(key []byte, parts ...[]byte) []byte {
	head, sum := testFormat.Seal(key, parts...)
	return append(append(head, bytes.Join(parts, nil)...), sum...)
}

// TestRoundTrip: what Seal and Write frame, Open and Load give back, in
// one part or many, with an empty key or payload.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		key   string
		parts []string
	}{
		{"key", []string{"payload"}},
		{"key", []string{"pay", "", "lo", "ad"}},
		{"", []string{"payload"}},
		{"key", nil},
		{strings.Repeat("k", 5000), []string{strings.Repeat("p", 3<<20)}}, // mapped, not read
	} {
		var parts [][]byte
		for _, p := range c.parts {
			parts = append(parts, []byte(p))
		}
		want := strings.Join(c.parts, "")
		data := sealed([]byte(c.key), parts...)
		got, err := testFormat.Open(data, []byte(c.key))
		if err != nil || string(got) != want {
			t.Fatalf("key %.10q: Open = %.10q, %v; want %.10q", c.key, got, err, want)
		}
		file := filepath.Join(dir, "sub", "f")
		if err := testFormat.Write(file, []byte(c.key), parts...); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(file); !bytes.Equal(b, data) {
			t.Fatalf("key %.10q: Write wrote other bytes than Seal frames", c.key)
		}
		old := time.Now().Add(-time.Hour)
		os.Chtimes(file, old, old)
		got, release, err := testFormat.Load(file, []byte(c.key))
		if err != nil || string(got) != want {
			t.Fatalf("key %.10q: Load = %.10q, %v; want %.10q", c.key, got, err, want)
		}
		release()
		if fi, err := os.Stat(file); err != nil || !fi.ModTime().After(old) {
			t.Errorf("key %.10q: Load did not touch the file", c.key)
		}
	}
}

// TestDamage: a file cut short anywhere, with any one bit flipped, with a
// byte more, empty, of another cache, of another version or for another
// key is refused, with the reason.
func TestDamage(t *testing.T) {
	key := []byte("the key")
	good := sealed(key, []byte("some payload"), []byte(" in two parts"))
	// check: data is refused for want's reason (nil: any).
	check := func(what string, data, key []byte, want error) {
		t.Helper()
		if p, err := testFormat.Open(data, key); err == nil || want != nil && !errors.Is(err, want) {
			t.Errorf("%s: Open = %q, %v; want %v", what, p, err, want)
		}
	}
	for n := 0; n < len(good); n++ {
		check("cut short", good[:n], key, nil)
	}
	for i := 0; i < 8*len(good); i++ {
		b := append([]byte(nil), good...)
		b[i/8] ^= 1 << (i % 8)
		check("a bit flipped", b, key, nil)
	}
	for _, c := range []struct {
		what string
		data []byte
		key  []byte
		want error
	}{
		{"empty", nil, key, ErrFormat},
		{"header only", []byte(testFormat.Magic), key, ErrFormat},
		{"another cache's", append([]byte("perfpt tost"), good[11:]...), key, ErrFormat},
		{"another version", func() []byte {
			f := testFormat
			f.Version++
			head, sum := f.Seal(key, []byte("x"))
			return append(append(head, 'x'), sum...)
		}(), key, ErrVersion},
		{"another key", good, []byte("the kez"), ErrKey},
		{"a longer key", good, []byte("the key!"), ErrKey},
		{"a shorter key", good, []byte("the ke"), ErrKey},
		{"a byte more", append(append([]byte(nil), good...), 0), key, ErrDamaged},
		{"the last byte flipped", append(append([]byte(nil), good[:len(good)-1]...), good[len(good)-1]^0x80), key, ErrDamaged},
		{"a key flipped", func() []byte {
			b := append([]byte(nil), good...)
			b[len(testFormat.Magic)+8] ^= 0x40
			return b
		}(), key, ErrDamaged},
	} {
		check(c.what, c.data, c.key, c.want)
	}
	// Every error says where.
	_, err := testFormat.Open(good, []byte("other"))
	var e *Error
	if !errors.As(err, &e) || e.Off != len(testFormat.Magic)+8 {
		t.Errorf("another key: %v, want an *Error at the key's offset %d", err, len(testFormat.Magic)+8)
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, good[:len(good)-1], 0o644)
	if _, _, err := testFormat.Load(file, key); !errors.Is(err, ErrDamaged) {
		t.Errorf("Load of a file cut short: %v", err)
	}
	if _, _, err := testFormat.Load(file+"-none", key); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load of no file: %v", err)
	}
}

// TestOpenHead: the bytes after the checksum are given back unchecked;
// Open refuses them.
func TestOpenHead(t *testing.T) {
	key := []byte("k")
	data := append(sealed(key, []byte("meta")), "unchecked rest"...)
	p, rest, err := testFormat.OpenHead(data, key)
	if err != nil || string(p) != "meta" || string(rest) != "unchecked rest" {
		t.Fatalf("OpenHead = %q, %q, %v", p, rest, err)
	}
	if _, err := testFormat.Open(data, key); !errors.Is(err, ErrDamaged) {
		t.Errorf("Open of a file with a rest: %v, want ErrDamaged", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, data, 0o644)
	p, rest, release, err := testFormat.LoadHead(file, key)
	if err != nil || string(p) != "meta" || string(rest) != "unchecked rest" {
		t.Fatalf("LoadHead = %q, %q, %v", p, rest, err)
	}
	release()
}

func TestPath(t *testing.T) {
	a, b := Path("/d", "units-", []byte("a")), Path("/d", "units-", []byte("b"))
	if a == b || !strings.HasPrefix(a, "/d/units-") || len(a) != len("/d/units-")+32 {
		t.Errorf("Path = %q, %q", a, b)
	}
	if a != Path("/d", "units-", []byte("a")) {
		t.Error("Path differs for one key")
	}
}

// FuzzOpen: any bytes open without a panic, and what opens is what a
// key and payload seal to.
func FuzzOpen(f *testing.F) {
	f.Add(sealed([]byte("key"), []byte("payload")), []byte("key"))
	f.Add([]byte(testFormat.Magic), []byte(""))
	f.Fuzz(func(t *testing.T, data, key []byte) {
		p, err := testFormat.Open(data, key)
		if err != nil {
			return
		}
		if !bytes.Equal(sealed(key, p), data) {
			t.Fatal("opened a file its key and payload do not seal to")
		}
	})
}

// TestStatID: a regular file's ID changes with its contents' size and
// time and with its path; a directory has none.
func TestStatID(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("a"), 0o644)
	fi, _ := os.Stat(file)
	id, ok := StatID(file, fi)
	if !ok || !bytes.HasPrefix(id, []byte("stat:"+file+"\x00")) {
		t.Fatalf("StatID = %q, %v", id, ok)
	}
	if again, _ := StatID(file, fi); !bytes.Equal(again, id) {
		t.Error("StatID differs for one file")
	}
	os.WriteFile(file, []byte("ab"), 0o644)
	fi2, _ := os.Stat(file)
	if id2, _ := StatID(file, fi2); bytes.Equal(id2, id) {
		t.Error("StatID unchanged by a write")
	}
	if id3, _ := StatID(filepath.Join(dir, ".", "g"), fi); bytes.Equal(id3, id) {
		t.Error("StatID unchanged by the path")
	}
	di, _ := os.Stat(dir)
	if _, ok := StatID(dir, di); ok {
		t.Error("a directory has a StatID")
	}
	if _, ok := StatID(file, nil); ok {
		t.Error("no FileInfo, and a StatID")
	}
}
