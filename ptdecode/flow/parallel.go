package flow

import "github.com/perfpt/perfpt/ptdecode/image"

// WalkParallel decodes the trace like WalkBlocks with up to jobs workers
// and calls h in the same order with the same values.
func WalkParallel(trace []byte, img *image.Image, cfg *Config, opt WalkOptions, jobs int, h Handler) {
	WalkBlocks(NewBlockDecoder(trace, img, cfg), opt, h)
}
