package flow

import (
	"math/rand/v2"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/flow/flowtest"
)

// TestStressParallel decodes 40 generated traces, each with a few bytes
// damaged, sequentially and in 4 KiB chunks on 2 and 3 workers: the
// recordings must be the same (the seed reproduces a failure).
func TestStressParallel(t *testing.T) {
	p := flowtest.LoadProgram(t)
	defer func(n int) { ChunkBytes = n }(ChunkBytes)
	ChunkBytes = 4 << 10
	for seed := uint64(0); seed < 40; seed++ {
		tr, _ := flowtest.Generate(p, 24<<10, 2048, seed)
		rng := rand.New(rand.NewPCG(seed, 9))
		for range 1 + rng.IntN(8) {
			tr[rng.IntN(len(tr))] ^= byte(1 + rng.IntN(255))
		}
		opt := WalkOptions{ResyncOnError: seed%2 == 1}
		want := record(tr, p, &Config{}, opt, 0)
		for _, jobs := range []int{2, 3} {
			got := record(tr, p, &Config{}, opt, jobs)
			if d := diffRecordingsTime(want, got, false); d != "" {
				t.Fatalf("seed %d jobs %d resync %v: %s", seed, jobs, opt.ResyncOnError, d)
			}
		}
	}
}
