package query

import (
	"strings"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/errata"
	"github.com/perfpt/perfpt/ptdecode/packet"
)

const eos = "error: reached end of trace stream"

// head is a PSB+ with tracing enabled at 0x1000 in 64-bit mode.
func head() []P { return []P{psb(), mode64(), fup(0x1000), psbend()} }

// headEvents are the status events of head.
var headEvents = []string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)"}

func cat(parts ...[]P) []P {
	var all []P
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

func withHead(evs ...string) []string {
	return append(append([]string{}, headEvents...), evs...)
}

var decoderTests = []struct {
	name string
	pkts []P
	cfg  Config
	want []string
}{
	{"empty psb+", []P{psb(), psbend()}, Config{},
		[]string{"disabled (status)", eos}},
	{"enabled", head(), Config{}, withHead(eos)},
	{"pad skipped", []P{psb(), pad(), mode64(), pad(), fup(0x1000), pad(), psbend(), pad()}, Config{},
		withHead(eos)},
	{"tnt and tip", cat(head(), []P{tnt("!."), tnt("!!!!!!!!.."), tip(0x2000), tipNone()}), Config{},
		withHead("tnt !.", "tnt !!!!!!!!..", "tip ip=2000", "tip", eos)},
	{"sync disable", cat(head(), []P{pgd(0x3000), pgdNone()}), Config{},
		withHead("disabled ip=3000", "disabled", eos)},
	{"tip.pgd suppressed", cat(head(), []P{pgdNone()}), Config{},
		withHead("disabled", eos)},
	{"disabled psb+ then enable", []P{psb(), mode64(), psbend(), pge(0x4000)}, Config{},
		[]string{"disabled (status)", "exec mode 64-bit (status)", "enabled ip=4000", eos}},
	{"enable with mode change", []P{psb(), mode64(), psbend(), mode32(), pge(0x4000), tnt(".")}, Config{},
		[]string{"disabled (status)", "exec mode 64-bit (status)", "enabled ip=4000",
			"exec mode 32-bit ip=4000", "tnt .", eos}},
	{"enable without mode change", []P{psb(), mode64(), psbend(), mode64(), pge(0x4000)}, Config{},
		[]string{"disabled (status)", "exec mode 64-bit (status)", "enabled ip=4000", eos}},
	{"first mode.exec outside psb+", []P{psb(), psbend(), mode64(), pge(0x4000)}, Config{},
		[]string{"disabled (status)", "enabled ip=4000", "exec mode 64-bit ip=4000", eos}},
	{"tip with mode change", cat(head(), []P{mode32(), tip(0x2000)}), Config{},
		withHead("tip ip=2000", "exec mode 32-bit ip=2000", eos)},
	{"tip without mode change", cat(head(), []P{mode64(), tip(0x2000), tnt("!")}), Config{},
		withHead("tip ip=2000", "tnt !", eos)},
	{"tip.pgd with mode change", cat(head(), []P{mode32(), pgd(0x2000)}), Config{},
		withHead("exec mode 32-bit", "disabled ip=2000", eos)},
	{"async branch", cat(head(), []P{fup(0x1100), tip(0x2000)}), Config{},
		withHead("async branch from=1100 ip=2000", eos)},
	{"async branch compressed", cat(head(), []P{ipPkt(packet.KindFUP, packet.IPCUpdate16, 0x1234),
		ipPkt(packet.KindTIP, packet.IPCUpdate32, 0x5678_0000)}), Config{},
		withHead("async branch from=1234 ip=56780000", eos)},
	{"async branch with paging", cat(head(), []P{fup(0x1100), pip(0xabc000), tip(0x2000)}), Config{},
		withHead("async branch from=1100 ip=2000", "async paging cr3=abc000 ip=2000", eos)},
	{"async branch with vmcs and paging", cat(head(), []P{fup(0x1100), pip(0xabc000), vmcs(0x5000), tip(0x2000)}), Config{},
		withHead("async branch from=1100 ip=2000", "async vmcs base=5000 ip=2000",
			"async paging cr3=abc000 ip=2000", eos)},
	{"async branch with mode change", cat(head(), []P{fup(0x1100), mode32(), tip(0x2000)}), Config{},
		withHead("async branch from=1100 ip=2000", "exec mode 32-bit ip=2000", eos)},
	{"async disable", cat(head(), []P{fup(0x1100), pgd(0x2000)}), Config{},
		withHead("async disabled from=1100 ip=2000", eos)},
	{"async disable suppressed", cat(head(), []P{fup(0x1100), pgdNone()}), Config{},
		withHead("async disabled from=1100", eos)},
	{"async disable with paging", cat(head(), []P{fup(0x1100), pip(0xabc000), pgdNone()}), Config{},
		withHead("async disabled from=1100", "async paging cr3=abc000", eos)},
	{"fup without ip", cat(head(), []P{fupNone(), tip(0x2000)}), Config{},
		withHead("error: ip has been suppressed")},
	{"tip while disabled", []P{psb(), psbend(), tip(0x2000)}, Config{},
		[]string{"disabled (status)", "error: unexpected packet context"}},
	{"tnt while disabled", []P{psb(), psbend(), tnt("!")}, Config{},
		[]string{"disabled (status)", "error: unexpected packet context"}},
	{"tnt in psb+", []P{psb(), tnt("!"), psbend()}, Config{},
		[]string{"sync: unexpected packet context"}},
	{"paging", cat(head(), []P{pip(0xabc000), P{Kind: packet.KindPIP, Payload: 0xdef000, Flags: packet.FlagNR}}), Config{},
		withHead("paging cr3=abc000", "paging cr3=def000 nr", eos)},
	{"vmcs", cat(head(), []P{vmcs(0xabc000)}), Config{}, withHead("vmcs base=abc000", eos)},
	{"psb+ status", []P{psb(), tsc(0x1000), cbr(0x20), pip(0xabc000), vmcs(0x7000), tsx(true, false), mode64(), fup(0x1000), mnt(0x55), psbend()}, Config{},
		[]string{"enabled ip=1000 (status) @1000", "cbr 20 (status) @1000",
			"async paging cr3=abc000 ip=1000 (status) @1000", "async vmcs base=7000 ip=1000 (status) @1000",
			"tsx intx=true abrt=false ip=1000 (status) @1000", "exec mode 64-bit ip=1000 (status) @1000",
			"mnt 55 @1000", eos}},
	{"second psb+ consistent", cat(head(), []P{tnt("!")}, head()), Config{},
		withHead("tnt !", "enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", eos)},
	{"second psb+ inconsistent", cat(head(), []P{psb(), mode32(), fup(0x1000), psbend()}), Config{},
		withHead("error: bad status update")},
	{"psb with pending event", cat(head(), []P{fup(0x1100)}, head()), Config{},
		withHead("error: unexpected packet context")},
	{"stop", []P{psb(), psbend(), stop()}, Config{},
		[]string{"disabled (status)", "stop", eos}},
	{"cbr and mnt", cat(head(), []P{cbr(0x21), mnt(0xabc)}), Config{},
		withHead("cbr 21", "mnt abc", eos)},
	{"cbr zero", cat(head(), []P{cbr(0)}), Config{},
		withHead("error: unknown packet")},
	{"tsc", cat(head(), []P{tsc(0x5000), cbr(0x21)}), Config{},
		withHead("cbr 21 @5000", eos)},
	{"tsx commit", cat(head(), []P{tsx(true, false), fup(0x1100), tsx(false, false), fup(0x1200), tnt("!")}), Config{},
		withHead("tsx intx=true abrt=false ip=1100", "tsx intx=false abrt=false ip=1200", "tnt !", eos)},
	{"tsx abort", cat(head(), []P{tsx(false, true), fup(0x1100), tip(0x2000)}), Config{},
		withHead("tsx intx=false abrt=true ip=1100", "async branch from=1100 ip=2000", eos)},
	{"tsx while disabled", []P{psb(), psbend(), tsx(true, false)}, Config{},
		[]string{"disabled (status)", "tsx intx=true abrt=false", eos}},
	{"ovf fup", cat(head(), []P{ovf(), fup(0x3000), tnt("!")}), Config{},
		withHead("overflow ip=3000", "tnt !", eos)},
	{"ovf timing fup", cat(head(), []P{ovf(), tsc(0x100), fup(0x3000)}), Config{},
		withHead("overflow ip=3000", eos)},
	{"ovf pge", cat(head(), []P{ovf(), pge(0x3000)}), Config{},
		withHead("overflow", "enabled ip=3000", eos)},
	{"ovf at end", cat(head(), []P{ovf()}), Config{},
		withHead("overflow", eos)},
	{"ovf tip", cat(head(), []P{ovf(), tip(0x3000)}), Config{},
		withHead("error: unexpected packet context")},
	{"ovf drops pending", cat(head(), []P{mode32(), ovf(), fup(0x3000), tip(0x4000)}), Config{},
		withHead("overflow ip=3000", "tip ip=4000", eos)},
	{"ovf publishes pending while disabled", []P{psb(), psbend(), ptw(0x55, false, true), ovf(), pge(0x3000)}, Config{},
		[]string{"disabled (status)", "ptwrite 55/4", "overflow", "enabled ip=3000", eos}},
	{"ovf in psb+ enabled", []P{psb(), mode64(), fup(0x1000), ovf(), fup(0x3000)}, Config{},
		withHead("overflow ip=3000", eos)},
	{"ovf in psb+ disabled", []P{psb(), mode64(), ovf(), pge(0x3000)}, Config{},
		[]string{"exec mode 64-bit (status)", "overflow", "enabled ip=3000", eos}},
	{"exstop", cat(head(), []P{exstop(false), exstop(true), fup(0x1100)}), Config{},
		withHead("exstop", "exstop ip=1100", eos)},
	{"mwait exstop ip", cat(head(), []P{mwait(5, 1), exstop(true), fup(0x1100)}), Config{},
		withHead("mwait 5 1 ip=1100", "exstop ip=1100", eos)},
	{"mwait exstop", cat(head(), []P{mwait(5, 1), exstop(false)}), Config{},
		withHead("mwait 5 1", "exstop", eos)},
	{"pwre pwrx", cat(head(), []P{pwre(1, 2, true), pwrx(3, 4, packet.FlagInterrupt)}), Config{},
		withHead("pwre c1.2 hw=true", "pwrx c3 c4 int=true st=false hw=false", eos)},
	{"pwrx", cat(head(), []P{pwrx(0, 1, packet.FlagStore|packet.FlagAutonomous)}), Config{},
		withHead("pwrx c0 c1 int=false st=true hw=true", eos)},
	{"ptwrite", cat(head(), []P{ptw(0xab, false, false), ptw(0xcdef, true, true), fup(0x1100)}), Config{},
		withHead("ptwrite ab/4", "ptwrite cdef/8 ip=1100", eos)},
	{"iflags psb+", []P{psb(), modeIF(packet.FlagCSL), fup(0x1000), psbend()}, Config{IFlagsEvents: true},
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "iflags if=true ip=1000 (status)", eos}},
	{"iflags change", []P{psb(), modeIF(packet.FlagCSL), fup(0x1000), psbend(), mode64(), tip(0x2000)}, Config{IFlagsEvents: true},
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "iflags if=true ip=1000 (status)",
			"tip ip=2000", "iflags if=false ip=2000", eos}},
	{"iflags ignored", []P{psb(), modeIF(packet.FlagCSL), fup(0x1000), psbend(), mode64(), tip(0x2000)}, Config{},
		withHead("tip ip=2000", eos)},
	{"interrupt with cr2", cat(head(), []P{evd(evdCR2, 0xdead), cfe(cfeIntr, 14, true), fup(0x1100), tip(0x2000)}), Config{},
		withHead("interrupt 14 cr2=dead ip=1100", "tip ip=2000", eos)},
	{"interrupt binds async branch", cat(head(), []P{cfe(cfeIntr, 3, false), fup(0x1100), tip(0x2000)}), Config{},
		withHead("interrupt 3 ip=1100", "async branch from=1100 ip=2000", eos)},
	{"interrupt while disabled", []P{psb(), psbend(), cfe(cfeIntr, 3, false)}, Config{},
		[]string{"disabled (status)", "interrupt 3", eos}},
	{"iret", cat(head(), []P{cfe(cfeIret, 0, false), cfe(cfeIret, 0, true), fup(0x1100)}), Config{},
		withHead("iret", "iret ip=1100", eos)},
	{"syscall", cat(head(), []P{cfe(cfeSyscall, 0, true), fup(0x1100), tip(0x2000)}), Config{},
		withHead("syscall ip=1100", "tip ip=2000", eos)},
	{"swintr", cat(head(), []P{cfe(cfeSwintr, 0x80, false), fup(0x1100), tip(0x2000)}), Config{},
		withHead("swintr 128 ip=1100", "async branch from=1100 ip=2000", eos)},
	{"smi rsm", cat(head(), []P{cfe(cfeSMI, 0, false), cfe(cfeRSM, 0, false), fup(0x1100), pgdNone()}), Config{},
		withHead("smi ip=1100", "rsm", "async disabled from=1100", eos)},
	{"rsm with ip", cat(head(), []P{cfe(cfeRSM, 0, true)}), Config{},
		withHead("error: unknown packet")},
	{"sipi init", []P{psb(), psbend(), cfe(cfeInit, 0, false), cfe(cfeSIPI, 0xce, false)}, Config{},
		[]string{"disabled (status)", "init", "sipi 206", eos}},
	{"vmexit", cat(head(), []P{evd(evdVMXR, 0x30), evd(evdVMXQ, 0x44), cfe(cfeVMExitIntr, 14, true), fup(0x1100), pgdNone()}), Config{},
		withHead("vmexit intr=14 vmxr=30 vmxq=44 ip=1100", "disabled", eos)},
	{"vmexit twice vmxr", cat(head(), []P{evd(evdVMXR, 0x30), evd(evdVMXR, 0x44)}), Config{},
		withHead("error: unexpected packet context")},
	{"vmentry uintr uiret shutdown", cat(head(), []P{cfe(cfeVMEntry, 0, false), cfe(cfeUintr, 4, true), fup(0x1100),
		cfe(cfeUiret, 0, false), cfe(cfeShutdown, 0, true), fup(0x1200)}), Config{},
		withHead("vmentry", "uintr 4 ip=1100", "uiret", "shutdown ip=1200", eos)},
	{"unknown cfe ignored with its fup", cat(head(), []P{cfe(0x1f, 0, true), fup(0x1100), tnt("!")}), Config{},
		withHead("tnt !", eos)},
	{"cfe mismatching evd", cat(head(), []P{evd(evdCR2, 1), cfe(cfeIret, 0, false)}), Config{},
		withHead("error: unexpected packet context")},
	{"trig", cat(head(), []P{{Kind: packet.KindTrig, Payload: 3}, {Kind: packet.KindTrig, Payload: 1, Flags: packet.FlagICNTV, Ext: 5},
		{Kind: packet.KindTrig, Payload: 2, Flags: packet.FlagIP | packet.FlagICNTV | packet.FlagMult}, fup(0x1100)}), Config{},
		withHead("trig trbv=3 icnt=0", "trig trbv=1 icnt=5 ip=0", "trig trbv=2 icnt=0 ip=1100", eos)},
	{"trig ip with icnt", cat(head(), []P{{Kind: packet.KindTrig, Flags: packet.FlagIP | packet.FlagICNTV, Ext: 1}}), Config{},
		withHead("error: unknown packet")},
	{"time: tsc tma mtc", []P{psb(), tsc(0x10000), tma(2, 0), cbr(1), psbend(), mtc(3), cbr(2), mtc(7), cbr(3)},
		Config{Timing: timingCfg(0, 1, 2)},
		[]string{"disabled (status) @10000", "cbr 1 (status) @10000", "cbr 2 @10002", "cbr 3 @1000a", eos}},
	{"tma without tsc", []P{psb(), tma(2, 0), psbend()}, Config{},
		[]string{"sync: unexpected packet context"}},

	// Errata, with the CPUs that have them.
	{"bdm70 off", []P{psb(), mode64(), fup(0x1000), psbend(), pge(0x2000)}, Config{},
		withHead("enabled ip=2000", eos)},
	{"bdm70", []P{psb(), mode64(), fup(0x1000), psbend(), pge(0x2000)}, cpuCfg("6/78"),
		[]string{"disabled (status)", "exec mode 64-bit (status)", "enabled ip=2000", eos}},
	{"skd010 tip", cat(head(), []P{ovf(), tsc(0x40), tip(0x3000), tnt("!")}), cpuCfg("6/78"),
		withHead("overflow ip=3000", "tnt ! @40", eos)},
	{"skd010 tip off", cat(head(), []P{ovf(), tsc(0x40), tip(0x3000), tnt("!")}), Config{},
		withHead("error: unexpected packet context")},
	{"skd010 tip.pgd", cat(head(), []P{ovf(), pgd(0x3000), pge(0x4000)}), cpuCfg("6/78"),
		withHead("overflow", "enabled ip=4000", eos)},
	{"skd010 tsx fup", cat(head(), []P{ovf(), tsx(true, false), fup(0x3000), tip(0x4000)}), cpuCfg("6/78"),
		withHead("overflow ip=3000", "tsx intx=true abrt=false ip=3000", "tip ip=4000", eos)},
	{"skd010 psb", cat(head(), []P{ovf(), cbr(2)}, head(), []P{tnt("!")}), cpuCfg("6/78"),
		withHead("overflow ip=1000", "enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "tnt !", eos)},
	{"skd010 tnt", cat(head(), []P{ovf(), tnt("!")}), cpuCfg("6/78"),
		withHead("error: unexpected packet context")},
	{"apl11", cat(head(), []P{ovf(), pgd(0x3000), pge(0x4000)}), cpuCfg("6/92"),
		withHead("overflow", "enabled ip=4000", eos)},
	{"apl11 off", cat(head(), []P{ovf(), pgd(0x3000), pge(0x4000)}), Config{},
		withHead("error: unexpected packet context")},
	{"apl12", cat(head(), []P{ovf(), tsc(0x50), fup(0x3000), pge(0x4000)}), cpuCfg("6/92"),
		withHead("overflow @50", "enabled ip=4000 @50", eos)},
	{"apl12 genuine fup", cat(head(), []P{ovf(), fup(0x3000), tnt("!")}), cpuCfg("6/92"),
		withHead("overflow ip=3000", "tnt !", eos)},
	{"apl12 off", cat(head(), []P{ovf(), fup(0x3000), pge(0x4000)}), Config{},
		withHead("overflow ip=3000", "enabled ip=4000", eos)},
	{"skd010 pip vmcs mode skipped", cat(head(), []P{ovf(), pip(0xabc000), vmcs(0x5000), mode32(), tip(0x3000)}), cpuCfg("6/78"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow ip=3000", eos}},
	{"skd010 exstop ip", cat(head(), []P{ovf(), exstop(true), fup(0x3000)}), cpuCfg("6/78"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow", "exstop ip=3000", eos}},
	{"skd010 standalone exstop", cat(head(), []P{ovf(), exstop(false), tip(0x3000)}), cpuCfg("6/78"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow ip=3000", eos}},
	{"skd010 mwait", cat(head(), []P{ovf(), mwait(1, 2), exstop(true), fup(0x3000)}), cpuCfg("6/78"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow", "mwait 1 2 ip=3000", "exstop ip=3000", eos}},
	{"skd010 ptw", cat(head(), []P{ovf(), ptw(1, false, false), ptw(2, false, true), fup(0x3000)}), cpuCfg("6/78"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow", "ptwrite 1/4", "ptwrite 2/4 ip=3000", eos}},
	{"skd010 stop", cat(head(), []P{ovf(), stop(), pge(0x3000)}), cpuCfg("6/78"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow", "stop", "enabled ip=3000", eos}},
	{"skd010 two tsx", cat(head(), []P{ovf(), tsx(true, false), tsx(false, false), pge(0x3000)}), cpuCfg("6/78"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow", "tsx intx=true abrt=false", "tsx intx=false abrt=false", "enabled ip=3000", eos}},
	{"skd010 psb without fup", cat(head(), []P{ovf(), psb(), mode64(), psbend(), pge(0x3000)}), cpuCfg("6/78"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow", "disabled (status)", "exec mode 64-bit (status)", "enabled ip=3000", eos}},
	{"skd010 timing", cat(head(), []P{ovf(), tsc(0x99), cbr(3), mtc(1), cyc(4), mnt(5), pwre(1, 0, false), tip(0x3000)}), cpuCfg("6/78"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow ip=3000", eos}},
	{"apl12 psb with fup", cat(head(), []P{ovf(), fup(0x3000)}, head()), cpuCfg("6/92"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow ip=3000", "enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", eos}},
	{"apl12 psb without fup", cat(head(), []P{ovf(), fup(0x3000), psb(), mode64(), psbend(), pge(0x4000)}), cpuCfg("6/92"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow", "disabled (status)", "exec mode 64-bit (status)", "enabled ip=4000", eos}},
	{"apl12 stop", cat(head(), []P{ovf(), fup(0x3000), stop()}), cpuCfg("6/92"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow", "stop", eos}},
	{"apl12 skip", cat(head(), []P{ovf(), fup(0x3000), cbr(3), pip(0x7000), mode32(), exstop(false), pge(0x4000)}), cpuCfg("6/92"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow", "cbr 3", "paging cr3=7000", "exstop", "enabled ip=4000", "exec mode 32-bit ip=4000", eos}},
	{"apl12 tip", cat(head(), []P{ovf(), fup(0x3000), tip(0x4000)}), cpuCfg("6/92"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow ip=3000", "tip ip=4000", eos}},
	{"apl12 ovf", cat(head(), []P{ovf(), fup(0x3000), ovf(), pge(0x4000)}), cpuCfg("6/92"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow ip=3000", "overflow", "enabled ip=4000", eos}},
	{"apl11 fup", cat(head(), []P{ovf(), tsc(5), cfe(cfeIntr, 1, false), pgd(0x3000)}), cpuCfg("6/92"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "overflow", "interrupt 1 @5", "disabled ip=3000 @5", eos}},
	{"apl11 tip", cat(head(), []P{ovf(), tip(0x3000)}), cpuCfg("6/92"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "error: unexpected packet context"}},
	{"bdm70 timing between", []P{psb(), mode64(), fup(0x1000), tsc(7), psbend(), pad(), cbr(2), pge(0x2000)}, cpuCfg("6/61"),
		[]string{"disabled (status) @7", "exec mode 64-bit (status) @7", "cbr 2 @7", "enabled ip=2000 @7", eos}},
	{"bdm70 other packet", []P{psb(), mode64(), fup(0x1000), psbend(), tnt("!")}, cpuCfg("6/61"),
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "tnt !", eos}},
	{"vmcs standalone after async paging", cat(head(), []P{fup(0x1100), vmcs(0x5000), tip(0x2000)}), Config{},
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "async branch from=1100 ip=2000", "async vmcs base=5000 ip=2000", eos}},
	{"pip nr", cat(head(), []P{P{Kind: packet.KindPIP, Payload: 0x1000, Flags: packet.FlagNR}}), Config{},
		[]string{"enabled ip=1000 (status)", "exec mode 64-bit ip=1000 (status)", "paging cr3=1000 nr", eos}},
}

func cpuCfg(s string) Config {
	cpu, _ := errata.ParseCPU(s)
	e, _ := errata.ForCPU(cpu)
	return Config{CPU: cpu, Errata: e}
}

func TestDecoder(t *testing.T) {
	for _, tt := range decoderTests {
		t.Run(tt.name, func(t *testing.T) {
			buf := encode(t, tt.pkts...)
			got := events(buf, &tt.cfg)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}
