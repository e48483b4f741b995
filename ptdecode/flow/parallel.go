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
// status updates of chunk k+1's header are dropped from the end of chunk k
// (chunk k+1 reports them when it synchronises; after an error in chunk k,
// the sequential decode synchronised at that PSB and reported them too). The Handler then sees
// what a sequential WalkBlocks shows it, whatever the number of workers.
//
// One assumption: like the hardware, the trace does not compress returns
// across a PSB (the decoder of chunk k+1 starts with an empty call stack).
// The transaction state is carried across a PSB whose PSB+ header has no
// MODE.TSX (libipt's block decoder keeps it: only a MODE.TSX, an overflow or
// a synchronisation changes it): when chunk k ends inside a transaction and
// chunk k+1's header does not say, chunk k+1 is decoded again, starting
// speculative (its worker started outside a transaction, as at a
// synchronisation).
// Event times that depend on calibration from before a chunk (CYC-only
// timing) may differ slightly from a sequential decode.

// ChunkBytes is the most trace per chunk of a parallel decode. Chunks are
// smaller when that gives each worker fewer than chunksPerJob of them (but
// not below minChunkBytes): the workers then finish closer together.
var ChunkBytes = 128 << 10

const (
	chunksPerJob  = 32
	minChunkBytes = 16 << 10
)

// chunkBytes returns the chunk size for a trace of n bytes and jobs workers.
func chunkBytes(n, jobs int) int {
	return min(ChunkBytes, max(minChunkBytes, n/(jobs*chunksPerJob)))
}

type chunk struct {
	start, next, end uint64 // PSB, next chunk's PSB, end of decoding
	first, last      bool
	// resume is where a sequential walk goes on after this chunk: next,
	// unless the walk skipped that PSB after an error (then the PSB it
	// synchronised at, or noResume if it ended).
	resume uint64
	// headerTSX: the PSB+ header at start has a MODE.TSX, which sets the
	// transaction state. spec: the chunk starts inside a transaction (the
	// walk before it ended in one and the header does not say).
	headerTSX, spec bool
	// endSpec: the walk of the chunk went on up to its end (the next
	// chunk's header included) without synchronising again, inside a
	// transaction.
	endSpec bool
}

const noResume = ^uint64(0)

// planChunks cuts the trace into chunks of about size bytes at PSBs.
func planChunks(trace []byte, psbs []int, size int) []chunk {
	var cs []chunk
	s := 0
	tsx := false // the header of psbs[s]'s
	for i := 1; i < len(psbs); i++ {
		if psbs[i]-psbs[s] < size {
			continue
		}
		// Cut only where the PSB+ header is intact.
		end, ntsx := psbEnd(trace, psbs[i])
		if end == uint64(psbs[i]) {
			continue
		}
		cs = append(cs, chunk{start: uint64(psbs[s]), next: uint64(psbs[i]), end: end, resume: uint64(psbs[i]),
			headerTSX: tsx})
		s, tsx = i, ntsx
	}
	cs = append(cs, chunk{start: uint64(psbs[s]), next: uint64(len(trace)), end: uint64(len(trace)), last: true,
		resume: noResume, headerTSX: tsx})
	cs[0].first = true
	return cs
}

// psbEnd returns the offset after the PSB+ header at off (after PSBEND),
// or off if the header does not end properly, and whether the header has
// a MODE.TSX.
func psbEnd(trace []byte, off int) (end uint64, tsx bool) {
	pd := packet.NewDecoder(trace)
	if pd.SyncSet(off) != nil {
		return uint64(off), false
	}
	for n := 0; n < 64 && pd.Next(); n++ {
		switch pd.Packet().Kind {
		case packet.KindPSBEnd:
			return uint64(pd.Offset()), tsx
		case packet.KindModeTSX:
			tsx = true
		case packet.KindPSB:
			if n > 0 {
				return uint64(off), false
			}
		}
	}
	return uint64(off), false
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

// replay hands the recording to h.
func (r *recording) replay(h Handler) {
	var bi, ei, xi int
	for _, op := range r.ops {
		switch op.kind {
		case recBlock:
			h.Block(&r.blocks[bi], op.off)
			bi++
		case recEvent:
			h.Event(&r.events[ei], op.off)
			ei++
		case recError:
			h.Error(&r.errs[xi])
			xi++
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
// goroutine only. The workers record what they decode; for handlers that
// can work on chunks independently, WalkChunks avoids that copy.
func WalkParallel(trace []byte, img *image.Image, cfg *Config, opt WalkOptions, jobs int, h Handler) {
	var recs []*recording
	var mu sync.Mutex
	// Recordings are reused through the walk (at most 2*jobs+jobs+1 are
	// in use at once): a chunk's recording holds megabytes, and a
	// sync.Pool loses them at every GC.
	free := make(chan *recording, 3*jobs+2)
	WalkChunks(trace, img, cfg, opt, jobs, func(i int) Handler {
		var r *recording
		select {
		case r = <-free:
			r.reset()
		default:
			r = new(recording)
		}
		mu.Lock()
		for len(recs) <= i {
			recs = append(recs, nil)
		}
		recs[i] = r
		mu.Unlock()
		return r
	}, func(i int, _ Handler) {
		mu.Lock()
		r := recs[i]
		recs[i] = nil
		mu.Unlock()
		if r == nil { // a sequential walk called h directly
			return
		}
		r.replay(h)
		select {
		case free <- r:
		default:
		}
	}, h)
}

// WalkChunks decodes the trace in chunks, cut at PSBs, on up to jobs
// goroutines. For chunk i, a worker calls open(i) for the Handler to give
// what it decodes to; then done(i, h) is called on the caller's goroutine,
// in chunk order, once chunk i is decoded. What the chunk handlers get, in
// chunk order, is exactly what WalkBlocks would give one handler. open may
// be called for chunks up to 2*jobs ahead of done, and again on the
// caller's goroutine for a chunk decoded anew (after an error made the walk
// skip a chunk's PSB); a handler not passed to done is dropped. If the trace is not cut
// (jobs <= 1, or one chunk), seq gets everything directly, as in WalkBlocks,
// and neither open nor done is called; seq may be nil then to use open(0)
// and done(0, ...).
func WalkChunks(trace []byte, img *image.Image, cfg *Config, opt WalkOptions, jobs int,
	open func(i int) Handler, done func(i int, h Handler), seq Handler) {
	var chunks []chunk
	if jobs > 1 {
		if psbs := packet.PSBIndex(nil, trace); len(psbs) >= 2 {
			chunks = planChunks(trace, psbs, chunkBytes(len(trace), jobs))
		}
	}
	if len(chunks) <= 1 {
		if seq != nil {
			WalkBlocks(NewBlockDecoder(trace, img, cfg), opt, seq)
			return
		}
		h := open(0)
		WalkBlocks(NewBlockDecoder(trace, img, cfg), opt, h)
		done(0, h)
		return
	}
	jobs = min(jobs, len(chunks))
	if cfg.Cache == nil {
		// The workers share the decoded code.
		c := *cfg
		c.Cache = NewBlockCache()
		cfg = &c
	}
	window := 2 * jobs // chunks decoded ahead of the join
	finished := make([]chan Handler, len(chunks))
	for i := range finished {
		finished[i] = make(chan Handler, 1)
	}
	work := make(chan int, len(chunks))
	slots := make(chan struct{}, window)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := NewBlockDecoder(trace, img, cfg)
			for i := range work {
				h := open(i)
				d.walkChunk(&chunks[i], opt, &chunkFilter{Handler: h, next: chunks[i].next, last: chunks[i].last})
				finished[i] <- h
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
	// Join. A chunk's output is used if the sequential walk reaches the
	// chunk at its PSB; if it skipped that PSB after an error, the chunk is
	// decoded again from where the walk goes on, or dropped.
	var redo *BlockDecoder
	resume := chunks[0].start
	spec := false // the walk before chunk i ended inside a transaction
	for i := range chunks {
		h := <-finished[i]
		c := &chunks[i]
		switch {
		case i == 0 || resume == c.start && (!spec || c.headerTSX):
			done(i, h)
			resume, spec = c.resume, c.endSpec
		case resume >= c.next:
			// skipped
			spec = false
		default:
			// The walk synchronised inside the chunk after an error,
			// or reaches its PSB inside a transaction that the
			// header does not end: the chunk is decoded again.
			if redo == nil {
				redo = NewBlockDecoder(trace, img, cfg)
			}
			cc := *c
			cc.spec = resume == c.start && spec
			cc.start, cc.first, cc.endSpec = resume, false, false
			h = open(i)
			redo.walkChunk(&cc, opt, &chunkFilter{Handler: h, next: cc.next, last: cc.last})
			done(i, h)
			resume, spec = cc.resume, cc.endSpec
		}
		<-slots
	}
	wg.Wait()
}

// chunkFilter holds back the status updates of the next chunk's PSB+
// header at the end of a chunk: the next chunk reports them when it
// starts. Held events that turn out not to end the chunk (something else
// follows them) are passed on.
type chunkFilter struct {
	Handler
	next uint64
	last bool
	held []heldEvent
}

type heldEvent struct {
	ev  query.Event
	off uint64
}

func (f *chunkFilter) flush() {
	for i := range f.held {
		f.Handler.Event(&f.held[i].ev, f.held[i].off)
	}
	f.held = f.held[:0]
}

func (f *chunkFilter) Event(ev *query.Event, off uint64) {
	if ev.StatusUpdate && off >= f.next && !f.last {
		f.held = append(f.held, heldEvent{*ev, off})
		return
	}
	f.flush()
	f.Handler.Event(ev, off)
}

// blockHandler returns the handler fastBlocks gives blocks to: a chunk
// filter's own handler, after the filter passed on what it held (fastBlocks
// hands on nothing but blocks). That saves a call per block.
func blockHandler(h Handler) Handler {
	if f, ok := h.(*chunkFilter); ok {
		if len(f.held) != 0 {
			f.flush()
		}
		return f.Handler
	}
	return h
}

// Block is called for every block: the check is inlined here, flush is
// called only when something is held.
func (f *chunkFilter) Block(b *Block, off uint64) {
	if len(f.held) != 0 {
		f.flush()
	}
	f.Handler.Block(b, off)
}

func (f *chunkFilter) Insn(in *Insn, off uint64) { f.flush(); f.Handler.Insn(in, off) }
func (f *chunkFilter) Error(e *DecodeError)      { f.flush(); f.Handler.Error(e) }
func (f *chunkFilter) EndOfTrace()               { f.flush(); f.Handler.EndOfTrace() }
func (f *chunkFilter) ResyncDisabled()           { f.flush(); f.Handler.ResyncDisabled() }

// walkChunk decodes one chunk like WalkBlocks.
func (d *BlockDecoder) walkChunk(c *chunk, opt WalkOptions, h Handler) {
	d.evd.SetEnd(c.end)
	d.walkBlocks(opt, h, c)
}
