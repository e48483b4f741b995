package symbol

import (
	"strconv"
	"strings"
)

// rustV0 demangles a Rust v0 symbol ("_R...") as perf 6.1 prints it:
// perf's demangle_sym calls libiberty's cplus_demangle (binutils 2.40),
// whose rust_demangle_callback reads v0 names without DMGL_VERBOSE: no
// crate hashes, no const types, the instantiating crate read but not
// printed, a '.' suffix dropped. ok is false where libiberty fails (a
// character other than [_0-9A-Za-z] before any '.', a path that does not
// start with an upper-case tag, anything left over), and perf then keeps
// the mangled name.
//
// ianlancetaylor/demangle reads an identifier's length "0" followed by a
// digit as one number ("00" of two nested closures, "011FIRST_PANIC"),
// where the grammar (and libiberty's parse_ident) ends a number that
// starts with 0 there: it printed "lang_start_internal::{closure#0}::
// {closure#1}::{closure#0}" for libiberty's "{closure#0}::{closure#0}::
// {closure#1}", dropped "()" arguments after such a closure, and failed on
// statics in closures.
func rustV0(name string) (string, bool) {
	if len(name) < 3 || name[0] != '_' || name[1] != 'R' {
		return "", false
	}
	d := v0Demangler{s: name[2:]}
	// Paths always start with an upper-case tag; symbols use only
	// [_0-9A-Za-z] up to a '.' suffix (".llvm.N", ".0"), which is not
	// printed (rust_demangle_callback).
	if c := d.s[0]; c < 'A' || c > 'Z' {
		return "", false
	}
	for i := 0; i < len(d.s); i++ {
		if c := d.s[i]; c == '.' {
			d.s = d.s[:i]
			break
		} else if c != '_' && !isAlnum(c) {
			return "", false
		}
	}
	d.path(true)
	if !d.err && d.pos < len(d.s) {
		// The instantiating crate: read, not printed.
		d.skip = true
		d.path(false)
	}
	if d.err || d.pos != len(d.s) {
		return "", false
	}
	return d.out.String(), true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// v0Demangler is the state of one rustV0 call: the symbol after "_R", the
// read position, the output and libiberty's flags.
type v0Demangler struct {
	s     string
	pos   int
	out   strings.Builder
	err   bool
	skip  bool   // reading without printing (instantiating crate, impl paths)
	paths int    // demangle_path's recursion depth, limited to 1024 as libiberty's
	depth int    // every other recursion, limited so that no input overflows the stack
	steps int    // paths, types and constants read, limited so that no input takes long
	bound uint64 // late-bound lifetimes in scope (bound_lifetime_depth)
}

// v0MaxPaths is libiberty's RUST_MAX_RECURSION_COUNT. v0MaxDepth,
// v0MaxSteps and v0MaxOut bound what libiberty leaves unbounded (types
// nested through backreferences; the work of backreferences followed again
// and again, each up to 1024 paths deep that print nothing; output growing
// through nested backreferences): past them the name is left mangled. The
// longest of the 101,637 v0 names of rustc's own library demangles to
// 10,111 bytes.
const (
	v0MaxPaths = 1024
	v0MaxDepth = 4096
	v0MaxSteps = 1 << 20
	v0MaxOut   = 1 << 18
)

func (d *v0Demangler) peek() byte {
	if d.pos < len(d.s) {
		return d.s[d.pos]
	}
	return 0
}

func (d *v0Demangler) eat(c byte) bool {
	if d.peek() == c {
		d.pos++
		return true
	}
	return false
}

func (d *v0Demangler) next() byte {
	c := d.peek()
	if c == 0 {
		d.err = true
	} else {
		d.pos++
	}
	return c
}

func (d *v0Demangler) print(s string) {
	if d.err || d.skip {
		return
	}
	if d.out.Len()+len(s) > v0MaxOut {
		d.err = true
		return
	}
	d.out.WriteString(s)
}

// integer62 reads a base-62 number ended by "_" ("_" alone is 0, else
// the digits' value plus one), with uint64 wrapping (parse_integer_62).
func (d *v0Demangler) integer62() uint64 {
	if d.eat('_') {
		return 0
	}
	var x uint64
	for !d.err && !d.eat('_') {
		c := d.next()
		x *= 62
		switch {
		case c >= '0' && c <= '9':
			x += uint64(c - '0')
		case c >= 'a' && c <= 'z':
			x += 10 + uint64(c-'a')
		case c >= 'A' && c <= 'Z':
			x += 36 + uint64(c-'A')
		default:
			d.err = true
			return 0
		}
	}
	return x + 1
}

// optInteger62 is 0 without the tag, else 1 + the number after it.
func (d *v0Demangler) optInteger62(tag byte) uint64 {
	if !d.eat(tag) {
		return 0
	}
	return 1 + d.integer62()
}

// hexNibbles reads lower-case hex digits ended by "_": their value
// (shifted out past 64 bits, as libiberty's) and their count.
func (d *v0Demangler) hexNibbles() (uint64, int) {
	var v uint64
	n := 0
	for !d.err && !d.eat('_') {
		c := d.next()
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= uint64(c - '0')
		case c >= 'a' && c <= 'f':
			v |= 10 + uint64(c-'a')
		default:
			d.err = true
			return 0, 0
		}
		n++
	}
	return v, n
}

// v0Ident is an identifier's ASCII part and its punycode insertions.
type v0Ident struct {
	ascii, puny string
	isPuny      bool
}

func (id v0Ident) empty() bool { return id.ascii == "" && !id.isPuny }

// ident reads ["u"] <decimal length> ["_"] <bytes> (parse_ident): a length
// that starts with 0 is 0, the digits after it are the identifier's.
func (d *v0Demangler) ident() v0Ident {
	puny := d.eat('u')
	c := d.next()
	if c < '0' || c > '9' {
		d.err = true
		return v0Ident{}
	}
	n := int(c - '0')
	if c != '0' {
		for p := d.peek(); p >= '0' && p <= '9'; p = d.peek() {
			d.pos++
			if n > len(d.s) {
				continue // too long for the symbol: fails below
			}
			n = n*10 + int(p-'0')
		}
	}
	d.eat('_')
	if n > len(d.s)-d.pos {
		d.err = true
		return v0Ident{}
	}
	s := d.s[d.pos : d.pos+n]
	d.pos += n
	if !puny {
		return v0Ident{ascii: s}
	}
	// The last "_" separates the ASCII part from the insertions.
	i := strings.LastIndexByte(s, '_')
	if i == len(s)-1 { // no insertions (an empty one too)
		d.err = true
		return v0Ident{}
	}
	if i < 0 {
		return v0Ident{puny: s, isPuny: true}
	}
	return v0Ident{ascii: s[:i], puny: s[i+1:], isPuny: true}
}

// printIdent prints an identifier, its punycode decoded as libiberty's
// print_ident does (RFC 3492 with Rust's digits: a-z then 0-9); a delta cut
// short prints nothing of the identifier, a bad digit fails.
func (d *v0Demangler) printIdent(id v0Ident) {
	if d.err || d.skip {
		return
	}
	if !id.isPuny {
		d.print(id.ascii)
		return
	}
	const base, tMin, tMax, skew = 36, 1, 26, 38
	// Code points are kept as libiberty's groups of four UTF-8 bytes, the
	// ASCII part's in the last byte; zero bytes are dropped at the end.
	out := make([][4]byte, 0, len(id.ascii)+len(id.puny))
	for i := 0; i < len(id.ascii); i++ {
		out = append(out, [4]byte{3: id.ascii[i]})
	}
	damp, bias := uint64(700), uint64(72)
	var i uint64
	c := uint32(0x80)
	for p := 0; p < len(id.puny); {
		var delta uint64
		w := uint64(1)
		var k uint64
		for {
			k += base
			t := uint64(0)
			if k >= bias {
				t = k - bias
			}
			t = max(t, tMin)
			t = min(t, tMax)
			if p >= len(id.puny) {
				return
			}
			dc := id.puny[p]
			p++
			var dv uint64
			switch {
			case dc >= 'a' && dc <= 'z':
				dv = uint64(dc - 'a')
			case dc >= '0' && dc <= '9':
				dv = 26 + uint64(dc-'0')
			default:
				d.err = true
				return
			}
			delta += dv * w
			w *= base - t
			if dv < t {
				break
			}
		}
		n := uint64(len(out)) + 1
		i += delta
		c += uint32(i / n)
		i %= n
		var q [4]byte
		if c >= 0x10000 {
			q[0] = byte(0xf0 | c>>18)
		}
		if c >= 0x800 {
			if c < 0x10000 {
				q[1] = byte(0xe0 | (c>>12)&0x3f)
			} else {
				q[1] = byte(0x80 | (c>>12)&0x3f)
			}
		}
		if c < 0x800 {
			q[2] = byte(0xc0 | (c>>6)&0x3f)
		} else {
			q[2] = byte(0x80 | (c>>6)&0x3f)
		}
		q[3] = byte(0x80 | c&0x3f)
		out = append(out, [4]byte{})
		copy(out[i+1:], out[i:])
		out[i] = q
		if p == len(id.puny) {
			break
		}
		i++
		delta /= damp
		damp = 2
		delta += delta / n
		k = 0
		for delta > ((base-tMin)*tMax)/2 {
			delta /= base - tMin
			k += base
		}
		bias = k + ((base-tMin+1)*delta)/(delta+skew)
	}
	var b []byte
	for _, q := range out {
		for _, x := range q {
			if x != 0 {
				b = append(b, x)
			}
		}
	}
	d.print(string(b))
}

// lifetime prints 'a.. for late-bound lifetimes, '_ for 0, '_N past z.
func (d *v0Demangler) lifetime(lt uint64) {
	d.print("'")
	if lt == 0 {
		d.print("_")
		return
	}
	depth := d.bound - lt
	if depth < 26 {
		d.print(string(rune('a' + depth)))
		return
	}
	d.print("_" + strconv.FormatUint(depth, 10))
}

// binder reads an optional G<count> of late-bound lifetimes and prints
// "for<'a, 'b> "; the caller restores d.bound.
func (d *v0Demangler) binder() {
	if d.err {
		return
	}
	n := d.optInteger62('G')
	if n == 0 {
		return
	}
	d.print("for<")
	for i := uint64(0); i < n && !d.err; i++ {
		if i > 0 {
			d.print(", ")
		}
		d.bound++
		d.lifetime(1)
	}
	d.print("> ")
}

// follow reads a backreference and, unless skipping, runs f at its
// position, then comes back.
func (d *v0Demangler) follow(f func()) {
	at := d.integer62()
	if d.skip || d.err {
		return
	}
	if at > uint64(len(d.s)) {
		d.err = true
		return
	}
	back := d.pos
	d.pos = int(at)
	f()
	d.pos = back
}

// enter counts a level of recursion and a step, and fails past
// v0MaxDepth or v0MaxSteps.
func (d *v0Demangler) enter() bool {
	d.depth++
	d.steps++
	if d.depth > v0MaxDepth || d.steps > v0MaxSteps {
		d.err = true
	}
	return !d.err
}

// path is libiberty's demangle_path: inValue prints generic arguments as
// "::<...>", as in an expression.
func (d *v0Demangler) path(inValue bool) {
	if d.err {
		return
	}
	d.paths++
	defer func() { d.paths-- }()
	if d.paths > v0MaxPaths || !d.enter() {
		d.err = true
		return
	}
	defer func() { d.depth-- }()
	switch tag := d.next(); tag {
	case 'C':
		d.optInteger62('s')
		d.printIdent(d.ident())
	case 'N':
		ns := d.next()
		lower, upper := ns >= 'a' && ns <= 'z', ns >= 'A' && ns <= 'Z'
		if !lower && !upper {
			d.err = true
			return
		}
		d.path(inValue)
		dis := d.optInteger62('s')
		id := d.ident()
		if lower {
			if !id.empty() {
				d.print("::")
				d.printIdent(id)
			}
			return
		}
		d.print("::{")
		switch ns {
		case 'C':
			d.print("closure")
		case 'S':
			d.print("shim")
		default:
			d.print(string(rune(ns)))
		}
		if !id.empty() {
			d.print(":")
			d.printIdent(id)
		}
		d.print("#" + strconv.FormatUint(dis, 10) + "}")
	case 'M', 'X', 'Y':
		if tag != 'Y' {
			// The impl's own path is read, not printed.
			d.optInteger62('s')
			was := d.skip
			d.skip = true
			d.path(inValue)
			d.skip = was
		}
		d.print("<")
		d.typ()
		if tag != 'M' {
			d.print(" as ")
			d.path(false)
		}
		d.print(">")
	case 'I':
		d.path(inValue)
		if inValue {
			d.print("::")
		}
		d.print("<")
		for i := 0; !d.err && !d.eat('E'); i++ {
			if i > 0 {
				d.print(", ")
			}
			d.genericArg()
		}
		d.print(">")
	case 'B':
		d.follow(func() { d.path(inValue) })
	default:
		d.err = true
	}
}

func (d *v0Demangler) genericArg() {
	switch {
	case d.eat('L'):
		d.lifetime(d.integer62())
	case d.eat('K'):
		d.constant()
	default:
		d.typ()
	}
}

// v0BasicTypes are the one-letter types (basic_type).
var v0BasicTypes = [256]string{
	'b': "bool", 'c': "char", 'e': "str", 'u': "()", 'a': "i8", 's': "i16", 'l': "i32", 'x': "i64",
	'n': "i128", 'i': "isize", 'h': "u8", 't': "u16", 'm': "u32", 'y': "u64", 'o': "u128", 'j': "usize",
	'f': "f32", 'd': "f64", 'z': "!", 'p': "_", 'v': "...",
}

// typ is libiberty's demangle_type.
func (d *v0Demangler) typ() {
	if d.err || !d.enter() {
		return
	}
	defer func() { d.depth-- }()
	tag := d.next()
	if b := v0BasicTypes[tag]; b != "" {
		d.print(b)
		return
	}
	switch tag {
	case 'R', 'Q':
		d.print("&")
		if d.eat('L') {
			if lt := d.integer62(); lt != 0 {
				d.lifetime(lt)
				d.print(" ")
			}
		}
		if tag == 'Q' {
			d.print("mut ")
		}
		d.typ()
	case 'P', 'O':
		if tag == 'P' {
			d.print("*const ")
		} else {
			d.print("*mut ")
		}
		d.typ()
	case 'A', 'S':
		d.print("[")
		d.typ()
		if tag == 'A' {
			d.print("; ")
			d.constant()
		}
		d.print("]")
	case 'T':
		d.print("(")
		i := 0
		for ; !d.err && !d.eat('E'); i++ {
			if i > 0 {
				d.print(", ")
			}
			d.typ()
		}
		if i == 1 {
			d.print(",")
		}
		d.print(")")
	case 'F':
		bound := d.bound
		d.fnSig()
		d.bound = bound
	case 'D':
		d.print("dyn ")
		bound := d.bound
		d.binder()
		for i := 0; !d.err && !d.eat('E'); i++ {
			if i > 0 {
				d.print(" + ")
			}
			d.dynTrait()
		}
		d.bound = bound
		if !d.eat('L') {
			d.err = true
			return
		}
		if lt := d.integer62(); lt != 0 {
			d.print(" + ")
			d.lifetime(lt)
		}
	case 'B':
		d.follow(d.typ)
	default:
		// A path: back to the tag.
		d.pos--
		d.path(false)
	}
}

// fnSig prints a function pointer type: binder, unsafe, extern "ABI"
// (its '_' back to '-'), parameters and a return type other than ().
func (d *v0Demangler) fnSig() {
	d.binder()
	if d.eat('U') {
		d.print("unsafe ")
	}
	if d.eat('K') {
		abi := "C"
		if !d.eat('C') {
			id := d.ident()
			if id.ascii == "" || id.isPuny {
				d.err = true
				return
			}
			abi = id.ascii
		}
		d.print("extern \"")
		// Each '_' back to '-', as libiberty's loop does it: the
		// character after a replaced '_' is not looked at.
		for i := 0; i < len(abi); i++ {
			if abi[i] == '_' {
				d.print(abi[:i] + "-")
				abi = abi[i+1:]
				i = 0
			}
		}
		d.print(abi + "\" ")
	}
	d.print("fn(")
	for i := 0; !d.err && !d.eat('E'); i++ {
		if i > 0 {
			d.print(", ")
		}
		d.typ()
	}
	d.print(")")
	if !d.eat('u') {
		d.print(" -> ")
		d.typ()
	}
}

// pathOpenGenerics prints a trait's path leaving its "<..." open for
// associated type bindings (demangle_path_maybe_open_generics).
func (d *v0Demangler) pathOpenGenerics() bool {
	if d.err || !d.enter() {
		return false
	}
	defer func() { d.depth-- }()
	open := false
	switch {
	case d.eat('B'):
		d.follow(func() { open = d.pathOpenGenerics() })
	case d.eat('I'):
		d.path(false)
		d.print("<")
		open = true
		for i := 0; !d.err && !d.eat('E'); i++ {
			if i > 0 {
				d.print(", ")
			}
			d.genericArg()
		}
	default:
		d.path(false)
	}
	return open
}

func (d *v0Demangler) dynTrait() {
	if d.err {
		return
	}
	open := d.pathOpenGenerics()
	for !d.err && d.eat('p') {
		if open {
			d.print(", ")
		} else {
			d.print("<")
		}
		open = true
		d.printIdent(d.ident())
		d.print(" = ")
		d.typ()
	}
	if open {
		d.print(">")
	}
}

// constant is libiberty's demangle_const: integers, bools and chars, the
// placeholder "_", backreferences; other constants fail.
func (d *v0Demangler) constant() {
	if d.err || !d.enter() {
		return
	}
	defer func() { d.depth-- }()
	if d.eat('B') {
		d.follow(d.constant)
		return
	}
	switch tag := d.next(); tag {
	case 'p':
		d.print("_")
	case 'h', 't', 'm', 'y', 'o', 'j':
		d.constUint()
	case 'a', 's', 'l', 'x', 'n', 'i':
		if d.eat('n') {
			d.print("-")
		}
		d.constUint()
	case 'b':
		v, n := d.hexNibbles()
		switch {
		case n != 1:
			d.err = true
		case v == 0:
			d.print("false")
		case v == 1:
			d.print("true")
		default:
			d.err = true
		}
	case 'c':
		d.constChar()
	default:
		d.err = true
	}
}

// constUint prints up to 16 hex digits in decimal, more as "0x" and the
// digits as written, one character late as libiberty's
// demangle_const_uint takes them (from the end past the closing '_': the
// first digit is lost, the '_' printed).
func (d *v0Demangler) constUint() {
	v, n := d.hexNibbles()
	switch {
	case d.err:
	case n > 16:
		d.print("0x" + d.s[d.pos-n:d.pos])
	case n > 0:
		d.print(strconv.FormatUint(v, 10))
	default:
		d.err = true
	}
}

// constChar prints a char constant as Rust's debug output, as far as
// libiberty goes: \t \r \n, printable ASCII other than space and '~' as
// itself, anything else \u{hex}.
func (d *v0Demangler) constChar() {
	v, n := d.hexNibbles()
	if d.err || n == 0 || n > 8 {
		d.err = true
		return
	}
	d.print("'")
	switch {
	case v == '\t':
		d.print("\\t")
	case v == '\r':
		d.print("\\r")
	case v == '\n':
		d.print("\\n")
	case v > ' ' && v < '~':
		d.print(string(rune(v)))
	default:
		d.print("\\u{" + strconv.FormatUint(v, 16) + "}")
	}
	d.print("'")
}
