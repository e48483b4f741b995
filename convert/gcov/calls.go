package gcov

import (
	"debug/dwarf"
	"debug/elf"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// noFakeFuncs are library functions after whose calls gcc adds no fake
// edge to the function's exit, so gcov prints no "call" line for them and
// the call does not end a block: gcc's builtins that cannot throw (memory
// and string functions, malloc and free, math functions) and functions
// declared const or pure (need_fake_edge_p in gcc's tree-cfg.cc). The list
// is gcc 12's verdict, found by compiling a call to each with --coverage
// and reading gcov -b's output, in C and C++ alike.
var noFakeFuncs = map[string]bool{}

// returnsTwiceFuncs are the library functions that return twice (gcc's
// ECF_RETURNS_TWICE): their call starts a block, and gcc adds an
// abnormal dispatcher block after it.
var returnsTwiceFuncs = map[string]bool{"setjmp": true, "_setjmp": true, "__sigsetjmp": true,
	"sigsetjmp": true, "savectx": true, "vfork": true, "getcontext": true}

// noReturnFuncs are library functions that never return: gcc ends the
// block at their call, with only a fake edge to the exit (gcov prints a
// call line, returned 0%).
var noReturnFuncs = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`
		acos asin atan atan2 cos sin tan cosh sinh tanh acosh asinh atanh exp exp2 expm1 exp10
		log log10 log1p log2 logb pow sqrt cbrt hypot fabs floor ceil round lround llround
		trunc rint lrint llrint nearbyint fmod remainder fmin fmax fdim fma copysign erf erfc
		tgamma lgamma ldexp scalbn scalbln ilogb nextafter frexp modf nan
		strlen strnlen strcmp strncmp strchr strrchr strstr strspn strcspn strpbrk memcmp memchr
		strcasecmp strncasecmp strcoll index rindex rawmemchr strchrnul strcasestr memrchr
		memcpy memmove memset mempcpy strcpy strncpy strcat strncat stpcpy stpncpy strdup strndup
		bzero bcopy bcmp strftime wcslen iswalpha ffs
		sprintf snprintf vsprintf vsnprintf sscanf __isoc99_sscanf vsscanf __isoc99_vsscanf
		malloc calloc realloc free posix_memalign aligned_alloc
		atoi atol atoll atof abs labs llabs div ldiv lldiv
		__ctype_b_loc __ctype_tolower_loc __ctype_toupper_loc __errno_location tolower toupper
		isalnum isalpha isascii isblank iscntrl isdigit isgraph islower isprint ispunct isspace isupper
		isxdigit toascii`) {
		noFakeFuncs[n] = true
		noFakeFuncs[n+"f"] = true
		noFakeFuncs[n+"l"] = true
	}
	for _, n := range strings.Fields(`exit _exit _Exit quick_exit abort __assert_fail longjmp siglongjmp
		_longjmp __longjmp_chk pthread_exit __stack_chk_fail __cxa_throw __cxa_rethrow
		__cxa_bad_cast __cxa_bad_typeid __cxa_throw_bad_array_new_length _Unwind_Resume
		__cxa_pure_virtual err errx verr verrx`) {
		noReturnFuncs[n] = true
	}
}

// pltNames maps the address of each PLT entry of f to the name of the
// function it calls, from .rela.plt (entries follow PLT0 in .plt, or start
// at .plt.sec when the binary has one).
func pltNames(f *elf.File) map[uint64]string {
	rela := f.Section(".rela.plt")
	if rela == nil || f.Class != elf.ELFCLASS64 {
		return nil
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return nil
	}
	data, err := rela.Data()
	if err != nil {
		return nil
	}
	base, step := uint64(0), uint64(16)
	if s := f.Section(".plt.sec"); s != nil {
		base = s.Addr
	} else if s := f.Section(".plt"); s != nil {
		base = s.Addr + 16
	} else {
		return nil
	}
	out := map[uint64]string{}
	for i := 0; (i+1)*24 <= len(data); i++ {
		info := f.ByteOrder.Uint64(data[i*24+8:])
		si := int(info >> 32)
		if si < 1 || si > len(syms) {
			continue
		}
		out[base+uint64(i)*step] = syms[si-1].Name
	}
	return out
}

// markCalls flags direct calls through the PLT to noFakeFuncs (pure) and
// to noReturnFuncs (noReturn).
func (p *Program) markCalls(f *elf.File) {
	names := pltNames(f)
	if len(names) == 0 {
		return
	}
	var libCalls map[string][]int // C++ library functions -> their calls
	defer func() {
		noexcept, pure := p.libraryDecls(f, libCalls)
		for name := range noexcept {
			for _, i := range libCalls[name] {
				p.insns[i].throws = false
			}
		}
		for name := range pure {
			for _, i := range libCalls[name] {
				p.insns[i].pure = true
			}
		}
	}()
	for i := range p.insns {
		in := &p.insns[i]
		if in.kind != kCall {
			continue
		}
		name := names[in.target]
		if at := strings.IndexByte(name, '@'); at > 0 {
			name = name[:at]
		}
		in.pure = noFakeFuncs[name]
		in.noReturn = noReturnFuncs[name]
		in.throws = calleeThrows(name)
		if (in.throws || !in.pure) && strings.HasPrefix(name, "_Z") {
			if libCalls == nil {
				libCalls = map[string][]int{}
			}
			decl := declName(name)
			libCalls[decl] = append(libCalls[decl], i)
		}
		in.dtor = destructorName(name)
		in.raises = raisingFuncs[name]
		in.twice = returnsTwiceFuncs[name]
		in.resume = name == "_Unwind_Resume"
		in.catch = name == "__cxa_begin_catch"
		in.endCatch = name == "__cxa_end_catch"
		in.freeExc = name == "__cxa_free_exception"
	}
}

// markThrows decides which calls may throw, as gcc's C++ front end
// does: a call through a pointer may; a call to a function of the
// program may unless the front end had found that function nothrow when
// it finished the caller's body (finish_function: no throw expression,
// no call of a function not yet found nothrow, wherever a handler or a
// cleanup takes the exception). Handlers do not make a function nothrow,
// only a noexcept specification does (its LSDA leaves the calls it stops
// without a call site, or a filter stops them). A function is not yet
// nothrow while its own body is parsed (recursion), when it is defined
// later in the file, or when it is a template's instance (instantiated at
// the end of the unit) called from code that is not, unless declared
// noexcept (noexceptDecl) or made by the compiler (its exception
// specification is deduced).
func (p *Program) markThrows() {
	for i := range p.insns {
		if p.insns[i].kind == kCallInd {
			p.insns[i].throws = true
		}
	}
	tmpl := make([]bool, len(p.funcs))
	for fi := range p.funcs {
		tmpl[fi] = templateInstance(p.funcs[fi].name)
	}
	// A function declared noexcept is nothrow by its type, whatever its
	// body calls (its calls of functions not yet finished, members
	// defined after it in their class, leave no LSDA when none can
	// really throw).
	declared := make([]bool, len(p.funcs))
	for fi := range p.funcs {
		declared[fi] = p.noexceptDecl(fi)
	}
	// A function defaulted on its declaration (`= default`) has the
	// exception specification of what it calls (deduced, whenever they
	// were finished).
	defaulted := make([]bool, len(p.funcs))
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		defaulted[fi] = declText(p.source(fn.file), fn.startLine, fn.startCol, func(text string) bool {
			return strings.Contains(strings.ReplaceAll(text, " ", ""), "=default")
		})
	}
	qpos := p.instantiationOrder(tmpl)
	// later reports whether callee was not finished before caller.
	later := func(caller, callee int) bool {
		c, f := &p.funcs[callee], &p.funcs[caller]
		switch {
		case callee == caller:
			return true
		case c.artificial || c.closure || destructorName(c.name) || declared[callee] || defaulted[callee] || defaulted[caller]:
			return false
		case tmpl[callee] && tmpl[caller]:
			// Both instantiated at the end of the unit, in the order
			// they were first used.
			return qpos[callee] > qpos[caller]
		case tmpl[callee]:
			return !f.closure
		case tmpl[caller] || f.closure:
			return false
		}
		return c.file == f.file && c.startLine > f.startLine
	}
	may := make([]bool, len(p.funcs))
	for changed := true; changed; {
		changed = false
		for fi := range p.funcs {
			if may[fi] || declared[fi] {
				continue
			}
			fn := &p.funcs[fi]
			_, lsda := p.lpads[fn.low]
			for k := fn.first; k < fn.end; k++ {
				in := &p.insns[k]
				if in.kind != kCall && in.kind != kCallInd {
					continue
				}
				throws := in.throws || in.raises
				if callee, ok := p.lowFn[in.target]; ok && in.kind == kCall {
					throws = may[callee] || later(fi, int(callee))
				}
				if !throws || in.resume {
					continue
				}
				if s, ok := p.site(fn.low, in.addr); ok && s.lp == 0 && s.action != 0 || !ok && lsda {
					continue // a noexcept specification stops it
				}
				may[fi], changed = true, true
				break
			}
		}
	}
	for i := range p.insns {
		in := &p.insns[i]
		if callee, ok := p.lowFn[in.target]; ok && in.kind == kCall {
			in.throws = may[callee]
		}
	}
}

// instantiationOrder returns, for each template instance among the
// program's functions (tmpl), its place in gcc's queue of pending
// instantiations (pt.cc's pending_templates, worked through at the end of
// the unit: an instance is queued when code parsed or instantiated before
// first uses it), and a place after all of them for the other functions.
// The uses are the direct calls, in the order of the functions' code:
// the other functions in the order of their source (headers first), then
// the queue as it grows.
func (p *Program) instantiationOrder(tmpl []bool) []int {
	qpos := make([]int, len(p.funcs))
	for fi := range qpos {
		qpos[fi] = len(p.funcs)
	}
	var queue []int
	uses := func(fi int) {
		fn := &p.funcs[fi]
		for k := fn.first; k < fn.end; k++ {
			in := &p.insns[k]
			if in.kind != kCall {
				continue
			}
			if c, ok := p.lowFn[in.target]; ok && tmpl[c] && qpos[c] == len(p.funcs) {
				qpos[c] = len(queue)
				queue = append(queue, int(c))
			}
		}
	}
	var parsed []int
	for fi := range p.funcs {
		if !tmpl[fi] && !p.funcs[fi].part {
			parsed = append(parsed, fi)
		}
	}
	main := func(fi int) bool { return p.files[p.funcs[fi].file] == p.funcs[fi].unit }
	sort.SliceStable(parsed, func(i, j int) bool {
		a, b := &p.funcs[parsed[i]], &p.funcs[parsed[j]]
		if ma, mb := main(parsed[i]), main(parsed[j]); ma != mb {
			return mb
		}
		if a.file != b.file {
			return a.file < b.file
		}
		return a.startLine < b.startLine
	})
	for _, fi := range parsed {
		uses(fi)
	}
	for i := 0; i < len(queue); i++ {
		uses(queue[i])
	}
	return qpos
}

// templateInstance reports whether the assembler name names an instance
// of a function template or a member of a class template: a component of
// its (nested) name takes template arguments.
func templateInstance(name string) bool {
	s, ok := strings.CutPrefix(name, "_Z")
	if !ok || strings.HasPrefix(s, "Z") {
		return false // C, or a local entity (a lambda's operator())
	}
	nested := strings.HasPrefix(s, "N")
	if nested {
		s = strings.TrimLeft(s[1:], "rVKRO")
	}
	for len(s) > 0 {
		switch c := s[0]; {
		case c >= '0' && c <= '9':
			n := 0
			for len(s) > 0 && s[0] >= '0' && s[0] <= '9' {
				n = n*10 + int(s[0]-'0')
				s = s[1:]
			}
			if n > len(s) {
				return false
			}
			s = s[n:]
		case c == 'S' && len(s) > 1 && (s[1] == 't' || s[1] == 'a' || s[1] == 'b' || s[1] == 's' || s[1] == 'i' || s[1] == 'o' || s[1] == 'd'):
			s = s[2:]
		case c == 'S':
			j := strings.IndexByte(s, '_')
			if j < 0 {
				return false
			}
			s = s[j+1:]
		case c == 'I':
			return true
		default:
			return false
		}
		if !nested {
			return len(s) > 0 && s[0] == 'I'
		}
	}
	return false
}

// noexceptDecl reports whether function fi's declaration in its source
// says noexcept (see noexceptAt).
func (p *Program) noexceptDecl(fi int) bool {
	fn := &p.funcs[fi]
	return noexceptAt(p.source(fn.file), fn.startLine, fn.startCol)
}

// noexceptAt reports whether the declaration at line (column col) of src
// says noexcept (or throw(), or libstdc++'s macros for them), from its
// name to the body's brace or the declaration's semicolon.
func noexceptAt(src []string, line, col int32) bool {
	return declText(src, line, col, func(text string) bool {
		if strings.Contains(text, "noexcept(false)") {
			return false
		}
		for _, w := range []string{"noexcept", "_GLIBCXX_NOEXCEPT", "_GLIBCXX_USE_NOEXCEPT", "_GLIBCXX_NOTHROW"} {
			if strings.Contains(text, w) {
				return true
			}
		}
		// throw (), as glibc and libstdc++ write it too
		i := strings.Index(text, "throw")
		return i >= 0 && strings.HasPrefix(strings.TrimLeft(text[i+5:], " \t"), "()")
	})
}

// declText reports whether match holds for a line of the declaration at
// line (column col) of src, from its name to the body's brace or the
// declaration's semicolon (at most six lines).
func declText(src []string, line, col int32, match func(string) bool) bool {
	if line < 1 || int(line) > len(src) {
		return false
	}
	var off []bool // the enclosing #if groups' conditions are false
	limit := line + 6
	for l := line; l < limit && int(l) <= len(src); l++ {
		text := src[l-1]
		if l == line && col > 1 && int(col) <= len(text) {
			text = text[col-1:]
		}
		if t := strings.TrimSpace(text); strings.HasPrefix(t, "#") {
			// libstdc++ puts some exception specifications under
			// conditions: `#if _GLIBCXX_USE_CXX11_ABI && (__CHAR_BIT__ *
			// __SIZEOF_LONG__) <= 32` before to_string(long)'s noexcept.
			d := strings.Fields(strings.TrimPrefix(t, "#"))
			switch {
			case len(d) > 0 && d[0] == "if":
				v, ok := ppCondition(strings.Join(d[1:], " "))
				off = append(off, ok && !v)
			case len(d) > 0 && d[0] == "else" && len(off) > 0:
				off[len(off)-1] = !off[len(off)-1]
			case len(d) > 0 && d[0] == "endif" && len(off) > 0:
				off = off[:len(off)-1]
			}
			limit++ // the directive does not count among the lines
			continue
		}
		if slices.Contains(off, true) {
			limit++
			continue
		}
		end := strings.IndexAny(text, "{;")
		if end >= 0 {
			text = text[:end]
		}
		if match(text) {
			return true
		}
		if end >= 0 {
			return false
		}
	}
	return false
}

// ppMacros are the values of the macros libstdc++'s declarations test in
// #if conditions around their exception specifications, for x86-64 Linux,
// gcc 12, C++17 (the default).
var ppMacros = map[string]int64{"_GLIBCXX_USE_CXX11_ABI": 1, "__CHAR_BIT__": 8, "__SIZEOF_INT__": 4,
	"__SIZEOF_LONG__": 8, "__SIZEOF_LONG_LONG__": 8, "__cplusplus": 201703}

// ppCondition evaluates an #if condition made of ppMacros, integer
// constants, parentheses, *, comparisons, && and ||; ok is false for
// anything else.
func ppCondition(cond string) (v, ok bool) {
	toks := ppTokens(cond)
	pos := 0
	var expr func(prec int) (int64, bool)
	prim := func() (int64, bool) {
		if pos >= len(toks) {
			return 0, false
		}
		t := toks[pos]
		pos++
		switch {
		case t == "(":
			x, ok := expr(0)
			if !ok || pos >= len(toks) || toks[pos] != ")" {
				return 0, false
			}
			pos++
			return x, true
		case t[0] >= '0' && t[0] <= '9':
			n, err := strconv.ParseInt(strings.TrimRight(t, "uUlL"), 0, 64)
			return n, err == nil
		}
		x, ok := ppMacros[t]
		return x, ok
	}
	precOf := map[string]int{"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, "*": 5}
	expr = func(prec int) (int64, bool) {
		x, ok := prim()
		for ok && pos < len(toks) {
			op := toks[pos]
			p, isOp := precOf[op]
			if !isOp || p <= prec {
				break
			}
			pos++
			var y int64
			if y, ok = expr(p); !ok {
				break
			}
			b := func(c bool) int64 {
				if c {
					return 1
				}
				return 0
			}
			switch op {
			case "||":
				x = b(x != 0 || y != 0)
			case "&&":
				x = b(x != 0 && y != 0)
			case "==":
				x = b(x == y)
			case "!=":
				x = b(x != y)
			case "<":
				x = b(x < y)
			case "<=":
				x = b(x <= y)
			case ">":
				x = b(x > y)
			case ">=":
				x = b(x >= y)
			case "*":
				x *= y
			}
		}
		return x, ok
	}
	x, ok := expr(0)
	if !ok || pos != len(toks) {
		return false, false
	}
	return x != 0, true
}

// ppTokens splits an #if condition into identifiers, numbers and
// operators.
func ppTokens(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case i+1 < len(s) && strings.Contains("&&||<=>===!=", s[i:i+2]) && (s[i:i+2] == "&&" || s[i:i+2] == "||" || s[i+1] == '='):
			toks = append(toks, s[i:i+2])
			i += 2
		default:
			toks = append(toks, s[i:i+1])
			i++
		}
	}
	return toks
}

// declName returns the assembler name of the declaration of the function
// name: a constructor's or destructor's declaration DIE names its
// unified variant (C4, D4) where the calls name the complete or base
// object one (C1, C2, D1, D2).
func declName(name string) string {
	for i := len(name) - 3; i > 2; i-- {
		if (name[i] == 'C' || name[i] == 'D') && (name[i+1] == '1' || name[i+1] == '2') && (name[i+2] == 'E' || name[i+2] == 'I') {
			return name[:i+1] + "4" + name[i+2:]
		}
	}
	return name
}

// libraryDecls returns those of the library functions names (assembler
// names of C++ functions the program calls through the PLT, such as
// std::string's members, which libstdc++ instantiates) whose declaration,
// as the program's DWARF places it in a header (a member's declaration
// DIE: DW_AT_linkage_name, DW_AT_decl_file and DW_AT_decl_line), says
// noexcept, and those it declares pure or const. gcc's front end finds a
// noexcept callee nothrow (TREE_NOTHROW from its exception
// specification), so gcc gives the call no exception arc; after a call
// of a pure or const function gcc adds no fake edge to the exit
// (need_fake_edge_p), so the call ends no block and gcov prints no call
// record for it (_Rb_tree_increment, declared _GLIBCXX_PURE, in
// std::map's iterators' operator++). (A header that cannot be read
// leaves the call throwing and impure.)
func (p *Program) libraryDecls(f *elf.File, names map[string][]int) (noexcept, pure map[string]bool) {
	if len(names) == 0 {
		return nil, nil
	}
	d, err := f.DWARF()
	if err != nil {
		return nil, nil
	}
	noexcept, pure = map[string]bool{}, map[string]bool{}
	seen := map[string]bool{} // names whose declaration was read
	srcs := map[string][]string{}
	r := d.Reader()
	var files []*dwarf.LineFile
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		switch e.Tag {
		case dwarf.TagCompileUnit:
			files = nil
			if lr, err := d.LineReader(e); err == nil && lr != nil {
				files = lr.Files()
			}
			continue
		case dwarf.TagNamespace, dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
			continue // declarations are among their children
		case dwarf.TagSubprogram:
		default:
			r.SkipChildren()
			continue
		}
		r.SkipChildren() // a definition's body or a declaration's parameters
		if decl, _ := e.Val(dwarf.AttrDeclaration).(bool); !decl {
			continue
		}
		name, _ := e.Val(dwarf.AttrLinkageName).(string)
		if _, ok := names[name]; !ok || seen[name] {
			continue
		}
		seen[name] = true
		fileIdx, _ := e.Val(dwarf.AttrDeclFile).(int64)
		line, _ := e.Val(dwarf.AttrDeclLine).(int64)
		col, _ := e.Val(dwarf.AttrDeclColumn).(int64)
		if fileIdx < 0 || int(fileIdx) >= len(files) || files[fileIdx] == nil {
			continue
		}
		path := files[fileIdx].Name
		src, ok := srcs[path]
		if !ok {
			src = p.sourceAt(path)
			srcs[path] = src
		}
		if noexceptAt(src, int32(line), int32(col)) {
			noexcept[name] = true
		}
		if pureAt(src, int32(line), int32(col)) {
			pure[name] = true
		}
		if len(seen) == len(names) {
			break // all found
		}
	}
	return noexcept, pure
}

// pureAttrs are the ways libstdc++ and glibc declare a function pure or
// const (gcc's ECF_PURE, ECF_CONST).
var pureAttrs = []string{"_GLIBCXX_PURE", "_GLIBCXX_CONST", "__attribute_pure__", "__attribute_const__",
	"__pure__", "__const__", "gnu::pure", "gnu::const"}

// pureAt reports whether the declaration whose name is at line (column
// col) of src declares the function pure or const: an attribute before
// the name, on its line or the lines of the declaration before it
// (`_GLIBCXX_PURE _Rb_tree_node_base*` then `_Rb_tree_increment(...)`), or
// after it up to the body or the semicolon (glibc's `__THROW
// __attribute_pure__;`).
func pureAt(src []string, line, col int32) bool {
	has := func(text string) bool {
		for _, a := range pureAttrs {
			if i := strings.Index(text, a); i >= 0 && (a[0] != '_' || a[1] != '_' || a == "__attribute_pure__" ||
				a == "__attribute_const__" || strings.Contains(text[:i], "__attribute__")) {
				return true
			}
		}
		return false
	}
	if line < 1 || int(line) > len(src) {
		return false
	}
	if text := src[line-1]; col > 1 && int(col) <= len(text)+1 && has(text[:col-1]) {
		return true
	}
	// The declaration's lines before the name's: back to the end of
	// the statement, declaration or directive before it.
	for l := line - 1; l >= 1 && l > line-4; l-- {
		t := strings.TrimSpace(src[l-1])
		if t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") || strings.HasSuffix(t, ";") ||
			strings.HasSuffix(t, "}") || strings.HasSuffix(t, "{") || strings.HasSuffix(t, ":") {
			break
		}
		if has(t) {
			return true
		}
	}
	return declText(src, line, col, has)
}
