package ptxed

import (
	"strconv"

	"github.com/perfpt/perfpt/ptdecode/query"
)

func appendHex16(b []byte, v uint64) []byte {
	s := strconv.FormatUint(v, 16)
	for i := len(s); i < 16; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

func appendHex(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 16) }

// appendEvent formats ev like ptxed's print_event.
func appendEvent(b []byte, ev *query.Event, o *Options, offset uint64) []byte {
	b = append(b, '[')
	if o.Offset {
		b = append(appendHex16(b, offset), "  "...)
	}
	if o.EventTime && ev.HasTSC {
		b = append(appendHex16(b, ev.TSC), "  "...)
	}
	ip := func(b []byte) []byte {
		if o.EventIP && !ev.IPSuppressed {
			b = appendHex16(append(b, ", ip: "...), ev.IP)
		}
		return b
	}
	switch ev.Type {
	case query.EventEnabled:
		if ev.Resumed {
			b = append(b, "resumed"...)
		} else {
			b = append(b, "enabled"...)
		}
		if o.EventIP {
			b = appendHex16(append(b, ", ip: "...), ev.IP)
		}
	case query.EventDisabled:
		b = ip(append(b, "disabled"...))
	case query.EventAsyncDisabled:
		b = append(b, "disabled"...)
		if o.EventIP {
			b = appendHex16(append(b, ", at: "...), ev.From)
			b = ip(b)
		}
	case query.EventAsyncBranch:
		b = append(b, "interrupt"...)
		if o.EventIP {
			b = appendHex16(append(b, ", from: "...), ev.From)
			if !ev.IPSuppressed {
				b = appendHex16(append(b, ", to: "...), ev.IP)
			}
		}
	case query.EventPaging, query.EventAsyncPaging:
		b = appendHex16(append(b, "paging, cr3: "...), ev.CR3)
		if ev.NonRoot {
			b = append(b, ", nr"...)
		}
		if ev.Type == query.EventAsyncPaging && o.EventIP {
			b = appendHex16(append(b, ", ip: "...), ev.IP)
		}
	case query.EventOverflow:
		b = ip(append(b, "overflow"...))
	case query.EventExecMode:
		b = ip(append(append(b, "exec mode: "...), ev.Mode.String()...))
	case query.EventTSX:
		switch {
		case ev.Aborted:
			b = append(b, "aborted"...)
		case ev.Speculative:
			b = append(b, "begin transaction"...)
		default:
			b = append(b, "committed"...)
		}
		b = ip(b)
	case query.EventStop:
		b = append(b, "stopped"...)
	case query.EventVMCS, query.EventAsyncVMCS:
		b = appendHex16(append(b, "vmcs, base: "...), ev.Base)
		if ev.Type == query.EventAsyncVMCS && o.EventIP {
			b = appendHex16(append(b, ", ip: "...), ev.IP)
		}
	case query.EventExstop:
		b = ip(append(b, "exstop"...))
	case query.EventMwait:
		b = appendHex(append(b, "mwait "...), uint64(ev.Hints))
		b = appendHex(append(b, ' '), uint64(ev.Ext))
		b = ip(b)
	case query.EventPwre:
		b = strconv.AppendUint(append(b, "pwre c"...), uint64((ev.State+1)&0xf), 10)
		b = strconv.AppendUint(append(b, '.'), uint64((ev.SubState+1)&0xf), 10)
		if ev.HW {
			b = append(b, " hw"...)
		}
	case query.EventPwrx:
		b = append(b, "pwrx "...)
		if ev.Interrupt {
			b = append(b, "int: "...)
		}
		if ev.Store {
			b = append(b, "st: "...)
		}
		if ev.Autonomous {
			b = append(b, "hw: "...)
		}
		b = strconv.AppendUint(append(b, 'c'), uint64((ev.Last+1)&0xf), 10)
		b = strconv.AppendUint(append(b, " (c"...), uint64((ev.Deepest+1)&0xf), 10)
		b = append(b, ')')
	case query.EventPtwrite:
		b = ip(appendHex(append(b, "ptwrite: "...), ev.Payload))
	case query.EventTick:
		b = ip(append(b, "tick"...))
	case query.EventCBR:
		b = appendHex(append(b, "cbr: "...), uint64(ev.Ratio))
	case query.EventMNT:
		b = appendHex(append(b, "mnt: "...), ev.Payload)
	case query.EventTIP:
		b = appendHex(append(b, "tip: "...), ev.IP)
	case query.EventTNT:
		b = append(b, "tnt: "...)
		for i := ev.Size; i > 0; i-- {
			if ev.Bits>>(i-1)&1 != 0 {
				b = append(b, '!')
			} else {
				b = append(b, '.')
			}
		}
	case query.EventIFlags:
		if ev.IFlag {
			b = append(b, "interrupts enabled"...)
		} else {
			b = append(b, "interrupts disabled"...)
		}
		b = ip(b)
	case query.EventInterrupt:
		b = strconv.AppendUint(append(b, "interrupt "...), uint64(ev.Vector), 10)
		if ev.HasCR2 {
			b = appendHex16(append(b, ", cr2: "...), ev.CR2)
		}
		b = ip(b)
	case query.EventIret:
		b = ip(append(b, "iret"...))
	case query.EventSMI:
		b = ip(append(b, "smi"...))
	case query.EventRSM:
		b = ip(append(b, "rsm"...))
	case query.EventSIPI:
		b = appendHex(append(b, "sipi: "...), uint64(ev.Vector))
	case query.EventInit:
		b = ip(append(b, "init"...))
	case query.EventVMEntry:
		b = ip(append(b, "vmentry"...))
	case query.EventVMExit:
		b = append(b, "vmexit"...)
		if ev.HasVector {
			b = strconv.AppendUint(append(b, ", intr: "...), uint64(ev.Vector), 10)
		}
		if ev.HasVMXR {
			b = appendHex16(append(b, ", vmxr: "...), ev.VMXR)
		}
		if ev.HasVMXQ {
			b = appendHex16(append(b, ", vmxq: "...), ev.VMXQ)
		}
		b = ip(b)
	case query.EventShutdown:
		b = ip(append(b, "shutdown"...))
	case query.EventUintr:
		b = ip(strconv.AppendUint(append(b, "uintr "...), uint64(ev.Vector), 10))
	case query.EventUiret:
		b = ip(append(b, "uiret"...))
	case query.EventTrig:
		b = append(b, "trig "...)
		if ev.TRBV < 0x10 {
			b = append(b, '0')
		}
		b = appendHex(b, uint64(ev.TRBV))
		if ev.Mult {
			b = append(b, ", mult"...)
		}
		b = ip(b)
		if ev.ICnt != 0 {
			b = strconv.AppendUint(append(b, ", icnt: "...), uint64(ev.ICnt), 10)
		}
	case query.EventSwintr:
		b = ip(strconv.AppendUint(append(b, "swintr "...), uint64(ev.Vector), 10))
	case query.EventSyscall:
		b = ip(append(b, "syscall"...))
	}
	return append(b, "]\n"...)
}
