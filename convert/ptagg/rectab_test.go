package ptagg

import (
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
)

// TestStackMoves checks the stackMoves table against its definition.
func TestStackMoves(t *testing.T) {
	for f := uint32(0); f <= stackFlags; f++ {
		want := f&(sample.FlagCall|sample.FlagReturn) != 0 || f&(sample.FlagBranch|sample.FlagConditional) == sample.FlagBranch
		if got := stackMoves>>(f&stackFlags)&1 != 0; got != want {
			t.Errorf("flags %#x: moves %v, want %v", f, got, want)
		}
	}
}
