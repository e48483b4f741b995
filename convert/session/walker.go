package session

import (
	"os"
	"sync"

	"github.com/perfpt/perfpt/convert/session/ptperf"
	"github.com/perfpt/perfpt/ptdecode/insn"
)

// walker reads code for the PT decoders from the DSOs' files.
type walker struct {
	p *ptState
}

// queueWalker walks instructions in one queue's thread
// (intel_pt_walk_next_insn).
type queueWalker struct {
	q *ptQueue
}

var dsoData sync.Map // *DSO -> []byte

func (d *DSO) data() []byte {
	if v, ok := dsoData.Load(d); ok {
		return v.([]byte)
	}
	var b []byte
	if d.Symbols(); d.code != nil {
		b = d.code
	} else if f := d.File(); f != "" {
		b, _ = os.ReadFile(f)
	}
	dsoData.Store(d, b)
	return b
}

func (w *queueWalker) WalkInsn(in *ptperf.Insn, insnCnt *uint64, ip *uint64, toIP, maxInsnCnt uint64, toNR bool) error {
	q := w.q
	p := q.pt
	in.Length = 0
	if toIP != 0 && *ip == toIP {
		return nil
	}
	if q.hasPend {
		q.flushPend(*ip, 0)
	}
	kernel := *ip >= p.kernelStart
	t := q.thread
	if t == nil && !kernel {
		return ptperf.WalkNoInsn
	}
	m := p.s.m
	var cnt uint64
	blocks := p.h.Block != nil
	var bstart, blast, bn uint64
	flush := func(last bool) {
		if bn != 0 {
			q.emitBlock(bstart, blast, bn, in, last)
			bn = 0
		}
	}
	defer func() {
		*insnCnt = cnt
		if blocks {
			flush(true)
		}
	}()
	var di insn.Insn
	for {
		var mp *Map
		if kernel {
			mp = m.kmaps.Find(*ip)
		} else {
			mp = t.Maps.Find(*ip)
		}
		if mp == nil || mp.DSO == nil {
			return ptperf.WalkNoInsn
		}
		code := mp.DSO.data()
		off := mp.MapIP(*ip)
		for {
			if off >= uint64(len(code)) {
				return ptperf.WalkNoInsn
			}
			end := off + 16
			if end > uint64(len(code)) {
				end = uint64(len(code))
			}
			b := code[off:end]
			if err := insn.Decode(&di, b, insn.Mode64); err != nil {
				return ptperf.WalkNoInsn
			}
			ptperf.Classify(&di, in)
			copy(in.Buf[:], b[:di.Size])
			cnt++
			if blocks {
				if bn == 0 {
					bstart = *ip
				}
				blast = *ip
				bn++
			}
			if in.Branch != ptperf.BrNone {
				return nil
			}
			if maxInsnCnt != 0 && cnt >= maxInsnCnt {
				return nil
			}
			*ip += uint64(in.Length)
			if toIP != 0 && *ip == toIP {
				in.Length = 0
				return nil
			}
			if *ip >= mp.End {
				if blocks {
					flush(false)
				}
				break
			}
			off += uint64(in.Length)
		}
	}
}

// emitBlock records one straight-line run. The last run of a walk waits
// in q.pend until the decoder knows where execution went next.
func (q *ptQueue) emitBlock(start, last, n uint64, in *ptperf.Insn, pend bool) {
	p := q.pt
	var flags uint32
	if pend && in.Branch != ptperf.BrNone && in.Length != 0 {
		flags = in.Op.Flags()
	}
	b := Block{PID: q.pid, TID: q.tid, CPU: q.cpu, Time: p.perfTime(q.timestamp),
		Start: start, End: last, NInsn: n, Flags: flags}
	if !pend {
		b.To = last + 1 // contiguous: the run continues in the next map
		p.block = b
		p.h.Block(&p.block)
		return
	}
	q.pend, q.hasPend = b, true
}

// flushPend delivers the pending run with the address executed next (0
// when the trace stopped) and extra flags.
func (q *ptQueue) flushPend(to uint64, flags uint32) {
	if !q.hasPend {
		return
	}
	q.hasPend = false
	p := q.pt
	p.block = q.pend
	p.block.To = to
	p.block.Flags |= flags
	if p.h.Block != nil {
		p.h.Block(&p.block)
	}
}
