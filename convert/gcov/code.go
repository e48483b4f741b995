package gcov

import (
	"debug/elf"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/arch/x86/x86asm"

	"github.com/perfpt/perfpt/convert/srcline"
)

// kind classifies an instruction by how it moves control.
type kind uint8

const (
	kOther    kind = iota
	kJcc           // conditional direct jump
	kJmp           // unconditional direct jump
	kJmpInd        // indirect jump (switch tables, tail calls through pointers)
	kCall          // direct call
	kCallInd       // indirect call
	kRet           // return
	kEpilogue      // leave, pop, stack restore: not code in gcov's sense when a row has nothing else
	kNop
)

// insn is one decoded instruction of a traced function.
type insn struct {
	addr   uint64
	target uint64 // direct branch or call target
	gline  int32  // gcov line id (Program.lines), -1 when not code
	fn     int32  // index into Program.funcs
	size   uint8
	kind   kind
	leader bool // starts a machine basic block
	// midRow marks an instruction of optimised code without an is_stmt
	// line-table row at its address: it continues the statement before it.
	midRow bool
	// pure marks a call after which gcc adds no fake exit edge (a builtin
	// that cannot throw, a const or pure function: noFakeFuncs).
	pure     bool
	noReturn bool // a call that never returns (noReturnFuncs)
	throws   bool // a call that may throw (eh.go)
	raises   bool // a call that throws, rethrows or resumes unwinding
	twice    bool // a call that returns twice (setjmp)
	resume   bool // a call to _Unwind_Resume (gcc's resx)
	catch    bool // a call to __cxa_begin_catch
	endCatch bool // a call to __cxa_end_catch
	freeExc  bool // a call to __cxa_free_exception
	// retStore marks a store of a call's result register (rax, eax, ax,
	// al, xmm0) into a local or global variable (no index register).
	retStore bool
	toRax    bool // movq %xmm0,%rax: a float return value's first move
	testAL   bool // test %al,%al: a variadic prologue's test
	parity   bool // jp or jnp: the unordered test of a float comparison
	addRSP   bool // add $n,%rsp: arguments popped after a call
	loadRax  bool // mov disp(%rbp),%rax: a returned object's address
	movRax   bool // mov %rbx (or r12-r15),%rax: a value kept across cleanups
	cmpRDX   bool // cmp $n,%rdx: a catch's test of the exception's selector
	leaRBP   bool // lea of a local's address (an aggregate or address-taken local)
	// slotStore marks a store into a frame slot (disp(%rbp)); slot is
	// the %rbp offset of that store or of a lea's address (leaRBP).
	slotStore bool
	slot      int32
	// thisSlot is, for a call, the frame offset from %rbp of the object
	// whose address it is passed in %rdi (a method's this), 0 if not one.
	thisSlot int32
	// thisFrom is, for a call, the frame offset from %rbp of the slot
	// the pointer it is passed in %rdi was loaded from (an object built
	// through a pointer kept in the frame: the return slot's), 0 if not
	// one; for a load into rax (loadRax), the slot it loads.
	thisFrom int32
	dtor     bool // a call of a library's C++ destructor (through the PLT)
}

// lineKey names a source line.
type lineKey struct {
	file int32 // index into Program.files
	line int32
}

// outputOrder returns a key that orders the functions as gcc emitted
// them: their FDEs' order, else their addresses (the same within a
// unit's .text).
func (p *Program) outputOrder(fi int) uint64 {
	if p.emitted != nil {
		return p.emitted[fi]
	}
	return p.funcs[fi].low
}

// function is one out-of-line function of the program.
type function struct {
	name         string
	file         int32
	startLine    int32
	startCol     int32
	endLine      int32
	low, high    uint64
	first, end   int // insns[first:end]
	blocks       int
	hasCode      bool
	optimized    bool // built with optimisation (DW_AT_producer)
	o3           bool // built with -O3 or more
	returnsValue bool // not a void function
	// returnsRecord: the value is a struct, union or class.
	returnsRecord bool
	noReturn      bool // declared noreturn: its calls end a block with only the fake arc
	// localSlots are the %rbp offsets of its named locals (-O0).
	localSlots map[int32]bool
	// addrSlots are the %rbp offsets whose address a lea takes (-O0):
	// arrays, structs and address-taken locals.
	addrSlots map[int64]bool
	// aggregateLocals: a local array, struct or union (DWARF), whose
	// lifetime gcc ends in a block of its own.
	aggregateLocals bool
	aggregateFrom   int32 // the first aggregate's declaration line
	// aggregateScopes are the ranges of the nested scopes that hold
	// aggregates: gcc's cleanup that ends their lifetimes covers the
	// whole scope, from before their declaration.
	aggregateScopes [][2]uint64
	// memScopes are the address ranges of the nested scopes whose locals
	// live in memory (aggregates, address-taken variables): gcc ends
	// their lifetimes in a finally that every jump out of the scope goes
	// through (-O0).
	memScopes  [][2]uint64
	closure    bool   // a lambda's operator()
	artificial bool   // made by the compiler (DW_AT_artificial)
	cxx        bool   // of a C++ compilation unit
	unit       string // its compilation unit's primary source file
	rets       int32  // explicitReturns + 1, 0 until counted
	// part: a range of the function mainPart other than its first (the
	// code gcc split off as cold): no function of its own, no entry.
	part     bool
	mainPart int32
}

// Program is the static side of coverage: the code and line table of one ELF
// binary built with -g. It is read-only after Load and safe for concurrent
// use.
type Program struct {
	Path  string
	Table *srcline.Table

	files []string
	lines []lineKey // gcov line id -> file:line
	insns []insn    // sorted by address
	funcs []function
	// lowFn maps a function entry address to its index.
	lowFn map[uint64]int32
	// implicitFn names the functions the compiler made (implicit
	// constructors and destructors) by their entry addresses: no
	// functions of gcov's, but calls of them are constructor and
	// destructor calls.
	implicitFn map[uint64]string
	// labels are source lines holding only a label (case X:, default:,
	// name:): gcov counts the arrivals at the code that follows.
	labels []label
	src    map[int32][]string // source text cache, under srcMu
	srcMu  sync.Mutex
	// switches maps the gcov line of a switch statement to its outcomes.
	switches map[int32]*switchInfo
	symfs    string
	// inlines are the entries of inlined instances of functions: gcov
	// counts them as calls (it instruments before inlining).
	inlines []inlineEntry
	// pre holds, for instructions of optimised code, the lines of the
	// statements that start at the instruction before its own line (gcov
	// lines entered in this order just before it).
	pre map[int][]int32
	// side holds, for instructions of optimised code, lines entered when
	// control passes the instruction that do not become the current line
	// (promotedLine's statements under rows that are not is_stmt).
	side map[int][]int32
	// rowless are statements without line-table rows: of optimised code,
	// and va_end at -O0.
	rowless []rowless
	// noCode are lines of optimised code that gcov does not count though
	// the binary has code there (findRowless): statements gcc made PHI
	// arguments, labels after the first of a run.
	noCode map[int32]bool
	// instOf is, per instruction, the innermost inlined instance whose
	// code it is (an index into inlines), or -1 (paintInstances).
	instOf []int32
	// emptyInsts are the inlined instances without code of their own by
	// their ranges (emptyInstanceReturn); entriesAt the instances by their
	// entry instruction (paintInstances).
	emptyInsts []int32
	entriesAt  map[int][]int32
	// merged holds, by instruction, the lines entered there once per
	// inlined copy of one function entered there together
	// (findMergedCopies): how many times each counts.
	merged map[int]map[int32]uint64
	// forwards are breaks whose block gcc's jump forwarding bypassed.
	forwards []forwarded
	// graphLine holds, for instructions whose line in gcc's block graph
	// is not their gcov line, the graph's (the test of a condition's
	// operand written on a line of its own is in a block of both lines).
	graphLine map[int]int32
	// emitted is each function's place in gcc's output order
	// (emissionOrder), nil when not known.
	emitted []uint64
	// graphPre holds lines without code that gcc's graph puts in the
	// block of an instruction (va_end's).
	graphPre map[int][]int32
	// graphs holds the rebuilt block graph of each -O0 function.
	graphs []*gccGraph
	// lpads holds the call-site tables of the functions with exception
	// handling, by their start address (eh.go).
	lpads map[uint64][]callSite
	// lineIndex maps file:line to its gcov line id while the graphs are
	// built (lineIDs).
	lineIndex map[lineKey]int32
	// returnMemo caches returnLine's answers by gcov line.
	returnMemo map[int32]bool
	// caseJumps are the je and jne right after a compare of a register
	// with a constant, by address: a compare tree's test of one case
	// (switchret.go).
	caseJumps map[uint64]caseJump
	// constLeaves are the moves of a constant into a register (or the
	// zeroing of one) right after an unconditional jump or a return, by
	// address: where a jump table's entry can lead (switchret.go).
	constLeaves map[uint64]int64
	// finallyOps are the moves, tests and compares of a callee-saved
	// register with constants, and the jumps after them, by address: a
	// try/finally's dispatch (ehswitch.go).
	finallyOps map[uint64]finallyOp
}

type inlineEntry struct {
	name string
	file int32 // declaration file
	line int32 // declaration line
	insn int   // index of the entry instruction
	// declG is the gcov line of the declaration when no instruction of
	// optimised code has it (findRowless), else -1: gcov counts the
	// entries there.
	declG int32
	// callFile, callLine and callCol are the call site (callLine 0 when
	// DWARF gives none, callCol 0 without a column).
	callFile, callLine, callCol int32
	// ranges are the instance's code as instruction index ranges
	// [start, end).
	ranges [][2]int
	// flow marks an instance gcc inlined before gcov's instrumentation
	// (the early inliner) whose body branches (earlyFlow): gcov counts
	// the return to its call line as an entry (inlineReturn).
	flow bool
	// parent is the innermost other instance holding this one's entry
	// (the copy of the function it was inlined into), or -1
	// (paintInstances).
	parent int32
	// bodyEnd is the last line of the inlined function's body in its
	// file's source (its declaration line when the source is missing).
	bodyEnd int32
	// late is lateInlined's guess for the inlined function.
	late bool
}

type label struct {
	gline int32
	insn  int // index of the first instruction of the next line with code
	fn    int32
	// fallOff marks the closing brace of a function that returns a value
	// and can fall off its end (see canFallOff).
	fallOff bool
}

// Load reads the ELF binary at path: its DWARF line table and the code of
// every function that has debug information.
func Load(path string) (*Program, error) { return LoadOptions{}.Load(path) }

// LoadOptions configure Load.
type LoadOptions struct {
	// Symfs is a directory where source files are looked for, at
	// Symfs+path, when they are not at the path DWARF names (perf's
	// --symfs).
	Symfs string
}

// Load reads the ELF binary at path (see the package function Load).
func (o LoadOptions) Load(path string) (*Program, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tab, err := srcline.New(f)
	if err != nil {
		return nil, err
	}
	p := &Program{Path: path, Table: tab, lowFn: map[uint64]int32{}, symfs: o.Symfs, pre: map[int][]int32{}, side: map[int][]int32{},
		graphLine: map[int]int32{}, graphPre: map[int][]int32{}}
	if err := p.decode(f); err != nil {
		return nil, err
	}
	return p, nil
}

// code returns the bytes of [lo, hi) from the executable sections of f.
func code(f *elf.File, lo, hi uint64) []byte {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_PROGBITS || s.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		if lo >= s.Addr && hi <= s.Addr+s.Size && hi >= lo {
			b := make([]byte, hi-lo)
			if _, err := s.ReadAt(b, int64(lo-s.Addr)); err != nil {
				return nil
			}
			return b
		}
	}
	return nil
}

func (p *Program) decode(f *elf.File) error {
	fileIdx := map[string]int32{}
	intern := func(name string) int32 {
		if i, ok := fileIdx[name]; ok {
			return i
		}
		i := int32(len(p.files))
		p.files = append(p.files, name)
		fileIdx[name] = i
		return i
	}
	lineIdx := map[lineKey]int32{}
	gline := func(file int32, line int32) int32 {
		k := lineKey{file, line}
		if i, ok := lineIdx[k]; ok {
			return i
		}
		i := int32(len(p.lines))
		p.lines = append(p.lines, k)
		lineIdx[k] = i
		return i
	}
	rows := p.Table.Rows()
	// Room for the instructions: about one per 3 bytes of -O0 code.
	var codeBytes uint64
	for _, sf := range p.Table.Funcs() {
		if sf.High > sf.Low && sf.High-sf.Low <= 1<<24 {
			codeBytes += sf.High - sf.Low
		}
	}
	p.insns = make([]insn, 0, min(codeBytes/3, 1<<22))
	syms := funcSymbols(f)
	seen := map[uint64]bool{}
	// Functions' first ranges, then their other parts, which join the
	// function of their first range or are left out with it.
	var funcs []srcline.Func
	for pass := 0; pass < 2; pass++ {
		for _, sf := range p.Table.Funcs() {
			if (sf.Part > 0) == (pass == 1) {
				funcs = append(funcs, sf)
			}
		}
	}
	for _, sf := range funcs {
		mainFn, ok := p.lowFn[sf.MainLow]
		if sf.Part > 0 && !ok {
			continue
		}
		if sf.High <= sf.Low || sf.High-sf.Low > 1<<24 {
			continue
		}
		if seen[sf.Low] {
			continue
		}
		seen[sf.Low] = true
		if sf.Artificial && !strings.HasPrefix(sf.Name, "operator()") {
			// gcov lists no function the compiler made (implicit
			// constructors and destructors): its code is nobody's. A
			// lambda's body is artificial for DWARF, not for gcc.
			name := sf.LinkageName
			if sym, ok := syms[sf.Low]; ok {
				name = sym
			}
			if p.implicitFn == nil {
				p.implicitFn = map[uint64]string{}
			}
			p.implicitFn[sf.Low] = name
			continue
		}
		b := code(f, sf.Low, sf.High)
		if b == nil {
			continue
		}
		fi := int32(len(p.funcs))
		// gcov names functions by their assembler name: the symbol
		// (static C++ functions have no DW_AT_linkage_name).
		name := sf.Name
		if sym, ok := syms[sf.Low]; ok {
			name = sym
		} else if sf.LinkageName != "" {
			name = sf.LinkageName
		}
		fn := function{name: name, file: intern(sf.File), startLine: int32(sf.Line), startCol: int32(sf.Column),
			low: sf.Low, high: sf.High, first: len(p.insns), returnsValue: sf.ReturnsValue, returnsRecord: sf.ReturnsRecord,
			aggregateLocals: sf.AggregateLocals, aggregateFrom: int32(sf.AggregateFrom), closure: sf.Closure,
			aggregateScopes: sf.AggregateScopes, noReturn: sf.NoReturn, artificial: sf.Artificial}
		if sf.Part == 0 {
			p.lowFn[sf.Low] = fi
		} else {
			// A cold part: code of the function, not an entry.
			fn.part, fn.mainPart, fn.name = true, mainFn, p.funcs[mainFn].name
		}

		var slots frameArgs
		var leaSlots map[int64]bool // frame offsets whose address is taken
		var prevCmp x86asm.Inst
		for off := 0; off < len(b); {
			in, err := x86asm.Decode(b[off:], 64)
			size := in.Len
			if err != nil || size == 0 {
				size = 1
			}
			out := classify(in, err, sf.Low+uint64(off), size, fi)
			if err == nil {
				p.noteCaseJump(prevCmp, in, out.addr)
				p.noteConstLeaf(prevCmp, in, out.addr)
				p.noteFinallyOp(prevCmp, in, out.addr)
				prevCmp = in
			} else {
				prevCmp = x86asm.Inst{}
			}
			slots.step(in, err, &out)
			if out.leaRBP {
				if leaSlots == nil {
					leaSlots = map[int64]bool{}
				}
				leaSlots[int64(out.slot)] = true
			}
			p.insns = append(p.insns, out)
			off += size
		}
		if len(sf.LocalSlots) > 0 {
			fn.localSlots = map[int32]bool{}
			for _, o := range sf.LocalSlots {
				// The frame base is the CFA, 16 bytes above %rbp.
				fn.localSlots[int32(o+16)] = true
			}
		}
		fn.addrSlots = leaSlots
		fn.memScopes = append(fn.memScopes, fn.aggregateScopes...)
		for _, v := range sf.ScopedSlots {
			// The frame base is the CFA, 16 bytes above %rbp.
			if leaSlots[v.Slot+16] {
				for _, r := range v.Scope {
					if !slices.Contains(fn.memScopes, r) {
						fn.memScopes = append(fn.memScopes, r)
					}
				}
			}
		}
		fn.end = len(p.insns)
		p.funcs = append(p.funcs, fn)
	}
	sort.SliceStable(p.insns, func(i, j int) bool { return p.insns[i].addr < p.insns[j].addr })
	// Functions may have been reordered by the sort; recompute their spans.
	for i := range p.funcs {
		fn := &p.funcs[i]
		fn.first = sort.Search(len(p.insns), func(k int) bool { return p.insns[k].addr >= fn.low })
		fn.end = sort.Search(len(p.insns), func(k int) bool { return p.insns[k].addr >= fn.high })
	}
	p.lpads = landingPads(f)
	p.emitted = emissionOrder(f, p.funcs)
	p.markLeaders()
	p.markCalls(f)
	for i := range p.insns {
		// Calls of the program's functions declared noreturn.
		if in := &p.insns[i]; in.kind == kCall {
			if fi, ok := p.lowFn[in.target]; ok && p.funcs[fi].noReturn {
				in.noReturn = true
			}
		}
	}
	opt, cxxUnits, o3Units, units := unitRanges(f)
	for fi := range p.funcs {
		for _, u := range units {
			if inRanges(u.ranges, p.funcs[fi].low) {
				p.funcs[fi].unit = u.name
				break
			}
		}
	}
	p.markThrows()
	// Assign gcov lines, row by row within each function.
	type span struct{ row, a, b int }
	var spans []span // one function's, reused
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		ins := p.insns[fn.first:fn.end]
		if len(ins) == 0 {
			continue
		}
		fn.cxx = inRanges(cxxUnits, fn.low)
		if inRanges(opt, fn.low) {
			fn.optimized = true
			fn.o3 = inRanges(o3Units, fn.low)
			p.assignOptimized(fn, rows, intern, gline)
			continue
		}
		// Group the function's instructions by covering row.
		spans = spans[:0]
		for k := range ins {
			ri, ok := p.Table.RowIndex(ins[k].addr)
			if !ok {
				ri = -1
			}
			if len(spans) > 0 && spans[len(spans)-1].row == ri {
				spans[len(spans)-1].b = k + 1
				continue
			}
			spans = append(spans, span{ri, k, k + 1})
		}
		for si, s := range spans {
			if s.row < 0 {
				for k := s.a; k < s.b; k++ {
					ins[k].gline = -1
				}
				continue
			}
			r := rows[s.row]
			file := intern(p.Table.FileName(r.File))
			line := r.Line
			if si > 0 && spans[si-1].row >= 0 && splitCondition(&rows[spans[si-1].row], &r, ins[s.a:s.b], &ins[s.a-1]) {
				line = rows[spans[si-1].row].Line
				// gcc's block of the test has both lines.
				for k := s.a; k < s.b; k++ {
					p.graphLine[fn.first+k] = gline(file, r.Line)
				}
			}
			g := int32(-1)
			switch {
			case si == 0 && fn.startLine > 0:
				// The prologue: gcov puts the entry block on the line
				// of the function's name.
				g = gline(fn.file, fn.startLine)
			case si == len(spans)-1 && epilogueOnly(ins[s.a:s.b]):
				// The closing brace holding only the epilogue is not a
				// line with code for gcov, unless a function that
				// returns a value can fall off its end there.
				if fn.returnsValue && p.canFallOff(fn, fn.first+s.a) {
					p.labels = append(p.labels, label{gline: gline(file, line), insn: fn.first + s.a, fn: int32(fi), fallOff: true})
				}
			default:
				g = gline(file, line)
			}
			if si == len(spans)-1 {
				fn.endLine = line
			}
			for k := s.a; k < s.b; k++ {
				ins[k].gline = g
			}
		}
		fn.hasCode = true
	}
	p.lambdaColumns()
	p.findLabels()
	p.findForwarded()
	p.findScopeExits()
	p.findSwitches()
	// What the source says of each inlined function, once per function:
	// whether gcc inlined it late (lateInlined) and where its body ends.
	type declInfo struct {
		late bool
		end  int32
	}
	decls := map[lineKey]declInfo{}
	for _, ic := range p.Table.InlinedCalls() {
		if i := p.index(ic.Entry); i >= 0 && ic.DeclFile != "" {
			ie := inlineEntry{name: ic.Func, file: intern(ic.DeclFile), line: int32(ic.DeclLine), insn: i, declG: -1, parent: -1}
			for _, rg := range ic.Ranges {
				a := sort.Search(len(p.insns), func(i int) bool { return p.insns[i].addr >= rg[0] })
				b := sort.Search(len(p.insns), func(i int) bool { return p.insns[i].addr >= rg[1] })
				if a < b {
					ie.ranges = append(ie.ranges, [2]int{a, b})
				}
			}
			if ic.CallFile != "" {
				ie.callFile, ie.callLine, ie.callCol = intern(ic.CallFile), int32(ic.CallLine), int32(ic.CallCol)
			}
			src := p.source(ie.file)
			d, ok := decls[lineKey{ie.file, ie.line}]
			if !ok {
				d = declInfo{late: lateInlined(src, ie.line), end: ie.line}
				bodyLines(src, ie.line, func(l int32, _ string) bool { d.end = l; return true })
				decls[lineKey{ie.file, ie.line}] = d
			}
			ie.late, ie.bodyEnd = d.late, d.end
			if fn := &p.funcs[p.insns[i].fn]; fn.optimized && ie.callLine > 0 {
				call := int32(0)
				if ie.callFile == ie.file {
					call = ie.callLine
				}
				ie.flow = earlyFlow(src, ie.line, call, fn.o3, d.late)
			}
			p.inlines = append(p.inlines, ie)
		}
	}
	p.findRowless()
	p.paintInstances()
	p.graphs = make([]*gccGraph, len(p.funcs))
	for fi := range p.funcs {
		if fn := &p.funcs[fi]; fn.hasCode && !fn.optimized && fn.end > fn.first {
			p.graphs[fi] = p.buildGccGraph(fi)
		}
	}
	return nil
}

// splitCondition reports whether the instructions ins of row r are the
// test of a condition's second operand written on a line of its own
// (`a ||` on one line, `b)` on the next, r the first line), and gcov counts
// the test on the operand's line: gcc's line table gives the compare and
// jump the line of the whole condition, with the discriminator of the
// operand's row prev. gcov puts the test in the operand's block, on the
// operand's line, unless the operand ends in a call that may not return
// (before: the instruction before ins): gcc ends the block there, and the
// test's block then counts on the condition's first line, like the line
// table (checked with gcc 12 on if and while conditions, calls, pure calls
// and comparisons).
func splitCondition(prev, r *srcline.Row, ins []insn, before *insn) bool {
	if r.Discriminator == 0 || prev.Discriminator != r.Discriminator || prev.File != r.File || prev.Line <= r.Line {
		return false
	}
	if (before.kind == kCall || before.kind == kCallInd) && !before.pure {
		return false
	}
	return len(ins) <= 3 && ins[len(ins)-1].kind == kJcc
}

func epilogueOnly(ins []insn) bool {
	for _, in := range ins {
		if in.kind != kEpilogue && in.kind != kRet {
			return false
		}
	}
	return true
}

// frameArgs follows which frame slot's address %rax and %rdi hold
// through a function's -O0 code (lea disp(%rbp), then mov %rax,%rdi),
// to name the object a call is made on.
type frameArgs struct {
	rax, rdx, rdi int32
	// raxFrom, rdxFrom, rdiFrom are the frame slots the registers' values
	// were loaded from (a pointer kept in the frame), 0 if not known.
	raxFrom, rdxFrom, rdiFrom int32
}

// step updates the state after instruction in and sets out's thisSlot
// when it is a call.
func (s *frameArgs) step(in x86asm.Inst, err error, out *insn) {
	if err != nil {
		*s = frameArgs{}
		return
	}
	if out.kind == kCall || out.kind == kCallInd {
		out.thisSlot = s.rdi
		out.thisFrom = s.rdiFrom
		*s = frameArgs{}
		return
	}
	dst, ok := in.Args[0].(x86asm.Reg)
	if !ok {
		return
	}
	val, from := int32(0), int32(0)
	switch in.Op {
	case x86asm.LEA:
		if d, ok := rbpSlot(in.Args[1]); ok {
			val = d
		}
	case x86asm.MOV:
		// (A virtual call's result pointer comes through rdx: rax
		// holds the object, rcx the function.)
		if src, ok := in.Args[1].(x86asm.Reg); ok && src == x86asm.RAX && dst == x86asm.RDI {
			val, from = s.rax, s.raxFrom
		} else if ok && src == x86asm.RDX && dst == x86asm.RDI {
			val, from = s.rdx, s.rdxFrom
		} else if m, ok := in.Args[1].(x86asm.Mem); ok && m.Base == x86asm.RBP && m.Index == 0 && m.Segment == 0 {
			from = int32(m.Disp)
		}
	}
	switch dst {
	case x86asm.RDX, x86asm.EDX:
		s.rdx, s.rdxFrom = val, from
	case x86asm.RAX, x86asm.EAX:
		s.rax, s.raxFrom = val, from
	case x86asm.RDI, x86asm.EDI:
		s.rdi, s.rdiFrom = val, from
	}
}

// rbpSlot returns the frame slot a below %rbp operand names: its
// displacement, which x86asm gives as an unsigned 32-bit number when it
// is encoded in 32 bits (frames of more than 128 bytes).
func rbpSlot(a x86asm.Arg) (int32, bool) {
	m, ok := a.(x86asm.Mem)
	if !ok || m.Base != x86asm.RBP || m.Index != 0 {
		return 0, false
	}
	d := int32(m.Disp)
	return d, d < 0
}

func classify(in x86asm.Inst, err error, addr uint64, size int, fn int32) insn {
	out := insn{addr: addr, size: uint8(size), fn: fn, kind: kOther}
	if err != nil {
		return out
	}
	rel := func() (uint64, bool) {
		if r, ok := in.Args[0].(x86asm.Rel); ok {
			return uint64(int64(addr) + int64(size) + int64(r)), true
		}
		return 0, false
	}
	switch in.Op {
	case x86asm.JA, x86asm.JAE, x86asm.JB, x86asm.JBE, x86asm.JE, x86asm.JNE, x86asm.JG, x86asm.JGE,
		x86asm.JL, x86asm.JLE, x86asm.JNO, x86asm.JNP, x86asm.JNS, x86asm.JO, x86asm.JP, x86asm.JS,
		x86asm.JCXZ, x86asm.JECXZ, x86asm.JRCXZ, x86asm.LOOP, x86asm.LOOPE, x86asm.LOOPNE:
		out.kind = kJcc
		out.target, _ = rel()
		out.parity = in.Op == x86asm.JP || in.Op == x86asm.JNP
	case x86asm.JMP:
		if t, ok := rel(); ok {
			out.kind, out.target = kJmp, t
		} else {
			out.kind = kJmpInd
		}
	case x86asm.CALL:
		if t, ok := rel(); ok {
			out.kind, out.target = kCall, t
		} else {
			out.kind = kCallInd
		}
	case x86asm.RET:
		out.kind = kRet
	case x86asm.LEAVE, x86asm.POP:
		out.kind = kEpilogue
	case x86asm.NOP:
		out.kind = kNop
	case x86asm.MOVQ, x86asm.MOVD:
		// A float return value moved through rax/eax and back into
		// xmm0 on the closing brace: the return's copy, not code of
		// the brace's line.
		r, ok := in.Args[0].(x86asm.Reg)
		r2, ok2 := in.Args[1].(x86asm.Reg)
		if ok && ok2 && (r == x86asm.X0 && (r2 == x86asm.RAX || r2 == x86asm.EAX) ||
			r2 == x86asm.X0 && (r == x86asm.RAX || r == x86asm.EAX)) {
			out.kind = kEpilogue
			out.toRax = r2 == x86asm.X0
		}
	case x86asm.MOV, x86asm.MOVSD_XMM, x86asm.MOVSS:
		if m, ok := in.Args[1].(x86asm.Mem); ok && in.Args[0] == x86asm.RAX && m.Base == x86asm.RBP && m.Index == 0 {
			out.loadRax = true
			out.thisFrom = int32(m.Disp)
		}
		if r, ok := in.Args[1].(x86asm.Reg); ok && (in.Args[0] == x86asm.RAX || in.Args[0] == x86asm.EAX) {
			switch r {
			case x86asm.RBX, x86asm.EBX, x86asm.R12, x86asm.R13, x86asm.R14, x86asm.R15:
				out.movRax = true // a value kept in a callee-saved register
			}
		}
		if m, ok := in.Args[0].(x86asm.Mem); ok && (m.Base == x86asm.RBP || m.Base == x86asm.RIP) && m.Index == 0 {
			switch in.Args[1] {
			case x86asm.RAX, x86asm.EAX, x86asm.AX, x86asm.AL, x86asm.X0:
				out.retStore = true
			}
		}
	}
	switch in.Op {
	case x86asm.ADD:
		if r, ok := in.Args[0].(x86asm.Reg); ok && r == x86asm.RSP {
			out.kind = kEpilogue
			out.addRSP = true
		}
	case x86asm.TEST:
		out.testAL = in.Args[0] == x86asm.AL && in.Args[1] == x86asm.AL
	case x86asm.CMP:
		_, imm := in.Args[1].(x86asm.Imm)
		out.cmpRDX = in.Args[0] == x86asm.RDX && imm
	case x86asm.LEA:
		if d, ok := rbpSlot(in.Args[1]); ok {
			out.leaRBP = true
			out.slot = d
		}
	case x86asm.MOV, x86asm.MOVQ, x86asm.MOVD, x86asm.MOVSD_XMM, x86asm.MOVSS, x86asm.MOVAPS, x86asm.MOVUPS, x86asm.MOVDQA, x86asm.MOVDQU:
		if d, ok := rbpSlot(in.Args[0]); ok {
			out.slotStore = true
			out.slot = d
		}
	}
	switch in.Op {
	case x86asm.MOV, x86asm.LEA:
		// Restores of callee-saved registers or of the stack pointer.
		if r, ok := in.Args[0].(x86asm.Reg); ok {
			switch r {
			case x86asm.RSP, x86asm.RBX, x86asm.R12, x86asm.R13, x86asm.R14, x86asm.R15:
				if m, ok := in.Args[1].(x86asm.Mem); ok && m.Base == x86asm.RBP {
					out.kind = kEpilogue
				}
			}
		}
	}
	return out
}

// markLeaders marks the first instruction of every machine basic block.
func (p *Program) markLeaders() {
	for i := range p.funcs {
		fn := &p.funcs[i]
		ins := p.insns[fn.first:fn.end]
		if len(ins) == 0 {
			continue
		}
		ins[0].leader = true
		for k := range ins {
			switch ins[k].kind {
			case kJcc, kJmp, kJmpInd, kRet:
				if k+1 < len(ins) {
					ins[k+1].leader = true
				}
				if ins[k].kind == kJcc || ins[k].kind == kJmp {
					if j := p.index(ins[k].target); j >= fn.first && j < fn.end {
						p.insns[j].leader = true
					}
				}
			}
		}
		for k := range ins {
			if ins[k].leader {
				fn.blocks++
			}
		}
	}
}

// index returns the index of the instruction at addr, or -1.
func (p *Program) index(addr uint64) int {
	i := sort.Search(len(p.insns), func(i int) bool { return p.insns[i].addr >= addr })
	if i < len(p.insns) && p.insns[i].addr == addr {
		return i
	}
	return -1
}

// Contains reports whether addr is an instruction of a function with debug
// information.
func (p *Program) Contains(addr uint64) bool { return p.index(addr) >= 0 }

func (p *Program) String() string {
	return fmt.Sprintf("gcov.Program(%s: %d functions, %d instructions)", p.Path, len(p.funcs), len(p.insns))
}

// funcSymbols maps the address of each function symbol of f to its name,
// without the suffix of a clone gcc made after gcov's instrumentation
// (foo.isra.0, foo.constprop.0, foo.part.0, foo.cold).
func funcSymbols(f *elf.File) map[uint64]string {
	syms, err := f.Symbols()
	if err != nil {
		return nil
	}
	out := make(map[uint64]string, len(syms))
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Value == 0 || s.Name == "" {
			continue
		}
		name := s.Name
		if i := strings.IndexByte(name, '.'); i > 0 {
			name = name[:i]
		}
		if old, ok := out[s.Value]; ok && !baseStructor(name) && (baseStructor(old) || elf.ST_BIND(s.Info) == elf.STB_LOCAL) {
			// Aliases: a complete-object constructor or destructor (C1,
			// D1) is an alias of the base-object one (C2, D2) that gcov
			// names, and a global name beats a local one.
			continue
		}
		out[s.Value] = name
	}
	return out
}

// baseStructor reports whether a mangled name is a base-object constructor
// or destructor (C2, D2), the copy gcc compiles and gcov lists.
func baseStructor(name string) bool {
	return structor(name, "C2") || structor(name, "D2")
}

// structor reports whether mangled name names a constructor or destructor
// of kind k (C1, C2, D0, D1, D2): k followed by the parameters' E, or by
// the template arguments' I of a constructor template.
func structor(name, k string) bool {
	if !strings.HasPrefix(name, "_Z") {
		return false
	}
	for i := 0; ; {
		j := strings.Index(name[i:], k)
		if j < 0 {
			return false
		}
		i += j + len(k)
		if i < len(name) && (name[i] == 'E' || name[i] == 'I') {
			return true
		}
	}
}

// paintInstances sets p.instOf: each inlined instance's ranges are
// painted with it, larger instances first, so that an instruction keeps
// the innermost one.
func (p *Program) paintInstances() {
	if len(p.inlines) == 0 {
		return
	}
	size := func(i int) int {
		n := 0
		for _, r := range p.inlines[i].ranges {
			n += r[1] - r[0]
		}
		return n
	}
	order := make([]int, len(p.inlines))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return size(order[a]) > size(order[b]) })
	p.instOf = make([]int32, len(p.insns))
	for i := range p.instOf {
		p.instOf[i] = -1
	}
	p.emptyInsts, p.entriesAt = nil, map[int][]int32{}
	for i := range p.inlines {
		if len(p.inlines[i].ranges) == 0 {
			p.emptyInsts = append(p.emptyInsts, int32(i))
		}
		p.entriesAt[p.inlines[i].insn] = append(p.entriesAt[p.inlines[i].insn], int32(i))
	}
	p.findMergedCopies()
	for _, i := range order {
		// Larger instances are painted first: what covers the entry now
		// is the innermost instance holding this one.
		p.inlines[i].parent = p.instOf[p.inlines[i].insn]
		for _, r := range p.inlines[i].ranges {
			for k := r[0]; k < r[1]; k++ {
				p.instOf[k] = int32(i)
			}
		}
	}
}

// inlineReturn reports whether control going from instruction j to
// instruction k, entering gcov line g at k, comes back from code inlined
// into a call on g: no statement starts at k (no is_stmt row: the
// caller's statement goes on), and j lies in an inlined instance (or an
// instance inside one) whose call site is g's line, that does not hold k
// and that g's statement started before (startedAt). Like a call's
// return, that is not another pass over g's statement for gcov when gcc
// inlined the call after the instrumentation, or when the inlined body
// had become straight code: gcc's line table gives the caller's code
// after the inlined body the call's line again (opcodes.c's
// `if (strcmp(w, op_name(op)) == 0)`, tree.c's
// `int a = height(t->l), b = height(t->r);`). An early-inlined body that
// branches (earlyFlow) ends in a block of its own that goes back to the
// call line's block, and gcov counts that entry. (units.c's
// `double mm = v * to_mm(from);` is still counted twice: to_mm's switch,
// early-inlined, became a table load with a range check that gcov's
// build keeps in the call line's block, but earlyFlow takes any switch
// for a branching body.)
func (p *Program) inlineReturn(j, k int, g int32) bool {
	if p.instOf == nil || j < 0 || g < 0 || !p.insns[k].midRow {
		return false
	}
	at := p.lines[g]
	x := p.instOf[j]
	for depth := 0; x >= 0 && depth < 64; depth++ {
		if p.holds(x, k) {
			break
		}
		if ie := &p.inlines[x]; ie.callLine == at.line && ie.callFile == at.file && p.startedAt(ie.insn, g) {
			return !ie.flow
		}
		x = p.inlines[x].parent
	}
	return p.emptyInstanceReturn(j, g)
}

// emptyInstanceReturn reports whether instruction j runs the body of an
// inlined instance whose DWARF ranges are empty (DW_AT_high_pc 0: gcc
// moved its code and left the instance only its entry's location view),
// that was entered at or before j in j's function and whose call site is
// g's line, started at the entry (startedAt): j's line is a line of the
// inlined function's body. The instance's code then belongs to no
// instance by its ranges (units.c's to_mm, a switch become a table load,
// is painted as atof's, inlined next to it), and coming back to g from
// it is inlineReturn's case.
func (p *Program) emptyInstanceReturn(j int, g int32) bool {
	jg := p.insns[j].gline
	if jg < 0 {
		return false
	}
	at, body := p.lines[g], p.lines[jg]
	for _, i := range p.emptyInsts {
		ie := &p.inlines[i]
		if ie.insn > j || ie.callLine != at.line || ie.callFile != at.file ||
			body.file != ie.file || body.line <= ie.line || body.line > ie.bodyEnd ||
			p.insns[ie.insn].fn != p.insns[j].fn || !p.startedAt(ie.insn, g) {
			continue
		}
		return !ie.flow
	}
	return false
}

// startedAt reports whether gcov line g's statement started at
// instruction k, an inlined instance's entry, or just before it: then a
// return from the instance to g goes on with a pass already counted.
// Where g has no row before the inlined body (its code all after it),
// coming back is the pass's first entry into g.
func (p *Program) startedAt(k int, g int32) bool {
	if slices.Contains(p.pre[k], g) || p.insns[k].gline == g && !p.insns[k].midRow {
		return true
	}
	return k > 0 && p.insns[k-1].gline == g && p.insns[k-1].fn == p.insns[k].fn
}

// holds reports whether inlined instance x (or an instance inside it)
// holds instruction k.
func (p *Program) holds(x int32, k int) bool {
	for y, depth := p.instOf[k], 0; y >= 0 && depth < 64; depth++ {
		if y == x {
			return true
		}
		y = p.inlines[y].parent
	}
	return false
}

// instAt returns the innermost inlined instance instruction k belongs to,
// or -1.
func (p *Program) instAt(k int) int32 {
	if p.instOf == nil {
		return -1
	}
	return p.instOf[k]
}

// otherCopy reports whether instructions a and b belong to two inlined
// copies of one function (a recursive function inlined into itself).
func (p *Program) otherCopy(a, b int) bool {
	x, y := p.instAt(a), p.instAt(b)
	if x < 0 || y < 0 || x == y {
		return false
	}
	u, v := &p.inlines[x], &p.inlines[y]
	return u.file == v.file && u.line == v.line
}

// oneTestIf reports whether gcov line g is an if (or else if) whose
// condition is one test (oneTest).
func (p *Program) oneTestIf(g int32) bool {
	return g >= 0 && oneTest(p.lineText(g))
}

// oneTest reports whether text is an if (or else if) whose condition is
// one test: no &&, || or ?:, closed on the line.
func oneTest(text string) bool {
	t := strings.TrimSpace(text)
	t = strings.TrimSpace(strings.TrimPrefix(t, "}"))
	t = strings.TrimSpace(strings.TrimPrefix(t, "else"))
	if !strings.HasPrefix(t, "if") {
		return false
	}
	t = strings.TrimSpace(t[2:])
	if !strings.HasPrefix(t, "(") || strings.Contains(t, "&&") || strings.Contains(t, "||") || strings.Contains(t, "?") {
		return false
	}
	// (A space after it tells a condition closed at the line's end from
	// one left open.)
	return afterCondition(t+" ") != ""
}

// testsAgain reports whether instructions i..j hold a conditional jump
// of gcov line g.
func (p *Program) testsAgain(g int32, i, j int) bool {
	for k := i; k <= j; k++ {
		if in := &p.insns[k]; in.kind == kJcc && in.gline == g {
			return true
		}
	}
	return false
}

// findMergedCopies finds the instructions where several inlined copies of
// one function, called from one line, are entered together: gcc merged
// their straight code (units.c's `metrics += metric(from) + metric(to);`,
// two early-inlined if chains become setbe instructions at one address,
// each copy's statements rows at that address in its own location views).
// gcov counts each copy's statements, and the call line once per copy
// whose body branched before the instrumentation (earlyFlow: its end
// block goes back to the call line's block): the statements of the
// function's body with rows at the entry, and such a call line, count
// once per copy there. The copies' code being one, the count of a test
// that returned early in one copy is not known: its later statements get
// the same count.
func (p *Program) findMergedCopies() {
	p.merged = nil
	for k, xs := range p.entriesAt {
		if fn := &p.funcs[p.insns[k].fn]; len(xs) < 2 || !fn.optimized || fn.cxx {
			// (Of C++, shapes.cc's `Counter d = pass(pass(c));` enters
			// two copies of pass, each with a copy constructor, at one
			// address, and gcov counts pass's lines once: not modelled.)
			continue
		}
		type fnKey struct{ file, line, callFile, callLine int32 }
		n := map[fnKey]uint64{}
		flow := map[fnKey]bool{}
		cols := map[[2]int32]bool{} // (copy's function line, call column) seen
		for _, x := range xs {
			ie := &p.inlines[x]
			if ie.callLine <= 0 || ie.callFile == ie.file && ie.callLine >= ie.line && ie.callLine <= ie.bodyEnd {
				continue // (a copy inside another copy of its function)
			}
			if c := [2]int32{ie.line, ie.callCol}; ie.callCol > 0 && cols[c] {
				continue // (a duplicate of a copy of the same call)
			} else {
				cols[c] = true
			}
			key := fnKey{ie.file, ie.line, ie.callFile, ie.callLine}
			n[key]++
			flow[key] = flow[key] || ie.flow
		}
		lines := append([]int32{p.insns[k].gline}, p.pre[k]...)
		for key, c := range n {
			if c < 2 {
				continue
			}
			for _, g := range lines {
				if g < 0 {
					continue
				}
				l := p.lines[g]
				if l.file == key.file && l.line >= key.line && l.line <= p.bodyEndOf(key.file, key.line) ||
					flow[key] && l.file == key.callFile && l.line == key.callLine {
					if p.merged == nil {
						p.merged = map[int]map[int32]uint64{}
					}
					if p.merged[k] == nil {
						p.merged[k] = map[int32]uint64{}
					}
					p.merged[k][g] = c
				}
			}
		}
	}
}

// bodyEndOf returns the last line of the body of the inlined function
// declared on line decl of file.
func (p *Program) bodyEndOf(file, decl int32) int32 {
	for i := range p.inlines {
		if ie := &p.inlines[i]; ie.file == file && ie.line == decl {
			return ie.bodyEnd
		}
	}
	return decl
}

// copies returns how many times gcov line g counts when entered at
// instruction k: once, or once per inlined copy merged there
// (findMergedCopies).
func (p *Program) copies(k int, g int32) uint64 {
	if c, ok := p.merged[k][g]; ok {
		return c
	}
	return 1
}
