// Package elfid reads what names an ELF file's separate debug file: the
// GNU build-id note and the .gnu_debuglink section. convert/symbol looks
// for debug files as perf does and convert/srcline as binutils' bfd does;
// both read these the same way.
package elfid

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
)

// NotesBuildID returns a copy of the desc of the first NT_GNU_BUILD_ID
// note ("GNU", type 3) in d, a run of ELF notes in byte order bo, or nil
// (also when a note runs past the end of d).
func NotesBuildID(d []byte, bo binary.ByteOrder) []byte {
	for len(d) >= 12 {
		namesz, descsz, typ := bo.Uint32(d), bo.Uint32(d[4:]), bo.Uint32(d[8:])
		d = d[12:]
		na, da := (uint64(namesz)+3)&^3, (uint64(descsz)+3)&^3
		if na > uint64(len(d)) || da > uint64(len(d))-na {
			return nil
		}
		if typ == 3 && namesz == 4 && string(d[:4]) == "GNU\x00" {
			return append([]byte(nil), d[na:na+uint64(descsz)]...)
		}
		d = d[na+da:]
	}
	return nil
}

// Debuglink is the content of a .gnu_debuglink section.
type Debuglink struct {
	// Name is the debug file's name: the section up to its first NUL,
	// or all of it without one.
	Name string
	// CRC is the debug file's CRC-32, the 4 bytes at the next multiple
	// of 4 after the NUL; HasCRC says the section holds them.
	CRC    uint32
	HasCRC bool
}

// ReadDebuglink reads ef's .gnu_debuglink; false when it has none (or an
// SHT_NOBITS one) or the section cannot be read.
func ReadDebuglink(ef *elf.File) (Debuglink, bool) {
	s := ef.Section(".gnu_debuglink")
	if s == nil || s.Type == elf.SHT_NOBITS {
		return Debuglink{}, false
	}
	d, err := s.Data()
	if err != nil {
		return Debuglink{}, false
	}
	i := bytes.IndexByte(d, 0)
	if i < 0 {
		return Debuglink{Name: string(d)}, true
	}
	l := Debuglink{Name: string(d[:i])}
	if off := (i + 4) &^ 3; off+4 <= len(d) {
		l.CRC, l.HasCRC = ef.ByteOrder.Uint32(d[off:]), true
	}
	return l, true
}
