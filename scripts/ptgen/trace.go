package main

import (
	"math/rand/v2"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// tracer runs a program on a virtual CPU and writes the Intel PT packets
// that intel_pt//u would write for it: return compression on, PSB+ every
// psbPeriod bytes (with TSC, TMA, MODE.Exec and FUP), MTC timing with
// mtc_period 3, short TNT only. One instruction takes one cycle.
type tracer struct {
	p         *program
	rng       *rand.Rand
	enc       packet.Encoder
	psbPeriod int
	nextPSB   int

	tnt     uint64 // pending TNT bits, oldest highest
	ntnt    uint8
	cycles  uint64  // the virtual clock (TSC)
	lastMTC uint64  // CTC bits of the last MTC
	stack   []int32 // return blocks, as function<<16|block
	psbSP   int     // stack depth at the last PSB: older calls' returns are not compressed

	cuts []cut // where each PSB starts, for cutting AUXTRACE buffers

	insns, branches, tips, psbs uint64
	err                         error
}

// cut is a packet boundary of the stream and the TSC there.
type cut struct {
	off int
	tsc uint64
}

const (
	tscPerCTC = 128 // TSC ticks per crystal clock tick (CPUID 0x15 ratio)
	mtcShift  = 3   // mtc_period: an MTC every 2^3 CTC ticks
	tscBase   = 0x1000000
	// coreBusRatio is the CBR of PSB+ and the max non-turbo ratio of
	// the perf.data: the core runs at its nominal frequency.
	coreBusRatio = 20
)

func newTracer(p *program, rng *rand.Rand, psbPeriod int, size int) *tracer {
	t := &tracer{p: p, rng: rng, psbPeriod: psbPeriod, cycles: tscBase}
	t.enc.Buf = make([]byte, 0, size+4096)
	return t
}

func (t *tracer) put(pk packet.Packet) {
	if t.err == nil {
		t.err = t.enc.Append(pk)
	}
}

func (t *tracer) putIP(k packet.Kind, ip uint64) {
	if t.err == nil {
		t.err = t.enc.AppendIP(k, ip)
	}
}

// flushTNT writes the pending conditional-branch bits.
func (t *tracer) flushTNT() {
	if t.ntnt > 0 {
		t.put(packet.Packet{Kind: packet.KindTNT8, Payload: t.tnt, Bits: t.ntnt})
		t.tnt, t.ntnt = 0, 0
	}
}

func (t *tracer) addTNT(taken bool) {
	t.tnt <<= 1
	if taken {
		t.tnt |= 1
	}
	t.ntnt++
	t.branches++
	if t.ntnt == 6 {
		t.flushTNT()
	}
}

// tick advances the clock by n instructions and writes an MTC when the CTC
// crosses an MTC period.
func (t *tracer) tick(n uint32) {
	t.insns += uint64(n)
	t.cycles += uint64(n)
	if ctc := t.cycles / tscPerCTC >> mtcShift; ctc != t.lastMTC {
		t.lastMTC = ctc
		t.flushTNT()
		t.put(packet.Packet{Kind: packet.KindMTC, CTC: uint16(ctc & 0xff)})
	}
}

// psbPlus writes a PSB+ as the hardware does while tracing at ip: PSB, TSC,
// TMA, CBR, and MODE.Exec and FUP when packet generation is on, PSBEND.
func (t *tracer) psbPlus(ip uint64, enabled bool) {
	t.flushTNT()
	t.cuts = append(t.cuts, cut{off: len(t.enc.Buf), tsc: t.cycles})
	t.put(packet.Packet{Kind: packet.KindPSB})
	t.put(packet.Packet{Kind: packet.KindTSC, Payload: t.cycles & (1<<56 - 1)})
	ctc := t.cycles / tscPerCTC
	t.put(packet.Packet{Kind: packet.KindTMA, CTC: uint16(ctc), FC: uint16(t.cycles % tscPerCTC)})
	t.put(packet.Packet{Kind: packet.KindCBR, Payload: coreBusRatio})
	if enabled {
		t.put(packet.Packet{Kind: packet.KindModeExec, Flags: packet.FlagCSL})
		t.putIP(packet.KindFUP, ip)
	}
	t.put(packet.Packet{Kind: packet.KindPSBEnd})
	t.psbs++
	t.psbSP = len(t.stack)
	t.nextPSB = len(t.enc.Buf) + t.psbPeriod
}

func (t *tracer) chance(bias uint16) bool { return uint16(t.rng.Uint32()) < bias }

// run traces main until the stream holds at least size bytes, then disables
// tracing at the next indirect call.
func (t *tracer) run(size int) error {
	p := t.p
	entry := p.funcs[0].blocks[0].addr
	t.psbPlus(0, false)
	t.put(packet.Packet{Kind: packet.KindModeExec, Flags: packet.FlagCSL})
	t.putIP(packet.KindTIPPGE, entry)
	fi, bi := int32(0), int32(0)
	for t.err == nil {
		f := &p.funcs[fi]
		b := &f.blocks[bi]
		if len(t.enc.Buf) >= t.nextPSB {
			t.psbPlus(b.addr, true)
		}
		t.tick(b.ninsn)
		switch b.term {
		case termJcc:
			taken := t.chance(b.bias)
			t.addTNT(taken)
			if taken {
				bi = b.target
			} else {
				bi++
			}
		case termCall:
			t.stack = append(t.stack, fi<<16|(bi+1))
			fi, bi = b.target, 0
		case termICall:
			callee := b.targets[t.rng.IntN(len(b.targets))]
			to := p.funcs[callee].blocks[0].addr
			t.flushTNT()
			if len(t.enc.Buf) >= size {
				t.putIP(packet.KindTIPPGD, to)
				t.tips++
				return t.err
			}
			t.putIP(packet.KindTIP, to)
			t.tips++
			t.stack = append(t.stack, fi<<16|(bi+1))
			fi, bi = callee, 0
		case termJmp:
			bi = b.target
		case termIJmp:
			bi = b.targets[t.rng.IntN(len(b.targets))]
			t.flushTNT()
			t.putIP(packet.KindTIP, f.blocks[bi].addr)
			t.tips++
		case termRet:
			r := t.stack[len(t.stack)-1]
			t.stack = t.stack[:len(t.stack)-1]
			fi, bi = r>>16, r&0xffff
			if len(t.stack) >= t.psbSP {
				// the call came after the last PSB: compressed
				t.addTNT(true)
				break
			}
			// SDM: only returns of calls seen since the last PSB are compressed
			t.psbSP = len(t.stack)
			t.flushTNT()
			t.putIP(packet.KindTIP, p.funcs[fi].blocks[bi].addr)
			t.tips++
		case termLoop:
			bi = 0
		}
	}
	return t.err
}
