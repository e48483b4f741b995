package flow

import (
	"math/rand/v2"
	"testing"
)

// TestRetstack checks the ring against a slice that keeps the newest
// retstackSize entries.
func TestRetstack(t *testing.T) {
	var r retstack
	r.init()
	var model []uint64
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 100000 {
		if rng.IntN(3) != 0 {
			ip := rng.Uint64()
			r.push(ip)
			model = append(model, ip)
			if len(model) > retstackSize {
				model = model[1:]
			}
			continue
		}
		got, c := r.pop()
		if len(model) == 0 {
			if c == 0 {
				t.Fatalf("step %d: pop from an empty stack gave %#x", i, got)
			}
			continue
		}
		want := model[len(model)-1]
		model = model[:len(model)-1]
		if c != 0 || got != want {
			t.Fatalf("step %d: pop gave %#x, %v; want %#x", i, got, c, want)
		}
	}
}
