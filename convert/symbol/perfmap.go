package symbol

import (
	"debug/elf"
	"io"
	"os"
	"strings"

	"github.com/perfpt/perfpt/internal/cnum"
)

// maxPerfMapSize caps the perf map read, against runaway files.
const maxPerfMapSize = 1 << 30

// LoadPerfMap reads a JIT perf map (/tmp/perf-PID.map) as perf's
// dso__load_perf_map does; a missing file gives an error (perf then has
// no symbols for the map).
func LoadPerfMap(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParsePerfMap(f)
}

// ParsePerfMap parses a perf map: one "START SIZE NAME" line per symbol,
// START and SIZE in hex, with or without 0x (the JVM writes it), as
// dso__load_perf_map reads them with strtoull: each number is followed by
// one separator character, and a line too short for a name after either
// is skipped. The last character of every line is dropped as perf drops
// what it takes for the newline (so a last line without one loses its
// last character). The symbols are kept as written, [START, START+SIZE),
// without perf's end and duplicate fix-ups, which it does not run on perf
// maps: overlapping entries are found as perf's tree finds them.
func ParsePerfMap(r io.Reader) (*Table, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxPerfMapSize))
	if err != nil {
		return nil, err
	}
	text := string(data)
	t := &Table{}
	var syms []Symbol
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i+1], text[i+1:]
		} else {
			text = ""
		}
		line = line[:len(line)-1]              // perf's line[--line_len] = '\0'
		start, n, _ := cnum.Strtoull(line, 16) // strtoull(line, &end, 16)
		n++
		if n+2 >= len(line) {
			continue
		}
		size, m, _ := cnum.Strtoull(line[n:], 16)
		n += m + 1
		if n+2 >= len(line) {
			continue
		}
		syms = append(syms, Symbol{Start: start, End: start + size, Name: line[n:], Bind: elf.STB_GLOBAL, Type: elf.STT_FUNC})
		if len(syms) >= maxSymbols {
			break
		}
	}
	t.insert(syms)
	t.finish(nil)
	return t, nil
}
