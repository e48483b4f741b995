package query

// EventType says what an Event reports. The values follow libipt's enum
// pt_event_type.
type EventType uint8

const (
	EventEnabled       EventType = iota // tracing enabled (TIP.PGE, PSB+ with FUP, or resumed)
	EventDisabled                       // tracing disabled synchronously (TIP.PGD)
	EventAsyncDisabled                  // tracing disabled asynchronously (FUP + TIP.PGD)
	EventAsyncBranch                    // asynchronous branch: interrupt, exception (FUP + TIP)
	EventPaging                         // CR3 changed synchronously (PIP, at a MOV CR3)
	EventAsyncPaging                    // CR3 changed at an asynchronous branch or in PSB+
	EventOverflow                       // internal buffer overflow, packets lost (OVF)
	EventExecMode                       // execution mode changed (MODE.Exec)
	EventTSX                            // transaction begin, commit or abort (MODE.TSX)
	EventStop                           // tracing stopped (STOP)
	EventVMCS                           // VMCS base changed synchronously (VMCS)
	EventAsyncVMCS                      // VMCS base changed at an asynchronous branch or in PSB+
	EventExstop                         // execution stopped (EXSTOP)
	EventMwait                          // MWAIT (MWAIT)
	EventPwre                           // power state entry (PWRE)
	EventPwrx                           // power state exit (PWRX)
	EventPtwrite                        // PTWRITE payload (PTW)
	EventTick                           // timing update (made by the instruction/block decoders)
	EventCBR                            // core:bus ratio (CBR)
	EventMNT                            // maintenance (MNT)
	EventTIP                            // indirect branch target (TIP)
	EventTNT                            // conditional branch bits (TNT)
	EventIFlags                         // EFLAGS.IF changed (event tracing)
	EventInterrupt                      // interrupt or exception (CFE)
	EventIret                           // IRET (CFE)
	EventSMI                            // system management interrupt (CFE)
	EventRSM                            // resume from SMM (CFE)
	EventSIPI                           // startup IPI (CFE)
	EventInit                           // INIT (CFE)
	EventVMEntry                        // VM entry (CFE)
	EventVMExit                         // VM exit (CFE, with EVD details)
	EventShutdown                       // shutdown (CFE)
	EventUintr                          // user interrupt (CFE)
	EventUiret                          // UIRET (CFE)
	EventTrig                           // trigger (TRIG)
	EventSwintr                         // software interrupt INTn (CFE)
	EventSyscall                        // SYSCALL/SYSENTER (CFE)
	numEventTypes

	// eventIgnore marks an internal placeholder for a packet that must be
	// bound but reports nothing (libipt reuses ptev_tick). It is never
	// returned by Next.
	eventIgnore = EventTick
)

var eventNames = [numEventTypes]string{
	"enabled", "disabled", "async disabled", "async branch", "paging",
	"async paging", "overflow", "exec mode", "tsx", "stop", "vmcs",
	"async vmcs", "exstop", "mwait", "pwre", "pwrx", "ptwrite", "tick",
	"cbr", "mnt", "tip", "tnt", "iflags", "interrupt", "iret", "smi", "rsm",
	"sipi", "init", "vmentry", "vmexit", "shutdown", "uintr", "uiret",
	"trig", "swintr", "syscall",
}

func (t EventType) String() string {
	if t < numEventTypes {
		return eventNames[t]
	}
	return "<invalid>"
}

// ExecMode is the execution mode (libipt's enum pt_exec_mode).
type ExecMode uint8

const (
	ExecModeUnknown ExecMode = iota
	ExecMode16
	ExecMode32
	ExecMode64
)

var execModeNames = [...]string{"<unknown>", "16-bit", "32-bit", "64-bit"}

// String returns "16-bit", "32-bit", "64-bit" or "<unknown>", as ptxed prints.
func (m ExecMode) String() string {
	if int(m) < len(execModeNames) {
		return execModeNames[m]
	}
	return "<invalid>"
}

// ExecModeOf returns the mode for the CS.L and CS.D bits of a MODE.Exec
// packet: 64-bit for L, 32-bit for D, 16-bit for neither, unknown for both.
func ExecModeOf(csl, csd bool) ExecMode {
	switch {
	case csl && csd:
		return ExecModeUnknown
	case csl:
		return ExecMode64
	case csd:
		return ExecMode32
	}
	return ExecMode16
}

// Event is one decoded event: a fixed-size value, copied freely.
//
// The fields used by each Type are (all others are zero):
//
//	Enabled        IP (where tracing resumes), Resumed
//	Disabled       IP (branch target in the filtered area; not valid if IPSuppressed)
//	AsyncDisabled  From (source of the async branch, libipt's "at"), IP
//	AsyncBranch    From, IP (the destination, libipt's "to")
//	Paging         CR3, NonRoot
//	AsyncPaging    CR3, NonRoot, IP
//	Overflow       IP (where tracing resumes; suppressed if it resumed disabled)
//	ExecMode       Mode, IP
//	TSX            Speculative, Aborted, IP
//	VMCS           Base
//	AsyncVMCS      Base, IP
//	Exstop         IP
//	Mwait          Hints, Ext, IP
//	Pwre           State, SubState, HW
//	Pwrx           Last, Deepest, Interrupt, Store, Autonomous
//	Ptwrite        Payload, Size (bytes), IP
//	Tick           IP
//	CBR            Ratio
//	MNT            Payload
//	TIP            IP (the branch target; suppressed for a TIP with no IP)
//	TNT            Bits, Size: Size bits, oldest in bit Size-1, 1 = taken
//	IFlags         IFlag, IP
//	Interrupt      Vector, HasCR2, CR2, IP
//	Iret, SMI, RSM, Init, VMEntry, Shutdown, Uiret, Syscall   IP
//	SIPI           Vector
//	VMExit         HasVector, Vector, HasVMXR, VMXR, HasVMXQ, VMXQ, IP
//	Uintr, Swintr  Vector, IP
//	Trig           TRBV, ICnt, Mult, IP
//
// IP is not valid when IPSuppressed is set. TSC, LostMTC and LostCYC are
// valid when HasTSC is set: the time at the event.
type Event struct {
	Type EventType

	IPSuppressed bool // the event's IP is not known
	StatusUpdate bool // the event reports state from PSB+, not a change
	HasTSC       bool // TSC, LostMTC, LostCYC are valid

	// One-bit details.
	Resumed     bool // Enabled: tracing resumed where it was disabled (set by the flow decoders)
	NonRoot     bool // Paging, AsyncPaging: VMX non-root (guest) mode
	Speculative bool // TSX: in a transaction
	Aborted     bool // TSX: the transaction aborted
	HW          bool // Pwre: the C-state entry was initiated by hardware
	Interrupt   bool // Pwrx: woken by an external interrupt
	Store       bool // Pwrx: woken by a store to a monitored address
	Autonomous  bool // Pwrx: woken by a hardware autonomous condition
	IFlag       bool // IFlags: EFLAGS.IF
	HasCR2      bool // Interrupt: CR2 is valid
	HasVector   bool // VMExit: Vector is valid (exit on interrupt/exception)
	HasVMXR     bool // VMExit: VMXR is valid
	HasVMXQ     bool // VMExit: VMXQ is valid
	Mult        bool // Trig: more triggers fired than reported

	Mode     ExecMode // ExecMode
	Size     uint8    // TNT: number of bits; Ptwrite: payload bytes
	Vector   uint8    // Interrupt, SIPI, VMExit, Uintr, Swintr
	State    uint8    // Pwre: thread C-state
	SubState uint8    // Pwre: thread sub C-state
	Last     uint8    // Pwrx: core C-state at the wake
	Deepest  uint8    // Pwrx: deepest core C-state reached
	TRBV     uint8    // Trig: bit vector of the triggers
	Ratio    uint16   // CBR: core:bus ratio
	ICnt     uint16   // Trig: instructions after the anchor
	Hints    uint32   // Mwait: EAX hints
	Ext      uint32   // Mwait: ECX extensions
	LostMTC  uint32   // MTC updates lost since the last TSC
	LostCYC  uint32   // CYC updates lost since the last TSC

	TSC     uint64 // time stamp count at the event
	IP      uint64 // the event's address (see the table above)
	From    uint64 // AsyncBranch, AsyncDisabled: source address
	Bits    uint64 // TNT bits
	CR3     uint64 // Paging, AsyncPaging
	Base    uint64 // VMCS, AsyncVMCS
	Payload uint64 // Ptwrite, MNT
	CR2     uint64 // Interrupt
	VMXR    uint64 // VMExit: exit reason
	VMXQ    uint64 // VMExit: exit qualification
}
