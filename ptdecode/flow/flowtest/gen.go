// Package flowtest generates Intel PT traces for tests and benchmarks: the
// flow of a random walk through the code of a real program (the running
// test binary), encoded as the hardware would encode it.
package flowtest

import (
	"debug/elf"
	"debug/gosym"
	"math/rand/v2"
	"os"
	"sort"
	"sync"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/packet"
)

// A synthetic but realistic trace: the flow of a random walk through the
// code of a real program (this test binary), encoded the way the hardware
// would: TNT for conditional branches and compressed returns, TIP for
// indirect branches, FUP+TIP for asynchronous branches where the walk
// cannot go on, and a PSB+ every psbEvery bytes.

// Program is the code a trace is generated over.
type Program struct {
	Img   *image.Image
	funcs []uint64 // function entry points
}

var (
	progOnce sync.Once
	prog     *Program
	progErr  error
	progOurs bool // progErr came from the project's own code (fail, not skip)
)

// LoadProgram loads the running test binary's code; it skips tb when the
// binary has no x86-64 code or Go line table, and fails it when the
// project's image loader cannot load it.
func LoadProgram(tb testing.TB) *Program {
	progOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			progErr = err
			return
		}
		img := image.New("exe")
		if _, err := img.AddELF(nil, exe, 0, false); err != nil {
			progErr, progOurs = err, true
			return
		}
		f, err := elf.Open(exe)
		if err != nil {
			progErr = err
			return
		}
		defer f.Close()
		// Test binaries have no symbol table; the Go line table has the
		// functions.
		text, pcln := f.Section(".text"), f.Section(".gopclntab")
		if text == nil || pcln == nil {
			progErr = os.ErrNotExist
			return
		}
		data, err := pcln.Data()
		if err != nil {
			progErr = err
			return
		}
		tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
		if err != nil {
			progErr = err
			return
		}
		p := &Program{Img: img}
		for _, fn := range tab.Funcs {
			if fn.Entry >= text.Addr && fn.Entry < text.Addr+text.Size {
				p.funcs = append(p.funcs, fn.Entry)
			}
		}
		sort.Slice(p.funcs, func(i, j int) bool { return p.funcs[i] < p.funcs[j] })
		if len(p.funcs) == 0 || f.Machine != elf.EM_X86_64 {
			progErr = os.ErrNotExist
			return
		}
		prog = p
	})
	if progOurs {
		tb.Fatal("image.AddELF cannot load the test binary:", progErr)
	}
	if progErr != nil {
		tb.Skip("cannot load the test binary's code:", progErr)
	}
	return prog
}

// LoadELF loads the code of the ELF program at path, with its function
// symbols as the targets of indirect branches.
func LoadELF(path string) (*Program, error) {
	img := image.New(path)
	if _, err := img.AddELF(nil, path, 0, false); err != nil {
		return nil, err
	}
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, err
	}
	p := &Program{Img: img}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 && s.Size != 0 {
			p.funcs = append(p.funcs, s.Value)
		}
	}
	if len(p.funcs) == 0 {
		return nil, os.ErrNotExist
	}
	sort.Slice(p.funcs, func(i, j int) bool { return p.funcs[i] < p.funcs[j] })
	return p, nil
}

type generator struct {
	p        *Program
	rng      *rand.Rand
	enc      packet.Encoder
	tnt      uint64
	ntnt     uint8
	stack    ring
	ip       uint64
	lastPSB  int
	psbEvery int
	insns    uint64
}

func (g *generator) flushTNT() {
	if g.ntnt == 0 {
		return
	}
	_ = g.enc.Append(packet.Packet{Kind: packet.KindTNT8, Payload: g.tnt, Bits: g.ntnt})
	g.tnt, g.ntnt = 0, 0
}

func (g *generator) bit(taken bool) {
	g.tnt <<= 1
	if taken {
		g.tnt |= 1
	}
	g.ntnt++
	if g.ntnt == 6 {
		g.flushTNT()
	}
}

func (g *generator) randomFunc() uint64 { return g.p.funcs[g.rng.IntN(len(g.p.funcs))] }

func (g *generator) tip(target uint64) {
	g.flushTNT()
	_ = g.enc.AppendIP(packet.KindTIP, target)
	g.ip = target
}

// psb writes a PSB+ at the current IP. The hardware's return compression
// does not reach back across it, so the walk's call stack starts over.
func (g *generator) psb() {
	g.flushTNT()
	g.lastPSB = len(g.enc.Buf)
	_ = g.enc.Append(packet.Packet{Kind: packet.KindPSB})
	_ = g.enc.Append(packet.Packet{Kind: packet.KindTSC, Payload: uint64(len(g.enc.Buf)) * 64})
	_ = g.enc.Append(packet.Packet{Kind: packet.KindModeExec, Flags: packet.FlagCSL})
	_ = g.enc.AppendIP(packet.KindFUP, g.ip)
	_ = g.enc.Append(packet.Packet{Kind: packet.KindPSBEnd})
	g.stack = ring{}
}

// bias gives every conditional branch its own taken probability.
func bias(ip uint64) float64 {
	switch (ip * 0x9e3779b97f4a7c15) >> 62 {
	case 0:
		return 0.05
	case 1:
		return 0.5
	case 2:
		return 0.9
	}
	return 0.97
}

// Generate returns about size bytes of trace over p's code with a PSB+
// every psbEvery bytes, and the number of instructions the walk executed.
func Generate(p *Program, size, psbEvery int, seed uint64) ([]byte, uint64) {
	g := &generator{p: p, rng: rand.New(rand.NewPCG(seed, 1)), psbEvery: psbEvery}
	g.enc.Buf = make([]byte, 0, size+64)
	g.ip = g.randomFunc()
	g.psb()
	var in insn.Insn
	var m *image.Mapping
	quiet, lastLen := 0, 0
	for len(g.enc.Buf) < size {
		if len(g.enc.Buf) != lastLen {
			quiet, lastLen = 0, len(g.enc.Buf)
		} else if quiet++; quiet > 50000 {
			// A loop without trace (jmp .): interrupt it.
			_ = g.enc.AppendIP(packet.KindFUP, g.ip)
			g.tip(g.randomFunc())
			continue
		}
		if len(g.enc.Buf)-g.lastPSB >= g.psbEvery {
			g.psb()
		}
		if m == nil || !m.Contains(g.ip) {
			m, _ = p.Img.Find(g.ip)
		}
		in.IP = g.ip
		if m == nil || insn.Decode(&in, m.Bytes(g.ip), insn.Mode64) != nil {
			// An asynchronous branch (an interrupt) takes us elsewhere.
			g.flushTNT()
			_ = g.enc.AppendIP(packet.KindFUP, g.ip)
			g.tip(g.randomFunc())
			continue
		}
		g.insns++
		next := g.ip + uint64(in.Size)
		switch in.Class {
		case insn.ClassCondJump:
			taken := g.rng.Float64() < bias(g.ip)
			g.bit(taken)
			if taken {
				next += uint64(in.Disp)
			}
			g.ip = next
		case insn.ClassCall:
			if !(in.Direct && in.Disp == 0) {
				g.stack.push(next)
			}
			if in.Direct {
				g.ip = next + uint64(in.Disp)
			} else {
				g.tip(g.randomFunc())
			}
		case insn.ClassReturn:
			if ret, c := g.stack.pop(); c == 0 {
				g.bit(true)
				g.ip = ret
			} else {
				g.tip(g.randomFunc())
			}
		case insn.ClassJump:
			if in.Direct && in.IClass != insn.IJmpAbs {
				g.ip = next + uint64(in.Disp)
			} else {
				g.tip(g.randomFunc())
			}
		case insn.ClassFarCall, insn.ClassFarReturn, insn.ClassFarJump:
			g.tip(g.randomFunc())
		default:
			g.ip = next
		}
	}
	g.flushTNT()
	return g.enc.Buf, g.insns
}

// ring is a return stack like the decoder's: 64 entries, the oldest dropped.
type ring struct {
	stack       [65]uint64
	top, bottom uint8
}

func (r *ring) push(ip uint64) {
	r.stack[r.top] = ip
	r.top = (r.top + 1) % 65
	if r.top == r.bottom {
		r.bottom = (r.bottom + 1) % 65
	}
}

func (r *ring) pop() (uint64, int) {
	if r.top == r.bottom {
		return 0, 1
	}
	r.top = (r.top + 64) % 65
	return r.stack[r.top], 0
}
