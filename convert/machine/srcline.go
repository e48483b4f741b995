package machine

import (
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/srcline"
)

// a2lFailLimit is perf's A2L_FAIL_LIMIT: after this many failed lookups
// without a success, a DSO's source lines are no longer looked up.
const a2lFailLimit = 123

type dsoSrc struct {
	once     sync.Once
	tab      *srcline.Table
	bfd      *bfdFuncs
	fails    int
	disabled bool
	frames   []srcline.Frame
	cache    map[uint64]string
}

// srclineOf mirrors __get_srcline(dso, map__rip_2objdump(map, addr), sym,
// true, true, false, addr) of perf 6.1 built without libbfd (an addr2line
// -i -f subprocess): "file:line" of the innermost frame with the file's
// base name, "??:0" when only the function is known, else "dso[hexaddr]".
func (d *DSO) srclineOf(l *sample.Loc) string {
	if d.Name == "" || d.Name[0] == '[' {
		return d.srclineFallback(l, l.Addr)
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
		d.srcTable()
		if src.tab != nil {
			src.frames = src.tab.Frames(pc, src.frames[:0])
			if len(src.frames) == 0 && l.Sym != nil {
				// No DWARF for pc, but addr2line names the function from
				// the symbol table: "??:?", which perf prints as nothing.
				out = "??:0"
				if f, ok := src.bfd.file(pc); ok {
					out = baseName(f) + ":0"
				}
				src.fails = 0
			} else if len(src.frames) > 0 {
				// addr2line knew the function: its "file:line" record
				// counts as a success even as "??:?" (perf turns that
				// into "??:0" and prints nothing).
				f := src.frames[0]
				if f.File == "" || f.File == "??" {
					out = "??:0"
				} else {
					out = filepath.Base(f.File) + ":" + strconv.Itoa(f.Line)
				}
				src.fails = 0
			}
		}
		if out == "" && src.fails != 0 {
			src.fails++
			if src.fails > a2lFailLimit {
				src.disabled = true
			}
		}
	}
	if out == "" {
		out = d.srclineFallback(l, pc)
	}
	if len(src.cache) < 1<<20 {
		src.cache[pc] = out
	}
	return out
}

// srclineFallback is __get_srcline's answer when addr2line knew nothing:
// map__srcline passes no symbol, so it is "dso[objdump address]".
func (d *DSO) srclineFallback(l *sample.Loc, objAddr uint64) string {
	return filepath.Base(d.Name) + "[" + strconv.FormatUint(objAddr, 16) + "]"
}

// Srcline implements sample.Resolver.
func (r *Resolver) Srcline(l *sample.Loc) string {
	mp, ok := l.Ref.(*Map)
	if !ok || mp == nil || mp.DSO == nil {
		return ""
	}
	return mp.DSO.srclineOf(l)
}

// baseName is perf's gnu_basename: the part after the last '/', "" for "".
func baseName(path string) string {
	return path[strings.LastIndexByte(path, '/')+1:]
}
