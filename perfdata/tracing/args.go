package tracing

import (
	"fmt"
	"strconv"

	"github.com/perfpt/perfpt/internal/cnum"
)

// ArgKind is the kind of a print fmt argument node (TEP_PRINT_*).
type ArgKind uint8

const (
	ArgNull        ArgKind = iota // the empty left side of a unary operator
	ArgAtom                       // a number, a string literal or a name
	ArgField                      // REC->name
	ArgFlags                      // __print_flags(Item, Delim, Syms)
	ArgSymbol                     // __print_symbolic(Item, Syms)
	ArgHex                        // __print_hex(Sub[0], Sub[1])
	ArgHexStr                     // __print_hex_str(Sub[0], Sub[1])
	ArgIntArray                   // __print_array(Sub[0], Sub[1], Sub[2])
	ArgType                       // (Atom) Item: a cast
	ArgString                     // __get_str(Name)
	ArgBitmask                    // __get_bitmask(Name)
	ArgDynArray                   // __get_dynamic_array(Name)
	ArgDynArrayLen                // __get_dynamic_array_len(Name)
	ArgOp                         // Left Op Right; "?" has Right an Op ":"; "[" indexes
	ArgFunc                       // a function libtraceevent does not know: never built (parse error)
)

// Arg is a node of a print fmt argument tree.
type Arg struct {
	Kind  ArgKind
	Atom  string // ArgAtom: the text; ArgType: the type
	Name  string // ArgField, ArgString, ArgBitmask, ArgDynArray(Len): the field's name
	Field *Field // the field named (nil when the format has none)
	Op    string
	Left  *Arg
	Right *Arg
	Item  *Arg   // ArgType, ArgFlags, ArgSymbol: the value
	Sub   []*Arg // ArgHex/ArgHexStr: data, length; ArgIntArray: data, count, element size
	Delim string // ArgFlags
	// HasDelim says the flags' delimiter was given.
	HasDelim bool
	Syms     []Sym // ArgFlags, ArgSymbol
	prio     int
}

// Sym is one {value, "string"} pair of __print_flags or __print_symbolic:
// Value as libtraceevent evaluated it at parse time (a number, or a name
// such as HI_SOFTIRQ), Str the string.
type Sym struct{ Value, Str string }

// argParser parses a print fmt's arguments (libtraceevent's process_arg
// and friends), building the same trees, operator-priority rotations
// included.
type argParser struct {
	l *lexer
	f *Format
	p *formatParser
}

func (a *argParser) fail(format string, args ...any) tokType {
	a.p.fail(format, args...)
	return tokError
}

// readPrint reads "print fmt: "..." , args" (event_read_print).
func (p *formatParser) readPrint() {
	if !p.expect(false, tokItem, "print") || !p.expect(true, tokItem, "fmt") || !p.expect(true, tokOp, ":") {
		return
	}
	s, ok := p.expectType(tokDQuote)
	if !ok {
		return
	}
	p.f.PrintFmt = s
	t, tok := p.l.item()
	for t == tokDQuote {
		p.f.PrintFmt += tok
		t, tok = p.l.item()
	}
	if t == tokNone {
		p.oldFtraceArgs()
		return
	}
	if t != tokDelim || tok != "," {
		p.fail("expected \",\" after the print format, read %q", tok)
		return
	}
	a := &argParser{l: &p.l, f: p.f, p: p}
	a.list()
	if p.err == nil && len(p.f.Args) == 0 {
		p.oldFtraceArgs()
	}
}

// oldFtraceArgs gives old ftrace formats without args one per field.
func (p *formatParser) oldFtraceArgs() {
	if !p.f.Ftrace {
		return
	}
	for _, fl := range p.f.Fields {
		p.f.Args = append(p.f.Args, &Arg{Kind: ArgField, Name: fl.Name, Field: fl})
	}
}

// list reads the comma-separated arguments (event_read_print_args).
func (a *argParser) list() {
	t := tokError
	var tok string
	for {
		if t == tokNewline {
			t, _ = a.l.item()
			if t == tokNone {
				return
			}
			continue
		}
		arg := &Arg{}
		t, tok = a.arg(arg)
		if t == tokError {
			return
		}
		a.f.Args = append(a.f.Args, arg)
		if t == tokOp {
			t, _ = a.op(arg, tok)
			if t == tokError {
				a.f.Args = a.f.Args[:len(a.f.Args)-1]
				return
			}
			consolidate(arg)
			if t == tokNone {
				return
			}
			continue
		}
		if t == tokDelim && tok == "," {
			continue
		}
		return
	}
}

func (a *argParser) arg(arg *Arg) (tokType, string) {
	t, tok := a.l.next()
	return a.argToken(arg, t, tok)
}

// argToken is process_arg_token.
func (a *argParser) argToken(arg *Arg, t tokType, tok string) (tokType, string) {
	switch t {
	case tokItem:
		if tok == "REC" {
			return a.entry(arg)
		}
		atom := tok
		t, tok = a.l.item()
		if t == tokDelim && tok == "(" {
			return a.function(arg, atom)
		}
		for t == tokItem {
			atom += " " + tok
			t, tok = a.l.item()
		}
		arg.Kind, arg.Atom = ArgAtom, atom
		return t, tok
	case tokDQuote, tokSQuote:
		arg.Kind, arg.Atom = ArgAtom, tok
		return a.l.item()
	case tokDelim:
		if tok == "(" {
			return a.paren(arg)
		}
		fallthrough
	case tokOp:
		arg.Kind, arg.Op, arg.Left = ArgOp, tok, nil
		return a.op(arg, tok)
	}
	return a.fail("unexpected token %q", tok), ""
}

// entry reads "->field" after REC (process_entry).
func (a *argParser) entry(arg *Arg) (tokType, string) {
	t, tok := a.l.item()
	if t == tokDelim && tok == ")" {
		// "(REC)->field": the caller sees an item ")".
		return tokItem, tok
	}
	if t != tokOp || tok != "->" {
		return a.fail("expected \"->\" after REC, read %q", tok), ""
	}
	t, tok = a.l.next()
	if t != tokItem {
		return a.fail("expected a field name after REC->, read %q", tok), ""
	}
	arg.Kind, arg.Name = ArgField, tok
	arg.Field = a.f.FieldByName(tok)
	return a.l.next()
}

func (a *argParser) paren(arg *Arg) (tokType, string) {
	t, tok := a.arg(arg)
	if t == tokError {
		return t, tok
	}
	if t == tokOp {
		t, tok = a.op(arg, tok)
	}
	if t == tokError {
		return t, tok
	}
	if t == tokItem && tok == ")" {
		return a.entry(arg)
	}
	if t != tokDelim || tok != ")" {
		return a.fail("expected \")\", read %q", tok), ""
	}
	t, tok = a.l.item()
	if t == tokItem || t == tokDQuote || t == tokSQuote || (t == tokDelim && tok == "(") {
		// a cast
		if arg.Kind != ArgAtom {
			return a.fail("a cast needs a type"), ""
		}
		item := &Arg{}
		arg.Kind, arg.Item = ArgType, item
		return a.argToken(item, t, tok)
	}
	return t, tok
}

func opPrio(op string) int {
	if len(op) == 1 {
		switch op[0] {
		case '~', '!':
			return 4
		case '*', '/', '%':
			return 6
		case '+', '-':
			return 7
		case '<', '>':
			return 9
		case '&':
			return 11
		case '^':
			return 12
		case '|':
			return 13
		case '?':
			return 16
		}
		return -1
	}
	switch op {
	case "++", "--":
		return 3
	case ">>", "<<":
		return 8
	case ">=", "<=":
		return 9
	case "==", "!=":
		return 10
	case "&&":
		return 14
	case "||":
		return 15
	}
	return -1
}

var binaryOps = map[string]bool{">>": true, "<<": true, "&": true, "|": true, "&&": true, "||": true,
	"-": true, "+": true, "*": true, "^": true, "/": true, "%": true, "<": true, ">": true,
	"<=": true, ">=": true, "==": true, "!=": true}

// op continues an expression at operator tok (process_op).
func (a *argParser) op(arg *Arg, tok string) (tokType, string) {
	var right *Arg
	var t tokType
	switch {
	case arg.Kind == ArgOp && arg.Left == nil:
		// unary
		if len(tok) != 1 || (tok[0] != '~' && tok[0] != '!' && tok[0] != '+' && tok[0] != '-') {
			return a.fail("bad op token %s", tok), ""
		}
		arg.Left = &Arg{Kind: ArgNull}
		right = &Arg{}
		arg.Right = right
		t, tok = a.arg(right)
	case tok == "?":
		left := &Arg{}
		*left = *arg
		*arg = Arg{Kind: ArgOp, Op: tok, Left: left}
		t, tok = a.cond(arg)
	case binaryOps[tok]:
		left := &Arg{}
		*left = *arg
		*arg = Arg{Kind: ArgOp, Op: tok, Left: left}
		if left.Kind == ArgNull {
			arg.prio = 0
		} else {
			arg.prio = opPrio(tok)
		}
		t, tok = a.l.item()
		if arg.Op == "*" && t == tokDelim && tok == ")" {
			// "(type *)": a pointer type
			if left.Kind != ArgAtom {
				return a.fail("bad pointer type"), ""
			}
			left.Atom += " *"
			*arg = *left
			return t, tok
		}
		right = &Arg{}
		t, tok = a.argToken(right, t, tok)
		if t == tokError {
			return t, tok
		}
		if right.Kind == ArgOp && opPrio(arg.Op) < opPrio(right.Op) {
			// rotate by priority
			arg.Right = right.Left
			*arg, *right = *right, *arg
			arg.Left = right
		} else {
			arg.Right = right
		}
	case tok == "[":
		left := &Arg{}
		*left = *arg
		*arg = Arg{Kind: ArgOp, Op: tok, Left: left}
		t, tok = a.array(arg)
	default:
		return a.fail("unknown op '%s'", tok), ""
	}
	if t == tokOp && tok != ":" {
		if opPrio(tok) > arg.prio {
			return a.op(arg, tok)
		}
		if right == nil {
			// libtraceevent continues on a NULL right here and crashes or
			// fails; fail cleanly.
			return a.fail("unexpected op '%s'", tok), ""
		}
		return a.op(right, tok)
	}
	return t, tok
}

// cond reads "a : b" after '?' (process_cond).
func (a *argParser) cond(top *Arg) (tokType, string) {
	arg := &Arg{Kind: ArgOp, Left: &Arg{}, Right: &Arg{}}
	t, tok := a.arg(arg.Left)
	for t != tokError && t == tokOp && tok != ":" {
		t, tok = a.op(arg.Left, tok)
	}
	if t == tokError {
		return t, tok
	}
	if t != tokOp || tok != ":" {
		return a.fail("expected \":\", read %q", tok), ""
	}
	arg.Op = tok
	t, tok = a.arg(arg.Right)
	top.Right = arg
	return t, tok
}

// array reads "index]" after '[' (process_array).
func (a *argParser) array(top *Arg) (tokType, string) {
	arg := &Arg{}
	t, tok := a.arg(arg)
	if t != tokOp || tok != "]" {
		return a.fail("expected \"]\", read %q", tok), ""
	}
	top.Right = arg
	return a.l.item()
}

// function parses a helper call; name( has been read (process_function).
func (a *argParser) function(arg *Arg, name string) (tokType, string) {
	switch name {
	case "__print_flags":
		return a.flags(arg)
	case "__print_symbolic":
		return a.symbols(arg)
	case "__print_hex":
		return a.subArgs(arg, ArgHex, 2)
	case "__print_hex_str":
		return a.subArgs(arg, ArgHexStr, 2)
	case "__print_array":
		return a.subArgs(arg, ArgIntArray, 3)
	case "__get_str", "__get_rel_str":
		return a.named(arg, ArgString)
	case "__get_bitmask", "__get_rel_bitmask":
		return a.named(arg, ArgBitmask)
	case "__get_dynamic_array", "__get_rel_dynamic_array":
		return a.dynArray(arg)
	case "__get_dynamic_array_len", "__get_rel_dynamic_array_len":
		return a.dynArrayLen(arg)
	case "__builtin_expect":
		return a.builtinExpect(arg)
	}
	// perf registers no print functions (it loads no plugins).
	return a.fail("function %s not defined", name), ""
}

// fieldArg reads a whole expression up to a delimiter
// (process_field_arg).
func (a *argParser) fieldArg(arg *Arg) (tokType, string) {
	t, tok := a.arg(arg)
	for t == tokOp {
		t, tok = a.op(arg, tok)
	}
	return t, tok
}

func (a *argParser) flags(arg *Arg) (tokType, string) {
	*arg = Arg{Kind: ArgFlags}
	item := &Arg{}
	t, tok := a.fieldArg(item)
	for t == tokOp {
		t, tok = a.op(item, tok)
	}
	if t != tokDelim || tok != "," {
		return a.fail("expected \",\" in __print_flags, read %q", tok), ""
	}
	arg.Item = item
	t, tok = a.l.item()
	if t == tokItem || t == tokDQuote || t == tokSQuote {
		arg.Delim, arg.HasDelim = tok, true
		t, tok = a.l.item()
	}
	if t != tokDelim || tok != "," {
		return a.fail("expected \",\" in __print_flags, read %q", tok), ""
	}
	var ok bool
	if arg.Syms, t, tok, ok = a.syms(); !ok {
		return tokError, ""
	}
	if t != tokDelim || tok != ")" {
		return a.fail("expected \")\" after __print_flags, read %q", tok), ""
	}
	return a.l.item()
}

func (a *argParser) symbols(arg *Arg) (tokType, string) {
	*arg = Arg{Kind: ArgSymbol}
	item := &Arg{}
	t, tok := a.fieldArg(item)
	if t != tokDelim || tok != "," {
		return a.fail("expected \",\" in __print_symbolic, read %q", tok), ""
	}
	arg.Item = item
	syms, t, tok, ok := a.syms()
	if !ok {
		return tokError, ""
	}
	arg.Syms = syms
	if t != tokDelim || tok != ")" {
		return a.fail("expected \")\" after __print_symbolic, read %q", tok), ""
	}
	return a.l.item()
}

// syms reads "{ value, "str" }, ..." (process_fields).
func (a *argParser) syms() ([]Sym, tokType, string, bool) {
	var list []Sym
	for {
		t, tok := a.l.item()
		if t != tokOp || tok != "{" {
			return list, t, tok, true
		}
		v := &Arg{}
		t, tok = a.arg(v)
		if t == tokOp {
			t, tok = a.op(v, tok)
		}
		if t == tokError {
			return nil, t, tok, false
		}
		if t != tokDelim || tok != "," {
			a.fail("expected \",\" in a symbol, read %q", tok)
			return nil, tokError, "", false
		}
		value, ok := argEval(v)
		if !ok {
			a.fail("cannot evaluate a symbol's value")
			return nil, tokError, "", false
		}
		s := &Arg{}
		t, tok = a.arg(s)
		if t != tokOp || tok != "}" {
			a.fail("expected \"}\" in a symbol, read %q", tok)
			return nil, tokError, "", false
		}
		str, ok := argEval(s)
		if !ok {
			a.fail("cannot evaluate a symbol's string")
			return nil, tokError, "", false
		}
		list = append(list, Sym{Value: value, Str: str})
		t, tok = a.l.item()
		if t != tokDelim || tok != "," {
			return list, t, tok, true
		}
	}
}

// subArgs reads n comma-separated arguments up to ')'
// (process_hex_common, process_int_array).
func (a *argParser) subArgs(arg *Arg, kind ArgKind, n int) (tokType, string) {
	*arg = Arg{Kind: kind}
	for i := 0; i < n; i++ {
		want := ","
		if i == n-1 {
			want = ")"
		}
		sub := &Arg{}
		t, tok := a.arg(sub)
		if t != tokDelim || tok != want {
			return a.fail("expected %q, read %q", want, tok), ""
		}
		arg.Sub = append(arg.Sub, sub)
	}
	return a.l.item()
}

// named reads "name)" of __get_str and __get_bitmask (process_str).
func (a *argParser) named(arg *Arg, kind ArgKind) (tokType, string) {
	t, tok := a.l.next()
	if t != tokItem {
		return a.fail("expected a field name, read %q", tok), ""
	}
	arg.Kind, arg.Name = kind, tok
	arg.Field = a.f.FieldByName(tok)
	if t, tok := a.l.next(); t != tokDelim || tok != ")" {
		return a.fail("expected \")\", read %q", tok), ""
	}
	return a.l.next()
}

func (a *argParser) dynArray(arg *Arg) (tokType, string) {
	*arg = Arg{Kind: ArgDynArray}
	t, tok := a.l.next()
	if t != tokItem {
		return a.fail("expected a field name, read %q", tok), ""
	}
	fl := a.f.field(tok)
	if fl == nil {
		return a.fail("field %s not found", tok), ""
	}
	arg.Name, arg.Field = tok, fl
	if t, tok := a.l.next(); t != tokDelim || tok != ")" {
		return a.fail("expected \")\", read %q", tok), ""
	}
	t, tok = a.l.item()
	if t != tokOp || tok != "[" {
		return t, tok
	}
	// libtraceevent fails on __get_dynamic_array(x)[i] (its test of the
	// closing bracket is inverted); so do we.
	return a.fail("indexing __get_dynamic_array is not supported"), ""
}

func (a *argParser) dynArrayLen(arg *Arg) (tokType, string) {
	t, tok := a.l.next()
	if t != tokItem {
		return a.fail("expected a field name, read %q", tok), ""
	}
	fl := a.f.field(tok)
	if fl == nil {
		return a.fail("field %s not found", tok), ""
	}
	arg.Kind, arg.Name, arg.Field = ArgDynArrayLen, tok, fl
	if t, tok := a.l.next(); t != tokDelim || tok != ")" {
		return a.fail("expected \")\", read %q", tok), ""
	}
	return a.l.next()
}

func (a *argParser) builtinExpect(arg *Arg) (tokType, string) {
	t, tok := a.arg(arg)
	if t != tokDelim || tok != "," {
		return a.fail("expected \",\" in __builtin_expect, read %q", tok), ""
	}
	if t, tok := a.l.next(); t != tokItem {
		return a.fail("expected a value in __builtin_expect, read %q", tok), ""
	}
	if t, tok := a.l.next(); t != tokDelim || tok != ")" {
		return a.fail("expected \")\", read %q", tok), ""
	}
	return a.l.item()
}

// consolidate folds operators over two atoms (consolidate_op_arg).
func consolidate(arg *Arg) {
	if arg.Kind != ArgOp {
		return
	}
	if arg.Left != nil {
		consolidate(arg.Left)
	}
	if arg.Right != nil {
		consolidate(arg.Right)
	}
	if arg.Left == nil || arg.Right == nil || arg.Left.Kind != ArgAtom || arg.Right.Kind != ArgAtom {
		return
	}
	l := Strtoull(arg.Left.Atom)
	r := Strtoull(arg.Right.Atom)
	var v uint64
	op := arg.Op
	switch op {
	case ">>":
		v = l >> (r & 63)
	case ">=":
		v = b2u(l >= r)
	case "<<":
		v = l << (r & 63)
	case "<=":
		v = b2u(l <= r)
	case "&&":
		v = b2u(l != 0 && r != 0)
	case "||":
		v = b2u(l != 0 || r != 0)
	case "-":
		v = l - r
	case "+":
		v = l + r
	case "*":
		v = l * r
	case "^":
		v = l ^ r
	case "/":
		if r == 0 {
			return // C would trap; keep the expression
		}
		v = l / r
	case "%":
		if r == 0 {
			return
		}
		v = l % r
	case "==":
		v = b2u(l == r)
	case "!=":
		v = b2u(l != r)
	default:
		switch op[0] {
		case '>':
			v = b2u(l > r)
		case '<':
			v = b2u(l < r)
		case '&':
			v = l & r
		case '|':
			v = l | r
		default:
			return
		}
	}
	*arg = Arg{Kind: ArgAtom, Atom: strconv.FormatInt(int64(v), 10)}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// argEval gives a symbol's value or string as libtraceevent keeps it
// (arg_eval): atoms as written, operators folded to a decimal.
func argEval(arg *Arg) (string, bool) {
	switch arg.Kind {
	case ArgAtom:
		return arg.Atom, true
	case ArgType:
		return argEval(arg.Item)
	case ArgOp:
		v, ok := argNumEval(arg)
		if !ok {
			return "", false
		}
		return strconv.FormatInt(v, 10), true
	}
	return "", false
}

// argNumEval is arg_num_eval: signed arithmetic over atoms and casts.
func argNumEval(arg *Arg) (int64, bool) {
	switch arg.Kind {
	case ArgAtom:
		return strtoll(arg.Atom), true
	case ArgType:
		v, ok := argNumEval(arg.Item)
		if !ok {
			return 0, false
		}
		return int64(CastValue(uint64(v), arg.Atom, false)), true
	case ArgOp:
	default:
		return 0, false
	}
	var l, r int64
	ok := true
	two := func() bool {
		if l, ok = argNumEval(arg.Left); !ok {
			return false
		}
		r, ok = argNumEval(arg.Right)
		return ok
	}
	op := arg.Op
	switch op {
	case "|", "||", "&", "&&", "<", "<<", "<=", ">", ">>", ">=", "==", "!=":
		if !two() {
			return 0, false
		}
	}
	switch op {
	case "|":
		return l | r, true
	case "||":
		return int64(b2u(l != 0 || r != 0)), true
	case "&":
		return l & r, true
	case "&&":
		return int64(b2u(l != 0 && r != 0)), true
	case "<":
		return int64(b2u(l < r)), true
	case "<<":
		return l << (uint64(r) & 63), true
	case "<=":
		return int64(b2u(l <= r)), true
	case ">":
		return int64(b2u(l > r)), true
	case ">>":
		return l >> (uint64(r) & 63), true
	case ">=":
		return int64(b2u(l >= r)), true
	case "==":
		return int64(b2u(l == r)), true
	case "!=":
		return int64(b2u(l != r)), true
	case "-", "+":
		if arg.Left.Kind != ArgNull {
			if l, ok = argNumEval(arg.Left); !ok {
				return 0, false
			}
		}
		if r, ok = argNumEval(arg.Right); !ok {
			return 0, false
		}
		if op == "-" {
			return l - r, true
		}
		return l + r, true
	case "~":
		if r, ok = argNumEval(arg.Right); !ok {
			return 0, false
		}
		return ^r, true
	}
	return 0, false
}

// strtoll is C's strtoll(s, NULL, 0), saturating at LLONG_MAX and
// LLONG_MIN (arg_num_eval's reading of an atom).
func strtoll(s string) int64 {
	v, _, _ := cnum.Strtol(s, 0)
	return v
}

// CastValue is libtraceevent's eval_type_str: it narrows v to the C type
// named (u8..u64, s8..s64, char, short, int with "unsigned"); pointer says
// the value was read through a "type *" cast, which names the pointee.
func CastValue(v uint64, typ string, pointer bool) uint64 {
	if len(typ) < 2 {
		return v
	}
	if pointer {
		if typ[len(typ)-1] != '*' {
			return v
		}
		return CastValue(v, typ[:len(typ)-2], false)
	}
	if typ[len(typ)-1] == '*' {
		return v
	}
	if len(typ) >= 6 && typ[:6] == "struct" {
		return v
	}
	switch typ {
	case "u8":
		return v & 0xff
	case "u16":
		return v & 0xffff
	case "u32":
		return v & 0xffffffff
	case "u64", "s64":
		return v
	case "s8":
		return uint64(int8(v)) & 0xff
	case "s16":
		return uint64(int16(v)) & 0xffff
	case "s32":
		return uint64(int32(v)) & 0xffffffff
	}
	if len(typ) > 9 && typ[:9] == "unsigned " {
		typ = typ[9:]
	}
	switch typ {
	case "char":
		return v & 0xff
	case "short":
		return v & 0xffff
	case "int":
		return v & 0xffffffff
	}
	return v
}

var _ = fmt.Sprint
