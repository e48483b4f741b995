package symbol

import (
	"debug/elf"
	"io"
	"os"
	"strings"
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
		line = line[:len(line)-1] // perf's line[--line_len] = '\0'
		start, n := strtoull16(line)
		n++
		if n+2 >= len(line) {
			continue
		}
		size, m := strtoull16(line[n:])
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

// strtoull16 mirrors strtoull(s, &end, 16): leading white space, a sign,
// an optional 0x before hex digits, saturating at the largest value; it
// returns the value and how many bytes were read (0 when no digit was).
func strtoull16(s string) (uint64, int) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && isHex(s[i+2]) {
		i += 2
	}
	begin := i
	var v uint64
	over := false
	for i < len(s) && isHex(s[i]) {
		if v>>60 != 0 {
			over = true
		}
		v = v<<4 | uint64(unhex(s[i]))
		i++
	}
	if i == begin {
		return 0, 0
	}
	if over {
		return ^uint64(0), i
	}
	if neg {
		v = -v
	}
	return v, i
}
