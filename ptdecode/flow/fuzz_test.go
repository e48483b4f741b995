package flow

import (
	"testing"
	"time"

	"github.com/perfpt/perfpt/ptdecode/flow/flowtest"
)

// FuzzDecoders decodes random and mutated traces over a fixed image (this
// test binary's code) with both decoders, sequentially and in parallel:
// they must not panic and must terminate. The block decoder's fast path
// must give what Next alone gives.
func FuzzDecoders(f *testing.F) {
	p := flowtest.LoadProgram(f)
	for seed := range uint64(4) {
		tr, _ := flowtest.Generate(p, 384, 128, seed)
		f.Add(tr)
	}
	f.Add([]byte{0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82})
	f.Fuzz(func(t *testing.T, trace []byte) {
		tm := time.AfterFunc(10*time.Second, func() { panic("hang") })
		defer tm.Stop()
		cfg := &Config{TickEvents: len(trace)%2 == 0}
		var c counter
		WalkBlocks(NewBlockDecoder(trace, p.Img, cfg), WalkOptions{ResyncOnError: len(trace)%3 == 0}, &c)
		WalkInsns(NewInsnDecoder(trace, p.Img, cfg), WalkOptions{}, &c)
		WalkParallel(trace, p.Img, cfg, WalkOptions{}, 2, &c)
		if !cfg.TickEvents {
			var want, got recording
			d := NewBlockDecoder(trace, p.Img, cfg)
			d.fastOff = true
			WalkBlocks(d, WalkOptions{}, &want)
			WalkBlocks(NewBlockDecoder(trace, p.Img, cfg), WalkOptions{}, &got)
			if diff := diffRecordings(&want, &got); diff != "" {
				t.Errorf("fast path: %s", diff)
			}
		}
	})
}
