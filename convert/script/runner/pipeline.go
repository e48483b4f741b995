package runner

import (
	"github.com/perfpt/perfpt/convert/script"
)

// With more than one worker, decoding (the session) and printing run on
// two goroutines: the session's samples are detached (their lookups done)
// and copied into batches that the printer formats in order. Output is the
// same bytes as with one worker, by construction: one producer, one FIFO.

const batchLen = 2048

type item struct {
	isErr  bool
	useCC  bool
	s      script.Sample
	e      script.ErrorLine
	insn   [16]byte
	frames []script.Frame
}

type pipeline struct {
	p       *script.Printer
	srcline bool
	cur     []item
	ch      chan []item
	free    chan []item
	done    chan struct{}
}

func newPipeline(p *script.Printer, srcline bool) *pipeline {
	pl := &pipeline{p: p, srcline: srcline, ch: make(chan []item, 4), free: make(chan []item, 6), done: make(chan struct{})}
	for i := 0; i < 6; i++ {
		pl.free <- make([]item, 0, batchLen)
	}
	pl.cur = <-pl.free
	go pl.print()
	return pl
}

func (pl *pipeline) print() {
	defer close(pl.done)
	for batch := range pl.ch {
		for i := range batch {
			it := &batch[i]
			if it.isErr {
				pl.p.PrintError(&it.e)
				continue
			}
			pl.p.SetUseCallchain(it.useCC)
			pl.p.Print(&it.s)
		}
		pl.free <- batch[:0]
	}
}

func (pl *pipeline) next() *item {
	if len(pl.cur) == cap(pl.cur) {
		pl.ch <- pl.cur
		pl.cur = <-pl.free
	}
	pl.cur = pl.cur[:len(pl.cur)+1]
	return &pl.cur[len(pl.cur)-1]
}

func (pl *pipeline) sample(s *script.Sample, useCC bool) {
	s.Detach(pl.srcline)
	it := pl.next()
	it.isErr = false
	it.useCC = useCC
	frames := it.frames[:0]
	it.s = *s
	n := copy(it.insn[:], s.Insn)
	it.s.Insn = it.insn[:n]
	if s.Callchain != nil {
		frames = append(frames, s.Callchain...)
		it.s.Callchain = frames
	}
	it.frames = frames
}

func (pl *pipeline) errorLine(e *script.ErrorLine) {
	it := pl.next()
	it.isErr = true
	it.e = *e
}

// close flushes the last batch and waits for the printer.
func (pl *pipeline) close() {
	if len(pl.cur) > 0 {
		pl.ch <- pl.cur
	}
	close(pl.ch)
	<-pl.done
}
