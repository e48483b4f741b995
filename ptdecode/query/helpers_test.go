package query

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/ptdecode/timing"
)

// Short constructors for hand-encoded packet streams.
type P = packet.Packet

func psb() P    { return P{Kind: packet.KindPSB} }
func psbend() P { return P{Kind: packet.KindPSBEnd} }
func pad() P    { return P{Kind: packet.KindPad} }
func ovf() P    { return P{Kind: packet.KindOVF} }
func stop() P   { return P{Kind: packet.KindStop} }

func ipPkt(k packet.Kind, ipc packet.IPC, ip uint64) P {
	return P{Kind: k, IPC: ipc, Payload: ip}
}
func fup(ip uint64) P      { return ipPkt(packet.KindFUP, packet.IPCSext48, ip) }
func tip(ip uint64) P      { return ipPkt(packet.KindTIP, packet.IPCSext48, ip) }
func pge(ip uint64) P      { return ipPkt(packet.KindTIPPGE, packet.IPCSext48, ip) }
func pgd(ip uint64) P      { return ipPkt(packet.KindTIPPGD, packet.IPCSext48, ip) }
func fupNone() P           { return ipPkt(packet.KindFUP, packet.IPCSuppressed, 0) }
func tipNone() P           { return ipPkt(packet.KindTIP, packet.IPCSuppressed, 0) }
func pgdNone() P           { return ipPkt(packet.KindTIPPGD, packet.IPCSuppressed, 0) }
func tsc(v uint64) P       { return P{Kind: packet.KindTSC, Payload: v} }
func cbr(r uint64) P       { return P{Kind: packet.KindCBR, Payload: r} }
func mnt(v uint64) P       { return P{Kind: packet.KindMNT, Payload: v} }
func pip(cr3 uint64) P     { return P{Kind: packet.KindPIP, Payload: cr3} }
func vmcs(b uint64) P      { return P{Kind: packet.KindVMCS, Payload: b} }
func mtc(ctc uint16) P     { return P{Kind: packet.KindMTC, CTC: ctc} }
func cyc(v uint64) P       { return P{Kind: packet.KindCYC, Payload: v} }
func tma(ctc, fc uint16) P { return P{Kind: packet.KindTMA, CTC: ctc, FC: fc} }

func mode64() P { return P{Kind: packet.KindModeExec, Flags: packet.FlagCSL} }
func mode32() P { return P{Kind: packet.KindModeExec, Flags: packet.FlagCSD} }
func mode16() P { return P{Kind: packet.KindModeExec} }
func modeIF(f packet.Flags) P {
	return P{Kind: packet.KindModeExec, Flags: f | packet.FlagIF}
}
func tsx(intx, abrt bool) P {
	var f packet.Flags
	if intx {
		f |= packet.FlagInTX
	}
	if abrt {
		f |= packet.FlagTXAbort
	}
	return P{Kind: packet.KindModeTSX, Flags: f}
}

// tnt builds a TNT packet from a string of '!' (taken) and '.' (not taken),
// oldest first; up to 6 bits give a TNT8, more a TNT64.
func tnt(s string) P {
	var bits uint64
	for _, c := range s {
		bits <<= 1
		if c == '!' {
			bits |= 1
		}
	}
	k := packet.KindTNT8
	if len(s) > 6 {
		k = packet.KindTNT64
	}
	return P{Kind: k, Payload: bits, Bits: uint8(len(s))}
}

func exstop(ip bool) P {
	p := P{Kind: packet.KindExStop}
	if ip {
		p.Flags = packet.FlagIP
	}
	return p
}
func mwait(hints, ext uint32) P { return P{Kind: packet.KindMWait, Payload: uint64(hints), Ext: ext} }
func pwre(st, sub uint8, hw bool) P {
	p := P{Kind: packet.KindPwrE, State: st, SubState: sub}
	if hw {
		p.Flags = packet.FlagHW
	}
	return p
}
func pwrx(last, deepest uint8, f packet.Flags) P {
	return P{Kind: packet.KindPwrX, State: last, SubState: deepest, Flags: f}
}
func ptw(payload uint64, size8, ip bool) P {
	p := P{Kind: packet.KindPTW, Payload: payload}
	if size8 {
		p.Bits = 1
	}
	if ip {
		p.Flags = packet.FlagIP
	}
	return p
}
func cfe(typ, vector uint8, ip bool) P {
	p := P{Kind: packet.KindCFE, Type: typ, Vector: vector}
	if ip {
		p.Flags = packet.FlagIP
	}
	return p
}
func evd(typ uint8, payload uint64) P { return P{Kind: packet.KindEVD, Type: typ, Payload: payload} }

// encode assembles packets into a trace.
func encode(t testing.TB, pkts ...P) []byte {
	t.Helper()
	var buf []byte
	for i, p := range pkts {
		var err error
		buf, err = packet.Append(buf, p)
		if err != nil {
			t.Fatalf("encoding packet %d (%v): %v", i, p.Kind, err)
		}
	}
	return buf
}

// formatEvent prints an event compactly for table tests: the type, the
// fields that matter for it, "ip=" unless suppressed, flags, and the time.
func formatEvent(ev *Event) string {
	var b strings.Builder
	b.WriteString(ev.Type.String())
	switch ev.Type {
	case EventTNT:
		b.WriteByte(' ')
		for i := int(ev.Size) - 1; i >= 0; i-- {
			if ev.Bits>>uint(i)&1 != 0 {
				b.WriteByte('!')
			} else {
				b.WriteByte('.')
			}
		}
	case EventExecMode:
		fmt.Fprintf(&b, " %v", ev.Mode)
	case EventTSX:
		fmt.Fprintf(&b, " intx=%v abrt=%v", ev.Speculative, ev.Aborted)
	case EventAsyncBranch, EventAsyncDisabled:
		fmt.Fprintf(&b, " from=%x", ev.From)
	case EventPaging, EventAsyncPaging:
		fmt.Fprintf(&b, " cr3=%x", ev.CR3)
		if ev.NonRoot {
			b.WriteString(" nr")
		}
	case EventVMCS, EventAsyncVMCS:
		fmt.Fprintf(&b, " base=%x", ev.Base)
	case EventCBR:
		fmt.Fprintf(&b, " %x", ev.Ratio)
	case EventMNT:
		fmt.Fprintf(&b, " %x", ev.Payload)
	case EventPtwrite:
		fmt.Fprintf(&b, " %x/%d", ev.Payload, ev.Size)
	case EventMwait:
		fmt.Fprintf(&b, " %x %x", ev.Hints, ev.Ext)
	case EventPwre:
		fmt.Fprintf(&b, " c%d.%d hw=%v", ev.State, ev.SubState, ev.HW)
	case EventPwrx:
		fmt.Fprintf(&b, " c%d c%d int=%v st=%v hw=%v", ev.Last, ev.Deepest, ev.Interrupt, ev.Store, ev.Autonomous)
	case EventIFlags:
		fmt.Fprintf(&b, " if=%v", ev.IFlag)
	case EventInterrupt:
		fmt.Fprintf(&b, " %d", ev.Vector)
		if ev.HasCR2 {
			fmt.Fprintf(&b, " cr2=%x", ev.CR2)
		}
	case EventSIPI, EventUintr, EventSwintr:
		fmt.Fprintf(&b, " %d", ev.Vector)
	case EventVMExit:
		if ev.HasVector {
			fmt.Fprintf(&b, " intr=%d", ev.Vector)
		}
		if ev.HasVMXR {
			fmt.Fprintf(&b, " vmxr=%x", ev.VMXR)
		}
		if ev.HasVMXQ {
			fmt.Fprintf(&b, " vmxq=%x", ev.VMXQ)
		}
	case EventTrig:
		fmt.Fprintf(&b, " trbv=%x icnt=%d", ev.TRBV, ev.ICnt)
	}
	if !ev.IPSuppressed && ev.Type != EventPaging && ev.Type != EventVMCS &&
		ev.Type != EventCBR && ev.Type != EventMNT && ev.Type != EventTNT &&
		ev.Type != EventStop && ev.Type != EventPwre && ev.Type != EventPwrx {
		fmt.Fprintf(&b, " ip=%x", ev.IP)
	}
	if ev.StatusUpdate {
		b.WriteString(" (status)")
	}
	if ev.HasTSC {
		fmt.Fprintf(&b, " @%x", ev.TSC)
	}
	return b.String()
}

// events decodes buf from its first PSB and lists the events, ending with
// "error: <code>" (the EOS at the end included).
func events(buf []byte, cfg *Config) []string {
	d := NewDecoder(buf, cfg)
	if err := d.SyncForward(); err != nil {
		return []string{"sync: " + CodeOf(err).Error()}
	}
	var out []string
	var ev Event
	for i := 0; i < 1000; i++ {
		if err := d.Next(&ev); err != nil {
			return append(out, "error: "+CodeOf(err).Error())
		}
		out = append(out, formatEvent(&ev))
	}
	return append(out, "too many events")
}

func timingCfg(mtcFreq uint8, eax, ebx uint32) timing.Config {
	return timing.Config{MTCFreq: mtcFreq, CPUID15EAX: eax, CPUID15EBX: ebx}
}
