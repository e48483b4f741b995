package session

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/record/synth"
)

// TestBlocksBatched checks that Handler.Blocks gets the Blocks that
// Handler.Block gets, in the same order relative to each other and to the
// samples and errors.
func TestBlocksBatched(t *testing.T) {
	data := recordPT(t, "mix-dyn-O2", synth.Config{TSC: true})
	run := func(batched bool) string {
		s := openItrace(t, data, "cre", Options{})
		var out strings.Builder
		block := func(b *Block) { fmt.Fprintf(&out, "%+v\n", *b) }
		h := Handler{
			Sample: func(smp *sample.Sample) { fmt.Fprintf(&out, "sample %x %x\n", smp.IP, smp.Addr) },
			Error:  func(e *sample.ErrorLine) { fmt.Fprintf(&out, "error %d %x\n", e.Code, e.IP) },
		}
		if batched {
			h.Blocks = func(bs []Block) {
				if len(bs) == 0 || len(bs) > blockBatch {
					t.Fatalf("batch of %d", len(bs))
				}
				for i := range bs {
					block(&bs[i])
				}
			}
		} else {
			h.Block = block
		}
		if err := s.Run(h); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	want, got := run(false), run(true)
	if got != want {
		t.Fatalf("batched Blocks differ (%d vs %d bytes)", len(got), len(want))
	}
	t.Logf("%d lines identical", strings.Count(got, "\n"))
}
