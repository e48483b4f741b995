package srcline

import (
	"bytes"
	"debug/elf"
	"math/rand"
	"os"
	"testing"
)

// TestCorruptDebugInfo flips bytes in the debug sections File's own
// entry scanner reads (.debug_info, .debug_abbrev, .debug_rnglists,
// .debug_str, and .debug_line) of a real -O2 binary and asks addr2line's questions about
// every function: the answers may be anything, but never a panic or an
// endless loop.
func TestCorruptDebugInfo(t *testing.T) {
	orig, err := os.ReadFile("../../testdata/unwind/cwork-dyn")
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(orig))
	if err != nil {
		t.Fatal(err)
	}
	var secs []*elf.Section
	for _, n := range []string{".debug_info", ".debug_abbrev", ".debug_rnglists", ".debug_str", ".debug_line"} {
		if s := ef.Section(n); s != nil && s.Size > 0 {
			secs = append(secs, s)
		}
	}
	text := ef.Section(".text")
	if len(secs) < 3 || text == nil {
		t.Fatalf("cwork-dyn has %d of the debug sections, text %v", len(secs), text != nil)
	}
	r := rand.New(rand.NewSource(17))
	n := 2000
	if testing.Short() {
		n = 200
	}
	var recs []Record
	var frames []Frame
	for i := 0; i < n; i++ {
		b := append([]byte(nil), orig...)
		for k := 1 + r.Intn(4); k > 0; k-- {
			s := secs[r.Intn(len(secs))]
			at := s.Offset + uint64(r.Int63n(int64(s.Size)))
			b[at] = byte(r.Intn(256))
		}
		f, err := NewFile(bytes.NewReader(b))
		if err != nil {
			continue
		}
		for pc := text.Addr; pc < text.Addr+text.Size; pc += 37 {
			recs, _ = f.Addr2lineNames(pc, recs[:0])
			recs, _ = f.Addr2line(pc, recs[:0])
			frames = f.Frames(pc, frames[:0])
		}
	}
}
