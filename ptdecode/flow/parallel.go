package flow

import (
	"sync"

	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// Parallel decoding.
//
// The trace is cut at PSBs into chunks. A worker decodes chunk k from its
// PSB up to and including the PSB+ header of chunk k+1: it reconstructs the
// code between its last packet and the FUP of that PSB+ exactly as a
// sequential decode does, and processes that header's status updates. It
// never synchronises at or after chunk k+1's PSB; sequential decode would
// go on from there, and so does the worker of chunk k+1. When joining, the
// status updates that start chunk k+1 are dropped if chunk k ended with the
// same header (otherwise, after an error in chunk k, the sequential decode
// synchronised at that PSB and reported them too). The Handler then sees
// what a sequential WalkBlocks shows it, whatever the number of workers.
//
// One assumption: like the hardware, the trace does not compress returns
// across a PSB (the decoder of chunk k+1 starts with an empty call stack).
// Event times that depend on calibration from before a chunk (CYC-only
// timing) may differ slightly from a sequential decode.

// ChunkBytes is the target amount of trace per chunk of a parallel decode.
var ChunkBytes = 128 << 10

type chunk struct {
	start, next, end uint64 // PSB, next chunk's PSB, end of decoding
	first, last      bool
}

// planChunks cuts the trace into chunks of about ChunkBytes at PSBs.
func planChunks(trace []byte, psbs []int) []chunk {
	var cs []chunk
	s := 0
	for i := 1; i < len(psbs); i++ {
		if psbs[i]-psbs[s] < ChunkBytes {
			continue
		}
		cs = append(cs, chunk{start: uint64(psbs[s]), next: uint64(psbs[i]), end: psbEnd(trace, psbs[i])})
		s = i
	}
	cs = append(cs, chunk{start: uint64(psbs[s]), next: uint64(len(trace)), end: uint64(len(trace)), last: true})
	cs[0].first = true
	return cs
}

// psbEnd returns the offset after the PSB+ header at off (after PSBEND),
// or off if the header does not end properly.
func psbEnd(trace []byte, off int) uint64 {
	pd := packet.NewDecoder(trace)
	if pd.SyncSet(off) != nil {
		return uint64(off)
	}
	for n := 0; n < 64 && pd.Next(); n++ {
		switch pd.Packet().Kind {
		case packet.KindPSBEnd:
			return uint64(pd.Offset())
		case packet.KindPSB:
			if n > 0 {
				return uint64(off)
			}
		}
	}
	return uint64(off)
}

// recording is what a worker saw in one chunk, replayed in order later.
type recording struct {
	ops    []recOp
	blocks []Block
	events []query.Event
	errs   []DecodeError
}

type recOp struct {
	off  uint64
	kind uint8
}

const (
	recBlock = iota
	recEvent
	recError
	recEOT
	recResyncDisabled
)

func (r *recording) reset() {
	r.ops, r.blocks, r.events, r.errs = r.ops[:0], r.blocks[:0], r.events[:0], r.errs[:0]
}

func (r *recording) Block(b *Block, off uint64) {
	r.ops = append(r.ops, recOp{off, recBlock})
	r.blocks = append(r.blocks, *b)
}

func (r *recording) Insn(*Insn, uint64) {}

func (r *recording) Event(ev *query.Event, off uint64) {
	r.ops = append(r.ops, recOp{off, recEvent})
	r.events = append(r.events, *ev)
}

func (r *recording) Error(e *DecodeError) {
	r.ops = append(r.ops, recOp{0, recError})
	r.errs = append(r.errs, *e)
}

func (r *recording) EndOfTrace()     { r.ops = append(r.ops, recOp{0, recEOT}) }
func (r *recording) ResyncDisabled() { r.ops = append(r.ops, recOp{0, recResyncDisabled}) }

// endsWithStatus reports whether the recording ends with status updates.
func (r *recording) endsWithStatus() bool {
	n := len(r.ops)
	return n > 0 && r.ops[n-1].kind == recEvent && r.events[len(r.events)-1].StatusUpdate
}

// replay hands the recording to h, skipping leading status updates if asked.
func (r *recording) replay(h Handler, skipStatus bool) {
	var bi, ei, xi int
	for _, op := range r.ops {
		switch op.kind {
		case recBlock:
			h.Block(&r.blocks[bi], op.off)
			bi++
			skipStatus = false
		case recEvent:
			ev := &r.events[ei]
			ei++
			if skipStatus && ev.StatusUpdate {
				continue
			}
			skipStatus = false
			h.Event(ev, op.off)
		case recError:
			h.Error(&r.errs[xi])
			xi++
			skipStatus = false
		case recEOT:
			h.EndOfTrace()
		case recResyncDisabled:
			h.ResyncDisabled()
		}
	}
}

// WalkParallel decodes the trace like WalkBlocks, with up to jobs workers
// decoding chunks of the trace at once, and calls h with the same values
// in the same order as WalkBlocks does. h is called from the calling
// goroutine only.
func WalkParallel(trace []byte, img *image.Image, cfg *Config, opt WalkOptions, jobs int, h Handler) {
	psbs := packet.PSBIndex(nil, trace)
	if jobs <= 1 || len(psbs) < 2 {
		WalkBlocks(NewBlockDecoder(trace, img, cfg), opt, h)
		return
	}
	chunks := planChunks(trace, psbs)
	if len(chunks) == 1 {
		WalkBlocks(NewBlockDecoder(trace, img, cfg), opt, h)
		return
	}
	jobs = min(jobs, len(chunks))
	window := 2 * jobs // chunks decoded ahead of the join
	done := make([]chan *recording, len(chunks))
	for i := range done {
		done[i] = make(chan *recording, 1)
	}
	pool := sync.Pool{New: func() any { return new(recording) }}
	work := make(chan int, len(chunks))
	slots := make(chan struct{}, window)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := NewBlockDecoder(trace, img, cfg)
			for i := range work {
				r := pool.Get().(*recording)
				r.reset()
				d.walkChunk(&chunks[i], opt, r)
				done[i] <- r
			}
		}()
	}
	go func() {
		for i := range chunks {
			slots <- struct{}{}
			work <- i
		}
		close(work)
	}()
	prevStatus := false
	for i := range chunks {
		r := <-done[i]
		r.replay(h, prevStatus)
		prevStatus = r.endsWithStatus()
		pool.Put(r)
		<-slots
	}
	wg.Wait()
}

// walkChunk decodes one chunk like WalkBlocks.
func (d *BlockDecoder) walkChunk(c *chunk, opt WalkOptions, h Handler) {
	d.evd.SetEnd(c.end)
	d.walkBlocks(opt, h, c)
}
