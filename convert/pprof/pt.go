package pprof

import (
	"debug/elf"
	"sort"

	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/convert/gcov"
	"github.com/perfpt/perfpt/convert/script"
	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/ptdecode/insn"
)

// callNode is one frame of a thread's call tree: the call instruction in
// the parent frame (site) that entered it. Roots (site 0) are per thread.
type callNode struct {
	parent   *callNode
	site     uint64
	ret      uint64 // the return address, once a return to it was seen
	children []*callNode
	depth    int
}

func (n *callNode) child(site uint64) *callNode {
	for _, c := range n.children {
		if c.site == site {
			return c
		}
	}
	c := &callNode{parent: n, site: site, depth: n.depth + 1}
	n.children = append(n.children, c)
	return c
}

type recKey struct {
	node       *callNode
	start, end uint64
}

// blockRec is one distinct block executed under one call stack.
type blockRec struct {
	key      recKey
	execs    uint64
	insns    uint64 // from Block.NInsn when the session gives it
	branches uint64
	nanos    uint64
	succ     []*blockRec
}

type ptThread struct {
	pid, tid int32
	root     *callNode
	cur      *callNode
	prev     *blockRec
	lastTime uint64
}

// ptAgg aggregates decoded PT blocks per call stack.
type ptAgg struct {
	o       *Options
	m       *session.Machine
	threads map[int32]*ptThread
	recs    map[recKey]*blockRec
	order   []*blockRec
	roots   map[*callNode]*ptThread
	hasTime bool
}

// maxDepth bounds a thread's reconstructed stack (runaway recursion or
// unmatched calls).
const maxDepth = 1024

// maxCallLen is the longest x86 call instruction: a return to To matches
// the frame whose call site lies within this distance before To.
const maxCallLen = 15

func (a *ptAgg) block(b *session.Block) {
	if a.o.PIDs != nil && !a.o.PIDs[b.PID] || a.o.TIDs != nil && !a.o.TIDs[b.TID] {
		return
	}
	if b.Time != 0 && (a.o.TimeFrom != 0 && b.Time < a.o.TimeFrom || a.o.TimeTo != 0 && b.Time > a.o.TimeTo) {
		return
	}
	t := a.threads[b.TID]
	if t == nil {
		t = &ptThread{pid: b.PID, tid: b.TID, root: &callNode{}}
		t.cur = t.root
		a.threads[b.TID] = t
		a.roots[t.root] = t
	}
	k := recKey{t.cur, b.Start, b.End}
	var r *blockRec
	if p := t.prev; p != nil {
		for _, s := range p.succ {
			if s.key == k {
				r = s
				break
			}
		}
	}
	if r == nil {
		r = a.recs[k]
		if r == nil {
			r = &blockRec{key: k}
			a.recs[k] = r
			a.order = append(a.order, r)
		}
		if p := t.prev; p != nil && len(p.succ) < 8 {
			p.succ = append(p.succ, r)
		}
	}
	r.execs++
	r.insns += b.NInsn
	if b.Flags&script.FlagBranch != 0 && b.To != 0 {
		r.branches++
	}
	if b.Time != 0 {
		if t.lastTime != 0 && b.Time > t.lastTime {
			r.nanos += b.Time - t.lastTime
			a.hasTime = true
		}
		t.lastTime = b.Time
	}
	t.prev = r
	a.move(t, b)
}

// move updates the thread's call stack after block b.
func (a *ptAgg) move(t *ptThread, b *session.Block) {
	f := b.Flags
	switch {
	case f&(script.FlagSyscallRet|script.FlagInterrupt|script.FlagAsync|script.FlagTraceBegin|script.FlagTraceEnd) != 0:
		// Kernel entries and trace gaps resume where they left.
	case f&script.FlagCall != 0:
		if t.cur.depth < maxDepth {
			t.cur = t.cur.child(b.End)
		}
	case f&script.FlagReturn != 0:
		for n := t.cur; n != t.root; n = n.parent {
			if n.ret == b.To || n.ret == 0 && b.To > n.site && b.To-n.site <= maxCallLen {
				n.ret = b.To
				t.cur = n.parent
				return
			}
		}
		// A return to a caller the trace never saw called (the trace
		// started inside it): stay at the thread's root.
		if t.cur != t.root {
			t.cur = t.cur.parent
		}
	case f&script.FlagBranch != 0 && f&script.FlagConditional == 0 && b.To != 0:
		// longjmp and the like: a jump to the return address of a call
		// made earlier from a frame up the stack resumes that frame.
		for n, i := t.cur.parent, 0; n != nil && i < 64; n, i = n.parent, i+1 {
			for _, c := range n.children {
				if c.ret == b.To {
					t.cur = n
					return
				}
			}
		}
	}
}

// code reads instruction bytes of mapped files for splitting blocks into
// instructions.
type codeReader struct {
	files map[string]*elf.File
}

// read returns up to n bytes of path's loaded code at file offset off, at
// least need of them, or nil.
func (c *codeReader) read(path string, off uint64, need, n int) []byte {
	f, ok := c.files[path]
	if !ok {
		f, _ = elf.Open(path)
		c.files[path] = f
	}
	if f == nil {
		return nil
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && off >= p.Off && off+uint64(need) <= p.Off+p.Filesz {
			n = int(min(uint64(n), p.Off+p.Filesz-off))
			b := make([]byte, n)
			if _, err := p.ReadAt(b, int64(off-p.Off)); err != nil {
				return nil
			}
			return b
		}
	}
	return nil
}

func (c *codeReader) close() {
	for _, f := range c.files {
		if f != nil {
			f.Close()
		}
	}
}

// insnAddrs returns the instruction addresses of the block [start, end] in
// mp, or nil when its code cannot be read.
func (c *codeReader) insnAddrs(mp *session.Map, start, end uint64, dst []uint64) []uint64 {
	if mp == nil || mp.DSO == nil || end < start || end-start > 1<<16 {
		return nil
	}
	path := mp.DSO.File()
	if path == "" {
		return nil
	}
	code := c.read(path, mp.MapIP(start), int(end-start)+1, int(end-start)+maxCallLen)
	if code == nil {
		return nil
	}
	dst = dst[:0]
	for off := uint64(0); start+off <= end; {
		dst = append(dst, start+off)
		if start+off == end {
			break
		}
		var in insn.Insn
		if err := insn.Decode(&in, code[off:], insn.Mode64); err != nil || in.Size == 0 {
			return nil
		}
		off += uint64(in.Size)
	}
	if dst[len(dst)-1] != end {
		return nil
	}
	return dst
}

func fromPT(s *session.Session, o Options) (*profile.Profile, error) {
	a := &ptAgg{o: &o, m: s.Machine(), threads: map[int32]*ptThread{}, recs: map[recKey]*blockRec{},
		roots: map[*callNode]*ptThread{}}
	direct := false
	h := session.Handler{
		Sample: gcov.SampleBlocks(func(b *session.Block) {
			if !direct {
				a.block(b)
			}
		}),
		Block: func(b *session.Block) {
			direct = true
			a.block(b)
		},
	}
	if err := s.Run(h); err != nil {
		return nil, err
	}
	return a.profile(o.Granularity)
}

// profile turns the aggregated blocks into samples.
func (a *ptAgg) profile(gran Granularity) (*profile.Profile, error) {
	types := []*profile.ValueType{{Type: "instructions", Unit: "count"}, {Type: "branches", Unit: "count"}}
	if a.hasTime {
		types = append(types, &profile.ValueType{Type: "time", Unit: "nanoseconds"})
	}
	b := NewBuilder(gran, types)
	cr := &codeReader{files: map[string]*elf.File{}}
	defer cr.close()
	var addrs []uint64
	stack := make([]*profile.Location, 1, 64)
	vals := make([]int64, len(types))
	for _, r := range a.order {
		// The thread and the caller frames.
		var t *ptThread
		stack = stack[:1]
		n := r.key.node
		for ; n.parent != nil; n = n.parent {
			stack = append(stack, b.Location(a.frame(n.parent, n.site, true)))
		}
		t = a.roots[n]
		th := a.m.FindThread(t.tid)
		lb := Labels{PID: int64(t.pid), TID: int64(t.tid), CPU: -1}
		if th != nil {
			lb.Comm = th.Comm
		}
		var mp *session.Map
		if th != nil {
			mp = th.Maps.Find(r.key.start)
		}
		addrs = cr.insnAddrs(mp, r.key.start, r.key.end, addrs)
		perExec := uint64(len(addrs))
		if r.insns > 0 || perExec == 0 {
			// The session counted: spread its count over the block.
			if perExec == 0 {
				addrs = append(addrs[:0], r.key.start)
				perExec = 1
			}
		}
		total := r.insns
		if total == 0 {
			total = r.execs * perExec
		}
		for i, ip := range addrs {
			clear(vals)
			share := total / perExec
			if uint64(i) < total%perExec {
				share++
			}
			vals[0] = int64(share)
			if i == len(addrs)-1 {
				vals[1] = int64(r.branches)
				if a.hasTime {
					vals[2] = int64(r.nanos)
				}
			}
			stack[0] = b.Location(a.frameIn(th, mp, ip))
			b.Add(stack, lb, vals)
		}
	}
	sort.SliceStable(b.P.Sample, func(i, j int) bool { return b.P.Sample[i].Value[0] > b.P.Sample[j].Value[0] })
	b.P.DefaultSampleType = "instructions"
	return b.Finish()
}

// frame resolves a caller frame at site of the thread owning node n.
func (a *ptAgg) frame(n *callNode, site uint64, caller bool) *Frame {
	root := n
	for root.parent != nil {
		root = root.parent
	}
	var th *session.Thread
	if t := a.roots[root]; t != nil {
		th = a.m.FindThread(t.tid)
	}
	var mp *session.Map
	if th != nil {
		mp = th.Maps.Find(site)
	}
	fr := a.frameIn(th, mp, site)
	// The site is the call instruction itself: no ip-1 adjustment.
	fr.Caller = false
	return fr
}

func (a *ptAgg) frameIn(th *session.Thread, mp *session.Map, ip uint64) *Frame {
	fr := &Frame{IP: ip}
	if mp == nil || mp.DSO == nil {
		return fr
	}
	fr.Map = MapInfo{Start: mp.Start, End: mp.End, PgOff: mp.PgOff, File: mp.DSO.Name, Path: mp.DSO.File(), BuildID: mp.DSO.BuildID}
	fr.Sym = mp.DSO.Symbols().Find(mp.MapIP(ip))
	return fr
}
