package pprof

import (
	"testing"

	"github.com/perfpt/perfpt/convert/script"
)

// TestStackMoves checks the stackMoves table against its definition.
func TestStackMoves(t *testing.T) {
	for f := uint32(0); f <= stackFlags; f++ {
		want := f&(script.FlagCall|script.FlagReturn) != 0 || f&(script.FlagBranch|script.FlagConditional) == script.FlagBranch
		if got := stackMoves>>(f&stackFlags)&1 != 0; got != want {
			t.Errorf("flags %#x: moves %v, want %v", f, got, want)
		}
	}
}
