package flow

import (
	"math/rand/v2"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/flow/flowtest"
)

// TestFastEqualsGeneral decodes generated traces (clean, and with
// corrupted bytes) with the fast path (fastBlocks) and with Next alone,
// and compares everything the handler gets, trace offsets included, with
// a cold and a warm block cache.
func TestFastEqualsGeneral(t *testing.T) {
	p := flowtest.LoadProgram(t)
	size := 160 << 10
	if testing.Short() || raceEnabled {
		size = 40 << 10
	}
	clean, _ := flowtest.Generate(p, size, 4096, 11)
	bad := append([]byte(nil), clean...)
	rng := rand.New(rand.NewPCG(7, 7))
	for range 40 {
		bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
	}
	walk := func(trace []byte, opt WalkOptions, general bool, cache *BlockCache) *recording {
		d := NewBlockDecoder(trace, p.Img, &Config{Cache: cache})
		d.fastOff = general
		r := new(recording)
		WalkBlocks(d, opt, r)
		return r
	}
	for _, tc := range []struct {
		name  string
		trace []byte
		opt   WalkOptions
	}{
		{"clean", clean, WalkOptions{}},
		{"corrupt", bad, WalkOptions{}},
		{"corrupt-resync", bad, WalkOptions{ResyncOnError: true}},
	} {
		want := walk(tc.trace, tc.opt, true, nil)
		warm := NewBlockCache()
		for _, c := range []struct {
			name  string
			cache *BlockCache
		}{{"cold", nil}, {"warming", warm}, {"warm", warm}} {
			got := walk(tc.trace, tc.opt, false, c.cache)
			if d := diffRecordings(want, got); d != "" {
				t.Errorf("%s, %s cache: %s", tc.name, c.name, d)
				for i := range want.ops {
					if i < len(got.ops) && got.ops[i] != want.ops[i] {
						t.Logf("first difference: op %d %+v, want %+v", i, got.ops[i], want.ops[i])
						break
					}
				}
			}
		}
		t.Logf("%s: %d blocks, %d events, %d errors", tc.name, len(want.blocks), len(want.events), len(want.errs))
	}
}
