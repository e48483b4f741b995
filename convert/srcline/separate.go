package srcline

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/perfpt/perfpt/internal/elfid"
)

// debugDir is binutils' DEBUGDIR as Debian configures it: where bfd looks
// for separate debug files by build id and, below it, by the original
// file's directory.
var debugDir = "/usr/lib/debug"

// separateDebug finds the separate debug file of the ELF file ef read
// from path when it has no DWARF of its own, as binutils' dwarf2.c
// (_bfd_dwarf2_slurp_debug_info) does: first
// bfd_follow_build_id_debuglink (DEBUGDIR/.build-id/xx/rest.debug, whose
// build id must be the file's), then bfd_follow_gnu_debuglink (the
// .gnu_debuglink name in the file's own directory, symlinks resolved,
// then in its .debug folder, then below DEBUGDIR at that directory; the
// file's CRC must be the link's). It returns the opened file, or nil.
func separateDebug(path string, ef *elf.File) (*os.File, *elf.File) {
	if id := noteBuildID(ef); len(id) > 1 {
		h := hex.EncodeToString(id)
		cand := filepath.Join(debugDir, ".build-id", h[:2], h[2:]+".debug")
		if f, df := openDebug(cand, func(df *elf.File, _ *os.File) bool {
			return bytes.Equal(noteBuildID(df), id)
		}); f != nil {
			return f, df
		}
	}
	link, ok := elfid.ReadDebuglink(ef)
	if !ok || link.Name == "" || !link.HasCRC {
		return nil, nil
	}
	name, crc := link.Name, link.CRC
	dir := filepath.Dir(path)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		dir = filepath.Dir(real)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	for _, cand := range []string{
		filepath.Join(dir, name),
		filepath.Join(dir, ".debug", name),
		filepath.Join(debugDir, dir, name),
	} {
		if f, df := openDebug(cand, func(_ *elf.File, f *os.File) bool {
			h := crc32.NewIEEE()
			_, err := io.Copy(h, io.NewSectionReader(f, 0, 1<<62))
			return err == nil && h.Sum32() == crc
		}); f != nil {
			return f, df
		}
	}
	return nil, nil
}

// openDebug opens the ELF file at path when it is a regular file, has a
// .debug_info and passes check.
func openDebug(path string, check func(*elf.File, *os.File) bool) (*os.File, *elf.File) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil
	}
	df, err := elf.NewFile(f)
	if err != nil || !hasDebugInfo(df) || !check(df, f) {
		f.Close()
		return nil, nil
	}
	return f, df
}

func hasDebugInfo(ef *elf.File) bool {
	for _, n := range []string{".debug_info", ".zdebug_info"} {
		if s := ef.Section(n); s != nil && s.Type != elf.SHT_NOBITS && s.FileSize != 0 {
			return true
		}
	}
	return false
}

// noteBuildID returns the desc of the first NT_GNU_BUILD_ID note of the
// file's note sections, or nil.
func noteBuildID(ef *elf.File) []byte {
	for _, s := range ef.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		if d, err := s.Data(); err == nil {
			if id := elfid.NotesBuildID(d, ef.ByteOrder); id != nil {
				return id
			}
		}
	}
	return nil
}

// sameSections reports whether the debug file df has the sections of the
// file ef that hold code or data at the same indexes under the same
// names, as objcopy --only-keep-debug leaves them: bfd then answers from
// df's symbols (_bfd_dwarf2_stash_syms pairs the sections in order up to
// the first debug section).
func sameSections(ef, df *elf.File) bool {
	for i, s := range ef.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		if i >= len(df.Sections) || df.Sections[i].Name != s.Name {
			return false
		}
	}
	return true
}
