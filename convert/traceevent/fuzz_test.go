package traceevent

import (
	"encoding/binary"
	"testing"

	"github.com/perfpt/perfpt/perfdata/tracing"
)

// FuzzPrint parses a format and prints a record with it: never a panic,
// whatever the print fmt or the record (dynamic fields pointing anywhere).
func FuzzPrint(f *testing.F) {
	f.Add([]byte(helperFormat), []byte("\x01\x00\x00\x00\x10\x00\x00\x00abcdefgh"))
	f.Add([]byte("name: x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n\nprint fmt: \"%*.*s %pS %pI6c %pU %*ph\", REC->a, REC->a, REC->a, REC->a\n"), []byte{1, 2})
	f.Fuzz(func(t *testing.T, text, raw []byte) {
		fm, err := tracing.ParseFormat(text, "fuzz", 8)
		if err != nil {
			return
		}
		p := NewFor(binary.LittleEndian, 8, nil)
		p.Append(nil, fm, raw)
	})
}
