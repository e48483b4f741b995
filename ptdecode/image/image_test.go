package image

import (
	"debug/elf"
	"sync"
	"testing"
)

func TestOverlap(t *testing.T) {
	a := &Section{Name: "a", Data: []byte("AAAAAAAAAA")}
	b := &Section{Name: "b", Data: []byte("BBBB")}
	im := New("t")
	if err := im.Add(a, 0, 0, 0x1000); err != nil {
		t.Fatal(err)
	}
	if err := im.Add(b, 1, 2, 0x1004); err != nil {
		t.Fatal(err)
	}
	want := "AAAABBAAAA"
	for i := range uint64(10) {
		var buf [1]byte
		n, err := im.Read(buf[:], 0x1000+i)
		if err != nil || n != 1 || buf[0] != want[i] {
			t.Errorf("%#x: %q %d %v, want %q", 0x1000+i, buf[:n], n, err, want[i])
		}
	}
	if got := len(im.Mappings()); got != 3 {
		t.Errorf("%d mappings, want 3", got)
	}
	// Read stops at the end of a mapping.
	buf := make([]byte, 8)
	if n, _ := im.Read(buf, 0x1002); n != 2 {
		t.Errorf("read crossed mappings: %d", n)
	}
	if _, err := im.Read(buf, 0x100a); err != ErrNoMap {
		t.Errorf("beyond end: %v", err)
	}
	if _, err := im.Read(buf, 0xfff); err != ErrNoMap {
		t.Errorf("before start: %v", err)
	}
	c := im.Clone()
	c.Remove(0, 0x2000)
	if len(c.Mappings()) != 0 || len(im.Mappings()) != 3 {
		t.Error("clone shares mappings")
	}
	im.RemoveSection(b)
	if _, ok := im.Find(0x1004); ok {
		t.Error("removed section still mapped")
	}
}

func TestELF(t *testing.T) {
	const path = "/usr/bin/ls"
	f, err := elf.Open(path)
	if err != nil {
		t.Skip("no ELF to load:", err)
	}
	defer f.Close()
	text := f.Section(".text")
	cache := NewCache()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			im := New("ls")
			bias, err := im.AddELF(cache, path, 0x400000, true)
			if err != nil {
				t.Error(err)
				return
			}
			want, _ := text.Data()
			got := make([]byte, 16)
			n, err := im.Read(got, text.Addr+bias)
			if err != nil || n != 16 || string(got) != string(want[:16]) {
				t.Errorf("text at %#x: % x %v", text.Addr+bias, got[:n], err)
			}
		}()
	}
	wg.Wait()
	if cache.Len() != 1 {
		t.Errorf("cache holds %d files", cache.Len())
	}
}
