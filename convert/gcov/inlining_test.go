package gcov

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// At -O2 gcov counts the --coverage build, not the binary traced. gcc
// instruments after early inlining and early optimisation, where both
// builds are the same, but the counters change what the IPA inliner and
// the later passes do. inlineShapes says, per source function, how it
// ended up in a binary, so that the tests can tell the lines of functions
// whose inlining is the same in both builds from those where it is not.

// srcFn names a source function: its declaration's file (base name), line
// and name. The instances of a template share one.
type srcFn struct {
	file string
	line int
	name string
}

// fnShape is how one source function ended up in a binary: its
// out-of-line copies (clones count apart), what was inlined into them
// (with the depth and call site of each inlined instance) and where it was
// itself inlined.
type fnShape struct {
	outOfLine []string
	inlines   []string
	sites     []string
}

func (s *fnShape) equal(o *fnShape) bool {
	return slices.Equal(s.outOfLine, o.outOfLine) && slices.Equal(s.inlines, o.inlines) && slices.Equal(s.sites, o.sites)
}

// inlineShapes reads the shapes of every function of bin from its DWARF.
func inlineShapes(t testing.TB, bin string) map[srcFn]*fnShape {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		t.Fatal(err)
	}
	syms := funcSymbols(f)
	shapes := map[srcFn]*fnShape{}
	get := func(id srcFn) *fnShape {
		s := shapes[id]
		if s == nil {
			s = &fnShape{}
			shapes[id] = s
		}
		return s
	}
	r := d.Reader()
	for {
		cu, err := r.Next()
		if err != nil || cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		var files []*dwarf.LineFile
		if lr, err := d.LineReader(cu); err == nil && lr != nil {
			files = lr.Files()
		}
		// id follows abstract_origin and specification to the
		// declaration.
		var id func(e *dwarf.Entry, depth int) srcFn
		id = func(e *dwarf.Entry, depth int) srcFn {
			var out srcFn
			if n, ok := e.Val(dwarf.AttrName).(string); ok {
				out.name = n
			}
			if l, ok := e.Val(dwarf.AttrDeclLine).(int64); ok {
				out.line = int(l)
			}
			if fi, ok := e.Val(dwarf.AttrDeclFile).(int64); ok && int(fi) < len(files) && files[fi] != nil {
				out.file = filepath.Base(files[fi].Name)
			}
			for _, a := range []dwarf.Attr{dwarf.AttrAbstractOrigin, dwarf.AttrSpecification} {
				off, ok := e.Val(a).(dwarf.Offset)
				if !ok || depth > 8 {
					continue
				}
				rr := d.Reader()
				rr.Seek(off)
				if o, err := rr.Next(); err == nil && o != nil {
					in := id(o, depth+1)
					if out.name == "" {
						out.name = in.name
					}
					if out.line == 0 {
						out.line, out.file = in.line, in.file
					}
				}
			}
			return out
		}
		// The stack of enclosing functions: out-of-line at the bottom,
		// inlined instances above it (zero ids for other scopes).
		type frame struct {
			fn   srcFn
			isFn bool
		}
		var stack []frame
		root := func() *frame {
			for i := range stack {
				if stack[i].isFn {
					return &stack[i]
				}
			}
			return nil
		}
		inner := func() *frame {
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].isFn {
					return &stack[i]
				}
			}
			return nil
		}
		if !cu.Children {
			continue
		}
		for depth := 1; depth > 0; {
			e, err := r.Next()
			if err != nil || e == nil {
				break
			}
			if e.Tag == 0 {
				if depth--; depth > 0 {
					stack = stack[:len(stack)-1]
				}
				continue
			}
			fr := frame{}
			switch e.Tag {
			case dwarf.TagSubprogram:
				if rs, err := d.Ranges(e); err == nil && len(rs) > 0 {
					fr = frame{fn: id(e, 0), isFn: true}
					name := fr.fn.name
					if s, ok := syms[rs[0][0]]; ok {
						name = s // clones: name.constprop.0, name.isra.0
					}
					get(fr.fn).outOfLine = append(get(fr.fn).outOfLine, name)
				}
			case dwarf.TagInlinedSubroutine:
				fr = frame{fn: id(e, 0), isFn: true}
				cl, _ := e.Val(dwarf.AttrCallLine).(int64)
				cc, _ := e.Val(dwarf.AttrCallColumn).(int64)
				if rt, in := root(), inner(); rt != nil && in != nil {
					n := 0
					for i := range stack {
						if stack[i].isFn {
							n++
						}
					}
					s := get(rt.fn)
					s.inlines = append(s.inlines, fmt.Sprintf("%d %s:%d@%d:%d", n, fr.fn.name, fr.fn.line, cl, cc))
					o := get(fr.fn)
					o.sites = append(o.sites, fmt.Sprintf("%s:%d@%d:%d", in.fn.name, in.fn.line, cl, cc))
				}
			}
			if e.Children {
				stack = append(stack, fr)
				depth++
			}
		}
	}
	for _, s := range shapes {
		sort.Strings(s.outOfLine)
		sort.Strings(s.inlines)
		sort.Strings(s.sites)
	}
	return shapes
}

// sameInlining compares the shapes of two builds of one program: it
// returns, per source file (base name), the declaration lines of the
// functions whose shape is the same in both, and the names of those whose
// shape differs.
func sameInlining(plain, cov map[srcFn]*fnShape) (same map[string][]int, differ []string) {
	same = map[string][]int{}
	keys := map[srcFn]bool{}
	for k := range plain {
		keys[k] = true
	}
	for k := range cov {
		keys[k] = true
	}
	// One verdict per declaration line: template instances, overloads
	// and lambdas declared on one line share their lines.
	type declKey struct {
		file string
		line int
	}
	verdict := map[declKey]bool{}
	for k := range keys {
		if k.line == 0 || k.file == "" {
			continue
		}
		a, b := plain[k], cov[k]
		ok := a != nil && b != nil && a.equal(b) || a == nil && b == nil
		dk := declKey{k.file, k.line}
		if v, seen := verdict[dk]; !seen || v {
			verdict[dk] = ok
		}
		if !ok {
			differ = append(differ, fmt.Sprintf("%s:%d %s", k.file, k.line, k.name))
		}
	}
	for dk, ok := range verdict {
		if ok {
			same[dk.file] = append(same[dk.file], dk.line)
		}
	}
	for _, ls := range same {
		sort.Ints(ls)
	}
	sort.Strings(differ)
	return same, differ
}

// declsOf returns every function declaration line per file (base name) in
// shapes: a source line belongs to the last one at or before it.
func declsOf(shapes ...map[srcFn]*fnShape) map[string][]int {
	set := map[string]map[int]bool{}
	for _, m := range shapes {
		for k := range m {
			if k.line == 0 || k.file == "" {
				continue
			}
			if set[k.file] == nil {
				set[k.file] = map[int]bool{}
			}
			set[k.file][k.line] = true
		}
	}
	out := map[string][]int{}
	for f, ls := range set {
		for l := range ls {
			out[f] = append(out[f], l)
		}
		sort.Ints(out[f])
	}
	return out
}

// lineFilter says whether line n of file (base name) belongs to a function
// whose inlining is the same in both builds.
func lineFilter(decls, same map[string][]int) func(file string, n int) bool {
	return func(file string, n int) bool {
		ds := decls[file]
		i := sort.SearchInts(ds, n+1) - 1
		if i < 0 {
			return false
		}
		_, found := slices.BinarySearch(same[file], ds[i])
		return found
	}
}

// rowLines returns the lines (file base name and line) that have a row in
// the line table of bin: a line without one left no trace of its own in
// the code.
func rowLines(t testing.TB, bin string) map[string]map[int]bool {
	t.Helper()
	p, err := Load(bin)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[int]bool{}
	for _, r := range p.Table.Rows() {
		if r.EndSeq {
			continue
		}
		f := filepath.Base(p.Table.FileName(r.File))
		if out[f] == nil {
			out[f] = map[int]bool{}
		}
		out[f][int(r.Line)] = true
	}
	return out
}

// shapeSummary lists differing functions for the log.
func shapeSummary(differ []string) string {
	if len(differ) == 0 {
		return "none"
	}
	return strings.Join(differ, ", ")
}
