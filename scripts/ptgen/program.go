package main

import "math/rand/v2"

// termKind is how a basic block ends.
type termKind uint8

const (
	termJcc   termKind = iota // jcc rel32: a TNT bit
	termCall                  // call rel32: no packet, pushes the return
	termICall                 // call *%rax: a TIP, pushes the return
	termJmp                   // jmp rel32 forward: no packet
	termIJmp                  // jmp *%rax inside the function (a jump table): a TIP
	termRet                   // ret: a compressed return (TNT bit)
	termLoop                  // jmp rel32 back to block 0 (the main loop only)
)

// block is a run of straight-line instructions and its terminator.
type block struct {
	addr    uint64   // address of the first instruction
	body    []byte   // straight-line instruction bytes
	ninsn   uint32   // instructions including the terminator
	term    termKind //
	termAt  uint64   // address of the terminator
	next    uint64   // address after the terminator (fall-through, return address)
	target  int32    // jcc/jmp: block index in the function; call: function index
	bias    uint16   // jcc: probability of taken, in 1/65536
	targets []int32  // ijmp: block indices; icall: function indices
}

// function is a function of the synthetic program at a call level.
type function struct {
	level  int
	blocks []block
}

// program is the synthetic code image: functions laid out from base.
type program struct {
	base  uint64
	funcs []function
	code  []byte
	// the functions of each level, for choosing callees
	levels [][]int32
}

// Straight-line 64-bit instructions (no control flow) used for block bodies.
var bodyInsns = [][]byte{
	{0x48, 0x01, 0xc8},                   // add %rcx,%rax
	{0x48, 0x89, 0xc2},                   // mov %rax,%rdx
	{0x83, 0xc0, 0x07},                   // add $0x7,%eax
	{0x48, 0x8d, 0x44, 0x24, 0x08},       // lea 0x8(%rsp),%rax
	{0x31, 0xd2},                         // xor %edx,%edx
	{0x90},                               // nop
	{0x48, 0x8b, 0x45, 0xf8},             // mov -0x8(%rbp),%rax
	{0x48, 0x89, 0x45, 0xf0},             // mov %rax,-0x10(%rbp)
	{0x48, 0x85, 0xc0},                   // test %rax,%rax
	{0x0f, 0xaf, 0xc1},                   // imul %ecx,%eax
	{0x48, 0x83, 0xec, 0x18},             // sub $0x18,%rsp
	{0xc7, 0x45, 0xfc, 0x01, 0, 0, 0},    // movl $0x1,-0x4(%rbp)
	{0x8b, 0x04, 0x8e},                   // mov (%rsi,%rcx,4),%eax
	{0x48, 0xc1, 0xe8, 0x03},             // shr $0x3,%rax
	{0x39, 0xd0},                         // cmp %edx,%eax
	{0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00}, // nopw 0x0(%rax,%rax,1)
}

// termSize is the encoded length of each terminator.
var termSize = [...]uint64{termJcc: 6, termCall: 5, termICall: 2, termJmp: 5, termIJmp: 2, termRet: 1, termLoop: 5}

// params shape the synthetic program.
type params struct {
	funcs  int // number of functions
	levels int // call levels; level 0 is the main loop alone
}

// newProgram builds and encodes a random program. Function 0 is main: an
// endless loop of indirect calls into level 1. A function of level l calls
// only functions of deeper levels, so the call depth stays below levels and
// every return is compressible; backward jccs are taken with a bias below
// 7/8 so that loops end.
func newProgram(rng *rand.Rand, base uint64, pr params) *program {
	p := &program{base: base, levels: make([][]int32, pr.levels)}
	p.funcs = make([]function, pr.funcs)
	p.funcs[0] = function{level: 0, blocks: []block{
		{term: termICall, ninsn: 1},
		{term: termLoop, ninsn: 1},
	}}
	p.levels[0] = []int32{0}
	for i := 1; i < pr.funcs; i++ {
		lvl := 1 + (i-1)*(pr.levels-1)/(pr.funcs-1)
		p.funcs[i].level = lvl
		p.levels[lvl] = append(p.levels[lvl], int32(i))
	}
	for i := 1; i < pr.funcs; i++ {
		f := &p.funcs[i]
		n := 2 + rng.IntN(10)
		f.blocks = make([]block, n)
		for j := range f.blocks {
			b := &f.blocks[j]
			for k := rng.IntN(7); k >= 0; k-- {
				b.body = append(b.body, bodyInsns[rng.IntN(len(bodyInsns))]...)
				b.ninsn++
			}
			b.ninsn++ // the terminator
			if j == n-1 {
				b.term = termRet
				continue
			}
			leaf := f.level == pr.levels-1
			switch r := rng.IntN(100); {
			case r < 12 && !leaf:
				b.term = termCall
			case r < 16 && !leaf:
				b.term = termICall
			case r < 18 && n-j > 2:
				b.term = termJmp
				b.target = int32(j + 1 + rng.IntN(n-j-1))
			case r < 20:
				b.term = termIJmp
				for k := 0; k < 4; k++ {
					b.targets = append(b.targets, int32(j+1+rng.IntN(n-j-1)))
				}
			default:
				b.term = termJcc
				b.target = int32(rng.IntN(n))
				if b.target <= int32(j) {
					b.bias = uint16(rng.IntN(56000)) // a loop: taken < 7/8
				} else {
					b.bias = [...]uint16{1000, 8000, 32768, 57000, 64500}[rng.IntN(5)]
				}
			}
		}
	}
	// Callees: deeper levels, skewed so that some functions are hot.
	for i := range p.funcs {
		f := &p.funcs[i]
		for j := range f.blocks {
			b := &f.blocks[j]
			switch b.term {
			case termCall:
				b.target = p.callee(rng, f.level)
			case termICall:
				for k := 0; k < 4; k++ {
					b.targets = append(b.targets, p.callee(rng, f.level))
				}
			}
		}
	}
	p.layout()
	return p
}

// callee picks a function of a level below lvl, preferring the next level
// and, within a level, the first functions.
func (p *program) callee(rng *rand.Rand, lvl int) int32 {
	l := lvl + 1
	for l < len(p.levels)-1 && rng.IntN(4) == 0 {
		l++
	}
	fs := p.levels[l]
	u := rng.Float64()
	return fs[int(u*u*u*float64(len(fs)))]
}

// layout assigns addresses (functions 16-byte aligned, padded with int3) and
// encodes the code.
func (p *program) layout() {
	addr := p.base
	for i := range p.funcs {
		addr = (addr + 15) &^ 15
		for j := range p.funcs[i].blocks {
			b := &p.funcs[i].blocks[j]
			b.addr = addr
			b.termAt = addr + uint64(len(b.body))
			b.next = b.termAt + termSize[b.term]
			addr = b.next
		}
	}
	p.code = make([]byte, 0, addr-p.base)
	for i := range p.funcs {
		f := &p.funcs[i]
		for uint64(len(p.code))+p.base < f.blocks[0].addr {
			p.code = append(p.code, 0xcc)
		}
		for j := range f.blocks {
			b := &f.blocks[j]
			p.code = append(p.code, b.body...)
			switch b.term {
			case termJcc:
				cc := byte(0x80 + (j*5+i)%16)
				p.code = append(p.code, 0x0f, cc)
				p.code = rel32(p.code, b.next, f.blocks[b.target].addr)
			case termCall:
				p.code = append(p.code, 0xe8)
				p.code = rel32(p.code, b.next, p.funcs[b.target].blocks[0].addr)
			case termICall:
				p.code = append(p.code, 0xff, 0xd0)
			case termJmp:
				p.code = append(p.code, 0xe9)
				p.code = rel32(p.code, b.next, f.blocks[b.target].addr)
			case termIJmp:
				p.code = append(p.code, 0xff, 0xe0)
			case termRet:
				p.code = append(p.code, 0xc3)
			case termLoop:
				p.code = append(p.code, 0xe9)
				p.code = rel32(p.code, b.next, f.blocks[0].addr)
			}
		}
	}
}

func rel32(dst []byte, next, to uint64) []byte {
	d := uint32(int32(int64(to) - int64(next)))
	return append(dst, byte(d), byte(d>>8), byte(d>>16), byte(d>>24))
}
