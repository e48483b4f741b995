package elfid

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func note(bo binary.AppendByteOrder, name string, typ uint32, desc []byte) []byte {
	b := bo.AppendUint32(nil, uint32(len(name)))
	b = bo.AppendUint32(b, uint32(len(desc)))
	b = bo.AppendUint32(b, typ)
	b = append(b, name...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	b = append(b, desc...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func TestNotesBuildID(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	id := []byte{0xde, 0xad, 0xbe, 0xef, 1}
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	for _, tc := range []struct {
		name string
		d    []byte
		bo   interface {
			binary.ByteOrder
			binary.AppendByteOrder
		}
		want []byte
	}{
		{"alone", note(le, "GNU\x00", 3, id), le, id},
		{"big-endian", note(be, "GNU\x00", 3, id), be, id},
		{"after others", cat(note(le, "GNU\x00", 1, []byte{1, 2, 3, 4}), note(le, "Go\x00\x00", 4, []byte("x")), note(le, "GNU\x00", 3, id)), le, id},
		{"first of two", cat(note(le, "GNU\x00", 3, id), note(le, "GNU\x00", 3, []byte{9})), le, id},
		{"other owner", note(le, "XYZ\x00", 3, id), le, nil},
		{"wrong order", note(be, "GNU\x00", 3, id), le, nil},
		{"desc past the end", note(le, "GNU\x00", 3, id)[:20], le, nil},
		{"header only", note(le, "GNU\x00", 3, nil)[:12], le, nil},
		{"huge sizes", cat(le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 0xffffffff), 0xffffffff), 3), []byte("GNU\x00")), le, nil},
		{"empty", nil, le, nil},
	} {
		got := NotesBuildID(tc.d, tc.bo)
		if !bytes.Equal(got, tc.want) {
			t.Errorf("%s: %x, want %x", tc.name, got, tc.want)
		}
	}
}

// TestReadDebuglink adds a .gnu_debuglink to a copy of the test binary
// with objcopy and reads it back.
func TestReadDebuglink(t *testing.T) {
	objcopy, err := exec.LookPath("objcopy")
	if err != nil {
		t.Skip("no objcopy")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dbg := filepath.Join(dir, "prog.debug")
	content := []byte("debug file content")
	if err := os.WriteFile(dbg, content, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "prog")
	if b, err := exec.Command(objcopy, "--add-gnu-debuglink="+dbg, self, out).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, b)
	}
	ef, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	l, ok := ReadDebuglink(ef)
	if want := (Debuglink{Name: "prog.debug", CRC: crc32.ChecksumIEEE(content), HasCRC: true}); !ok || l != want {
		t.Errorf("debuglink %+v %v, want %+v", l, ok, want)
	}
	ef2, err := elf.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer ef2.Close()
	if l, ok := ReadDebuglink(ef2); ok {
		t.Errorf("debuglink %+v in a file without one", l)
	}
}
