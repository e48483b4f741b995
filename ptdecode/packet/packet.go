// Package packet decodes and encodes Intel Processor Trace packets, the
// lowest layer of a PT decoder (libipt's pt_packet, pt_pkt_* and pt_enc_*
// units), and finds synchronisation points (PSB packets) in a trace buffer.
//
// Decoding is allocation free: [Decode] reads one packet at a byte offset into
// a fixed-size [Packet] value, and a [Decoder] iterates a buffer packet by
// packet. [Decoder.Batch] decodes the same packets many at a time into
// 16-byte [Item] values, faster. [Append] is the exact inverse: it writes
// the bytes a CPU would write for a Packet, so decode(encode(p)) == p for
// every valid packet.
//
// IP packets (TIP, TIP.PGE, TIP.PGD, FUP) carry a compressed IP; [LastIP]
// reconstructs full addresses the way the hardware's last-IP register does,
// and [CompressIP] picks the shortest compression for an encoder.
package packet

// Kind is the type of a packet.
type Kind uint8

// The packet kinds. The String form is ptdump's mnemonic.
const (
	KindInvalid  Kind = iota // not a packet (the zero Packet)
	KindPad                  // PAD
	KindPSB                  // PSB, packet stream boundary
	KindPSBEnd               // PSBEND
	KindTNT8                 // short TNT, 1..6 conditional branch bits
	KindTNT64                // long TNT, 1..47 conditional branch bits
	KindTIP                  // TIP, target IP
	KindTIPPGE               // TIP.PGE, packet generation enable
	KindTIPPGD               // TIP.PGD, packet generation disable
	KindFUP                  // FUP, flow update
	KindModeExec             // MODE.Exec
	KindModeTSX              // MODE.TSX
	KindPIP                  // PIP, paging information (CR3, non-root)
	KindVMCS                 // VMCS base address
	KindOVF                  // OVF, internal buffer overflow
	KindStop                 // TraceStop
	KindCBR                  // CBR, core:bus ratio
	KindTSC                  // TSC, time stamp counter
	KindMTC                  // MTC, mini time counter
	KindTMA                  // TMA, TSC/MTC alignment
	KindCYC                  // CYC, cycle count
	KindMNT                  // MNT, maintenance
	KindPTW                  // PTW, PTWRITE payload
	KindExStop               // EXSTOP, execution stop
	KindMWait                // MWAIT hints
	KindPwrE                 // PWRE, power entry
	KindPwrX                 // PWRX, power exit
	KindBBP                  // BBP, block begin (PEBS via PT)
	KindBIP                  // BIP, block item
	KindBEP                  // BEP, block end
	KindCFE                  // CFE, control flow event
	KindEVD                  // EVD, event data
	KindTrig                 // TRIG, trigger
	numKinds
)

var kindNames = [numKinds]string{
	KindInvalid:  "<invalid>",
	KindPad:      "pad",
	KindPSB:      "psb",
	KindPSBEnd:   "psbend",
	KindTNT8:     "tnt.8",
	KindTNT64:    "tnt.64",
	KindTIP:      "tip",
	KindTIPPGE:   "tip.pge",
	KindTIPPGD:   "tip.pgd",
	KindFUP:      "fup",
	KindModeExec: "mode.exec",
	KindModeTSX:  "mode.tsx",
	KindPIP:      "pip",
	KindVMCS:     "vmcs",
	KindOVF:      "ovf",
	KindStop:     "stop",
	KindCBR:      "cbr",
	KindTSC:      "tsc",
	KindMTC:      "mtc",
	KindTMA:      "tma",
	KindCYC:      "cyc",
	KindMNT:      "mnt",
	KindPTW:      "ptw",
	KindExStop:   "exstop",
	KindMWait:    "mwait",
	KindPwrE:     "pwre",
	KindPwrX:     "pwrx",
	KindBBP:      "bbp",
	KindBIP:      "bip",
	KindBEP:      "bep",
	KindCFE:      "cfe",
	KindEVD:      "evd",
	KindTrig:     "trig",
}

// String returns ptdump's mnemonic for k ("tnt.8", "tip.pge", ...).
func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "<invalid>"
}

// IsIP reports whether packets of kind k carry a (compressed) IP:
// TIP, TIP.PGE, TIP.PGD and FUP.
func (k Kind) IsIP() bool { return k >= KindTIP && k <= KindFUP }

// IPC is the IP compression of an IP packet: the IPBytes field of its header.
type IPC uint8

// The IP compressions. Values 5 and 7 are reserved.
const (
	IPCSuppressed IPC = 0 // no payload: the IP is suppressed
	IPCUpdate16   IPC = 1 // 16-bit payload replaces the last IP's low 16 bits
	IPCUpdate32   IPC = 2 // 32-bit payload replaces the last IP's low 32 bits
	IPCSext48     IPC = 3 // 48-bit payload, sign-extended to 64 bits
	IPCUpdate48   IPC = 4 // 48-bit payload replaces the last IP's low 48 bits
	IPCFull       IPC = 6 // 64-bit payload, the full IP
)

var ipcSizes = [8]int8{0, 2, 4, 6, 6, -1, 8, -1}

// PayloadSize returns the number of payload bytes of an IP packet with
// compression c, or -1 for a reserved compression.
func (c IPC) PayloadSize() int { return int(ipcSizes[c&7]) }

// Valid reports whether c is a defined compression.
func (c IPC) Valid() bool { return c < 8 && ipcSizes[c] >= 0 }

// Flags are the single-bit fields of a packet.
type Flags uint16

// The flag bits; each is meaningful only for the kinds named.
const (
	FlagCSL        Flags = 1 << iota // MODE.Exec: CS.L, 64-bit code segment
	FlagCSD                          // MODE.Exec: CS.D, default operand size 32
	FlagIF                           // MODE.Exec: RFLAGS.IF (event tracing)
	FlagInTX                         // MODE.TSX: in transaction
	FlagTXAbort                      // MODE.TSX: transaction aborted
	FlagNR                           // PIP: non-root (guest) CR3
	FlagIP                           // EXSTOP, PTW, CFE, TRIG, BEP: a FUP follows with the IP
	FlagHW                           // PWRE: C-state entry initiated by hardware
	FlagInterrupt                    // PWRX: woken by an interrupt
	FlagStore                        // PWRX: woken by a store to a monitored address
	FlagAutonomous                   // PWRX: woken by an autonomous hardware condition
	FlagICNTV                        // TRIG: ICNT (Packet.Ext) is valid
	FlagMult                         // TRIG: more triggers fired than reported
	FlagSZ                           // BBP: block items are 4 bytes (clear: 8 bytes)
)

// Packet is one decoded Intel PT packet: a fixed-size value, cheap to copy.
// Which fields are used depends on Kind; unused fields are zero.
//
//	Kind              fields
//	TNT8, TNT64       Payload: the branch bits, oldest in bit Bits-1 (stop bit removed);
//	                  Bits: number of branches (1 = taken)
//	TIP/PGE/PGD, FUP  IPC; Payload: the IP bytes as carried, zero-extended
//	ModeExec          Flags: CSL, CSD, IF
//	ModeTSX           Flags: InTX, TXAbort
//	PIP               Payload: CR3 (bits 51:5); Flags: NR
//	VMCS              Payload: VMCS base address (bits 51:12)
//	CBR               Payload: the core:bus ratio (8 bits)
//	TSC               Payload: the TSC's low 56 bits
//	MTC               CTC: the 8-bit CTC payload
//	TMA               CTC: CTC[15:0]; FC: fast counter (9 bits)
//	CYC               Payload: the cycle count (up to 64 bits)
//	MNT               Payload: the 64-bit maintenance payload
//	PTW               Payload; Bits: payload size code (0: 4 bytes, 1: 8 bytes); Flags: IP
//	ExStop            Flags: IP
//	MWait             Payload: hints (EAX, 32 bits); Ext: extensions (ECX)
//	PwrE              State, SubState: resolved thread C-state; Flags: HW
//	PwrX              State: last core C-state; SubState: deepest core C-state;
//	                  Flags: Interrupt, Store, Autonomous
//	BBP               Type: block type (5 bits); Flags: SZ
//	BIP               Type: item ID (5 bits); Payload; Bits: payload size in bytes (4 or 8)
//	BEP               Flags: IP
//	CFE               Type: event type (5 bits); Vector; Flags: IP
//	EVD               Type: data type (5 bits); Payload
//	Trig              Payload: TRBV (8 bits); Ext: ICNT (16 bits); Flags: IP, ICNTV, Mult
//	Pad, PSB, PSBEnd, OVF, Stop: no fields
//
// Size is the packet's length in bytes (set by Decode, ignored by Append).
type Packet struct {
	Payload  uint64
	Ext      uint32
	CTC      uint16
	FC       uint16
	Kind     Kind
	Size     uint8
	IPC      IPC
	Bits     uint8
	Flags    Flags
	Type     uint8
	Vector   uint8
	State    uint8
	SubState uint8
}

// ExecMode is an execution mode as told by MODE.Exec.
type ExecMode uint8

// The execution modes.
const (
	ExecModeUnknown ExecMode = iota // CS.L and CS.D both set (reserved)
	ExecMode16
	ExecMode32
	ExecMode64
)

var execModeNames = [...]string{"unknown", "16-bit", "32-bit", "64-bit"}

// String returns "16-bit", "32-bit", "64-bit" or "unknown" as ptdump prints it.
func (m ExecMode) String() string {
	if int(m) < len(execModeNames) {
		return execModeNames[m]
	}
	return "unknown"
}

// ExecMode returns the execution mode told by a MODE.Exec packet.
func (p *Packet) ExecMode() ExecMode {
	switch p.Flags & (FlagCSL | FlagCSD) {
	case FlagCSL:
		return ExecMode64
	case FlagCSD:
		return ExecMode32
	case 0:
		return ExecMode16
	}
	return ExecModeUnknown
}

// ExecModeFlags returns the MODE.Exec flags (CS.L, CS.D) for mode m.
func ExecModeFlags(m ExecMode) Flags {
	switch m {
	case ExecMode64:
		return FlagCSL
	case ExecMode32:
		return FlagCSD
	case ExecMode16:
		return 0
	}
	return FlagCSL | FlagCSD
}

// TNT returns, for a TNT packet, the branch outcome i (0 = oldest) and true
// if taken.
func (p *Packet) TNT(i int) bool { return p.Payload>>(uint(p.Bits)-1-uint(i))&1 != 0 }
