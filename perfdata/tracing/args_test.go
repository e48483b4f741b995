package tracing

import (
	"math"
	"testing"
)

// TestArgNumEvalAtom: arg_num_eval reads an atom with strtoll(atom, NULL,
// 0), which saturates: a value past LLONG_MAX is LLONG_MAX, not the
// wrapped unsigned value.
func TestArgNumEvalAtom(t *testing.T) {
	for _, c := range []struct {
		atom string
		want int64
	}{
		{"0x10", 16}, {"010", 8}, {"-1", -1}, {"18446744073709551615", math.MaxInt64},
		{"0xffffffffffffffff", math.MaxInt64}, {"-9223372036854775809", math.MinInt64}, {"x", 0},
	} {
		if got, ok := argNumEval(&Arg{Kind: ArgAtom, Atom: c.atom}); !ok || got != c.want {
			t.Errorf("argNumEval(%q) = %d, %v; want %d", c.atom, got, ok, c.want)
		}
	}
}
