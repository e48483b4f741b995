package srcline

import (
	"debug/dwarf"
	"debug/elf"
	"sort"
)

// Row is one row of a DWARF line table: the instructions from Addr up to the
// next row's Addr come from File:Line. A row with EndSeq set ends a sequence
// and covers nothing.
type Row struct {
	Addr   uint64
	File   int32 // index into Table.Files
	Line   int32
	Col    int32
	IsStmt bool
	EndSeq bool
	// Discriminator is the DWARF discriminator (basic block within a line).
	Discriminator uint32
}

// Func is an out-of-line function (DW_TAG_subprogram with code). A function
// split in several ranges (hot/cold parts) appears once per range, each with
// the same Name.
type Func struct {
	Name        string // DW_AT_name, following abstract_origin/specification
	LinkageName string // DW_AT_linkage_name when present (C++), else ""
	Low, High   uint64 // [Low, High)
	File        string // declaration file
	Line        int    // declaration line (DW_AT_decl_line)
	Column      int    // declaration column, 0 if absent
	External    bool   // DW_AT_external
	// ReturnsValue is true when the function has a return type
	// (DW_AT_type), false for void functions.
	ReturnsValue bool
	// ReturnsRecord is true when that type is a struct, union or class
	// (behind typedefs and qualifiers).
	ReturnsRecord bool
	// Artificial is true for functions the compiler made (implicit
	// constructors and destructors, DW_AT_artificial).
	Artificial bool
	// NoReturn is true for functions declared noreturn (DW_AT_noreturn).
	NoReturn bool
	// Closure is true for a lambda's operator(): Line and Column are its
	// closure type's declaration (gcc gives the member none).
	Closure bool
	// AggregateLocals is true when the function has a local variable
	// (not static) of array, struct, union or class type.
	AggregateLocals bool
	AggregateFrom   int // the first such variable's declaration line
	// AggregateScopes are the address ranges of the lexical blocks that
	// hold such variables (those of nested scopes).
	AggregateScopes [][2]uint64
	// LocalSlots are the frame-base offsets (DW_OP_fbreg) of the
	// function's named local variables that live in its frame (-O0).
	LocalSlots []int64
	// ScopedSlots are those of LocalSlots declared in a nested lexical
	// block, with the block's address ranges.
	ScopedSlots []ScopedSlot
	// Part is the index of this range among its function's: 0 for the
	// first (the part holding the entry, where gcc split off cold code),
	// whose Low is MainLow.
	Part    int
	MainLow uint64
	entry   int32        // index of the subprogram scope
	spec    dwarf.Offset // DW_AT_specification, 0 if none
}

// Frame is one level of an inline chain. The innermost frame has the
// position of the line-table row; each outer frame has the call site of the
// frame inside it (DW_AT_call_file/DW_AT_call_line).
type Frame struct {
	Func string
	// Linkage is the function's DW_AT_linkage_name (the mangled name that
	// addr2line -f prints for C++ and Rust), "" when it has none.
	Linkage string
	File    string
	Line    int
	Column  int
	// Inlined is true for every frame but the outermost one, the out-of-line
	// function that holds the code.
	Inlined bool
}

// InlinedCall is one inlined instance of a function (DW_TAG_inlined_subroutine).
type InlinedCall struct {
	Func     string // the inlined function's name
	DeclFile string // where the inlined function is declared
	DeclLine int
	Entry    uint64 // DW_AT_entry_pc, or the start of its first range
	CallFile string // the call site
	CallLine int
	CallCol  int // DW_AT_call_column, 0 when none
	// Ranges are the instance's address ranges (shared: do not modify).
	Ranges [][2]uint64
}

// scope is a subprogram or an inlined subroutine, with the ranges it covers.
type scope struct {
	name     string
	linkage  string // DW_AT_linkage_name, "" when none
	ranges   [][2]uint64
	callFile int32 // file index of the call site (inlined subroutines)
	callLine int32
	callCol  int32
	children []int32
	// subprogram is true for an out-of-line function, false for an
	// inlined subroutine.
	subprogram bool
}

// Table answers address-to-source questions for one binary.
type Table struct {
	inlined []InlinedCall
	rows    []Row
	files   []string
	funcs   []Func // sorted by Low
	scopes  []scope
}

// Files returns the source file names that Row.File indexes.
func (t *Table) Files() []string { return t.files }

// Rows returns the line table of the whole binary sorted by address; rows of
// one sequence keep their order, and an end-of-sequence row sorts before a
// row that starts another sequence at the same address. The slice is shared:
// do not modify it.
func (t *Table) Rows() []Row { return t.rows }

// InlinedCalls returns every inlined instance of a function, in DWARF
// order. The slice is shared.
func (t *Table) InlinedCalls() []InlinedCall { return t.inlined }

// Funcs returns the functions sorted by Low. The slice is shared.
func (t *Table) Funcs() []Func { return t.funcs }

// FileName returns the name of file index i, or "??" when out of range.
func (t *Table) FileName(i int32) string {
	if i < 0 || int(i) >= len(t.files) {
		return "??"
	}
	return t.files[i]
}

// RowIndex returns the index in Rows of the row that covers pc: the last row
// at an address <= pc, when that row does not end a sequence. When several
// rows share an address the last one wins, as in addr2line.
func (t *Table) RowIndex(pc uint64) (int, bool) {
	i := sort.Search(len(t.rows), func(i int) bool { return t.rows[i].Addr > pc }) - 1
	if i < 0 || t.rows[i].EndSeq {
		return -1, false
	}
	return i, true
}

// Line returns the line-table row that covers pc.
func (t *Table) Line(pc uint64) (Row, bool) {
	i, ok := t.RowIndex(pc)
	if !ok {
		return Row{}, false
	}
	return t.rows[i], true
}

// Func returns the out-of-line function whose range holds pc.
func (t *Table) Func(pc uint64) (*Func, bool) {
	i := sort.Search(len(t.funcs), func(i int) bool { return t.funcs[i].Low > pc }) - 1
	// Ranges may nest or overlap in odd binaries: walk back a little.
	for j := i; j >= 0 && j > i-4; j-- {
		if f := &t.funcs[j]; pc >= f.Low && pc < f.High {
			return f, true
		}
	}
	return nil, false
}

// Frames appends to dst the inline chain at pc, innermost first, as
// `addr2line -i -f` prints it: the innermost frame carries the line-table
// position of pc and the name of the innermost inlined function (or of the
// function itself), each outer frame the call site of the inner one. With no
// function for pc but a line, it appends one frame named "??".
func (t *Table) Frames(pc uint64, dst []Frame) []Frame {
	row, rowOK := t.Line(pc)
	fn, ok := t.Func(pc)
	if !ok {
		if rowOK {
			dst = append(dst, Frame{Func: "??", File: t.FileName(row.File), Line: int(row.Line), Column: int(row.Col)})
		}
		return dst
	}
	// Collect the scope path outermost first.
	var pathBuf [16]int32
	path := append(pathBuf[:0], fn.entry)
	for cur := fn.entry; ; {
		next := int32(-1)
		for _, c := range t.scopes[cur].children {
			if contains(t.scopes[c].ranges, pc) {
				next = c
				break
			}
		}
		if next < 0 {
			break
		}
		path = append(path, next)
		cur = next
	}
	file, line, col := "??", 0, 0
	if rowOK {
		file, line, col = t.FileName(row.File), int(row.Line), int(row.Col)
	}
	for k := len(path) - 1; k >= 0; k-- {
		s := &t.scopes[path[k]]
		dst = append(dst, Frame{Func: s.name, Linkage: s.linkage, File: file, Line: line, Column: col, Inlined: k > 0})
		file, line, col = t.FileName(s.callFile), int(s.callLine), int(s.callCol)
	}
	return dst
}

func contains(rs [][2]uint64, pc uint64) bool {
	for _, r := range rs {
		if pc >= r[0] && pc < r[1] {
			return true
		}
	}
	return false
}

// Open reads the DWARF of the ELF file at path. A binary without debug
// information gives an empty Table and no error.
func Open(path string) (*Table, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return New(f)
}

// ScopedSlot is a local variable of a nested lexical block: its
// frame-base offset and the block's address ranges.
type ScopedSlot struct {
	Slot  int64
	Scope [][2]uint64
}
