package flow

import (
	"testing"

	"github.com/perfpt/perfpt/ptdecode/flow/flowtest"
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// insnLister checks BlockInsns against the instruction decoder.
type insnLister struct {
	counter
	t    *testing.T
	p    *flowtest.Program
	ips  []uint64
	errs int
}

func (l *insnLister) Block(b *Block, off uint64) {
	n := 0
	err := BlockInsns(l.p.Img, b, func(in *insn.Insn) bool {
		l.ips = append(l.ips, in.IP)
		n++
		if in.IP == b.EndIP && n == int(b.NInsn) && in.Class != b.Class && b.Class != insn.ClassUnknown {
			l.t.Errorf("block %#x: last class %v, block says %v", b.IP, in.Class, b.Class)
		}
		return true
	})
	if err != nil || n != int(b.NInsn) {
		l.errs++
	}
}

type insnCollector struct {
	counter
	ips []uint64
}

func (c *insnCollector) Insn(in *Insn, off uint64)         { c.ips = append(c.ips, in.IP) }
func (c *insnCollector) Event(ev *query.Event, off uint64) {}

func TestBlockInsns(t *testing.T) {
	p := flowtest.LoadProgram(t)
	trace, _ := flowtest.Generate(p, 16<<10, 4096, 21)
	l := &insnLister{t: t, p: p}
	WalkBlocks(NewBlockDecoder(trace, p.Img, &Config{}), WalkOptions{}, l)
	c := &insnCollector{}
	WalkInsns(NewInsnDecoder(trace, p.Img, &Config{}), WalkOptions{}, c)
	if l.errs != 0 || len(l.ips) != len(c.ips) {
		t.Fatalf("%d errors, %d instructions from blocks, %d from the insn decoder", l.errs, len(l.ips), len(c.ips))
	}
	for i := range l.ips {
		if l.ips[i] != c.ips[i] {
			t.Fatalf("insn %d: %#x from blocks, %#x from the insn decoder", i, l.ips[i], c.ips[i])
		}
	}
}
