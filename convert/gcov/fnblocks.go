package gcov

// gccBlocks estimates the number of basic blocks gcc's gcov counts in
// function fi, and how many of them ran, from its machine blocks (leaders)
// and the instruction counts exec.
//
// gcov counts the blocks of the CFG gcc instruments (GIMPLE, before most
// optimisation), less its entry and exit blocks. At -O0 those map onto the
// machine blocks but for a switch statement's dispatch, which is one block
// for gcc however it was lowered, and two kinds of block the machine code
// merges:
//   - gcc ends a block after every call that may not return (each call but
//     those to const or pure functions gets a fake edge to the exit), where
//     the machine block goes on: the code after such a call is a block of
//     its own, executed when the call returned (unless only the epilogue
//     or a jump follows: then the next block is the return block or the
//     jump's target);
//   - the return statement is a block of its own (gcc lowers every return
//     into a jump to one return block), where a function with a single
//     return path falls into its epilogue: one more block, executed when the
//     function returned.
//
// Blocks that gcc keeps but that have no instructions at all (an empty
// else, a label followed by a jump) cannot be seen and are not counted.
// Optimised code has no such correspondence: its machine blocks are
// counted as they are.
func (p *Program) gccBlocks(fi int, exec []uint64) (blocks, executed int) {
	fn := &p.funcs[fi]
	var rets []int
	// The dispatch of a switch statement (a compare tree or a table jump)
	// is one block for gcc, with an edge per case.
	// When the dispatch starts inside the block before it (no jump
	// lands on its first instruction), it is all part of that block.
	sw := map[int32]int{} // switch line -> index of its first leader, or -1
	if !fn.optimized {
		for k := fn.first; k < fn.end; k++ {
			if g := p.insns[k].gline; g >= 0 && p.switches[g] != nil {
				if _, ok := sw[g]; !ok && !p.insns[k].leader {
					sw[g] = -1
				}
			}
		}
	}
	for k := fn.first; k < fn.end; k++ {
		in := &p.insns[k]
		if in.leader {
			if g := in.gline; !fn.optimized && g >= 0 && p.switches[g] != nil {
				if first, ok := sw[g]; ok {
					if first >= 0 && exec[k] > 0 && exec[first] == 0 {
						executed++
						sw[g] = k
					}
					continue
				}
				sw[g] = k
			}
			blocks++
			if exec[k] > 0 {
				executed++
			}
		}
		if fn.optimized {
			continue
		}
		switch in.kind {
		case kCall, kCallInd:
			if !in.pure && p.codeBeforeLeader(k+1, fn.end) {
				blocks++
				if exec[k+1] > 0 {
					executed++
				}
			}
		case kRet:
			rets = append(rets, k)
		}
	}
	if fn.optimized || len(rets) != 1 {
		return blocks, executed
	}
	// The epilogue before the single return: its first instruction starts
	// the return block unless it already starts a machine block.
	k := rets[0]
	for k > fn.first && p.insns[k-1].kind == kEpilogue && !p.insns[k].leader {
		k--
	}
	if !p.insns[k].leader {
		blocks++
		if exec[rets[0]] > 0 {
			executed++
		}
	}
	return blocks, executed
}

// codeBeforeLeader reports whether the instructions from k up to the next
// leader, jump or end include one that is not a nop, epilogue or return:
// after a call, only then does gcc's block after the call have code of its
// own (else it is the return block or a jump's target, counted already).
func (p *Program) codeBeforeLeader(k, end int) bool {
	for ; k < end; k++ {
		in := &p.insns[k]
		if in.leader {
			return false
		}
		switch in.kind {
		case kNop, kEpilogue, kRet:
		case kJmp:
			return false // on to the block at the target
		default:
			return true
		}
	}
	return false
}
