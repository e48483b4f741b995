package tracing

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/perfpt/perfpt/internal/cnum"
)

// FieldFlags describe a format field (libtraceevent's TEP_FIELD_IS_*).
type FieldFlags uint16

const (
	FieldArray    FieldFlags = 1 << iota // name[N], or a __data_loc/__rel_loc array
	FieldPointer                         // the type has a '*'
	FieldSigned                          // signed:1
	FieldString                          // an array of char, u8 or s8
	FieldDynamic                         // __data_loc or __rel_loc: offset and length in the record
	FieldLong                            // the type mentions long
	FieldRelative                        // __rel_loc: the offset counts from the end of the field
)

// Field is one field of a format file.
type Field struct {
	Name     string
	Type     string // the C type as libtraceevent spells it, with array brackets
	Offset   int
	Size     int
	Flags    FieldFlags
	ArrayLen int // the number in [N] (0: none or dynamic)
	ElemSize int // size of one element (the size for a non-array)
}

func (f *Field) Is(fl FieldFlags) bool { return f.Flags&fl != 0 }

// Format is one event format file (events/SYSTEM/NAME/format).
type Format struct {
	System string
	Name   string
	ID     int
	Common []*Field // common_type, common_flags, ...
	Fields []*Field // the event's own fields
	// PrintFmt is the print fmt string, escapes as written.
	PrintFmt string
	// Args is the print fmt's argument list parsed into trees.
	Args []*Arg
	// Ftrace: the format is one of the ftrace system's (fields may say
	// "special", old ones have no print args); Bprint: ftrace's bprint,
	// whose format string is in the record.
	Ftrace, Bprint bool
	// Err, when set, says why the fields or the print fmt could not be
	// parsed: libtraceevent marks the event failed and prints
	// "[FAILED TO PARSE]" with the raw fields.
	Err error
}

// FieldByName finds a field: the event's own fields, then the common ones
// (libtraceevent's tep_find_any_field).
func (f *Format) FieldByName(name string) *Field {
	if fl := f.field(name); fl != nil {
		return fl
	}
	return f.CommonField(name)
}

// field finds one of the event's own fields (tep_find_field).
func (f *Format) field(name string) *Field {
	for _, fl := range f.Fields {
		if fl.Name == name {
			return fl
		}
	}
	return nil
}

// CommonField finds a common field (tep_find_common_field).
func (f *Format) CommonField(name string) *Field {
	for _, fl := range f.Common {
		if fl.Name == name {
			return fl
		}
	}
	return nil
}

// FormatError says where a format file could not be parsed.
type FormatError struct {
	System, Name string
	Offset       int // byte offset in the format file
	Msg          string
}

func (e *FormatError) Error() string {
	name := e.System + ":" + e.Name
	if e.Name == "" {
		name = e.System
	}
	return fmt.Sprintf("format %s, offset %d: %s", name, e.Offset, e.Msg)
}

// ParseFormat parses a format file of the given system with the long size
// of the recording (for arrays of long). It returns an error only when the
// name or id cannot be read (libtraceevent drops such an event); a format
// whose fields or print fmt fail is returned with Err set.
func ParseFormat(text []byte, system string, longSize int) (*Format, error) {
	p := &formatParser{l: lexer{src: string(text)}, f: &Format{System: system}, longSize: longSize}
	return p.parse()
}

type formatParser struct {
	l        lexer
	f        *Format
	longSize int
	err      error
}

func (p *formatParser) fail(format string, a ...any) error {
	if p.err == nil {
		p.err = &FormatError{System: p.f.System, Name: p.f.Name, Offset: p.l.pos, Msg: fmt.Sprintf(format, a...)}
	}
	return p.err
}

// expect reads a token (skipping newlines when nl) and checks it.
func (p *formatParser) expect(nl bool, typ tokType, want string) bool {
	var t tokType
	var s string
	if nl {
		t, s = p.l.next()
	} else {
		t, s = p.l.item()
	}
	if t != typ || s != want {
		p.fail("expected %q, read %q", want, s)
		return false
	}
	return true
}

func (p *formatParser) expectType(typ tokType) (string, bool) {
	t, s := p.l.next()
	if t != typ {
		p.fail("unexpected %q", s)
		return s, false
	}
	return s, true
}

func (p *formatParser) parse() (*Format, error) {
	f := p.f
	// name: NAME
	if !p.expect(true, tokItem, "name") || !p.expect(true, tokOp, ":") {
		return nil, p.err
	}
	name, ok := p.expectType(tokItem)
	if !ok {
		return nil, p.err
	}
	f.Name = name
	if f.System == "ftrace" {
		f.Ftrace = true
		f.Bprint = name == "bprint"
	}
	// ID: N
	if !p.expect(false, tokItem, "ID") || !p.expect(true, tokOp, ":") {
		return nil, p.err
	}
	id, ok := p.expectType(tokItem)
	if !ok {
		return nil, p.err
	}
	n, err := strconv.ParseUint(id, 0, 31)
	if err != nil {
		return nil, p.fail("bad id %q", id)
	}
	f.ID = int(n)
	if !p.readFields() {
		f.Err = p.err
		return f, nil
	}
	p.readPrint()
	f.Err = p.err
	return f, nil
}

func (p *formatParser) readFields() bool {
	if !p.expect(false, tokItem, "format") || !p.expect(true, tokOp, ":") {
		return false
	}
	if _, ok := p.expectType(tokNewline); !ok {
		return false
	}
	var ok bool
	if p.f.Common, ok = p.fieldList(); !ok {
		return false
	}
	p.f.Fields, ok = p.fieldList()
	return ok
}

// fieldList reads fields up to an empty line (event_read_fields).
func (p *formatParser) fieldList() ([]*Field, bool) {
	var list []*Field
	for {
		t, s := p.l.next()
		if t == tokNewline {
			return list, true
		}
		if t != tokItem || s != "field" {
			p.fail("expected \"field\", read %q", s)
			return nil, false
		}
		fl := p.oneField()
		if fl == nil {
			return nil, false
		}
		list = append(list, fl)
	}
}

func typeSize(name string) int {
	switch name {
	case "u8", "s8", "char":
		return 1
	case "u16", "s16":
		return 2
	case "u32", "s32":
		return 4
	case "u64", "s64":
		return 8
	}
	return 0
}

func (p *formatParser) oneField() *Field {
	t, s := p.l.next()
	if p.f.Ftrace && t == tokItem && s == "special" {
		t, s = p.l.next()
	}
	if t != tokOp || s != ":" {
		p.fail("expected \":\", read %q", s)
		return nil
	}
	last, ok := p.expectType(tokItem)
	if !ok {
		return nil
	}
	fl := &Field{}
	var typ []string
	delim := " "
	for {
		t, s = p.l.next()
		if t == tokItem || (t == tokOp && s == "*") || (p.f.Ftrace && t == tokOp && s == ".") {
			if s == "*" {
				fl.Flags |= FieldPointer
			}
			typ = appendType(typ, delim, last)
			last, delim = s, " "
			continue
		}
		// __attribute__((user)) and the like become part of the type.
		if t == tokDelim && last == "__attribute__" && s == "(" {
			typ = appendType(typ, " ", last)
			typ = appendType(typ, "", "(")
			depth := 1
			delim = " "
			for {
				t, s = p.l.next()
				if t == tokNone {
					break
				}
				if t == tokDelim {
					if s == "(" {
						depth++
					} else if s == ")" {
						depth--
					}
					if depth == 0 {
						break
					}
					typ = appendType(typ, "", s)
					delim = ""
				} else {
					typ = appendType(typ, delim, s)
					delim = " "
				}
				last = s
			}
			continue
		}
		break
	}
	if len(typ) == 0 {
		p.fail("no type found")
		return nil
	}
	fl.Type = strings.Join(typ, "")
	fl.Name = last
	if t != tokOp {
		p.fail("unexpected %q after field %s", s, fl.Name)
		return nil
	}
	sizeDynamic := 0
	if s == "[" {
		fl.Flags |= FieldArray
		brackets := "["
		lastType := t
		t, s = p.l.next()
		if t == tokItem {
			fl.ArrayLen = atoul(s)
		}
		for s != "]" {
			d := ""
			if lastType == tokItem && t == tokItem {
				d = " "
			}
			lastType = t
			brackets += d + s
			fl.ArrayLen = atoul(s)
			t, s = p.l.next()
			if t == tokNone {
				p.fail("failed to find token")
				return nil
			}
		}
		brackets += "]"
		t, s = p.l.next()
		if t == tokItem {
			// "type [] name;"
			fl.Type += " " + fl.Name + brackets
			sizeDynamic = typeSize(fl.Name)
			fl.Name = s
			t, s = p.l.next()
		} else {
			fl.Type += brackets
		}
	}
	if fl.Flags&FieldArray != 0 && (strings.Contains(fl.Type, "char") || strings.Contains(fl.Type, "u8") || strings.Contains(fl.Type, "s8")) {
		fl.Flags |= FieldString
	}
	if strings.HasPrefix(fl.Type, "__data_loc") {
		fl.Flags |= FieldDynamic
	}
	if strings.HasPrefix(fl.Type, "__rel_loc") {
		fl.Flags |= FieldDynamic | FieldRelative
	}
	if strings.Contains(fl.Type, "long") {
		fl.Flags |= FieldLong
	}
	if t != tokOp || s != ";" {
		p.fail("expected \";\", read %q", s)
		return nil
	}
	off, ok := p.keyNumber("offset")
	if !ok {
		return nil
	}
	size, ok := p.keyNumber("size")
	if !ok {
		return nil
	}
	fl.Offset, fl.Size = off, size
	if fl.Flags&FieldDynamic != 0 && fl.Size == 2 {
		// The old dynamic strings: a 2-byte offset, up to the end of the record.
		fl.Flags |= FieldString | FieldArray
	}
	t, s = p.l.next()
	if t != tokNewline {
		if t != tokItem || s != "signed" {
			p.fail("expected \"signed\", read %q", s)
			return nil
		}
		if !p.expect(true, tokOp, ":") {
			return nil
		}
		v, ok := p.expectType(tokItem)
		if !ok {
			return nil
		}
		if atoul(v) != 0 {
			fl.Flags |= FieldSigned
		}
		if !p.expect(true, tokOp, ";") {
			return nil
		}
		if _, ok := p.expectType(tokNewline); !ok {
			return nil
		}
	}
	switch {
	case fl.Flags&FieldArray == 0:
		fl.ElemSize = fl.Size
	case fl.ArrayLen != 0:
		fl.ElemSize = fl.Size / fl.ArrayLen
	case fl.Flags&FieldDynamic != 0:
		fl.ElemSize = sizeDynamic
	case fl.Flags&FieldString != 0:
		fl.ElemSize = 1
	case fl.Flags&FieldLong != 0:
		fl.ElemSize = p.longSize
	}
	return fl
}

func appendType(typ []string, delim, s string) []string {
	if len(typ) == 0 {
		return append(typ, s)
	}
	return append(typ, delim, s)
}

// keyNumber reads "key:N;".
func (p *formatParser) keyNumber(key string) (int, bool) {
	if !p.expect(true, tokItem, key) || !p.expect(true, tokOp, ":") {
		return 0, false
	}
	v, ok := p.expectType(tokItem)
	if !ok {
		return 0, false
	}
	if !p.expect(true, tokOp, ";") {
		return 0, false
	}
	return int(atoul(v)), true
}

// atoul is C's strtoul(s, NULL, 0) on a token: the leading number, 0 if
// none, clamped to 31 bits.
func atoul(s string) int {
	v := Strtoull(s)
	if v > 1<<31-1 {
		return 1<<31 - 1
	}
	return int(v)
}

// Strtoull is C's strtoull(s, NULL, 0) as libtraceevent applies it to
// atoms: decimal, 0x hex or 0 octal, the longest valid prefix, all ones on
// overflow, negated after a '-'.
func Strtoull(s string) uint64 {
	v, _, _ := cnum.Strtoull(s, 0)
	return v
}
