package symbol

import (
	"math/bits"
	"strconv"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// demangleName mirrors perf 6.1's demangle_sym for a user-space ELF symbol
// (util/symbol-elf.c, perf built without libbfd: libiberty's cplus_demangle,
// which detects C++ and Rust legacy and v0 names, then perf's OCaml rule).
// Without params (perf's default, DMGL_NO_OPTS) only the name is printed:
// no parameters, no return type, and whatever follows the mangled name is
// not read (a ".cold" or ".isra.0" clone suffix, an "@VERSION" tail). With
// params (perf -v: DMGL_PARAMS | DMGL_ANSI) the whole name must demangle,
// clone suffixes print as " [clone .cold]", and a version tail makes it fail.
// A name that does not demangle is kept as it is.
func demangleName(name string, params bool) string {
	if len(name) < 3 {
		return name
	}
	if strings.HasPrefix(name, "caml") {
		return ocamlDemangle(name)
	}
	if name[0] != '_' || (name[1] != 'Z' && name[1] != 'R' && !strings.HasPrefix(name, "__Z") && !strings.HasPrefix(name, "_GLOBAL_")) {
		return name
	}
	if out, ok := rustLegacy(name, params); ok {
		return out
	}
	var out string
	var err error
	base, opts := name, []demangle.Option{demangle.NoRust}
	if !params {
		if i := strings.IndexByte(name, '@'); i > 0 {
			base = name[:i]
		}
		opts = append(opts, demangle.NoParams)
	}
	if name[1] == 'R' {
		// libiberty reads v0 names whole, an "@VERSION" tail too.
		if out, ok := rustV0(name); ok {
			return out
		}
		return name
	}
	if strings.HasPrefix(base, "_ZGR") {
		if out, ok := refTemporary(base[4:], params, opts); ok {
			return out
		}
		return name
	}
	inheriting := strings.HasPrefix(base, "_Z") && strings.Contains(base, "CI")
	// "JE" is an empty template argument pack, the only source of the
	// empty arguments libiberty prints its own way (packs, below).
	packs := strings.HasPrefix(base, "_Z") && strings.Contains(base, "JE")
	// "adL_Z" takes the address of a function (addrOfFunction).
	addr := strings.HasPrefix(base, "_Z") && strings.Contains(base, "adL_Z")
	if inheriting || packs || addr {
		out, err = demangleAST(base, opts, inheriting, packs, addr)
	} else {
		out, err = demangle.ToString(base, opts...)
	}
	if err != nil || out == "" {
		return name
	}
	return out
}

// demangleAST demangles a name through its tree, changed where libiberty
// prints it otherwise than ianlancetaylor/demangle: inheriting
// constructors and empty argument packs.
//
// Inheriting constructors (C I1/I2/I4 <base class>): libiberty names them
// after the base class, the last source name it read before (its
// d_ctor_dtor_name makes the constructor of di->last_name, which the base
// class type sets, its template arguments excepted):
// "std::__uniq_ptr_data<...>::__uniq_ptr_impl" where
// ianlancetaylor/demangle prints the class's own name.
//
// Empty argument packs: see emptyArgs; addresses of functions: see
// addrOfFunction.
func demangleAST(name string, opts []demangle.Option, inheriting, packs, addr bool) (string, error) {
	a, err := demangle.ToAST(name, opts...)
	if err != nil {
		return "", err
	}
	b := a.Copy(func(n demangle.AST) demangle.AST {
		switch n := n.(type) {
		case *demangle.Constructor:
			if !inheriting || n.Base == nil {
				return nil
			}
			if bn := lastSourceName(n.Base); bn != nil {
				return &demangle.Constructor{Name: bn}
			}
		case *demangle.Template:
			if args, ok := emptyArgs(n.Args, packs, true); ok {
				return &demangle.Template{Name: n.Name, Args: args}
			}
		case *demangle.FunctionType:
			if args, ok := emptyArgs(n.Args, packs, false); ok {
				return &demangle.FunctionType{Return: n.Return, Args: args, ForLocalName: n.ForLocalName}
			}
		case *demangle.Unary:
			if addr {
				return addrOfFunction(n)
			}
		}
		return nil
	}, func(demangle.AST) bool { return false })
	if b != nil { // nil: nothing changed
		a = b
	}
	out := demangle.ASTToString(a, opts...)
	if packs {
		out = strings.ReplaceAll(out, ", "+droppedComma, "")
	}
	return out, nil
}

// addrOfFunction keeps the type of a function whose address is taken
// ("&(int f<0>(char const*))"), as binutils 2.40's libiberty, which perf
// 6.1 uses, does unless the function's name is a plain qualified name
// ("&A::g"): its d_print_comp drops the argument list of the operand of a
// unary & only when it is a DEMANGLE_COMPONENT_TYPED_NAME of a QUAL_NAME.
// ianlancetaylor/demangle drops it for every function name; wrapping the
// operand in a one-element pack hides it from that rule and prints it
// whole, in the parentheses libiberty gives a typed name. nil: u is left.
func addrOfFunction(u *demangle.Unary) demangle.AST {
	op, ok := u.Op.(*demangle.Operator)
	if !ok || op.Name != "&" || u.Suffix {
		return nil
	}
	t, ok := u.Expr.(*demangle.Typed)
	if !ok {
		return nil
	}
	if _, ok := t.Type.(*demangle.FunctionType); !ok {
		return nil
	}
	if _, ok := t.Name.(*demangle.Qualified); ok {
		return nil
	}
	return &demangle.Unary{Op: u.Op, Expr: &demangle.ArgumentPack{Args: []demangle.AST{t}}, SizeofType: u.SizeofType}
}

// droppedComma marks where libiberty wrote ", " and took it back (a byte
// no demangled name has).
const droppedComma = "\x00"

// emptyArgs rewrites an argument list (a template's or a function's) that
// holds empty argument packs so that ianlancetaylor/demangle, which skips
// them, prints it as libiberty's d_print_comp prints its right-nested
// DEMANGLE_COMPONENT_TEMPLATE_ARGLIST / ARGLIST: before each argument but
// the first it writes ", ", prints the rest of the list, and takes the
// ", " back only when the rest printed nothing. So an empty pack before a
// non-empty argument still has its comma ("f<, int>", "thread<F, , void>"),
// empty packs at the end vanish, and then d_last_char is still the ' ' of
// the comma taken back, so a template whose last printed argument ends in
// '>' closes with ">>", not libiberty's usual "> >" (droppedComma keeps
// the library from adding the space). ok is false when nothing changes.
func emptyArgs(args []demangle.AST, packs, template bool) ([]demangle.AST, bool) {
	if !packs {
		return nil, false
	}
	last, empty := -1, false
	for i, a := range args {
		if emptyArg(a) {
			empty = true
		} else {
			last = i
		}
	}
	if !empty || last < 0 {
		return nil, false // no pack, or nothing printed at all: the same
	}
	out := make([]demangle.AST, 0, last+2)
	for _, a := range args[:last+1] {
		if emptyArg(a) {
			a = &demangle.Name{Name: ""}
		}
		out = append(out, a)
	}
	if template && last < len(args)-1 {
		out = append(out, &demangle.Name{Name: droppedComma})
	}
	return out, true
}

// emptyArg mirrors ianlancetaylor/demangle's printState.isEmpty: an
// argument that prints nothing.
func emptyArg(a demangle.AST) bool {
	switch a := a.(type) {
	case *demangle.ArgumentPack:
		for _, x := range a.Args {
			if !emptyArg(x) {
				return false
			}
		}
		return true
	case *demangle.ExprList:
		return len(a.Exprs) == 0
	case *demangle.PackExpansion:
		return a.Pack != nil && emptyArg(a.Base)
	}
	return false
}

// lastSourceName is the unqualified name of a class type, without its
// template arguments; nil for other types.
func lastSourceName(a demangle.AST) demangle.AST {
	for i := 0; i < 64; i++ {
		switch t := a.(type) {
		case *demangle.Template:
			a = t.Name
		case *demangle.Qualified:
			a = t.Name
		case *demangle.Name:
			return t
		default:
			return nil
		}
	}
	return nil
}

// rustLegacy demangles a Rust name of the legacy mangling: _ZN, then
// length-prefixed identifiers, the last one "h" and 16 hex digits (with at
// least 5 distinct digits, the heuristic libiberty's rust-demangle.c and
// rustc-demangle share), then E, maybe followed by a "." suffix
// (".llvm.1234") that is ignored. The hash is not printed; identifiers
// lose a "_" before a "$" escape, escapes ($LT$, $u7e$, ...) are decoded
// and ".." is "::". Unlike ianlancetaylor/demangle's legacy path, an
// identifier's length is never followed by a separating "_" (that is v0
// only), so "28__rust_begin_short_backtrace" keeps both underscores, as
// perf prints it. A name that is not legacy Rust gives false.
func rustLegacy(name string, params bool) (string, bool) {
	if !strings.HasPrefix(name, "_ZN") {
		return "", false
	}
	r := name
	if strings.IndexByte(r, '.') < 0 {
		// no "E." (the usual case, found fast)
		if i := strings.IndexByte(r, '@'); i > 0 && !params {
			r = r[:i]
		}
	} else if i := strings.LastIndex(r, "E."); i > 0 {
		r = r[:i+1]
	} else if i := strings.IndexByte(r, '@'); i > 0 && !params {
		r = r[:i]
	}
	if len(r) < 24 || r[len(r)-1] != 'E' || r[len(r)-20:len(r)-17] != "17h" {
		return "", false
	}
	var seen uint16
	for _, c := range []byte(r[len(r)-17 : len(r)-1]) {
		if !isHex(c) || c >= 'A' && c <= 'F' {
			return "", false
		}
		seen |= 1 << unhex(c)
	}
	if bits.OnesCount16(seen) < 5 {
		return "", false
	}
	rest := r[3 : len(r)-20]
	var b strings.Builder
	for len(rest) > 0 {
		n := 0
		for len(rest) > 0 && rest[0] >= '0' && rest[0] <= '9' {
			n = n*10 + int(rest[0]-'0')
			if n > len(name) {
				return "", false
			}
			rest = rest[1:]
		}
		if n == 0 || n > len(rest) {
			return "", false
		}
		id := rest[:n]
		rest = rest[n:]
		if b.Len() > 0 {
			b.WriteString("::")
		}
		if strings.HasPrefix(id, "_$") {
			id = id[1:]
		}
		writeRustLegacyIdent(&b, id)
	}
	return b.String(), true
}

// rustEscapes are the legacy mangling's $XX$ escapes.
var rustEscapes = map[string]byte{"SP": '@', "BP": '*', "RF": '&', "LT": '<', "GT": '>', "LP": '(', "RP": ')'}

func writeRustLegacyIdent(b *strings.Builder, id string) {
	for len(id) > 0 {
		switch {
		case id[0] == '$':
			if len(id) > 2 && id[1] == 'C' && id[2] == '$' {
				b.WriteByte(',')
				id = id[3:]
				continue
			}
			if len(id) > 4 && id[1] == 'u' && id[4] == '$' && isHex(id[2]) && isHex(id[3]) {
				if c := unhex(id[2])<<4 | unhex(id[3]); c >= ' ' && c < 0x80 {
					b.WriteByte(c)
					id = id[5:]
					continue
				}
			}
			if len(id) > 3 && id[3] == '$' {
				if c, ok := rustEscapes[id[1:3]]; ok {
					b.WriteByte(c)
					id = id[4:]
					continue
				}
			}
			// Not an escape: the rest as it is.
			b.WriteString(id)
			return
		case strings.HasPrefix(id, ".."):
			b.WriteString("::")
			id = id[2:]
		default:
			b.WriteByte(id[0])
			id = id[1:]
		}
	}
}

// Demangle is perf's demangling of a user-space symbol name without
// parameters (its default), for names read elsewhere than a symbol table
// (DWARF linkage names).
func Demangle(name string) string { return demangleName(name, false) }

// ocamlDemangle mirrors perf's ocaml_demangle_sym: a name "caml" followed
// by an upper-case letter loses the prefix, "__" becomes "." and "$xx" the
// character with hex code xx.
func ocamlDemangle(name string) string {
	if len(name) < 5 || name[4] < 'A' || name[4] > 'Z' {
		return name
	}
	var b strings.Builder
	for i := 4; i < len(name); {
		switch {
		case name[i] == '_' && i+1 < len(name) && name[i+1] == '_':
			b.WriteByte('.')
			i += 2
		case name[i] == '$' && i+2 < len(name) && isHex(name[i+1]) && isHex(name[i+2]):
			b.WriteByte(unhex(name[i+1])<<4 | unhex(name[i+2]))
			i += 3
		default:
			b.WriteByte(name[i])
			i++
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// DemangleName demangles a user-space name as o wants symbol names
// (perf's dso__demangle_sym): for names read elsewhere than a symbol
// table, such as addr2line's function names.
func (o *Options) DemangleName(name string) string {
	if dm := o.demangler(); dm != nil {
		return dm(name)
	}
	return name
}

// KernelDemangler returns how o wants a kernel ELF's symbol names: nil
// (kept as they are, perf's default) or, with --demangle-kernel,
// demangleName with o's params (perf's demangle_sym for a kernel DSO).
func (o *Options) KernelDemangler() func(string) string {
	if o == nil || !o.DemangleKernel {
		return nil
	}
	params := o.DemangleParams
	return func(name string) string { return demangleName(name, params) }
}

// demangler returns how o wants user-space symbol names: nil (kept as
// they are, perf's --no-demangle) or demangleName with o's params.
func (o *Options) demangler() func(string) string {
	if o != nil && o.NoDemangle {
		return nil
	}
	params := o != nil && o.DemangleParams
	return func(name string) string { return demangleName(name, params) }
}

// refTemporary demangles the rest of a reference temporary's name
// ("_ZGR" <name> [<number>] ...) as binutils 2.40's libiberty does
// (d_special_name's 'R' case, perf 6.1's): "reference temporary #N for
// NAME", N a decimal number read right after the name ("n" for a minus),
// 0 when there is none; a local name ("Z...E") first takes its
// discriminator ('_' and a number, d_discriminator); anything left over
// is ignored unless params (DMGL_PARAMS), which then fails. The name is
// the shortest prefix that demangles and is not followed by template
// arguments. ianlancetaylor/demangle reads a base-36 sequence id and a
// closing '_', prints no number and failed on local names: node's
// "_ZGRZN7simdutf8internal...E33available_implementation_pointers_".
func refTemporary(s string, params bool, opts []demangle.Option) (string, bool) {
	for k := 1; k <= len(s); k++ {
		if k < len(s) && s[k] == 'I' {
			continue
		}
		name, err := demangle.ToString("_Z"+s[:k], opts...)
		if err != nil || name == "" {
			continue
		}
		rest := s[k:]
		if s[0] == 'Z' && strings.HasPrefix(rest, "_") {
			rest = rest[1:]
			under := 1
			if strings.HasPrefix(rest, "_") {
				rest, under = rest[1:], 2
			}
			d, n := decimal(rest)
			rest = rest[n:]
			if d < 0 {
				return "", false
			}
			if under > 1 && d >= 10 {
				if !strings.HasPrefix(rest, "_") {
					return "", false
				}
				rest = rest[1:]
			}
		}
		d, n := decimal(rest)
		if params && n < len(rest) {
			return "", false
		}
		return "reference temporary #" + strconv.Itoa(d) + " for " + name, true
	}
	return "", false
}

// decimal is libiberty's d_number: an optional 'n' (minus), then decimal
// digits; the value and the bytes read.
func decimal(s string) (int, int) {
	i, neg := 0, false
	if strings.HasPrefix(s, "n") {
		i, neg = 1, true
	}
	v := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		v = v*10 + int(s[i]-'0')
	}
	if neg {
		v = -v
	}
	return v, i
}
