package symbol

import (
	"bufio"
	"bytes"
	"debug/elf"
	"io"
	"os"
	"strconv"
	"strings"
)

// KernelSymbols is the kernel's symbol table from a kallsyms file, split
// as perf splits it: the core kernel's symbols and each module's.
type KernelSymbols struct {
	Kernel  *Table
	Modules map[string]*Table // by module name, without brackets
	// Text is the address of _text (the start of perf's kernel map when
	// the recording has no kernel MMAP).
	Text uint64
}

// LoadKallsyms reads a /proc/kallsyms-format file the way perf's
// dso__load_kallsyms does: T/W/D/B symbols (either case) of size zero,
// then end fix-ups (a symbol ends where the next starts; the last core
// symbol before the modules ends a page later) and duplicate removal.
func LoadKallsyms(path string) (*KernelSymbols, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseKallsyms(f)
}

// ParseKallsyms is LoadKallsyms on a reader.
func ParseKallsyms(r io.Reader) (*KernelSymbols, error) {
	ks := &KernelSymbols{Modules: map[string]*Table{}}
	type entry struct {
		s   Symbol
		mod string
	}
	var all []entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		// "addr type name[\t[module]]"
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 || sp+3 > len(line) {
			continue
		}
		addr, err := strconv.ParseUint(string(line[:sp]), 16, 64)
		if err != nil {
			continue
		}
		typ := line[sp+1]
		name := string(line[sp+3:])
		mod := ""
		if i := strings.IndexByte(name, '\t'); i >= 0 {
			mod = strings.Trim(name[i+1:], "[]")
			name = name[:i]
		}
		if name == "_text" && mod == "" && ks.Text == 0 {
			ks.Text = addr
		}
		u := typ &^ 0x20
		if u != 'T' && u != 'W' && u != 'D' && u != 'B' {
			continue
		}
		bind := elf.STB_GLOBAL
		switch {
		case typ == 'W' || typ == 'w':
			bind = elf.STB_WEAK
		case typ >= 'a' && typ <= 'z':
			bind = elf.STB_LOCAL
		}
		st := elf.STT_FUNC
		if u == 'D' || u == 'B' {
			st = elf.STT_OBJECT
		}
		all = append(all, entry{Symbol{Start: addr, End: addr, Name: name, Bind: bind, Type: st}, mod})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// perf builds one tree for everything, fixes ends (with the module
	// rule) and duplicates, then moves module symbols to their maps.
	t := &Table{}
	syms := make([]Symbol, len(all))
	mods := map[uint64][]string{}
	for i := range all {
		syms[i] = all[i].s
		if all[i].mod != "" {
			syms[i].Name = all[i].s.Name + "\x00" + all[i].mod
			mods[all[i].s.Start] = append(mods[all[i].s.Start], all[i].mod)
		}
	}
	t.insert(syms)
	tr := t.tree
	prev := tr.first()
	if prev != nilNode {
		for x := tr.next(prev); x != nilNode; x = tr.next(x) {
			p := &tr.n[prev].sym
			if p.End == p.Start {
				if isMod(p.Name) != isMod(tr.n[x].sym.Name) {
					p.End = roundUp(p.End+4096, 4096)
				} else {
					p.End = tr.n[x].sym.Start
				}
			}
			prev = x
		}
		if last := &tr.n[prev].sym; last.End == last.Start {
			last.End = roundUp(last.Start, 4096) + 4096
		}
	}
	t.fixupDuplicate()
	core := &Table{tree: newRBTree()}
	byMod := map[string]*Table{}
	for x := tr.first(); x != nilNode; x = tr.next(x) {
		s := tr.n[x].sym
		if i := strings.IndexByte(s.Name, 0); i >= 0 {
			mod := s.Name[i+1:]
			s.Name = s.Name[:i]
			mt := byMod[mod]
			if mt == nil {
				mt = &Table{tree: newRBTree()}
				byMod[mod] = mt
			}
			mt.tree.insert(s)
			continue
		}
		core.tree.insert(s)
	}
	core.finish()
	ks.Kernel = core
	for m, mt := range byMod {
		mt.finish()
		ks.Modules[m] = mt
	}
	return ks, nil
}

func isMod(name string) bool { return strings.IndexByte(name, 0) >= 0 }
