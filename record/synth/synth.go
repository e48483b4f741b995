package synth

import (
	"fmt"

	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/record/flow"
)

// Config selects what the synthesised hardware does; the zero value is
// intel_pt//u with return compression, PSB every 4 KiB and no timing.
type Config struct {
	NoRetComp bool // config bit noretcomp: every return is a TIP
	// PSBPeriod is the number of bytes between PSB+ (0: 4096). The
	// hardware's psb_period field p gives 2^(11+p).
	PSBPeriod int
	TSC       bool // TSC packets (config bit tsc)
	MTC       bool // MTC packets (config bit mtc)
	MTCPeriod uint // mtc_period: an MTC every 2^MTCPeriod CTC ticks (0..15)
	CYC       bool // CYC packets (config bit cyc)
	// CTCNum/CTCDen is the TSC:CTC ratio (CPUID 0x15); 0 means 2/1.
	CTCNum, CTCDen uint32
	// CBR is the core:bus ratio told in PSB+ (and the max non-turbo ratio,
	// so that one cycle is one TSC tick); 0 means 20.
	CBR uint8
	// RetStack is the depth of the return-compression stack (0: 64).
	RetStack int
	// PTW turns on PTW packets for PTWRITE (config bit ptw); FUPOnPTW sets
	// their IP bit and follows each with a FUP of the PTWRITE's address
	// (config bit fup_on_ptw).
	PTW, FUPOnPTW bool
	// OverflowEvery makes the hardware's internal buffer overflow after
	// about that many bytes of trace (0: never): the packets of the next
	// OverflowDrop branches (default 16) are lost, then OVF and a FUP
	// at the instruction where tracing goes on (its return-compression
	// stack is then empty).
	OverflowEvery, OverflowDrop int
	// PIP writes the running process's CR3 (CR3Of its pid) in a PIP
	// packet of every PSB+ and on every change of process on a CPU (MOV
	// CR3), as hardware does when the kernel is traced (OS=1). VMCS, when
	// not 0, is the VMCS base address told in every PSB+, as in VMX root
	// operation with a current VMCS (a KVM host).
	PIP  bool
	VMCS uint64
}

// CR3Of is the page-table base of process pid in the PIP packets of a
// stream (Config.PIP): page-aligned, distinct per process.
func CR3Of(pid int) uint64 { return 0x10_0000 + uint64(pid)<<12 }

func (c *Config) norm() {
	if c.PSBPeriod <= 0 {
		c.PSBPeriod = 4096
	}
	if c.CTCNum == 0 || c.CTCDen == 0 {
		c.CTCNum, c.CTCDen = 2, 1
	}
	if c.CBR == 0 {
		c.CBR = 20
	}
	if c.RetStack <= 0 {
		c.RetStack = 64
	}
}

// Timing says whether any timing packet is on.
func (c *Config) Timing() bool { return c.TSC || c.MTC || c.CYC }

// Cut is a place where the stream may be split: Off is a packet boundary
// and Time the virtual clock there.
type Cut struct {
	Off  int
	Time uint64
}

// Stream is one thread's encoded trace.
type Stream struct {
	Data []byte
	Cuts []Cut // increasing offsets; the last is len(Data)
	// Packets counts the packets written, by kind.
	Packets map[packet.Kind]int
}

type encoder struct {
	cfg     Config
	enc     packet.Encoder
	out     *Stream
	on      bool   // tracing enabled (PacketEn)
	ip      uint64 // next instruction when on
	tnt     uint64
	ntnt    uint8
	stack   []uint64
	lastPSB int
	cr3     uint64 // the running process's CR3 (Config.PIP)
	now     uint64 // the virtual clock
	lastCyc uint64 // clock at the last CYC or timing packet
	lastMTC uint64 // CTC >> MTCPeriod at the last MTC or TMA
	started bool
	split   bool // per-CPU: syscall and async returns are items of their own
	inTX    bool // inside an RTM transaction (MODE.TSX InTX)
	// Overflows (Config.OverflowEvery): the trace bytes written when the
	// last one ended, and how many branches the one in progress still
	// loses.
	lastOvf, dropping int
	// The decoder's time estimate (see retired): the time of the last
	// TSC or MTC packet, the instructions run since (at most), and the
	// latest time estimated on a return to user space.
	timedAt, insnsSince, estimated uint64
}

// Encode encodes th's flow.
func Encode(th *flow.Thread, cfg Config) (*Stream, error) {
	cfg.norm()
	e := &encoder{cfg: cfg, out: &Stream{Packets: map[packet.Kind]int{}}, cr3: CR3Of(th.Pid)}
	for i := range th.Events {
		if err := e.event(&th.Events[i]); err != nil {
			return e.out, fmt.Errorf("tid %d event %d (%v): %w", th.Tid, i, th.Events[i], err)
		}
	}
	if err := e.flushTNT(); err != nil {
		return e.out, err
	}
	e.cut()
	e.out.Data = e.enc.Buf
	return e.out, nil
}

func (e *encoder) put(p packet.Packet) error {
	e.out.Packets[p.Kind]++
	return e.enc.Append(p)
}

func (e *encoder) putIP(k packet.Kind, ip uint64) error {
	e.out.Packets[k]++
	return e.enc.AppendIP(k, ip)
}

func (e *encoder) cut() {
	off := len(e.enc.Buf)
	if n := len(e.out.Cuts); n > 0 && e.out.Cuts[n-1].Off == off {
		e.out.Cuts[n-1].Time = e.now
		return
	}
	e.out.Cuts = append(e.out.Cuts, Cut{Off: off, Time: e.now})
}

func (e *encoder) ctc(t uint64) uint64 {
	return t * uint64(e.cfg.CTCDen) / uint64(e.cfg.CTCNum)
}

// advance moves the clock to t, writing the MTC packets of the crystal
// clock edges passed while tracing.
func (e *encoder) advance(t uint64) error {
	if t < e.now {
		t = e.now
	}
	if e.cfg.MTC && e.on {
		for {
			next := (e.lastMTC + 1) << e.cfg.MTCPeriod // next CTC edge
			// the first TSC at or after that CTC edge
			tt := (next*uint64(e.cfg.CTCNum) + uint64(e.cfg.CTCDen) - 1) / uint64(e.cfg.CTCDen)
			if tt > t {
				break
			}
			e.lastMTC++
			if err := e.flushTNT(); err != nil {
				return err
			}
			e.now = tt
			if err := e.put(packet.Packet{Kind: packet.KindMTC, CTC: uint16(e.lastMTC & 0xff)}); err != nil {
				return err
			}
			e.lastCyc = tt
			e.timedAt, e.insnsSince = tt, 0
		}
	}
	e.now = t
	return nil
}

// cyc writes a CYC packet with the cycles since the last one, before a
// packet that the hardware times.
func (e *encoder) cyc() error {
	if !e.cfg.CYC || e.now == e.lastCyc {
		return nil
	}
	n := e.now - e.lastCyc
	e.lastCyc = e.now
	return e.put(packet.Packet{Kind: packet.KindCYC, Payload: n})
}

func (e *encoder) flushTNT() error {
	if e.ntnt == 0 {
		return nil
	}
	p := packet.Packet{Kind: packet.KindTNT8, Payload: e.tnt, Bits: e.ntnt}
	e.tnt, e.ntnt = 0, 0
	if err := e.put(p); err != nil {
		return err
	}
	e.cut()
	return nil
}

func (e *encoder) tntBit(taken bool) error {
	if e.ntnt == 0 {
		if err := e.cyc(); err != nil {
			return err
		}
	}
	e.tnt <<= 1
	if taken {
		e.tnt |= 1
	}
	e.ntnt++
	if e.ntnt == 6 {
		return e.flushTNT()
	}
	return nil
}

func (e *encoder) tip(k packet.Kind, ip uint64, suppressed bool) error {
	if err := e.flushCyc(); err != nil {
		return err
	}
	var err error
	if suppressed {
		err = e.put(packet.Packet{Kind: k, IPC: packet.IPCSuppressed})
	} else {
		err = e.putIP(k, ip)
	}
	if err == nil {
		e.cut()
	}
	return err
}

func (e *encoder) timingPackets() error {
	if e.cfg.TSC {
		if err := e.put(packet.Packet{Kind: packet.KindTSC, Payload: e.now & (1<<56 - 1)}); err != nil {
			return err
		}
		e.timedAt, e.insnsSince = e.now, 0
	}
	if e.cfg.MTC {
		c := e.ctc(e.now)
		// FC: TSC ticks since the CTC edge, in the fast counter (here, TSC).
		edge := (c*uint64(e.cfg.CTCNum) + uint64(e.cfg.CTCDen) - 1) / uint64(e.cfg.CTCDen)
		fc := e.now - edge
		if err := e.put(packet.Packet{Kind: packet.KindTMA, CTC: uint16(c), FC: uint16(fc & 0x1ff)}); err != nil {
			return err
		}
		e.lastMTC = c >> e.cfg.MTCPeriod
	}
	e.lastCyc = e.now
	return nil
}

// psb writes PSB+ at the current point.
func (e *encoder) psb() error {
	if err := e.flushTNT(); err != nil {
		return err
	}
	e.cut()
	e.lastPSB = len(e.enc.Buf)
	if err := e.put(packet.Packet{Kind: packet.KindPSB}); err != nil {
		return err
	}
	if e.cfg.Timing() {
		if err := e.timingPackets(); err != nil {
			return err
		}
		if err := e.put(packet.Packet{Kind: packet.KindCBR, Payload: uint64(e.cfg.CBR)}); err != nil {
			return err
		}
	}
	if e.cfg.PIP {
		if err := e.put(packet.Packet{Kind: packet.KindPIP, Payload: e.cr3}); err != nil {
			return err
		}
	}
	if e.cfg.VMCS != 0 {
		if err := e.put(packet.Packet{Kind: packet.KindVMCS, Payload: e.cfg.VMCS &^ 0xfff}); err != nil {
			return err
		}
	}
	if e.on {
		if err := e.put(packet.Packet{Kind: packet.KindModeExec, Flags: packet.FlagCSL}); err != nil {
			return err
		}
		if e.inTX {
			if err := e.put(packet.Packet{Kind: packet.KindModeTSX, Flags: packet.FlagInTX}); err != nil {
				return err
			}
		}
		if err := e.putIP(packet.KindFUP, e.ip); err != nil {
			return err
		}
	}
	if err := e.put(packet.Packet{Kind: packet.KindPSBEnd}); err != nil {
		return err
	}
	e.stack = e.stack[:0]
	e.cut()
	return nil
}

// enable resumes tracing at ip: [TSC], MODE.Exec, TIP.PGE.
func (e *encoder) enable(ip uint64) error {
	if !e.started {
		e.started = true
		if err := e.psb(); err != nil {
			return err
		}
	} else if e.cfg.TSC {
		if err := e.timingPackets(); err != nil {
			return err
		}
	}
	if err := e.put(packet.Packet{Kind: packet.KindModeExec, Flags: packet.FlagCSL}); err != nil {
		return err
	}
	e.on, e.ip = true, ip
	if e.cfg.MTC {
		e.lastMTC = e.ctc(e.now) >> e.cfg.MTCPeriod
	}
	return e.tip(packet.KindTIPPGE, ip, false)
}

func (e *encoder) push(ret uint64) {
	if len(e.stack) == e.cfg.RetStack {
		copy(e.stack, e.stack[1:])
		e.stack = e.stack[:len(e.stack)-1]
	}
	e.stack = append(e.stack, ret)
}

func (e *encoder) pop() (uint64, bool) {
	if len(e.stack) == 0 {
		return 0, false
	}
	v := e.stack[len(e.stack)-1]
	e.stack = e.stack[:len(e.stack)-1]
	return v, true
}

func (e *encoder) event(ev *flow.Event) error {
	if drop, err := e.overflow(ev); drop || err != nil {
		e.retired(ev)
		return err
	}
	if err := e.step(ev); err != nil {
		return err
	}
	e.retired(ev)
	// A PSB+ due goes at this packet boundary, after the event, with the
	// IP of the next instruction.
	if e.on && len(e.enc.Buf)-e.lastPSB >= e.cfg.PSBPeriod {
		e.ip = ev.To
		return e.psb()
	}
	return nil
}

// estTicks is the time perf's decoder gives an instruction when it
// estimates time between timing packets (intel_pt_est_timestamp: two
// cycles per instruction at the maximum non-turbo ratio, the CBR of the
// recordings written here).
const estTicks = 2

// retired counts ev's instructions (those before it and the branch) for
// the decoder's time estimate. On a return from the kernel to user space
// perf's decoder takes the estimate (the last timing packet's time plus
// estTicks per instruction since) as the queue's time, and applies the
// CPU's sideband up to it (intel_pt_run_decoder): a context switch must
// come after the latest estimate, or the trace before it would be
// decoded as the next task's. Kernel code woven into a thread's flow
// (ksynth.Weave) runs in no time on the flow's clock, so the estimate
// can run ahead of it.
func (e *encoder) retired(ev *flow.Event) {
	e.insnsSince += ev.Insns + 1
	if ev.From >= 1<<63 && ev.To != 0 && ev.To < 1<<63 {
		e.estimated = max(e.estimated, e.timedAt+estTicks*e.insnsSince)
	}
}

// switchTime moves the clock to the time of a context switch after the
// trace written: one tick after the last packet and after the decoder's
// latest estimate (retired).
func (e *encoder) switchTime() uint64 {
	e.now = max(e.now, e.estimated) + 1
	return e.now
}

// overflow loses ev's packets while an internal buffer overflow is in
// progress (Config.OverflowEvery), and writes OVF and FUP when it ends. Only
// the near branches of user code with tracing on are lost: an overflow
// ends before anything else.
// endOverflow ends an overflow in progress before the trace stops
// (a preemption): OVF and FUP at the next instruction.
func (e *encoder) endOverflow() error {
	if e.dropping == 0 {
		return nil
	}
	e.dropping = 0
	e.stack = e.stack[:0]
	if err := e.put(packet.Packet{Kind: packet.KindOVF}); err != nil {
		return err
	}
	if err := e.putIP(packet.KindFUP, e.ip); err != nil {
		return err
	}
	e.lastOvf = len(e.enc.Buf)
	return nil
}

func (e *encoder) overflow(ev *flow.Event) (bool, error) {
	if e.cfg.OverflowEvery <= 0 || !e.on {
		return false, nil
	}
	lossy := false
	switch ev.Kind {
	case flow.Cond, flow.Jump, flow.Call, flow.IndJump, flow.IndCall, flow.Ret:
		lossy = true
	}
	if e.dropping == 0 {
		if !lossy || len(e.enc.Buf)-e.lastOvf < e.cfg.OverflowEvery {
			return false, nil
		}
		e.dropping = e.cfg.OverflowDrop
		if e.dropping <= 0 {
			e.dropping = 16
		}
		e.ntnt, e.tnt = 0, 0 // the TNT bits not written yet are lost too
	}
	if lossy && e.dropping > 1 {
		if err := e.advance(ev.Time); err != nil {
			return true, err
		}
		e.dropping--
		e.ip = ev.To
		return true, nil
	}
	// The overflow ends: the packets of this event are lost too when it
	// is a branch; tracing goes on at the next instruction.
	if lossy {
		if err := e.advance(ev.Time); err != nil {
			return true, err
		}
		e.ip = ev.To
	}
	if err := e.endOverflow(); err != nil {
		return true, err
	}
	e.cut()
	return lossy, nil
}

func (e *encoder) step(ev *flow.Event) error {
	if err := e.advance(ev.Time); err != nil {
		return err
	}
	switch ev.Kind {
	case flow.Begin:
		if e.on {
			return fmt.Errorf("begin while tracing")
		}
		return e.enable(ev.To)
	case flow.Cond:
		return e.tntBit(ev.Taken)
	case flow.Jump:
	case flow.Call:
		if ev.To != ev.From+uint64(ev.Len) { // zero-length calls are not pushed
			e.push(ev.From + uint64(ev.Len))
		}
	case flow.IndJump:
		return e.tip(packet.KindTIP, ev.To, false)
	case flow.IndCall:
		e.push(ev.From + uint64(ev.Len))
		return e.tip(packet.KindTIP, ev.To, false)
	case flow.Ret:
		ret, ok := e.pop()
		if !e.cfg.NoRetComp && ok && ret == ev.To {
			return e.tntBit(true)
		}
		return e.tip(packet.KindTIP, ev.To, false)
	case flow.Syscall:
		if err := e.tip(packet.KindTIPPGD, 0, true); err != nil {
			return err
		}
		e.on = false
		if ev.To != 0 && !e.split {
			return e.resume(ev)
		}
	case flow.PTWrite:
		return e.ptw(ev)
	case flow.TxBegin:
		return e.tsx(ev, packet.FlagInTX)
	case flow.TxCommit:
		return e.tsx(ev, 0)
	case flow.TxAbort:
		return e.tsx(ev, packet.FlagTXAbort)
	case flow.MovCR3:
		return e.setProcess(int(ev.Back))
	case flow.Interrupt:
		if err := e.flushCyc(); err != nil {
			return err
		}
		if err := e.putIP(packet.KindFUP, ev.From); err != nil {
			return err
		}
		return e.tip(packet.KindTIP, ev.To, false)
	case flow.Async, flow.End:
		if !e.on {
			return nil
		}
		if err := e.flushCyc(); err != nil {
			return err
		}
		if err := e.putIP(packet.KindFUP, ev.From); err != nil {
			return err
		}
		if err := e.tip(packet.KindTIPPGD, 0, true); err != nil {
			return err
		}
		e.on = false
		if ev.To != 0 && !e.split {
			return e.resume(ev)
		}
	}
	return nil
}

// resume re-enables tracing after time spent in the kernel.
func (e *encoder) resume(ev *flow.Event) error {
	if ev.Back > e.now {
		e.now = ev.Back
	}
	return e.enable(ev.To)
}

// flushCyc writes the pending TNT bits and a CYC packet (when due) before
// a packet that binds to an instruction.
func (e *encoder) flushCyc() error {
	if err := e.flushTNT(); err != nil {
		return err
	}
	return e.cyc()
}

// ptw writes the PTW packet of a PTWRITE (when PTW is on) and, with
// FUPOnPTW, its IP bit and a FUP of the instruction's address. Pending TNT
// bits go first: the decoder walks the flow up to the PTWRITE.
func (e *encoder) ptw(ev *flow.Event) error {
	if !e.cfg.PTW || !e.on {
		return nil
	}
	if err := e.flushCyc(); err != nil {
		return err
	}
	p := packet.Packet{Kind: packet.KindPTW, Payload: ev.Back & 0xffffffff}
	if ev.Taken {
		p.Payload, p.Bits = ev.Back, 1
	}
	if e.cfg.FUPOnPTW {
		p.Flags = packet.FlagIP
	}
	if err := e.put(p); err != nil {
		return err
	}
	if e.cfg.FUPOnPTW {
		if err := e.putIP(packet.KindFUP, ev.From); err != nil {
			return err
		}
	}
	e.cut()
	return nil
}

// tsx writes a transaction's MODE.TSX with flags and the FUP of the
// instruction concerned (the XBEGIN or XEND, or where it aborted); an abort
// is followed by a TIP to the fallback address.
func (e *encoder) tsx(ev *flow.Event, flags packet.Flags) error {
	e.inTX = flags&packet.FlagInTX != 0
	if !e.on {
		return nil
	}
	if err := e.flushCyc(); err != nil {
		return err
	}
	if err := e.put(packet.Packet{Kind: packet.KindModeTSX, Flags: flags}); err != nil {
		return err
	}
	if err := e.putIP(packet.KindFUP, ev.From); err != nil {
		return err
	}
	if flags&packet.FlagTXAbort != 0 {
		return e.tip(packet.KindTIP, ev.To, false)
	}
	e.cut()
	return nil
}

// setProcess notes that process pid runs next on e's CPU: with PIP on, a
// change of CR3 after the stream started is a PIP packet (MOV CR3).
func (e *encoder) setProcess(pid int) error {
	cr3 := CR3Of(pid)
	if cr3 == e.cr3 {
		return nil
	}
	e.cr3 = cr3
	if !e.cfg.PIP || !e.started {
		return nil
	}
	if err := e.flushTNT(); err != nil {
		return err
	}
	return e.put(packet.Packet{Kind: packet.KindPIP, Payload: cr3})
}
