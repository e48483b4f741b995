package flow

import (
	"github.com/perfpt/perfpt/ptdecode/image"
	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/ptdecode/query"
)

// Status is a set of flags the decoders return with every step, like
// libipt's pt_status_flag.
type Status uint8

const (
	// StatusIPSuppressed: tracing is disabled; there is no current IP.
	StatusIPSuppressed Status = 1 << 0
	// StatusEOS: the trace ended; no more blocks or events follow.
	StatusEOS Status = 1 << 1
	// StatusEventPending: call Event before the next Next.
	StatusEventPending Status = 1 << 2
)

// Config configures the instruction and block decoders.
type Config struct {
	Query query.Config // event layer: errata, timing, filter, iflags, keep-tcal-on-ovf

	TickEvents bool // report tick events when the time changes at a branch (--event:tick)

	// Cache, if set, is the block cache the decoder uses (and shares with
	// the other decoders using it); else the decoder has its own.
	Cache     *BlockCache
	EndOnCall bool // end a block after every call (--block:end-on-call)
	EndOnJump bool // end a block after every direct jump (--block:end-on-jump)

	// ColdBlocks ends blocks where libipt's block decoder ends them while
	// it fills its block cache: after the first execution of each direct
	// call and each direct backward jump, and after 1024 instructions
	// first decoded in a row (without it, blocks go on as libipt's do
	// once its cache is warm). The boundaries depend on the
	// order of decoding: for sequential walks only (not WalkParallel or
	// WalkChunks, nor decoders sharing a Cache concurrently).
	ColdBlocks bool
}

// Block is a run of instructions executed in sequence: a fixed-size value.
// The instructions are at IP, then each next one after IP+size (following
// direct jumps and calls), up to EndIP, NInsn in all.
type Block struct {
	IP, EndIP   uint64
	NInsn       uint16
	Mode        insn.Mode
	Class       insn.Class // class of the last instruction (Unknown if not known)
	Speculative bool       // executed speculatively (inside a TSX transaction)
	Truncated   bool       // the last instruction spans two sections; its bytes are in Raw
	RawSize     uint8
	Raw         [insn.MaxSize]byte
	MapID       uint64 // image mapping the instructions come from (0 if none)
}

// bound flags: events already bound to the postponed instruction.
const (
	boundPaging = 1 << iota
	boundVMCS
	boundPtwrite
	boundIret
	boundVMEntry
	boundUiret
	boundSwintr
	boundSyscall
)

// BlockDecoder reconstructs the execution flow from an Intel PT trace and
// the memory image, block by block (libipt's pt_block_decoder). It is not
// safe for concurrent use; use one decoder per goroutine (they may share
// the trace, the image and its sections).
type BlockDecoder struct {
	cfg Config
	evd *query.Decoder
	img *image.Image

	msec   *image.Mapping // the mapping of the last lookup
	lastMC *mapCache      // the cached runs of the last mapping
	imgGen uint64         // the image's generation when msec was found
	cache  *BlockCache

	ev     query.Event
	status query.Code // status of the event decoder; CodeOK while events come
	err    error      // the event decoder's error behind status

	ret retstack

	// Scratch space that would otherwise escape to the heap on every use.
	scratchIn    insn.Insn
	scratchEv    query.Event
	scratchBlock Block

	stall      stall  // progress of a walk
	resyncedAt uint64 // where the last Resync synchronised (noResume: it did not)

	// The postponed instruction (valid when processInsn).
	insn insn.Insn

	ip      uint64
	tsc     uint64
	lostMTC uint32
	lostCYC uint32
	cbr     uint32
	icnt    uint32
	cr3     uint64
	vmcs    uint64
	mode    insn.Mode

	enabled     bool
	speculative bool
	hasTSC      bool
	hasCBR      bool
	hasICnt     bool
	processInsn bool
	fastOff     bool // options the fast path does not handle (fastBlocks)
	bound       uint8
}

// NewBlockDecoder returns a block decoder over the trace in buf, decoding
// instructions from img (which may be replaced with SetImage at any time).
func NewBlockDecoder(buf []byte, img *image.Image, cfg *Config) *BlockDecoder {
	d := &BlockDecoder{cfg: *cfg, img: img, cache: cfg.Cache}
	d.fastOff = cfg.TickEvents || cfg.EndOnCall || cfg.EndOnJump
	if d.cache == nil {
		d.cache = NewBlockCache()
	}
	d.evd = query.NewDecoder(buf, &d.cfg.Query)
	if d.img == nil {
		d.img = image.New("")
	}
	d.reset()
	return d
}

// SetTrace makes the decoder decode another trace (e.g. the next AUX
// buffer), keeping its configuration, image and block cache. Synchronise
// before decoding.
func (d *BlockDecoder) SetTrace(buf []byte) {
	d.evd.Init(buf, &d.cfg.Query)
	d.reset()
}

// SetImage replaces the image instructions are read from, e.g. on a context
// switch. Cached blocks of mappings no longer in the image are not used.
func (d *BlockDecoder) SetImage(img *image.Image) {
	if img == nil {
		img = image.New("")
	}
	d.img = img
	d.msec = nil
}

// Image returns the current image.
func (d *BlockDecoder) Image() *image.Image { return d.img }

// Offset returns the offset in the trace of the event decoder's current
// packet (libipt's pt_blk_get_offset): where an error happened.
func (d *BlockDecoder) Offset() uint64 { return d.evd.Offset() }

// SyncOffset returns the offset of the last PSB the decoder synchronised at.
func (d *BlockDecoder) SyncOffset() uint64 { return d.evd.SyncOffset() }

// Time returns the last time stamp count, and the numbers of MTC and CYC
// packets lost since; ok is false when there is no time yet.
func (d *BlockDecoder) Time() (tsc uint64, lostMTC, lostCYC uint32, ok bool) {
	return d.tsc, d.lostMTC, d.lostCYC, d.hasTSC
}

// CoreBusRatio returns the last core:bus ratio.
func (d *BlockDecoder) CoreBusRatio() (uint32, bool) { return d.cbr, d.hasCBR }

// CR3 returns the current CR3 (from the last paging event) and VMCS base.
func (d *BlockDecoder) CR3() (cr3, vmcs uint64) { return d.cr3, d.vmcs }

// IP returns the start IP of the next block.
func (d *BlockDecoder) IP() uint64 { return d.ip }

func (d *BlockDecoder) reset() {
	d.tsc, d.lostMTC, d.lostCYC, d.cbr, d.icnt = 0, 0, 0, 0, 0
	d.mode = insn.ModeUnknown
	d.ip = 0
	d.status = query.CodeNoSync
	d.err = query.CodeNoSync
	d.enabled, d.speculative, d.hasTSC, d.hasCBR, d.hasICnt = false, false, false, false, false
	d.processInsn = false
	d.bound = 0
	d.ev = query.Event{Type: 0xff}
	d.ret.init()
	d.cr3, d.vmcs = ^uint64(0), ^uint64(0)
}

// statusFlags returns flags plus the decoder's state flags (pt_blk_status).
func (d *BlockDecoder) statusFlags(flags Status) Status {
	if !d.enabled {
		flags |= StatusIPSuppressed
	}
	if d.status == query.CodeEOS {
		flags |= StatusEOS
	}
	return flags
}

// fetchEvent takes over the time of the current event and reads the next
// one (pt_blk_fetch_event).
func (d *BlockDecoder) fetchEvent() query.Code {
	ev := &d.ev
	d.tsc = ev.TSC
	d.hasTSC = ev.HasTSC
	d.lostMTC = ev.LostMTC
	d.lostCYC = ev.LostCYC
	if c := d.findTrigAnchor(ev); c != 0 {
		return c
	}
	if err := d.evd.Next(&d.ev); err != nil {
		d.setStatus(err)
		d.ev = query.Event{Type: 0xff}
	}
	return 0
}

// fetchBranchNext is fetchEvent for the fast loop (fastRuns), where the
// current event is a TNT or a TIP with an IP and the next one is not
// branch trace that the event decoder's NextBranch gives at little cost.
func (d *BlockDecoder) fetchBranchNext() {
	ev := &d.ev
	if err := d.evd.Next(ev); err != nil {
		d.setStatus(err)
		d.ev = query.Event{Type: 0xff}
	}
}

func (d *BlockDecoder) setStatus(err error) {
	d.status = query.CodeOf(err)
	d.err = err
}

// findTrigAnchor tracks the IPs a TRIG's instruction count may refer to.
func (d *BlockDecoder) findTrigAnchor(ev *query.Event) query.Code {
	switch ev.Type {
	case query.EventPaging, query.EventSIPI, query.EventCBR, query.EventMNT, query.EventStop,
		query.EventVMCS, query.EventMwait, query.EventPwre, query.EventPwrx:
		return 0
	case query.EventEnabled, query.EventAsyncBranch, query.EventTIP, query.EventTNT:
		if ev.IPSuppressed {
			return query.CodeInternal
		}
		d.hasICnt, d.icnt = true, 0
	case query.EventDisabled, query.EventAsyncDisabled:
		d.hasICnt, d.icnt = false, 0
	case query.EventOverflow:
		d.hasICnt, d.icnt = !ev.IPSuppressed, 0
	case 0xff:
	default:
		if !ev.IPSuppressed {
			d.hasICnt, d.icnt = true, 0
		}
	}
	return 0
}

// start processes the status updates of the PSB+ the event decoder just
// synchronised at, then fetches the first event (pt_blk_start).
func (d *BlockDecoder) start() (Status, error) {
	saved := *d.evd
	var ev query.Event
	for {
		if saved.Pos() != d.evd.Pos() {
			break
		}
		if err := saved.Next(&ev); err != nil {
			if query.CodeOf(err) != query.CodeEOS {
				return 0, err
			}
			break
		}
		if !ev.StatusUpdate {
			break
		}
		if ev.Type == query.EventEnabled {
			d.enabled = true
			d.ip = ev.IP
			break
		}
	}
	if err := d.evd.Next(&d.ev); err != nil {
		d.setStatus(err)
	} else {
		d.status, d.err = 0, nil
	}
	return d.result(d.proceedTrailingEvent(nil))
}

// result turns an internal (status, code) pair into the exported form.
func (d *BlockDecoder) result(s Status, c query.Code) (Status, error) {
	if c != 0 {
		if c == d.status && d.err != nil {
			return s, d.err
		}
		return s, c
	}
	return s, nil
}

// SyncForward synchronises at the next PSB (the first one at the start).
func (d *BlockDecoder) SyncForward() (Status, error) {
	d.reset()
	if err := d.evd.SyncForward(); err != nil {
		return 0, err
	}
	return d.start()
}

// SyncSet synchronises at the PSB at offset off.
func (d *BlockDecoder) SyncSet(off uint64) (Status, error) {
	d.reset()
	if err := d.evd.SyncSet(off); err != nil {
		return 0, err
	}
	return d.start()
}
