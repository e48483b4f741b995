package flow

import (
	"fmt"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/flow/flowtest"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// counter is a Handler that counts what it gets.
type counter struct {
	insns, blocks, events uint64
	errs                  []string
	eot                   int
}

func (c *counter) Block(b *Block, off uint64)        { c.blocks++; c.insns += uint64(b.NInsn) }
func (c *counter) Insn(in *Insn, off uint64)         { c.insns++ }
func (c *counter) Event(ev *query.Event, off uint64) { c.events++ }
func (c *counter) Error(e *DecodeError) {
	c.errs = append(c.errs, fmt.Sprintf("%#x %#x %v", e.Offset, e.IP, e))
}
func (c *counter) EndOfTrace()     { c.eot++ }
func (c *counter) ResyncDisabled() {}

// TestGeneratedTrace decodes a generated trace with both decoders and checks
// that they find every instruction the generator executed.
func TestGeneratedTrace(t *testing.T) {
	p := flowtest.LoadProgram(t)
	size := 256 << 10
	if testing.Short() || raceEnabled {
		size = 32 << 10
	}
	trace, n := flowtest.Generate(p, size, 4096, 1)
	cfg := &Config{}
	var bc counter
	WalkBlocks(NewBlockDecoder(trace, p.Img, cfg), WalkOptions{}, &bc)
	var ic counter
	WalkInsns(NewInsnDecoder(trace, p.Img, cfg), WalkOptions{}, &ic)
	t.Logf("%d bytes, %d insns generated; block decoder %d insns in %d blocks, %d events; insn decoder %d insns",
		len(trace), n, bc.insns, bc.blocks, bc.events, ic.insns)
	for _, c := range []*counter{&bc, &ic} {
		if len(c.errs) != 0 || c.eot != 1 {
			t.Errorf("errors: %v (end of trace %d)", c.errs, c.eot)
		}
		// At the end, the decoders go on to the next branch that needs
		// trace: a few instructions more than the generator ran.
		if c.insns < n || c.insns > n+1000 {
			t.Errorf("decoded %d instructions, generated %d", c.insns, n)
		}
	}
	if bc.insns != ic.insns {
		t.Errorf("block decoder %d insns, insn decoder %d", bc.insns, ic.insns)
	}
}
