package query_test

import (
	"fmt"

	"github.com/perfpt/perfpt/ptdecode/errata"
	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// Decode the events of a small trace: a PSB+ with tracing enabled at
// 0x1000, two conditional branches, an indirect branch to 0x2000, and an
// interrupt (FUP + TIP).
func ExampleDecoder() {
	var e packet.Encoder
	e.Append(packet.Packet{Kind: packet.KindPSB})
	e.Append(packet.Packet{Kind: packet.KindModeExec, Flags: packet.FlagCSL})
	e.AppendIP(packet.KindFUP, 0x1000)
	e.Append(packet.Packet{Kind: packet.KindPSBEnd})
	e.Append(packet.Packet{Kind: packet.KindTNT8, Bits: 2, Payload: 0b10})
	e.AppendIP(packet.KindTIP, 0x2000)
	e.AppendIP(packet.KindFUP, 0x2004)
	e.AppendIP(packet.KindTIP, 0xffff_8000_0000_0000)

	cpu, _ := errata.ParseCPU("6/78")
	cfg := query.Config{CPU: cpu}
	cfg.Errata, _ = errata.ForCPU(cpu)

	d := query.NewDecoder(e.Buf, &cfg)
	if err := d.SyncForward(); err != nil {
		fmt.Println(err)
		return
	}
	var ev query.Event
	for {
		if err := d.Next(&ev); err != nil {
			fmt.Println(query.CodeOf(err))
			return
		}
		switch ev.Type {
		case query.EventTNT:
			fmt.Printf("%v: %d bits %b\n", ev.Type, ev.Size, ev.Bits)
		case query.EventAsyncBranch:
			fmt.Printf("%v: from %#x to %#x\n", ev.Type, ev.From, ev.IP)
		case query.EventExecMode:
			fmt.Printf("%v: %v\n", ev.Type, ev.Mode)
		default:
			fmt.Printf("%v: %#x status=%v\n", ev.Type, ev.IP, ev.StatusUpdate)
		}
	}
	// Output:
	// enabled: 0x1000 status=true
	// exec mode: 64-bit
	// tnt: 2 bits 10
	// tip: 0x2000 status=false
	// async branch: from 0x2004 to 0xffff800000000000
	// reached end of trace stream
}
