package traceevent

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/perfpt/perfpt/perfdata/tracing"
)

// KernelSymbols resolves kernel addresses for %pS/%ps/%pF/%pf. Perf 6.1
// sets libtraceevent's function resolver to its own kernel map
// (machine__resolve_kernel_addr), so the names come from the same kernel
// symbols as the sample's; Resolve returns the symbol containing addr and
// its start.
type KernelSymbols interface {
	Resolve(addr uint64) (name string, start uint64, ok bool)
}

// Printer prints the records of one recording's tracepoints.
type Printer struct {
	order     binary.ByteOrder
	bigEndian bool
	longSize  int
	printk    map[uint64]string
	syms      KernelSymbols
	events    map[*tracing.Format]*event
	// recent holds the last events looked up (a recording's records
	// come from a few formats), before the map.
	recent     [4]*event
	recentNext int
}

// New returns a Printer for the formats of d. syms may be nil: then
// %pS prints the address as libtraceevent does for an unknown one.
func New(d *tracing.Data, syms KernelSymbols) *Printer {
	p := &Printer{order: d.Order(), bigEndian: d.BigEndian, longSize: d.LongSize, printk: d.Printk, syms: syms,
		events: map[*tracing.Format]*event{}}
	if p.longSize == 0 {
		p.longSize = 8
	}
	return p
}

// NewFor returns a Printer for formats parsed on their own (tests): the
// given byte order and long size.
func NewFor(order binary.ByteOrder, longSize int, syms KernelSymbols) *Printer {
	return &Printer{order: order, bigEndian: order == binary.BigEndian, longSize: longSize, syms: syms,
		events: map[*tracing.Format]*event{}}
}

type pieceKind uint8

const (
	pieceText pieceKind = iota
	pieceDigit
	piecePointer
	pieceString
)

// piece is one element of a compiled print fmt (libtraceevent's
// tep_print_parse).
type piece struct {
	kind   pieceKind
	text   string // pieceText: the text; else the conversion as written
	sp     spec
	arg    *tracing.Arg
	lenArg *tracing.Arg
	ls     int // the argument's C type: -2 char, -1 short, 0 int, 1 long, 2 long long
	// direct: arg is a field, or an element of an array field at a
	// constant index, read as size bytes at off (what num gives for it).
	direct    bool
	off, size int
	// fast: a direct argument whose conversion has no flags, width or
	// precision, 'd' (or 'i'), 'u' or 'x': printed as its digits
	// alone, without appendInt's general path (0: not so).
	fast byte
}

// bindDirect sets pc.direct where its argument is read straight from the
// record: REC->field or REC->field[N] (the most common arguments), so
// that printing it walks no expression and parses no index.
func (pc *piece) bindDirect() {
	a := pc.arg
	switch {
	case pc.lenArg != nil || a == nil:
	case a.Kind == tracing.ArgField && a.Field != nil:
		pc.direct, pc.off, pc.size = true, a.Field.Offset, a.Field.Size
	case a.Kind == tracing.ArgOp && a.Op == "[" && a.Left != nil && a.Right != nil &&
		a.Left.Kind == tracing.ArgField && a.Left.Field != nil && a.Right.Kind == tracing.ArgAtom:
		// As op evaluates it: the element at the index the atom reads as.
		idx := tracing.Strtoull(a.Right.Atom)
		f := a.Left.Field
		pc.direct, pc.off, pc.size = true, f.Offset+int(idx)*f.ElemSize, f.ElemSize
	}
	if pc.direct && pc.sp.plain() {
		switch pc.sp.conv {
		case 'd', 'i':
			pc.fast = 'd'
		case 'u', 'x':
			pc.fast = pc.sp.conv
		}
	}
}

type event struct {
	f      *tracing.Format
	pieces []piece
	failed bool
	err    error
}

// Err returns why libtraceevent would fail to print f ("[FAILED TO
// PARSE]"), nil if it prints with its print fmt.
func (p *Printer) Err(f *tracing.Format) error {
	return p.event(f).err
}

func (p *Printer) event(f *tracing.Format) *event {
	for _, ev := range p.recent {
		if ev != nil && ev.f == f {
			return ev
		}
	}
	if ev := p.events[f]; ev != nil {
		p.remember(ev)
		return ev
	}
	ev := compile(f)
	p.events[f] = ev
	p.remember(ev)
	return ev
}

// remember puts ev among the recent events.
func (p *Printer) remember(ev *event) {
	p.recent[p.recentNext] = ev
	p.recentNext = (p.recentNext + 1) % len(p.recent)
}

// compile splits the print fmt into text and conversions bound to their
// arguments (parse_args, parse_arg_format, parse_arg_string of perf 6.1's
// libtraceevent).
func compile(f *tracing.Format) *event {
	ev := &event{f: f}
	if f.Err != nil {
		ev.failed, ev.err = true, f.Err
		return ev
	}
	if f.Bprint {
		ev.failed, ev.err = true, fmt.Errorf("ftrace:bprint records are not supported")
		return ev
	}
	format := f.PrintFmt
	args := f.Args
	fail := func(msg string) {
		if !ev.failed {
			ev.failed = true
			ev.err = fmt.Errorf("%s:%s: %s", f.System, f.Name, msg)
		}
	}
	for i := 0; i < len(format); {
		if format[i] == '%' && (i+1 >= len(format) || format[i+1] != '%') {
			n := compileConversion(ev, format[i:], &args, fail)
			i += n
			continue
		}
		// literal text up to the next conversion, escapes resolved
		var text []byte
		for i < len(format) {
			c := format[i]
			if c == '\\' {
				i++
				if i >= len(format) {
					break
				}
				switch format[i] {
				case 'n':
					text = append(text, '\n')
				case 't':
					text = append(text, '\t')
				case 'r':
					text = append(text, '\r')
				default:
					text = append(text, format[i])
				}
				i++
				continue
			}
			if c == '%' {
				if i+1 < len(format) && format[i+1] == '%' {
					text = append(text, '%')
					i += 2
					continue
				}
				break
			}
			text = append(text, c)
			i++
		}
		ev.pieces = append(ev.pieces, piece{kind: pieceText, text: string(text)})
	}
	return ev
}

// compileConversion reads one conversion at the start of format and
// returns how many bytes it took.
func compileConversion(ev *event, format string, args *[]*tracing.Arg, fail func(string)) int {
	var lenArg *tracing.Arg
	ls := 0
	next := func() *tracing.Arg {
		a := (*args)[0]
		*args = (*args)[1:]
		return a
	}
	i := 1
	for ; i < len(format); i++ {
		c := format[i]
		switch {
		case c == '#' || c == '.' || c == 'z' || c == 'Z' || c == '-' || (c >= '0' && c <= '9'):
		case c == 'h':
			ls--
		case c == 'l':
			ls++
		case c == 'L':
			ls = 2
		case c == '*':
			if len(*args) == 0 {
				fail("no argument match")
				return i + 1
			}
			if lenArg != nil {
				fail("argument already matched")
				return i + 1
			}
			lenArg = next()
		case c == 'p':
			if len(*args) == 0 {
				fail("no argument match")
				return i + 1
			}
			i += pointerSuffix(format[i+1:])
			text := format[:i+1]
			ev.pieces = append(ev.pieces, piece{kind: piecePointer, text: text, sp: parseSpec(text), arg: next(), lenArg: lenArg, ls: ls})
			return i + 1
		case c == 'd' || c == 'u' || c == 'i' || c == 'x' || c == 'X' || c == 'o':
			if len(*args) == 0 {
				fail("no argument match")
				return i + 1
			}
			if ls < -2 || ls > 2 {
				fail(fmt.Sprintf("bad count (%d)", ls))
			}
			text := format[:i+1]
			ev.pieces = append(ev.pieces, piece{kind: pieceDigit, text: text, sp: parseSpec(text), arg: next(), lenArg: lenArg, ls: ls})
			ev.pieces[len(ev.pieces)-1].bindDirect()
			return i + 1
		case c == 's':
			if len(*args) == 0 {
				fail("no matching argument")
				return i + 1
			}
			text := format[:i+1]
			ev.pieces = append(ev.pieces, piece{kind: pieceString, text: text, sp: parseSpec(text), arg: next(), lenArg: lenArg})
			return i + 1
		default:
			// libtraceevent prints an unknown conversion letter (%c
			// among them) as ">c<" and takes no argument.
			ev.pieces = append(ev.pieces, piece{kind: pieceText, text: ">" + string(c) + "<"})
			return i + 1
		}
	}
	return i
}

// pointerSuffix counts the letters after %p that belong to the conversion
// (parse_arg_format_pointer).
func pointerSuffix(f string) int {
	at := func(i int) byte {
		if i < len(f) {
			return f[i]
		}
		return 0
	}
	n := 0
	switch at(0) {
	case 'F', 'S', 'f', 's':
		n++
	case 'M', 'm':
		if at(1) == 'R' || at(1) == 'F' {
			n++
		}
		n++
	case 'I', 'i':
		idx := 2
		switch at(1) {
		case 'S':
			for at(idx) == 'p' || at(idx) == 'f' || at(idx) == 's' {
				n++
				idx++
			}
			fallthrough
		case '4':
			switch at(idx) {
			case 'h', 'n', 'l', 'b':
				n++
				idx++
			}
			if at(1) == '4' {
				n++
				break
			}
			fallthrough
		case '6':
			if at(idx) == 'c' {
				n++
			}
			n++
		}
		n++
	case 'U':
		switch at(1) {
		case 'L', 'l', 'B', 'b':
			n++
		}
		n++
	case 'h':
		switch at(1) {
		case 'C', 'D', 'N':
			n++
		}
		n++
	}
	return n
}

// rec is one record being printed.
type rec struct {
	p    *Printer
	ev   *event
	data []byte
}

// Append appends the text perf prints for the record raw of format f
// (tep_print_event with TEP_PRINT_INFO: the print fmt, or "[FAILED TO
// PARSE]" and the raw fields).
func (p *Printer) Append(b []byte, f *tracing.Format, raw []byte) []byte {
	ev := p.event(f)
	var r rec // set field by field: a literal was built aside and copied
	r.p, r.ev, r.data = p, ev, raw
	if ev.failed {
		b = append(b, "[FAILED TO PARSE]"...)
		return r.appendFields(b)
	}
	for i := range ev.pieces {
		pc := &ev.pieces[i]
		if pc.kind == pieceText {
			// Text, the most pieces, without a call.
			b = append(b, pc.text...)
			continue
		}
		b = r.appendPiece(b, pc)
	}
	return b
}

// passed is v as print_arg_number passes it for C type ls (see piece):
// (char), (short), (int) or a 64-bit long; an int reaches printf's 64-bit
// reads zero-extended.
func passed(v uint64, ls int) uint64 {
	switch ls {
	case -2:
		return uint64(uint32(int32(int8(v))))
	case -1:
		return uint64(uint32(int32(int16(v))))
	case 0:
		return uint64(uint32(v))
	}
	return v
}

func (r *rec) appendPiece(b []byte, pc *piece) []byte {
	if pc.direct {
		v := passed(r.read(pc.off, pc.size), pc.ls)
		if pc.fast == 0 {
			return pc.sp.appendInt(b, v)
		}
		v = pc.sp.narrow(v)
		switch pc.fast {
		case 'd':
			return strconv.AppendInt(b, int64(v), 10)
		case 'u':
			return strconv.AppendUint(b, v, 10)
		}
		return appendHex(b, v)
	}
	sp := pc.sp
	lenArg := -1
	if pc.lenArg != nil {
		lenArg = int(int32(r.num(pc.lenArg)))
		sp = sp.withStar(lenArg)
	}
	switch pc.kind {
	case pieceText:
		return append(b, pc.text...)
	case pieceDigit:
		return sp.appendInt(b, passed(r.num(pc.arg), pc.ls))
	case piecePointer:
		plen := 1
		if pc.lenArg != nil {
			plen = lenArg
		}
		return r.appendPointer(b, pc, plen)
	case pieceString:
		return r.appendStrArg(b, sp, pc.arg)
	}
	return b
}

// read reads a size-byte number at off, 0 when it is not inside the
// record (libtraceevent would read past it).
func (r *rec) read(off, size int) uint64 {
	if off < 0 || off+size > len(r.data) {
		return 0
	}
	b := r.data[off:]
	if !r.p.bigEndian {
		// The common case without the ByteOrder interface's calls.
		switch size {
		case 1:
			return uint64(b[0])
		case 2:
			return uint64(binary.LittleEndian.Uint16(b))
		case 4:
			return uint64(binary.LittleEndian.Uint32(b))
		case 8:
			return binary.LittleEndian.Uint64(b)
		}
		return 0
	}
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(r.p.order.Uint16(b))
	case 4:
		return uint64(r.p.order.Uint32(b))
	case 8:
		return r.p.order.Uint64(b)
	}
	return 0
}

// dynamic returns the offset and length of a __data_loc/__rel_loc
// field's data (dynamic_offset_field): 0, 0 when the field or the data it
// points to is outside the record.
func (r *rec) dynamic(f *tracing.Field) (off, n int) {
	size := len(r.data)
	if f.Offset+f.Size > size {
		return 0, 0
	}
	v := r.read(f.Offset, f.Size)
	o := int(v & 0xffff)
	var l int
	if f.Size == 2 {
		l = size - o
	} else {
		l = int(v>>16) & 0xffff
	}
	if o > size {
		off = 0
	} else {
		off = o
	}
	if o+l > size {
		n = 0
	} else {
		n = l
	}
	if f.Flags&tracing.FieldRelative != 0 {
		off += f.Offset + f.Size
	}
	return off, n
}

// bytesAt returns the record's bytes from off, nil outside it.
func (r *rec) bytesAt(off int) []byte {
	if off < 0 || off > len(r.data) {
		return nil
	}
	return r.data[off:]
}

// num evaluates an argument as a number (eval_num_arg).
func (r *rec) num(a *tracing.Arg) uint64 {
	switch a.Kind {
	case tracing.ArgNull:
		return 0
	case tracing.ArgAtom:
		// A name (not a number) would be looked up among registered
		// functions; perf registers none, so it is 0.
		v := tracing.Strtoull(a.Atom)
		return v
	case tracing.ArgField:
		if a.Field == nil {
			return 0
		}
		return r.read(a.Field.Offset, a.Field.Size)
	case tracing.ArgType:
		return tracing.CastValue(r.num(a.Item), a.Atom, false)
	case tracing.ArgDynArrayLen:
		_, n := r.dynamic(a.Field)
		return uint64(n)
	case tracing.ArgDynArray:
		// libtraceevent gives the address of the data in its own memory;
		// the offset in the record is the stable part of that.
		off, _ := r.dynamic(a.Field)
		return uint64(off)
	case tracing.ArgOp:
		return r.op(a)
	}
	return 0
}

func (r *rec) op(a *tracing.Arg) uint64 {
	switch a.Op {
	case "[":
		right := r.num(a.Right)
		larg := a.Left
		var typ *tracing.Arg
		for larg.Kind == tracing.ArgType {
			if typ == nil {
				typ = larg
			}
			larg = larg.Item
		}
		size := r.p.longSize
		var off int
		switch larg.Kind {
		case tracing.ArgDynArray:
			o, _ := r.dynamic(larg.Field)
			off = o + int(right)
			if larg.Field.ElemSize != 0 {
				size = larg.Field.ElemSize
			}
		case tracing.ArgField:
			if larg.Field == nil {
				return 0
			}
			size = larg.Field.ElemSize
			off = larg.Field.Offset + int(right)*larg.Field.ElemSize
		default:
			return r.binary(a)
		}
		v := r.read(off, size)
		if typ != nil {
			v = tracing.CastValue(v, typ.Atom, true)
		}
		return v
	case "?":
		if r.num(a.Left) != 0 {
			return r.num(a.Right.Left)
		}
		return r.num(a.Right.Right)
	}
	return r.binary(a)
}

func (r *rec) binary(a *tracing.Arg) uint64 {
	l := r.num(a.Left)
	rt := r.num(a.Right)
	switch a.Op {
	case "!":
		return b2u(rt == 0)
	case "!=":
		return b2u(l != rt)
	case "~":
		return ^rt
	case "|":
		return l | rt
	case "||":
		return b2u(l != 0 || rt != 0)
	case "&":
		return l & rt
	case "&&":
		return b2u(l != 0 && rt != 0)
	case "<":
		return b2u(l < rt)
	case "<<":
		return l << (rt & 63)
	case "<=":
		return b2u(l <= rt)
	case ">":
		return b2u(l > rt)
	case ">>":
		return l >> (rt & 63)
	case ">=":
		return b2u(l >= rt)
	case "==":
		return b2u(l == rt)
	case "-":
		return l - rt
	case "+":
		return l + rt
	case "/":
		if rt == 0 {
			return 0
		}
		return l / rt
	case "%":
		if rt == 0 {
			return 0
		}
		return l % rt
	case "*":
		return l * rt
	case "^":
		// eval_num_arg has no '^': it warns and gives 0.
		return 0
	}
	return 0
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
