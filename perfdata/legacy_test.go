package perfdata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// legacyCopy rewrites a file-mode recording in perf's first format: magic
// PERFFILE and attrs of attrSize bytes (an older ABI's), fields past it
// dropped. The attrs section only shrinks, so the other sections stay.
func legacyCopy(t *testing.T, b []byte, attrSize int) []byte {
	t.Helper()
	b = append([]byte(nil), b...)
	le := binary.LittleEndian
	old := int(le.Uint64(b[16:]))
	off, size := int(le.Uint64(b[24:])), int(le.Uint64(b[32:]))
	var attrs []byte
	for o := off; o < off+size; o += old {
		a := append([]byte(nil), b[o:o+attrSize]...)
		le.PutUint32(a[4:], uint32(attrSize))
		attrs = append(append(attrs, a...), b[o+old-16:o+old]...)
	}
	copy(b[off:], attrs)
	le.PutUint64(b[0:], magicLegacy)
	le.PutUint64(b[16:], uint64(attrSize+16))
	le.PutUint64(b[32:], uint64(len(attrs)))
	return b
}

// TestLegacyFormat reads a recording rewritten with the PERFFILE magic
// (perf's try_all_file_abis: the attr size tells the ABI and the
// endianness) and compares its records with the original's; perf script
// must print the same for both.
func TestLegacyFormat(t *testing.T) {
	path := filepath.Join("../testdata/perf", "cpu-clock-g.data")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b := legacyCopy(t, orig, 104) // PERF_ATTR_SIZE_VER4
	f, err := NewBytes(b)
	if err != nil {
		t.Fatalf("PERFFILE header: %v", err)
	}
	if !f.Legacy {
		t.Error("Legacy not set")
	}
	g, err := NewBytes(orig)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Attrs) != len(g.Attrs) || f.Attrs[0].SampleType != g.Attrs[0].SampleType {
		t.Fatalf("attrs %+v, want %+v", f.Attrs, g.Attrs)
	}
	n, m := 0, 0
	for rs := f.Records(TimeOrder); rs.Next(); n++ {
	}
	for rs := g.Records(TimeOrder); rs.Next(); m++ {
	}
	if n != m || n == 0 {
		t.Errorf("%d records, original %d", n, m)
	}

	// An attr size of no known ABI, and one swapped: a big-endian file.
	bad := append([]byte(nil), b...)
	binary.LittleEndian.PutUint64(bad[16:], 200)
	if _, err := NewBytes(bad); !errors.Is(err, ErrBadMagic) {
		t.Errorf("PERFFILE with attr_size 200: %v, want ErrBadMagic", err)
	}
	binary.BigEndian.PutUint64(bad[16:], 120)
	if _, err := NewBytes(bad); !errors.Is(err, ErrBigEndian) {
		t.Errorf("PERFFILE with a swapped attr_size: %v, want ErrBigEndian", err)
	}

	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not installed: cannot check that perf reads the copy")
	}
	legacy := filepath.Join(t.TempDir(), "legacy.data")
	if err := os.WriteFile(legacy, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command("perf", "script", "-i", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command("perf", "script", "-i", legacy).Output()
	if err != nil {
		t.Fatalf("perf script on the PERFFILE copy: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Error("perf script prints another text for the PERFFILE copy: the copy is not what it should be")
	}
}
