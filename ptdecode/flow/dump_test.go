package flow

import (
	"bufio"
	"fmt"
	"os"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/query"
)

type dumper struct{ w *bufio.Writer }

func (d dumper) Block(b *Block, off uint64)        { fmt.Fprintf(d.w, "%x %x %d\n", b.IP, b.EndIP, b.NInsn) }
func (d dumper) Insn(in *Insn, off uint64)         {}
func (d dumper) Event(ev *query.Event, off uint64) {}
func (d dumper) Error(e *DecodeError)              {}
func (d dumper) EndOfTrace()                       {}
func (d dumper) ResyncDisabled()                   {}

func TestDumpBlocks(t *testing.T) {
	out := os.Getenv("PERFPT_DUMP_BLOCKS")
	if out == "" {
		t.Skip("PERFPT_DUMP_BLOCKS not set")
	}
	p, trace := benchStream(&testing.B{})
	f, _ := os.Create(out)
	w := bufio.NewWriter(f)
	WalkBlocks(NewBlockDecoder(trace, p.Img, &Config{}), WalkOptions{}, dumper{w})
	w.Flush()
	f.Close()
}
