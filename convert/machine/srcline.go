package machine

import (
	"strconv"
	"strings"
	"sync"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/srcline"
	"github.com/perfpt/perfpt/internal/cnum"
)

// a2lFailLimit is perf's A2L_FAIL_LIMIT: after this many failed lookups
// without a success, a DSO's source lines are no longer looked up.
const a2lFailLimit = 123

// dsoSrc is what perf keeps per DSO for addr2line: the addr2line
// "process" (a srcline.File answering as addr2line does, with its state),
// the failure count, and the source lines found per address.
type dsoSrc struct {
	once     sync.Once
	file     *srcline.File
	fails    int
	disabled bool
	recs     []srcline.Record
	cache    map[uint64]string
}

// a2l returns the DSO's addr2line, opened on first use (nil when its
// symbol file cannot be read): perf's dso->a2l, one per DSO for the
// whole session, which inlined frames and source lines share.
func (d *DSO) a2l() *srcline.File {
	d.Symbols()
	src := &d.src
	src.once.Do(func() {
		if d.symsFile != "" {
			src.file, _ = srcline.OpenAddr2line(d.symsFile)
		}
	})
	return src.file
}

// srclineOf mirrors __get_srcline(dso, map__rip_2objdump(map, addr), sym,
// true, true, false, addr) of perf 6.1 built without libbfd (an addr2line
// -i -f subprocess): "file:line" from addr2line's first record with the
// file's base name ("??:0" where addr2line knows the function but not
// the line), else "dso[hexaddr]".
func (d *DSO) srclineOf(l *sample.Loc, full bool) string {
	if d.Name == "" || d.Name[0] == '[' || hasPrefix(d.Name, "/tmp/perf-") {
		return d.srclineFallback(l.Addr)
	}
	d.Symbols()
	src := &d.src
	if src.cache == nil {
		src.fails = 1
		src.cache = map[uint64]string{}
	}
	pc := l.Addr + d.textOffset
	if v, ok := src.cache[pc]; ok {
		return v
	}
	var out string
	if !src.disabled {
		if f := d.a2l(); f != nil {
			var ok bool
			src.recs, ok = f.Addr2line(pc, src.recs[:0])
			if ok {
				file, line := a2lFileLine(src.recs[0].File, src.recs[0].Line)
				out = srclineFromFileline(file, line, full)
				src.fails = 0
			}
		}
		if out == "" && src.fails != 0 {
			src.fails++
			if src.fails > a2lFailLimit {
				// perf stops asking and ends its addr2line process.
				src.disabled = true
				d.closeA2l()
			}
		}
	}
	if out == "" {
		out = d.srclineFallback(pc)
	}
	if len(src.cache) < 1<<20 {
		src.cache[pc] = out
	}
	return out
}

// sourceLine mirrors get_srcline_split(dso, objdump address, &line): the
// file and line of addr2line's first record for the DSO address addr,
// with the failure count srclineOf keeps (perf's a2l_fails and
// has_srcline are the DSO's, shared by both).
func (d *DSO) sourceLine(addr uint64) (string, int, bool) {
	if d.Name == "" || d.Name[0] == '[' || hasPrefix(d.Name, "/tmp/perf-") {
		return "", 0, false
	}
	d.Symbols()
	src := &d.src
	if src.cache == nil {
		src.fails = 1
		src.cache = map[uint64]string{}
	}
	if src.disabled {
		return "", 0, false
	}
	if f := d.a2l(); f != nil {
		var ok bool
		src.recs, ok = f.Addr2line(addr+d.textOffset, src.recs[:0])
		if ok {
			src.fails = 0
			file, line := a2lFileLine(src.recs[0].File, src.recs[0].Line)
			return file, line, true
		}
	}
	if src.fails != 0 {
		if src.fails++; src.fails > a2lFailLimit {
			src.disabled = true
			d.closeA2l()
		}
	}
	return "", 0, false
}

// SourceFile returns the debug information of the file at path as a
// srcline.File: the addr2line of a DSO whose symbol file it is, else one
// opened once (nil when it cannot be read).
func (m *Machine) SourceFile(path string) *srcline.File {
	for _, d := range m.dsos {
		if d.symsFile == path && path != "" {
			if f := d.a2l(); f != nil {
				return f
			}
		}
	}
	if f, ok := m.srcFiles[path]; ok {
		return f
	}
	if m.srcFiles == nil {
		m.srcFiles = map[string]*srcline.File{}
	}
	f, err := srcline.OpenFile(path)
	if err != nil {
		f = nil
	}
	m.srcFiles[path] = f
	return f
}

// closeA2l ends the DSO's addr2line (dso__free_a2l): the next inline
// lookup starts a new one, with a fresh state.
func (d *DSO) closeA2l() {
	if d.src.file != nil {
		d.src.file.Close()
	}
	d.src.file = nil
	d.src.once = sync.Once{}
}

// srclineFromFileline is perf's srcline_from_fileline: "file:line" of
// what addr2line printed, the file's base name unless full
// (srcline_full_filename, perf script's --full-source-path: the path as
// the line table makes it, "./elf/./elf/dl-lookup.c").
func srclineFromFileline(file string, line int, full bool) string {
	if !full {
		file = baseName(file)
	}
	return file + ":" + strconv.Itoa(line)
}

// a2lFileLine mirrors how read_addr2line_record splits addr2line's
// "FILE:LINE" line: the file ends at the first ':' (strchr), the line is
// strtoul(rest, NULL, 0). A file name with a colon (node's JIT code says
// "node:path") gives "node" and line 0, as perf prints it.
func a2lFileLine(file string, line int) (string, int) {
	i := strings.IndexByte(file, ':')
	if i < 0 {
		return file, line
	}
	rest := file[i+1:] + ":"
	if line == 0 {
		rest += "?"
	} else {
		rest += strconv.Itoa(line)
	}
	n, _, _ := cnum.Strtoul(rest, 0)
	return file[:i], int(n)
}

// srclineFallback is __get_srcline's answer when addr2line knew nothing:
// map__srcline passes no symbol, so it is "dso[objdump address]" with the
// dso's short name, a kernel module's "[name]" (dso__set_module_info) even
// when the BUILD_ID table named its DSO by its path.
func (d *DSO) srclineFallback(objAddr uint64) string {
	name := d.module
	if name == "" {
		name = shortName(d.Name)
	}
	return name + "[" + strconv.FormatUint(objAddr, 16) + "]"
}

// shortName is the dso's short_name as dso__set_basename sets it: "[JIT]
// tid N" for a JIT's perf map (sscanf(name, "/tmp/perf-%d.map") == 1, so
// whatever follows the number), the base name otherwise.
func shortName(name string) string {
	rest, ok := strings.CutPrefix(name, "/tmp/perf-")
	if !ok {
		return baseName(name)
	}
	// %d skips white space, takes a sign and at least one digit.
	rest = strings.TrimLeft(rest, " \t\n\v\f\r")
	n := 0
	if n < len(rest) && (rest[n] == '-' || rest[n] == '+') {
		n++
	}
	d := n
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == d {
		return baseName(name)
	}
	tid, err := strconv.ParseInt(rest[:n], 10, 32)
	if err != nil {
		// sscanf's int overflows; perf prints what it wraps to.
		v, _ := strconv.ParseInt(rest[:n], 10, 64)
		tid = int64(int32(v))
	}
	return "[JIT] tid " + strconv.FormatInt(tid, 10)
}

// Srcline implements sample.Resolver.
func (r *Resolver) Srcline(l *sample.Loc) string {
	mp, ok := l.Ref.(*Map)
	if !ok || mp == nil || mp.DSO == nil {
		return ""
	}
	return mp.DSO.srclineOf(l, r.m.FullSrclines)
}

// SourceLine returns the source file and line of l as perf script's
// srccode field finds them (get_srcline_split).
func (r *Resolver) SourceLine(l *sample.Loc) (string, int, bool) {
	mp, ok := l.Ref.(*Map)
	if !ok || mp == nil || mp.DSO == nil {
		return "", 0, false
	}
	return mp.DSO.sourceLine(l.Addr)
}

// baseName is perf's gnu_basename: the part after the last '/', "" for "".
func baseName(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}
