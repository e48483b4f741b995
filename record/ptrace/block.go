package ptrace

// maxBlock caps a block's length (a loop of direct jumps never ends).
const maxBlock = 4096

// block is the straight-line path from a start address to the first
// instruction fast mode must stop at; direct jumps and calls are followed.
// The last instruction is that stop (or, at maxBlock, a plain one).
type block struct {
	insns []insn
}

func (b *block) last() insn { return b.insns[len(b.insns)-1] }

func (as *addrSpace) block(ip uint64) (*block, error) {
	if b, ok := as.blks[ip]; ok {
		return b, nil
	}
	start := ip
	b := &block{}
	for len(b.insns) < maxBlock {
		in, err := as.insn(ip)
		if err != nil {
			return nil, err
		}
		b.insns = append(b.insns, in)
		if in.class.stops() {
			break
		}
		if in.class == clJump || in.class == clCall {
			ip = in.target
		} else {
			ip = in.next()
		}
	}
	as.blks[start] = b
	return b, nil
}
