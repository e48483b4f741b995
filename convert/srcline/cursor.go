package srcline

import "github.com/perfpt/perfpt/internal/dwarfbuf"

// cursor reads DWARF data in the file's byte order with a sticky failure
// (dwarfbuf's cursor, shared with unwind and gcov).
type cursor = dwarfbuf.Cursor

// cstringAt returns the NUL-terminated string at off in b ("" and false
// when off is outside b or the string has no end).
func cstringAt(b []byte, off uint64) (string, bool) {
	if off >= uint64(len(b)) {
		return "", false
	}
	for i := off; i < uint64(len(b)); i++ {
		if b[i] == 0 {
			return string(b[off:i]), true
		}
	}
	return "", false
}
