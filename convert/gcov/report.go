package gcov

import (
	"slices"
	"sort"
	"strings"
)

// Branch is one outcome of a conditional branch on a line, in gcov's order.
type Branch struct {
	Count       uint64
	Fallthrough bool
	Throw       bool // to an exception handler
	Executed    bool // the branch instruction ran at all
	// Source is the count of the block the branch leaves (gcov's
	// percentages are of it); 0 for the old per-instruction branches,
	// whose percentages are of the pair's total.
	Source uint64
}

// Call is one call instruction on a line.
type Call struct {
	Executed uint64 // times the call instruction ran
	Returned uint64 // times control came back after it
}

// Line is the coverage of one source line.
type Line struct {
	Number int
	Count  uint64
	// Unexecuted is gcov's has_unexecuted_block: a block with the line
	// never ran ('*' after the count of an executed line).
	Unexecuted bool
	// Exceptional: every block with the line is reached only through
	// exception handling ('=====' instead of '#####' when never run).
	Exceptional bool
	Function    string   // name of the function the line belongs to
	Branches    []Branch // conditional branches, two outcomes each
	Calls       []Call
	// items keeps calls and branches in address order for the text output.
	items []item
	// graph marks a line counted from gcc's rebuilt graph (-O0), whose
	// flags are gcov's as they are; fromGroups one made only by summing
	// group functions' lines.
	graph, fromGroups bool
}

type item struct {
	call   bool
	branch int // index into Branches (the first of n) or Calls
	n      int // number of branches (outcomes) of a conditional jump or switch
}

// Function is the coverage summary of one function.
type Function struct {
	Name           string
	StartLine      int
	StartColumn    int
	EndLine        int
	EndColumn      int
	Called         uint64
	Returned       uint64
	Blocks         int
	BlocksExecuted int
	LinesWithCode  int
	LinesExecuted  int
	// Lines are the function's own lines when it starts on the same line
	// as another function (gcov's groups: constructors and destructors,
	// template instances), which gcov reports apart.
	Lines []*Line
	group bool
	order uint64 // the function's place in gcc's output order (outputOrder), for gcov's order of groups
}

// File is the coverage of one source file.
type File struct {
	Name      string
	Lines     []*Line // lines with code, sorted by number
	Functions []*Function
	// srcLines, when the file has group functions, are its lines without
	// theirs (gcov's JSON lists those under each function).
	srcLines []*Line
	// unit is the primary source of the compilation unit of the file's
	// first function: gcov names that unit's notes and data files in
	// the .gcov texts of the headers it includes.
	unit string
}

// Report is the coverage of a program.
type Report struct {
	Files []*File
	Runs  int
}

// Report computes gcov's numbers from the aggregated flow: a line's count is
// the number of times control entered it from another line (a call's return
// counts as coming from the call's line), plus the times a jump inside the
// line went backwards (a loop entirely on the line).
func (p *Program) Report(c *Counts) *Report {
	nl := len(p.lines)
	count := make([]uint64, nl)
	exec := make([]uint64, len(p.insns)+1) // difference array, then counts
	idx := func(a uint64) int { return p.index(a) }

	// retSite returns the gcov line a return to addr comes from: the line of
	// the call before it, or -1 when addr is a function entry or follows no
	// call (a callback, the start of a thread).
	retSite := func(addr uint64) int32 {
		if _, ok := p.lowFn[addr]; ok {
			return -1
		}
		i := idx(addr)
		if i <= 0 {
			return -1
		}
		prev := &p.insns[i-1]
		if (prev.kind == kCall || prev.kind == kCallInd) && prev.addr+uint64(prev.size) == addr {
			return prev.gline
		}
		return -1
	}
	// Per run: the first and last gcov line, and entries inside.
	type runInfo struct {
		i0, i1       int
		first, lastG int32
		// loopLine is the condition line of a loop the run falls into
		// without passing that line first (see loopHeads), else -1.
		loopLine int32
	}
	loops := p.loopHeads()
	infos := map[*run]runInfo{}
	info := func(r *run) (runInfo, bool) {
		if ri, ok := infos[r]; ok {
			return ri, ri.i0 >= 0
		}
		ri := runInfo{i0: -1, first: -1, lastG: -1, loopLine: -1}
		i0, i1 := idx(r.key.start), idx(r.key.last)
		if i0 >= 0 && i1 >= i0 {
			ri.i0, ri.i1 = i0, i1
			for k := i0; k <= i1; k++ {
				if lp, ok := loops[k]; ok && k > i0 && ri.loopLine < 0 && lp.latch >= k && !p.lineIn(lp.line, i0, k) {
					ri.loopLine = lp.line
				}
				for _, g := range p.pre[k] {
					if ri.first < 0 {
						ri.first = g
					}
					ri.lastG = g
				}
				if g := p.insns[k].gline; g >= 0 {
					if ri.first < 0 {
						ri.first = g
					}
					ri.lastG = g
				}
			}
		}
		infos[r] = ri
		return ri, ri.i0 >= 0
	}
	// returned[addr] = times control came back to addr from a return or
	// from outside; taken[addr of jcc] = times its jump was taken.
	returned := map[uint64]uint64{}
	taken := map[uint64]uint64{}
	rets := map[int32]uint64{} // function -> returns executed
	// switchTo[gline of a switch][target] = jumps from its dispatch
	switchTo := map[int32]map[uint64]uint64{}
	indirect := map[uint64]map[uint64]uint64{} // indirect jump -> target -> count

	// Arrivals at the code after a label that count for the label (see
	// labelCounts): labelN per label.
	labelAt := map[int][]int{}
	for i, lb := range p.labels {
		labelAt[lb.insn] = append(labelAt[lb.insn], i)
	}
	labelN := make([]uint64, len(p.labels))
	arrive := func(k int, fromG int32, n uint64) {
		for _, li := range labelAt[k] {
			if p.labelCounts(li, fromG) {
				labelN[li] += n
			}
		}
	}

	visit := func(from *run, s succ) {
		to, ok := info(s.to)
		if !ok {
			return
		}
		fromOutside := from == c.outside || from == c.unknown
		var fromInsn *insn
		if !fromOutside {
			fi, ok := info(from)
			if !ok {
				fromOutside = true
			} else {
				fromInsn = &p.insns[fi.i1]
				_ = fi
			}
		}
		prevG := int32(-1)
		backward := false
		switch {
		case fromOutside || fromInsn.kind == kRet:
			prevG = retSite(s.to.key.start)
			if prevG >= 0 || !isEntry(p, s.to.key.start) {
				returned[s.to.key.start] += s.n
			}
		default:
			fi := infos[from]
			prevG = fi.lastG
			if fromInsn.kind == kJcc || fromInsn.kind == kJmp || fromInsn.kind == kJmpInd {
				if fromInsn.kind == kJmpInd {
					m := indirect[fromInsn.addr]
					if m == nil {
						m = map[uint64]uint64{}
						indirect[fromInsn.addr] = m
					}
					m[s.to.key.start] += s.n
				}
				if fromInsn.gline >= 0 && p.switches[fromInsn.gline] != nil {
					m := switchTo[fromInsn.gline]
					if m == nil {
						m = map[uint64]uint64{}
						switchTo[fromInsn.gline] = m
					}
					m[s.to.key.start] += s.n
				}
				backward = s.to.key.start <= fromInsn.addr
				if fromInsn.kind == kJcc && fromInsn.target == s.to.key.start && fromInsn.target != fromInsn.addr+uint64(fromInsn.size) {
					taken[fromInsn.addr] += s.n
				}
			}
		}
		// A jump back into the middle of a statement of its own line (no
		// is_stmt row at the target) is not a new pass over the line: gcc's rotated loop
		// jumps from its test (the for line) to the copies of the induction
		// variable that close the latch, still on that line, before the
		// body's first row. gcov counts the line's blocks once per
		// iteration there, not twice.
		// Nor is coming back from code inlined into a call on the line
		// (inlineReturn).
		// Nor is a jump's arrival a pass over a break or continue whose
		// row is only a view there (jumpView).
		jumped := fromInsn != nil && (fromInsn.kind == kJcc || fromInsn.kind == kJmp) && fromInsn.target == s.to.key.start
		if to.first >= 0 && (to.first != prevG || backward && !p.insns[to.i0].midRow) &&
			(fromInsn == nil || fromInsn.kind == kRet || !p.funcs[p.insns[to.i0].fn].optimized || !p.inlineReturn(infos[from].i1, to.i0, to.first)) &&
			!(jumped && p.jumpView(to.i0, to.first, prevG)) {
			count[to.first] += s.n * p.copies(to.i0, to.first)
		}
		// The other lines with rows at the run's first address (location
		// views: statements that begin there with no code of their own)
		// are entered by this arrival too, except the line the jump comes
		// from: gcc repeats its statement's row at the jump's target (an
		// if's test whose taken side goes on with the rows of the code
		// after it) and gcov counts the statement once.
		// Only an if of one test is taken for one statement so (its test
		// runs once per pass; a line of && or || operands, a switch's
		// compare tree, run several), and not across two inlined copies
		// of one function (a recursive function inlined into itself), nor
		// where the run tests the if again (the next copy of an unrolled
		// loop's body).
		if len(p.pre[to.i0]) > 0 {
			src := -1
			if fromInsn != nil {
				src = infos[from].i1
			} else if k := to.i0 - 1; k >= 0 && (p.insns[k].kind == kCall || p.insns[k].kind == kCallInd) {
				src = k
			}
			again := backward && !p.insns[to.i0].midRow || src < 0 || p.otherCopy(src, to.i0) || !p.oneTestIf(prevG) ||
				p.testsAgain(prevG, to.i0, to.i1)
			prevAt := to.first
			for j, g := range p.pre[to.i0] {
				if j > 0 && g != prevAt && (g != prevG || again) && !(jumped && p.jumpView(to.i0, g, prevG)) {
					count[g] += s.n * p.copies(to.i0, g)
				}
				prevAt = g
			}
			if g := p.insns[to.i0].gline; g >= 0 && g != prevAt && (g != prevG || again) {
				count[g] += s.n * p.copies(to.i0, g)
			}
		}
		// A run that falls into a loop's body without passing the loop's
		// line (loopHeads) is an entry into the loop: gcov counts the
		// line's entry block.
		if to.loopLine >= 0 && prevG != to.loopLine && !p.inLoopBody(to.loopLine, prevG) {
			count[to.loopLine] += s.n
		}
		if len(labelAt) > 0 {
			arrive(to.i0, prevG, s.n)
		}
		if fromInsn != nil && len(p.forwards) > 0 && (fromInsn.kind == kJmp || fromInsn.kind == kJcc) &&
			fromInsn.target == s.to.key.start && fromInsn.gline >= 0 {
			from := p.lines[fromInsn.gline]
			for _, fw := range p.forwards {
				if fw.target == fromInsn.target && fw.insn != idx(fromInsn.addr) {
					if at := p.lines[fw.gline]; from.file == at.file && from.line >= fw.chain && from.line < at.line {
						count[fw.gline] += s.n
					}
				}
			}
		}
	}
	visitAll := func(r *run) {
		for _, s := range r.succs() {
			visit(r, s)
		}
	}
	visitAll(c.outside)
	visitAll(c.unknown)
	runN := c.runCounts()
	var seenRun []int32
	for _, r := range c.runs {
		ri, ok := info(r)
		if !ok {
			// Code in the program's range without debug information
			// (a lambda's static invoker): where it goes on counts as
			// coming from outside (returns included).
			visitAll(r)
			continue
		}
		visitAll(r)
		n := runN[r]
		exec[ri.i0] += n
		exec[ri.i1+1] -= n
		if len(labelAt) > 0 {
			for k := ri.i0 + 1; k <= ri.i1; k++ {
				if _, ok := labelAt[k]; ok {
					arrive(k, p.insns[k-1].gline, n)
				}
			}
		}
		// In optimised code the statements of a block are interleaved:
		// a line is entered at most once per pass over a run, and once
		// more from the loop head the run itself jumps back to (loopInRun).
		once := p.funcs[p.insns[ri.i0].fn].optimized
		seenRun = seenRun[:0]
		// Coming back to a line from code inlined into a call on it is not
		// another pass (inlineReturn).
		enter := func(g int32, k int) {
			if once {
				if slices.Contains(seenRun, g) {
					return
				}
				seenRun = append(seenRun, g)
				if k > ri.i0 && p.inlineReturn(k-1, k, g) {
					return
				}
			}
			count[g] += n * p.copies(k, g)
		}
		prev := int32(-1)
		for k := ri.i0; k <= ri.i1; k++ {
			if once && k > ri.i0 && p.insns[k].leader && loopInRun(p, k, ri.i1) {
				seenRun = seenRun[:0]
			}
			if once && k > ri.i0 && len(p.entriesAt[k]) > 0 && !p.funcs[p.insns[k].fn].cxx {
				seenRun = p.forgetInlinedBodies(seenRun, k)
			}
			if k == ri.i0 && len(p.pre[k]) > 0 {
				// The lines at the run's first address were counted per
				// arrival (visit).
				for _, g := range p.pre[k] {
					if once {
						seenRun = append(seenRun, g)
					}
					prev = g
				}
				if g := p.insns[k].gline; g >= 0 {
					if once {
						seenRun = append(seenRun, g)
					}
					prev = g
				}
				for _, g := range p.side[k] {
					enter(g, k)
				}
				continue
			}
			for _, g := range p.pre[k] {
				if prev >= 0 && g != prev {
					enter(g, k)
				} else if prev < 0 && once {
					seenRun = append(seenRun, g)
				}
				prev = g
			}
			for _, g := range p.side[k] {
				enter(g, k)
			}
			g := p.insns[k].gline
			if g < 0 {
				continue
			}
			if prev >= 0 && g != prev {
				enter(g, k)
			} else if prev < 0 && once {
				seenRun = append(seenRun, g)
			}
			prev = g
		}
		if last := &p.insns[ri.i1]; last.kind == kRet {
			rets[last.fn] += n
		}
	}
	for i := 1; i < len(exec); i++ {
		exec[i] += exec[i-1]
	}

	// Assemble files, lines and functions.
	rep := &Report{Runs: len(c.procs)}
	if rep.Runs == 0 {
		rep.Runs = 1
	}
	files := map[int32]*File{}
	lines := make([]*Line, nl)
	getFile := func(fi int32) *File {
		f := files[fi]
		if f == nil {
			f = &File{Name: p.files[fi]}
			files[fi] = f
		}
		return f
	}
	// addLine makes l gcov line g's Line, listed in g's file.
	addLine := func(g int32, l *Line) {
		lines[g] = l
		f := getFile(p.lines[g].file)
		f.Lines = append(f.Lines, l)
	}
	// -O0 functions: gcov's counting over the rebuilt graph.
	mc := &flowCounts{exec: exec, taken: taken, returned: returned, switchTo: switchTo, indirect: indirect}
	groups := p.groupFunctions()
	srcAcc := map[lineKey]*lineAcc{}
	var groupAcc []map[lineKey]*lineAcc // per function, for groups
	type graphFn struct {
		fi  int
		out *Function
		acc map[lineKey]*lineAcc
		f   *graphFlow
	}
	var graphFns []graphFn
	for fi := range p.funcs {
		fn := &p.funcs[fi]
		g := p.graph(fi)
		if g == nil {
			continue
		}
		f := p.flow(g, mc)
		f.findExceptional()
		out := &Function{Name: fn.name, StartLine: int(fn.startLine), StartColumn: int(fn.startCol),
			EndLine: int(fn.endLine), EndColumn: 1, Called: f.block[0], order: p.outputOrder(fi)}
		for _, r := range f.pred[1] {
			if !g.blocks[r.b].succ[r.i].fake {
				out.Returned += f.arc[r.b][r.i]
			}
		}
		out.Blocks, out.BlocksExecuted = f.blocksExecuted()
		var acc map[lineKey]*lineAcc
		if groups[fi] {
			acc = map[lineKey]*lineAcc{}
			groupAcc = append(groupAcc, acc)
			out.group = true
		}
		graphFns = append(graphFns, graphFn{fi, out, acc, f})
		getFile(fn.file).Functions = append(getFile(fn.file).Functions, out)
		if f := getFile(fn.file); f.unit == "" {
			f.unit = fn.unit
		}
	}
	// gcov adds the functions' blocks to their lines in the notes file's
	// order, which is gcc's order of instrumenting them: at -O0 the
	// reverse of their output order (outputOrder: a lambda's records
	// after those of the function around it on a line they share).
	byOrder := make([]int, len(graphFns))
	for i := range byOrder {
		byOrder[i] = i
	}
	sort.SliceStable(byOrder, func(i, j int) bool {
		return p.outputOrder(graphFns[byOrder[i]].fi) > p.outputOrder(graphFns[byOrder[j]].fi)
	})
	for _, i := range byOrder {
		gf := &graphFns[i]
		fn := &p.funcs[gf.fi]
		gf.f.addLineCounts(p, func(gl int32) *lineAcc {
			k := p.lines[gl]
			m := srcAcc
			if gf.acc != nil && k.file == fn.file && k.line >= fn.startLine && k.line <= fn.endLine {
				m = gf.acc
			}
			l := m[k]
			if l == nil {
				l = &lineAcc{}
				m[k] = l
			}
			return l
		})
	}
	// Lines of the graphs, as gcov accumulates them: each group
	// function's own, then the file's, and in the text each group line
	// added to the file's line.
	graphLine := func(k lineKey, a *lineAcc, name string) *Line {
		a.accumulate()
		l := &Line{Number: int(k.line), Count: a.count, Unexecuted: a.unexecuted, Exceptional: !a.unexceptional, Function: name, graph: true}
		for _, r := range a.branches {
			arc := &r.f.g.blocks[r.b].succ[r.i]
			src, cnt := r.f.block[r.b], r.f.arc[r.b][r.i]
			switch {
			case arc.fake:
				l.items = append(l.items, item{call: true, branch: len(l.Calls)})
				c := Call{Executed: src, Returned: src - min(cnt, src)}
				if len(arc.obs) == 1 && p.insns[arc.obs[0].insn].twice {
					// setjmp returns once more for each longjmp: gcov's
					// fake arc is negative, its "returned" above 100%.
					in := &p.insns[arc.obs[0].insn]
					c.Returned = returned[in.addr+uint64(in.size)]
				}
				l.Calls = append(l.Calls, c)
			case !r.f.unconditional(r.b):
				l.items = append(l.items, item{branch: len(l.Branches), n: 1})
				l.Branches = append(l.Branches, Branch{Count: cnt, Fallthrough: arc.fall, Throw: arc.throw, Executed: src > 0, Source: src})
			}
		}
		return l
	}
	for _, gf := range graphFns {
		if gf.acc == nil {
			continue
		}
		fn := &p.funcs[gf.fi]
		for _, k := range sortedLineKeys(gf.acc) {
			l := graphLine(k, gf.acc[k], fn.name)
			gf.out.Lines = append(gf.out.Lines, l)
		}
	}
	// Each line of a file belongs to the innermost function around it
	// that is not in a group.
	type span struct {
		start, end int32
		gf         int
	}
	spans := map[int32][]span{}
	for i, gf := range graphFns {
		if fn := &p.funcs[gf.fi]; gf.acc == nil {
			spans[fn.file] = append(spans[fn.file], span{fn.startLine, fn.endLine, i})
		}
	}
	for _, ss := range spans {
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
	}
	owner := func(k lineKey) int {
		ss := spans[k.file]
		i := sort.Search(len(ss), func(i int) bool { return ss[i].start > k.line }) - 1
		for ; i >= 0; i-- {
			if ss[i].end >= k.line {
				return ss[i].gf
			}
		}
		return -1
	}
	for _, k := range sortedLineKeys(srcAcc) {
		name := ""
		l := graphLine(k, srcAcc[k], "")
		if o := owner(k); o >= 0 {
			gf := graphFns[o]
			l.Function = p.funcs[gf.fi].name
			gf.out.LinesWithCode++
			if l.Count > 0 {
				gf.out.LinesExecuted++
			}
		}
		_ = name
		f := getFile(k.file)
		f.Lines = append(f.Lines, l)
	}
	for _, gf := range graphFns {
		for _, gl := range gf.out.Lines {
			gf.out.LinesWithCode++
			if gl.Count > 0 {
				gf.out.LinesExecuted++
			}
		}
	}
	_ = groupAcc
	// Functions' first ranges, then the parts gcc split off, which add to
	// their function's.
	order := make([]int, 0, len(p.funcs))
	for pass := 0; pass < 2; pass++ {
		for fi := range p.funcs {
			if p.funcs[fi].part == (pass == 1) {
				order = append(order, fi)
			}
		}
	}
	outs := map[int]*Function{}
	outSeen := map[*Function]map[int32]bool{} // lines counted in a function
	for _, fi := range order {
		fn := &p.funcs[fi]
		if !fn.hasCode || fn.end <= fn.first || p.graph(fi) != nil {
			continue
		}
		var out *Function
		if main := outs[int(fn.mainPart)]; fn.part && main != nil {
			out = main
			out.EndLine = max(out.EndLine, int(fn.endLine))
			out.Returned += rets[int32(fi)]
			b, e := p.gccBlocks(fi, exec)
			out.Blocks += b
			out.BlocksExecuted += e
		} else {
			out = &Function{Name: fn.name, StartLine: int(fn.startLine), StartColumn: int(fn.startCol),
				EndLine: int(fn.endLine), EndColumn: 1,
				Called: exec[fn.first], Returned: rets[int32(fi)], order: p.outputOrder(fi)}
			out.Blocks, out.BlocksExecuted = p.gccBlocks(fi, exec)
			outs[fi] = out
		}
		// The table lookup of a lowered switch (after the range check, up
		// to the indirect jump) is one gimple block with the range check
		// for gcc: it does not make the line partly executed.
		exempt := map[int]bool{}
		for k := fn.first; k < fn.end; k++ {
			if p.insns[k].kind != kJmpInd {
				continue
			}
			for j := k; j >= fn.first && p.insns[j].gline == p.insns[k].gline; j-- {
				if kd := p.insns[j].kind; kd == kJcc || kd == kJmp {
					break
				}
				exempt[j] = true
			}
		}
		// A break whose block gcc's forwarding bypassed ran whenever its
		// line counts (forwarded.go); the prologue's test of a variadic
		// function and va_arg's register-or-stack tests are not gcc
		// blocks at instrumentation (va_arg is lowered later).
		for _, fw := range p.forwards {
			exempt[fw.insn] = true
		}
		if !fn.optimized {
			src := p.source(fn.file)
			for k := fn.first; k < fn.end; k++ {
				g := p.insns[k].gline
				if g < 0 {
					continue
				}
				if lk := p.lines[g]; lk.line == fn.startLine && lk.file == fn.file ||
					lk.file == fn.file && int(lk.line) <= len(src) && strings.Contains(src[lk.line-1], "va_arg") {
					exempt[k] = true
				}
			}
		}
		seen := outSeen[out]
		if seen == nil {
			seen = map[int32]bool{}
			outSeen[out] = seen
		}
		// line returns line g's Line, made and counted on first sight.
		line := func(g int32) *Line {
			if p.noCode[g] {
				return &Line{} // not a line with code for gcov
			}
			l := lines[g]
			if l == nil {
				l = &Line{Number: int(p.lines[g].line), Count: count[g], Function: fn.name}
				addLine(g, l)
			}
			if !seen[g] {
				seen[g] = true
				out.LinesWithCode++
				if l.Count > 0 {
					out.LinesExecuted++
				}
			}
			return l
		}
		for k := fn.first; k < fn.end; k++ {
			in := &p.insns[k]
			for _, g := range p.pre[k] {
				l := line(g)
				if exec[k] == 0 {
					l.Unexecuted = true
				}
			}
			for _, g := range p.side[k] {
				if l := line(g); exec[k] == 0 {
					l.Unexecuted = true
				}
			}
			g := in.gline
			if g < 0 {
				continue
			}
			l := line(g)
			if exec[k] == 0 && in.kind != kNop && !exempt[k] {
				l.Unexecuted = true
			}
			switch in.kind {
			case kJcc:
				if in.target == in.addr+uint64(in.size) {
					break
				}
				t := taken[in.addr]
				n := exec[k]
				if t > n {
					t = n
				}
				jump := Branch{Count: t, Executed: n > 0}
				fall := Branch{Count: n - t, Fallthrough: true, Executed: n > 0}
				l.items = append(l.items, item{branch: len(l.Branches), n: 2})
				if in.target <= in.addr {
					// A loop's back edge: the jump is the true edge.
					l.Branches = append(l.Branches, jump, fall)
				} else {
					l.Branches = append(l.Branches, fall, jump)
				}
			case kCall, kCallInd:
				if in.pure {
					break
				}
				l.items = append(l.items, item{call: true, branch: len(l.Calls)})
				l.Calls = append(l.Calls, Call{Executed: exec[k], Returned: returned[in.addr+uint64(in.size)]})
			}
		}
		for li, lb := range p.labels {
			if lb.fn != int32(fi) || lines[lb.gline] != nil || p.noCode[lb.gline] {
				continue
			}
			l := &Line{Number: int(p.lines[lb.gline].line), Count: labelN[li], Function: fn.name}
			addLine(lb.gline, l)
			out.LinesWithCode++
			if l.Count > 0 {
				out.LinesExecuted++
			}
		}
		if outs[fi] == out {
			getFile(fn.file).Functions = append(getFile(fn.file).Functions, out)
			if f := getFile(fn.file); f.unit == "" {
				f.unit = fn.unit
			}
		}
	}
	// Inlined instances count as calls of their function.
	type fnKey struct {
		name string
		file int32
	}
	outOfLine := map[fnKey]*Function{}
	for fi, f := range files {
		for _, fn := range f.Functions {
			outOfLine[fnKey{fn.Name, fi}] = fn
		}
	}
	for _, ie := range p.inlines {
		n := exec[ie.insn]
		k := fnKey{ie.name, ie.file}
		fn := outOfLine[k]
		if fn == nil {
			fn = &Function{Name: ie.name, StartLine: int(ie.line), EndLine: int(ie.line), EndColumn: 1}
			outOfLine[k] = fn
			f := getFile(ie.file)
			f.Functions = append(f.Functions, fn)
		}
		fn.Called += n
		fn.Returned += n
		if ie.declG >= 0 {
			l := lines[ie.declG]
			if l == nil {
				l = &Line{Number: int(ie.line), Function: ie.name}
				addLine(ie.declG, l)
			}
			l.Count += n
		}
	}
	// Statements of optimised code without rows borrow a count.
	for _, rl := range p.rowless {
		if rl.cases != nil && rl.ref >= 0 {
			// A switch's line less its other cases (switchret.go).
			ref := lines[rl.ref]
			if lines[rl.gline] != nil || ref == nil || p.noCode[rl.gline] {
				continue
			}
			n := p.caseCount(rl.cases, exec, taken)
			if n > ref.Count {
				continue
			}
			addLine(rl.gline, &Line{Number: int(p.lines[rl.gline].line), Count: ref.Count - n, Function: ref.Function})
			continue
		}
		if rl.calls != nil || rl.cases != nil {
			if lines[rl.gline] != nil || p.noCode[rl.gline] {
				continue
			}
			n, fnName := uint64(0), ""
			for _, k := range rl.calls {
				n += exec[k]
				if fnName == "" {
					fnName = p.funcs[p.insns[k].fn].name
				}
			}
			n += p.caseCount(rl.cases, exec, taken)
			for _, k := range rl.cases {
				if fnName == "" {
					fnName = p.funcs[p.insns[k].fn].name
				}
			}
			addLine(rl.gline, &Line{Number: int(p.lines[rl.gline].line), Count: n, Function: fnName})
			continue
		}
		ref := lines[rl.ref]
		if lines[rl.gline] != nil && !rl.override || ref == nil || p.noCode[rl.gline] {
			continue
		}
		n := ref.Count
		if rl.minus >= 0 {
			if m := lines[rl.minus]; m != nil {
				n -= min(n, m.Count)
			}
		}
		if l := lines[rl.gline]; l != nil {
			l.Count = n // (override)
			continue
		}
		addLine(rl.gline, &Line{Number: int(p.lines[rl.gline].line), Count: n, Function: ref.Function})
	}
	for g, sw := range p.switches {
		if l := lines[g]; l != nil {
			p.switchBranches(l, sw, switchTo[g], g)
		}
	}
	// The text sums each group function's lines into the file's.
	for _, f := range files {
		byNum := map[int]int{}
		hasGroup := false
		for _, fn := range f.Functions {
			hasGroup = hasGroup || fn.group
		}
		if !hasGroup {
			continue
		}
		f.srcLines = append([]*Line(nil), f.Lines...)
		for i, l := range f.Lines {
			byNum[l.Number] = i
		}
		for _, fn := range f.Functions {
			for _, gl := range fn.Lines {
				i, ok := byNum[gl.Number]
				if !ok {
					i = len(f.Lines)
					byNum[gl.Number] = i
					f.Lines = append(f.Lines, &Line{Number: gl.Number, Function: gl.Function, Exceptional: true, graph: true, fromGroups: true})
				} else if !f.Lines[i].fromGroups {
					c := *f.Lines[i] // the file's line stays as it is for the JSON
					c.fromGroups = true
					f.Lines[i] = &c
				}
				l := f.Lines[i]
				l.Count += gl.Count
				l.Unexecuted = l.Unexecuted || gl.Unexecuted
				l.Exceptional = l.Exceptional && gl.Exceptional
			}
		}
	}
	for fi, f := range files {
		src := p.source(fi)
		for _, l := range f.Lines {
			if l.graph {
				continue
			}
			if l.Count == 0 {
				l.Unexecuted = false
			}
			// A switch statement is one block for gcc however the
			// dispatch was lowered (jump table or compare tree).
			if l.Number <= len(src) && isSwitch(src[l.Number-1]) {
				l.Unexecuted = false
			}
		}
		sort.Slice(f.Lines, func(i, j int) bool { return f.Lines[i].Number < f.Lines[j].Number })
		sort.SliceStable(f.Functions, func(i, j int) bool { return f.Functions[i].StartLine < f.Functions[j].StartLine })
		// Functions that exist only inlined: their lines are the lines
		// with code from their declaration to the next function's.
		for i, fn := range f.Functions {
			if fn.LinesWithCode != 0 || fn.Blocks != 0 {
				continue
			}
			limit := int(^uint(0) >> 1)
			if i+1 < len(f.Functions) {
				limit = f.Functions[i+1].StartLine
			}
			for _, l := range f.Lines {
				if l.Number >= fn.StartLine && l.Number < limit {
					fn.LinesWithCode++
					fn.EndLine = max(fn.EndLine, l.Number)
					if l.Count > 0 {
						fn.LinesExecuted++
					}
				}
			}
			fn.Blocks = 1
			if fn.Called > 0 {
				fn.BlocksExecuted = 1
			}
		}
		rep.Files = append(rep.Files, f)
	}
	sort.Slice(rep.Files, func(i, j int) bool { return rep.Files[i].Name < rep.Files[j].Name })
	return rep
}

func isEntry(p *Program, addr uint64) bool {
	_, ok := p.lowFn[addr]
	return ok
}

// loopInRun reports whether instruction k, a leader inside the run that
// ends at instruction last, is where that run's own closing jump goes
// back to: the run is a loop's preheader falling into its first pass
// (gcc's rotated loops: the guard and setup, then the body and the
// latch that jumps back to the body). The lines of the loop are entered
// again on that first pass, as on every pass the back edge starts.
func loopInRun(p *Program, k, last int) bool {
	l := &p.insns[last]
	return (l.kind == kJcc || l.kind == kJmp) && p.index(l.target) == k
}

// lineIn reports whether gcov line g is the line of one of the
// instructions from i to j (j excluded), or entered before one of them.
func (p *Program) lineIn(g int32, i, j int) bool {
	for k := i; k < j; k++ {
		if p.insns[k].gline == g || slices.Contains(p.pre[k], g) {
			return true
		}
	}
	return false
}

// forgetInlinedBodies returns seen, the lines entered so far in a run,
// without the lines of the bodies of the functions whose inlined
// instances start at instruction k (entered there, the instruction before
// not theirs): another inlined copy entered in the run passes over its
// function's statements again (units.c's `mm / to_mm(to)` after
// `v * to_mm(from)`, both table loads in one run), when that copy is
// the only one of its call line (onlyCopyOfCall). Of C only: in
// stack.cc's unrolled `while (s.pop(&v))` the second copy of pop in a
// run passes no statement again for gcov.
func (p *Program) forgetInlinedBodies(seen []int32, k int) []int32 {
	var starts []int32
	for _, x := range p.entriesAt[k] {
		if !p.holds(x, k-1) && p.onlyCopyOfCall(x) {
			starts = append(starts, x)
		}
	}
	if len(starts) == 0 {
		return seen
	}
	out := seen[:0]
	for _, g := range seen {
		l, keep := p.lines[g], true
		for _, x := range starts {
			if ie := &p.inlines[x]; l.file == ie.file && l.line > ie.line && l.line <= ie.bodyEnd {
				keep = false
				break
			}
		}
		if keep {
			out = append(out, g)
		}
	}
	return out
}

// jumpView reports whether a jump from gcov line from to instruction k
// does not pass gcov line g, a break or continue of optimised code whose
// row at k is only a location view (k has another line): gcc gave the
// jump's location to the code where it goes, a loop's latch that other
// paths jump to as well (parcel.c's `continue;` after `verbose = 1;`).
// gcov counts the jump's block, so only the arrivals from the statement
// before it in the source pass the line (the if whose branch it is:
// matrix.c's `if (m[i][j] != v) continue;`, or the statement that falls
// into it), not other jumps to the latch.
func (p *Program) jumpView(k int, g, from int32) bool {
	if p.insns[k].gline == g || !p.funcs[p.insns[k].fn].optimized || !breakStmt.MatchString(p.lineText(g)) {
		return false
	}
	at := p.lines[g]
	prev := prevCodeLine(p.source(at.file), at.line)
	if from >= 0 && p.lines[from].file == at.file && p.lines[from].line == prev {
		return false
	}
	// A statement before it that is a view at k too is one block with
	// it (sparse.c's `r = 4;` and `break;` after the compare tree).
	for _, v := range p.pre[k] {
		if p.lines[v].file == at.file && p.lines[v].line == prev {
			return false
		}
	}
	return true
}

// onlyCopyOfCall reports whether instance x is the only inlined copy of
// its function called from its call site (line and column) in its
// function: gcc also duplicates one call's copy (once per version of a
// loop), and DWARF gives calls in the arguments of a call spanning lines
// the statement's line and column (pick.c's three calls of gray in one
// printf, one of them in two versions), so other copies from that site
// may be the same call or others. A copy inside another (a recursive
// function inlined into itself: tree.c's walk) is another call.
func (p *Program) onlyCopyOfCall(x int32) bool {
	ie := &p.inlines[x]
	fn := p.insns[ie.insn].fn
	for y := range p.inlines {
		if o := &p.inlines[y]; int32(y) != x && o.file == ie.file && o.line == ie.line &&
			o.callFile == ie.callFile && o.callLine == ie.callLine && o.callCol == ie.callCol && p.insns[o.insn].fn == fn &&
			!p.nested(int32(y), x) && !p.nested(x, int32(y)) {
			return false
		}
	}
	return true
}

// nested reports whether instance y is among the instances holding
// instance x (its parents).
func (p *Program) nested(y, x int32) bool {
	for z, depth := p.inlines[x].parent, 0; z >= 0 && depth < 64; depth++ {
		if z == y {
			return true
		}
		z = p.inlines[z].parent
	}
	return false
}
