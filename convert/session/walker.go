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
	kernel := *ip >= p.kernelStart
	t := q.thread
	if t == nil && !kernel {
		return ptperf.WalkNoInsn
	}
	m := p.s.m
	var cnt uint64
	defer func() { *insnCnt = cnt }()
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
				break
			}
			off += uint64(in.Length)
		}
	}
}
