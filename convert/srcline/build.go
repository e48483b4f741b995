package srcline

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"sort"
)

// New reads the DWARF of f. A file without .debug_info gives an empty Table.
func New(f *elf.File) (*Table, error) {
	if f.Section(".debug_info") == nil && f.Section(".zdebug_info") == nil {
		return &Table{}, nil
	}
	d, err := f.DWARF()
	if err != nil {
		return nil, fmt.Errorf("srcline: %w", err)
	}
	return FromDWARF(d)
}

// FromDWARF builds a Table from already opened DWARF data.
func FromDWARF(d *dwarf.Data) (*Table, error) {
	b := newBuilder(d, &Table{})
	if err := b.run(); err != nil {
		return nil, fmt.Errorf("srcline: %w", err)
	}
	return b.finish(), nil
}

// newBuilder starts filling t from d.
func newBuilder(d *dwarf.Data, t *Table) *builder {
	return &builder{d: d, t: t, fileIdx: map[string]int32{}, names: map[dwarf.Offset]origin{},
		aggregate: map[dwarf.Offset]dwarf.Tag{}, memberDecl: map[dwarf.Offset]typeDecl{}}
}

// finish sorts the table's rows and functions.
func (b *builder) finish() *Table {
	t := b.t
	sort.SliceStable(t.rows, func(i, j int) bool {
		a, c := &t.rows[i], &t.rows[j]
		if a.Addr != c.Addr {
			return a.Addr < c.Addr
		}
		return a.EndSeq && !c.EndSeq
	})
	sort.SliceStable(t.funcs, func(i, j int) bool { return t.funcs[i].Low < t.funcs[j].Low })
	return t
}

type origin struct {
	name, linkage string
	declFile      int64
	declLine      int64
	declCol       int64
	external      bool
	typed         bool // DW_AT_type: the function returns a value
	record        bool // the value is a struct, union or class
	artificial    bool // DW_AT_artificial: made by the compiler
	noReturn      bool // DW_AT_noreturn: declared noreturn
	// closure: the declaration is the class's (a lambda's operator()).
	closure bool
}

type builder struct {
	d       *dwarf.Data
	t       *Table
	fileIdx map[string]int32
	names   map[dwarf.Offset]origin
	// aggregate caches typeTag's verdict per type.
	aggregate map[dwarf.Offset]dwarf.Tag
	// memberDecl holds the class declaration of member functions that
	// have no line of their own (lambdas' operator()).
	memberDecl map[dwarf.Offset]typeDecl
	cuFiles    []int32 // CU file index -> Table file index
	// cuBase are the fields of the unit's entry that the base address
	// of its range lists comes from (see ranges).
	cuBase []dwarf.Field
	// rowHint is how many rows to make room for at first (0: none).
	rowHint int
	// noLocals: the functions' local variables are not looked at (no
	// LocalSlots, ScopedSlots, AggregateLocals, AggregateFrom, AggregateScopes).
	noLocals bool
}

func (b *builder) file(name string) int32 {
	if i, ok := b.fileIdx[name]; ok {
		return i
	}
	i := int32(len(b.t.files))
	b.t.files = append(b.t.files, name)
	b.fileIdx[name] = i
	return i
}

func (b *builder) cuFile(i int64) int32 {
	if i < 0 || i >= int64(len(b.cuFiles)) {
		return -1
	}
	return b.cuFiles[i]
}

func (b *builder) run() error {
	r := b.d.Reader()
	for {
		cu, err := r.Next()
		if err != nil {
			return err
		}
		if cu == nil {
			return nil
		}
		if err := b.compUnit(r, cu); err != nil {
			return err
		}
	}
}

// compUnit reads the unit whose entry r has just returned.
func (b *builder) compUnit(r *dwarf.Reader, cu *dwarf.Entry) error {
	if cu.Tag != dwarf.TagCompileUnit && cu.Tag != dwarf.TagPartialUnit {
		r.SkipChildren()
		return nil
	}
	if err := b.lines(cu); err != nil {
		return err
	}
	b.cuBase = b.cuBase[:0]
	for _, f := range cu.Field {
		switch f.Attr {
		case dwarf.AttrEntrypc, dwarf.AttrLowpc, dwarf.AttrAddrBase:
			b.cuBase = append(b.cuBase, f)
		}
	}
	if !cu.Children {
		return nil
	}
	return b.unit(r)
}

// lines appends the line table of cu and sets b.cuFiles.
func (b *builder) lines(cu *dwarf.Entry) error {
	b.cuFiles = b.cuFiles[:0]
	lr, err := b.d.LineReader(cu)
	if err != nil {
		return err
	}
	if lr == nil {
		return nil
	}
	for _, f := range lr.Files() {
		if f == nil {
			b.cuFiles = append(b.cuFiles, -1)
			continue
		}
		b.cuFiles = append(b.cuFiles, b.file(f.Name))
	}
	if b.rowHint > 0 && cap(b.t.rows) == 0 {
		b.t.rows = make([]Row, 0, b.rowHint)
	}
	var e dwarf.LineEntry
	// Rows come in runs of one file: its index is looked up once a run.
	var lastFile *dwarf.LineFile
	lastIdx := int32(-1)
	for {
		if err := lr.Next(&e); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		fi := int32(-1)
		if e.File != nil {
			if e.File != lastFile {
				lastFile, lastIdx = e.File, b.file(e.File.Name)
			}
			fi = lastIdx
		}
		b.t.rows = append(b.t.rows, Row{
			Addr: e.Address, File: fi, Line: int32(e.Line), Col: int32(e.Column),
			IsStmt: e.IsStmt, EndSeq: e.EndSequence, Discriminator: uint32(e.Discriminator),
		})
	}
}

// unit walks the children of a compilation unit.
func (b *builder) unit(r *dwarf.Reader) error {
	// stack of scope indexes, -1 for entries that are not scopes.
	stack := []int32{-1}
	// types holds, parallel to stack, the declaration of each entry that
	// is a class or struct (a lambda's closure type), else a zero one.
	types := []typeDecl{{}}
	// blocks holds, parallel to stack, the ranges of each lexical block.
	blocks := [][][2]uint64{nil}
	for len(stack) > 0 {
		e, err := r.Next()
		if err != nil {
			return err
		}
		if e == nil {
			return errors.New("unexpected end of DWARF info")
		}
		if e.Tag == 0 {
			stack = stack[:len(stack)-1]
			types = types[:len(types)-1]
			blocks = blocks[:len(blocks)-1]
			continue
		}
		if e.Tag == dwarf.TagSubprogram && e.Val(dwarf.AttrDeclLine) == nil {
			if t := types[len(types)-1]; t.line > 0 {
				// A member function without a line of its own (a
				// lambda's operator()): its class's declaration.
				b.memberDecl[e.Offset] = t
			}
		}
		var td typeDecl
		if e.Tag == dwarf.TagStructType || e.Tag == dwarf.TagClassType {
			td.file, _ = e.Val(dwarf.AttrDeclFile).(int64)
			td.line, _ = e.Val(dwarf.AttrDeclLine).(int64)
			td.col, _ = e.Val(dwarf.AttrDeclColumn).(int64)
		}
		parent := int32(-1)
		for k := len(stack) - 1; k >= 0; k-- {
			if stack[k] >= 0 {
				parent = stack[k]
				break
			}
		}
		cur := int32(-1)
		if e.Tag == dwarf.TagVariable && parent >= 0 && b.t.scopes[parent].subprogram && !b.noLocals {
			if off, ok := fbregOffset(e); ok {
				// Its scope: the innermost lexical block around it, if any.
				var scope [][2]uint64
				for k := len(stack) - 1; k >= 0 && stack[k] != parent; k-- {
					if blocks[k] != nil {
						scope = blocks[k]
						break
					}
				}
				b.eachFunc(parent, func(f *Func) {
					f.LocalSlots = append(f.LocalSlots, off)
					if scope != nil {
						f.ScopedSlots = append(f.ScopedSlots, ScopedSlot{Slot: off, Scope: scope})
					}
				})
			}
		}
		if e.Tag == dwarf.TagVariable && parent >= 0 && b.t.scopes[parent].subprogram && !b.noLocals && b.aggregateLocal(e) {
			line, _ := e.Val(dwarf.AttrDeclLine).(int64)
			b.eachFunc(parent, func(f *Func) {
				if !f.AggregateLocals || int(line) < f.AggregateFrom {
					f.AggregateFrom = int(line)
				}
				f.AggregateLocals = true
			})
			// Its scope: the innermost lexical block around it, if any.
			for k := len(stack) - 1; k >= 0 && stack[k] != parent; k-- {
				if blocks[k] != nil {
					b.eachFunc(parent, func(f *Func) { f.AggregateScopes = append(f.AggregateScopes, blocks[k]...) })
					break
				}
			}
		}
		switch e.Tag {
		case dwarf.TagSubprogram, dwarf.TagInlinedSubroutine:
			ranges, err := b.ranges(e)
			if err != nil || len(ranges) == 0 {
				if e.Children {
					r.SkipChildren()
				}
				continue
			}
			o := b.origin(e)
			if t, ok := b.memberDecl[e.Offset]; ok && o.declLine == 0 && e.Tag == dwarf.TagSubprogram {
				// A lambda's operator() defined in its closure type.
				o.declFile, o.declLine, o.declCol, o.closure = t.file, t.line, t.col, true
			}
			s := scope{name: o.name, linkage: o.linkage, ranges: ranges, subprogram: e.Tag == dwarf.TagSubprogram}
			if s.name == "" {
				s.name = "??"
			}
			if e.Tag == dwarf.TagInlinedSubroutine {
				if parent < 0 {
					// Inlined code outside any function: ignore.
					if e.Children {
						r.SkipChildren()
					}
					continue
				}
				cf, _ := e.Val(dwarf.AttrCallFile).(int64)
				cl, _ := e.Val(dwarf.AttrCallLine).(int64)
				cc, _ := e.Val(dwarf.AttrCallColumn).(int64)
				s.callFile, s.callLine, s.callCol = b.cuFile(cf), int32(cl), int32(cc)
				entry, ok := e.Val(dwarf.AttrEntrypc).(uint64)
				if !ok {
					entry = ranges[0][0]
					for _, rg := range ranges {
						entry = min(entry, rg[0])
					}
				}
				ic := InlinedCall{Func: s.name, DeclLine: int(o.declLine), Entry: entry,
					CallFile: b.t.FileName(s.callFile), CallLine: int(cl), CallCol: int(cc), Ranges: ranges}
				if df := b.cuFile(o.declFile); df >= 0 {
					ic.DeclFile = b.t.files[df]
				}
				b.t.inlined = append(b.t.inlined, ic)
			}
			cur = int32(len(b.t.scopes))
			b.t.scopes = append(b.t.scopes, s)
			if e.Tag == dwarf.TagInlinedSubroutine {
				b.t.scopes[parent].children = append(b.t.scopes[parent].children, cur)
			} else {
				// Nested out-of-line functions are functions of their own.
				df := b.cuFile(o.declFile)
				name := "??"
				if df >= 0 {
					name = b.t.files[df]
				}
				for part, rg := range ranges {
					b.t.funcs = append(b.t.funcs, Func{Part: part, MainLow: ranges[0][0],
						Name: s.name, LinkageName: o.linkage, Low: rg[0], High: rg[1],
						File: name, Line: int(o.declLine), Column: int(o.declCol),
						External: o.external, ReturnsValue: o.typed, ReturnsRecord: o.record, Artificial: o.artificial, NoReturn: o.noReturn, entry: cur,
						Closure: o.closure, spec: specOf(e),
					})
				}
			}
		}
		if e.Children {
			var rs [][2]uint64
			if e.Tag == dwarf.TagLexDwarfBlock {
				rs, _ = b.ranges(e)
			}
			stack = append(stack, cur)
			types = append(types, td)
			blocks = append(blocks, rs)
		}
	}
	// Lambdas whose operator() came before its class: the class's line.
	for i := range b.t.funcs {
		f := &b.t.funcs[i]
		if t, ok := b.memberDecl[f.spec]; ok && f.Line == 0 && f.spec != 0 {
			f.Line, f.Column, f.Closure = int(t.line), int(t.col), true
			if df := b.cuFile(t.file); df >= 0 {
				f.File = b.t.files[df]
			}
		}
	}
	return nil
}

// ranges is b.d.Ranges(e), without reading the unit's entry again for
// each entry with a range list (debug/dwarf's baseAddressForEntry reads
// it, attributes and strings, at every call: a tenth of building a Go
// unit's table): the range list is read through an entry that stands for
// the unit's (TagCompileUnit, with the unit's entry point, low pc and
// address base) and holds e's DW_AT_ranges, at e's offset; e's own low
// and high pc come first, as Ranges puts them.
func (b *builder) ranges(e *dwarf.Entry) ([][2]uint64, error) {
	rf := e.AttrField(dwarf.AttrRanges)
	if rf == nil || len(b.cuBase) == 0 {
		return b.d.Ranges(e)
	}
	var ret [][2]uint64
	low, lowOK := e.Val(dwarf.AttrLowpc).(uint64)
	if hf := e.AttrField(dwarf.AttrHighpc); hf != nil && lowOK {
		switch hf.Class {
		case dwarf.ClassAddress:
			if high, ok := hf.Val.(uint64); ok {
				ret = append(ret, [2]uint64{low, high})
			}
		case dwarf.ClassConstant:
			if n, ok := hf.Val.(int64); ok {
				ret = append(ret, [2]uint64{low, low + uint64(n)})
			}
		}
	}
	fields := make([]dwarf.Field, 0, 4)
	fields = append(append(fields, *rf), b.cuBase...)
	list, err := b.d.Ranges(&dwarf.Entry{Offset: e.Offset, Tag: dwarf.TagCompileUnit, Field: fields})
	if err != nil {
		return nil, err
	}
	return append(ret, list...), nil
}

// specOf returns the DW_AT_specification of e, or 0.
func specOf(e *dwarf.Entry) dwarf.Offset {
	off, _ := e.Val(dwarf.AttrSpecification).(dwarf.Offset)
	return off
}

// typeDecl is where a class or struct is declared.
type typeDecl struct{ file, line, col int64 }

// fbregOffset returns the frame-base offset of variable e when its
// location is DW_OP_fbreg alone (an -O0 local).
func fbregOffset(e *dwarf.Entry) (int64, bool) {
	loc, ok := e.Val(dwarf.AttrLocation).([]byte)
	if !ok || len(loc) < 2 || loc[0] != 0x91 {
		return 0, false
	}
	var v int64
	var shift uint
	for i, c := range loc[1:] {
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if i+2 != len(loc) {
				return 0, false // more operations follow
			}
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			return v, true
		}
		if shift >= 64 {
			return 0, false
		}
	}
	return 0, false
}

// eachFunc calls f with each Func (one per range) of the subprogram
// scope parent: the last ones added, or those before the functions nested
// in it, whose scopes come after it (a lambda's operator() defined in the
// function's body: the locals declared after it are still the
// function's).
func (b *builder) eachFunc(parent int32, f func(*Func)) {
	for i := len(b.t.funcs) - 1; i >= 0 && b.t.funcs[i].entry >= parent; i-- {
		if b.t.funcs[i].entry == parent {
			f(&b.t.funcs[i])
		}
	}
}

// aggregateLocal reports whether the variable e lives in the frame (no
// static DW_OP_addr location) and has an array, struct, union or class
// type (behind typedefs and qualifiers).
func (b *builder) aggregateLocal(e *dwarf.Entry) bool {
	if loc, ok := e.Val(dwarf.AttrLocation).([]byte); ok && len(loc) > 0 && loc[0] == 0x03 {
		return false // DW_OP_addr: static storage
	}
	off, ok := e.Val(dwarf.AttrType).(dwarf.Offset)
	return ok && b.typeTag(off) != 0
}

// recordType reports whether the type at off is a struct, union or class
// (behind typedefs and qualifiers).
func (b *builder) recordType(off dwarf.Offset) bool {
	tag := b.typeTag(off)
	return tag != 0 && tag != dwarf.TagArrayType
}

// typeTag returns the tag of the type at off behind typedefs and
// qualifiers when it is an array, struct, union or class, else 0.
func (b *builder) typeTag(off dwarf.Offset) dwarf.Tag {
	for depth := 0; depth < 8; depth++ {
		if v, seen := b.aggregate[off]; seen {
			return v
		}
		r := b.d.Reader()
		r.Seek(off)
		t, err := r.Next()
		if err != nil || t == nil {
			return 0
		}
		switch t.Tag {
		case dwarf.TagArrayType, dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagClassType:
			b.aggregate[off] = t.Tag
			return t.Tag
		case dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType:
			var ok bool
			if off, ok = t.Val(dwarf.AttrType).(dwarf.Offset); !ok {
				return 0
			}
		default:
			b.aggregate[off] = 0
			return 0
		}
	}
	return 0
}

// origin returns the name and declaration of e, following
// DW_AT_abstract_origin and DW_AT_specification.
func (b *builder) origin(e *dwarf.Entry) origin { return b.follow(e, 0) }

// follow returns e's own name and declaration, completed by those of the
// entries it refers to (looked up at depth).
func (b *builder) follow(e *dwarf.Entry, depth int) origin {
	var o origin
	o.name, _ = e.Val(dwarf.AttrName).(string)
	o.linkage, _ = e.Val(dwarf.AttrLinkageName).(string)
	o.declFile, _ = e.Val(dwarf.AttrDeclFile).(int64)
	o.declLine, _ = e.Val(dwarf.AttrDeclLine).(int64)
	o.declCol, _ = e.Val(dwarf.AttrDeclColumn).(int64)
	o.external, _ = e.Val(dwarf.AttrExternal).(bool)
	o.typed = e.Val(dwarf.AttrType) != nil
	if off, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
		o.record = b.recordType(off)
	}
	o.artificial, _ = e.Val(dwarf.AttrArtificial).(bool)
	o.noReturn, _ = e.Val(dwarf.AttrNoreturn).(bool)
	for _, a := range []dwarf.Attr{dwarf.AttrAbstractOrigin, dwarf.AttrSpecification} {
		off, ok := e.Val(a).(dwarf.Offset)
		if !ok {
			continue
		}
		p := b.lookup(off, depth)
		if o.name == "" {
			o.name = p.name
		}
		if o.linkage == "" {
			o.linkage = p.linkage
		}
		if o.declLine == 0 {
			o.declFile, o.declLine, o.declCol = p.declFile, p.declLine, p.declCol
		}
		o.external = o.external || p.external
		o.typed = o.typed || p.typed
		o.record = o.record || p.record
		o.artificial = o.artificial || p.artificial
		o.noReturn = o.noReturn || p.noReturn
	}
	return o
}

// lookup returns the origin of the entry at off (follow), remembered;
// a zero one past a depth of 8 references.
func (b *builder) lookup(off dwarf.Offset, depth int) origin {
	if o, ok := b.names[off]; ok {
		return o
	}
	var o origin
	if depth > 8 {
		return o
	}
	r := b.d.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return o
	}
	o = b.follow(e, depth+1)
	b.names[off] = o
	return o
}
