// Package sideband reads perf_event sideband records, the raw records of a
// perf mmap ring (PERF_RECORD_MMAP, COMM, FORK, SWITCH, AUX, ...) as libipt's
// pevent library and its sideband sessions (libipt-sb) read them, and prints
// them in time order between the packets of a trace as ptdump and ptxed do
// with --pevent and --sb:* options.
//
// [PeventConfig.ReadRecord] decodes one record at an offset given the
// sample_type of the events and the TSC conversion of the mmap page. A
// [Pevent] iterates the records of one sideband file; a [Session] merges
// several by time. ptdump prints them up to each timing packet's TSC with
// [Session.Dump]; a trace decoder such as ptxed presents each event to
// [Session.Event], which also applies the records: one process image per
// pid (MMAP, COMM.EXEC, FORK through the [Image] interface) and context
// switches placed where the trace enters the kernel.
package sideband

import (
	"encoding/binary"
	"errors"
	"strconv"

	"github.com/perfpt/perfpt/internal/cnum"
)

// perf_event record types (enum perf_event_type).
const (
	RecordMmap          = 1
	RecordLost          = 2
	RecordComm          = 3
	RecordExit          = 4
	RecordThrottle      = 5
	RecordUnthrottle    = 6
	RecordFork          = 7
	RecordRead          = 8
	RecordSample        = 9
	RecordMmap2         = 10
	RecordAux           = 11
	RecordItraceStart   = 12
	RecordLostSamples   = 13
	RecordSwitch        = 14
	RecordSwitchCPUWide = 15
)

// Bits of perf_event_attr.sample_type that sample_id_all appends to
// non-sample records.
const (
	SampleTID        = 1 << 1
	SampleTime       = 1 << 2
	SampleID         = 1 << 6
	SampleCPU        = 1 << 7
	SampleStreamID   = 1 << 9
	SampleIdentifier = 1 << 16
)

// Header misc bits and AUX flags.
const (
	MiscCommExec   = 1 << 13 // COMM: the comm changed at exec
	MiscSwitchOut  = 1 << 13 // SWITCH: switch out (else in)
	AuxTruncated   = 1       // AUX: the data was truncated
	headerSize     = 8
	mmapFixedSize  = 32
	mmap2FixedSize = 64
)

// Errors, with libipt's texts. Decoding errors are *Error values wrapping
// these.
var (
	ErrEOS       = errors.New("reached end of trace stream") // no more records, or the last is cut short
	ErrNoSync    = errors.New("decoder out of sync")         // a record whose size does not add up
	ErrBadPacket = errors.New("unknown packet")              // a string without its NUL
	ErrBadConfig = errors.New("bad configuration")           // a zero time_mult, or a sample config without IDENTIFIER
	ErrBadFile   = errors.New("bad file")                    // the file cannot be read
	ErrInvalid   = errors.New("invalid argument")
	ErrInternal  = errors.New("internal error")
)

// Error is an error reading a sideband file at a byte offset.
type Error struct {
	File   string
	Offset int
	Err    error
}

func (e *Error) Error() string {
	return e.File + ":0x" + strconv.FormatUint(uint64(e.Offset), 16) + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// SampleType gives the sample_type of the event whose samples carry
// identifier ID (for files mixing events, --pevent:sample-config).
type SampleType struct {
	ID   uint64
	Type uint64
}

// ParseSampleConfig reads --pevent:sample-config's "<id>:<type>" as
// libipt's pt_parse_sample_config: strtoull(arg, &rest, 0) must read an
// id and stop at ':', then the type is read whole ("" being 0).
func ParseSampleConfig(arg string) (id, typ uint64, ok bool) {
	id, n, erange := cnum.Strtoull(arg, 0)
	if erange || n == 0 || n == len(arg) || arg[n] != ':' {
		return 0, 0, false
	}
	typ, ok = cnum.Uint(arg[n+1:])
	return id, typ, ok
}

// PeventConfig describes a perf_event sideband file (libipt's
// pt_sb_pevent_config and pev_config).
type PeventConfig struct {
	Filename     string
	Begin, End   uint64       // byte range of the file to read; End 0: to the end
	Primary      bool         // the primary sideband of the traced CPU (else secondary)
	SampleType   uint64       // perf_event_attr.sample_type of the events
	SampleConfig []SampleType // per-identifier sample types, overriding SampleType
	TimeZero     uint64       // perf_event_mmap_page.time_zero
	TimeShift    uint16       // perf_event_mmap_page.time_shift
	TimeMult     uint32       // perf_event_mmap_page.time_mult (1 by default)
	TSCOffset    uint64       // apply records this many TSC ticks earlier
	KernelStart  uint64       // the start address of the kernel
	Sysroot      string       // prepended to the file names of MMAP records
	VDSOx64      string       // the file to map for [vdso] in 64-bit processes
	VDSOx32      string       // ... in x32 processes
	VDSOia32     string       // ... in 32-bit processes
}

// TimeToTSC converts a perf time to TSC (libipt's pev_time_to_tsc). Time 0
// (synthesised records) is TSC 0.
func (c *PeventConfig) TimeToTSC(time uint64) (uint64, error) {
	if time == 0 {
		return 0, nil
	}
	if c.TimeMult == 0 {
		return 0, ErrBadConfig
	}
	time -= c.TimeZero
	m := uint64(c.TimeMult)
	quot, rem := time/m, time%m
	quot <<= c.TimeShift
	rem <<= c.TimeShift
	return quot + rem/m, nil
}

// TSCToTime converts a TSC to perf time (libipt's pev_time_from_tsc).
func (c *PeventConfig) TSCToTime(tsc uint64) (uint64, error) {
	if c.TimeMult == 0 {
		return 0, ErrBadConfig
	}
	quot := tsc >> c.TimeShift
	rem := tsc & (1<<c.TimeShift - 1)
	m := uint64(c.TimeMult)
	return c.TimeZero + quot*m + (rem*m)>>c.TimeShift, nil
}

// Which sample fields a record carries.
const (
	HasTID = 1 << iota
	HasTime
	HasID
	HasStreamID
	HasCPU
	HasIdentifier
)

// Sample holds the sample_id_all fields of a record.
type Sample struct {
	Has        uint8 // Has* bits
	PID, TID   uint32
	Time       uint64 // perf time
	TSC        uint64 // Time converted to TSC (minus the TSC offset, once fetched)
	ID         uint64
	StreamID   uint64
	CPU        uint32
	Identifier uint64
}

// Record is one decoded perf_event record. Which fields are set depends on
// Type; Filename is MMAP's and MMAP2's file name or COMM's comm.
type Record struct {
	Type uint32
	Misc uint16
	Size uint16 // size in bytes, header included

	PID, TID   uint32 // MMAP, MMAP2, COMM, EXIT, FORK, ITRACE_START; SWITCH_CPU_WIDE: next/prev pid/tid
	PPID, PTID uint32 // EXIT, FORK
	Time       uint64 // EXIT, FORK, THROTTLE, UNTHROTTLE
	Addr, Len  uint64 // MMAP, MMAP2
	PgOff      uint64 // MMAP, MMAP2
	Maj, Min   uint32 // MMAP2
	Ino        uint64 // MMAP2
	InoGen     uint64 // MMAP2
	Prot       uint32 // MMAP2
	MapFlags   uint32 // MMAP2
	Filename   string // MMAP, MMAP2 file name; COMM comm
	ID         uint64 // LOST, THROTTLE, UNTHROTTLE
	StreamID   uint64 // THROTTLE, UNTHROTTLE
	Lost       uint64 // LOST, LOST_SAMPLES
	AuxOffset  uint64 // AUX
	AuxSize    uint64 // AUX
	AuxFlags   uint64 // AUX

	Sample Sample
}

// cursor reads little-endian fields of a record.
type cursor struct {
	b   []byte
	pos int
}

func (c *cursor) u32() uint32 {
	if c.pos+4 > len(c.b) {
		c.pos += 4
		return 0
	}
	v := binary.LittleEndian.Uint32(c.b[c.pos:])
	c.pos += 4
	return v
}

func (c *cursor) u64() uint64 {
	if c.pos+8 > len(c.b) {
		c.pos += 8
		return 0
	}
	v := binary.LittleEndian.Uint64(c.b[c.pos:])
	c.pos += 8
	return v
}

// str reads a NUL-terminated string that starts at fixed bytes into the
// record, padded to 8 bytes.
func (c *cursor) str(at int) (string, error) {
	if at > len(c.b) {
		return "", ErrInternal // the string would start past the record (libipt: internal error)
	}
	for i := at; i < len(c.b); i++ {
		if c.b[i] == 0 {
			n := i - at + 1
			c.pos = at + (n+7)&^7
			return string(c.b[at:i]), nil
		}
	}
	return "", ErrBadPacket
}

// sampleType returns the sample type for a record whose sample area is
// rec[begin:] (libipt's pev_sample_type).
func (c *PeventConfig) sampleType(rec []byte, begin int) (uint64, error) {
	if c.SampleConfig == nil || len(rec)-8 < begin {
		return c.SampleType, nil
	}
	id := binary.LittleEndian.Uint64(rec[len(rec)-8:])
	for _, st := range c.SampleConfig {
		if st.ID != id {
			continue
		}
		if st.Type&SampleIdentifier == 0 {
			return 0, ErrBadConfig
		}
		return st.Type, nil
	}
	return c.SampleType, nil
}

// ReadRecord decodes the record at buf[off:] (libipt's pev_read) into *r and
// returns its size. Records of types pevent does not know are returned with
// only Type, Misc and Size. Errors: ErrEOS at the end of buf (or a record
// running past it, or a zero type), ErrNoSync for inconsistent sizes,
// ErrBadPacket for an unterminated string, ErrBadConfig for a bad config.
func (c *PeventConfig) ReadRecord(r *Record, buf []byte, off int) (int, error) {
	if off < 0 || len(buf)-off < headerSize {
		return 0, ErrEOS
	}
	b := buf[off:]
	typ := binary.LittleEndian.Uint32(b)
	misc := binary.LittleEndian.Uint16(b[4:])
	size := int(binary.LittleEndian.Uint16(b[6:]))
	if size < headerSize {
		return 0, ErrNoSync
	}
	if typ == 0 || size > len(b) {
		return 0, ErrEOS
	}
	b = b[:size]
	*r = Record{Type: typ, Misc: misc, Size: uint16(size)}
	cur := cursor{b: b, pos: headerSize}
	var err error
	switch typ {
	default:
		return size, nil
	case RecordMmap:
		r.PID, r.TID, r.Addr, r.Len, r.PgOff = cur.u32(), cur.u32(), cur.u64(), cur.u64(), cur.u64()
		r.Filename, err = cur.str(headerSize + mmapFixedSize)
	case RecordLost:
		r.ID, r.Lost = cur.u64(), cur.u64()
	case RecordComm:
		r.PID, r.TID = cur.u32(), cur.u32()
		r.Filename, err = cur.str(headerSize + 8)
	case RecordExit, RecordFork:
		r.PID, r.PPID, r.TID, r.PTID, r.Time = cur.u32(), cur.u32(), cur.u32(), cur.u32(), cur.u64()
	case RecordThrottle, RecordUnthrottle:
		r.Time, r.ID, r.StreamID = cur.u64(), cur.u64(), cur.u64()
	case RecordMmap2:
		r.PID, r.TID, r.Addr, r.Len, r.PgOff = cur.u32(), cur.u32(), cur.u64(), cur.u64(), cur.u64()
		r.Maj, r.Min, r.Ino, r.InoGen = cur.u32(), cur.u32(), cur.u64(), cur.u64()
		r.Prot, r.MapFlags = cur.u32(), cur.u32()
		r.Filename, err = cur.str(headerSize + mmap2FixedSize)
	case RecordAux:
		r.AuxOffset, r.AuxSize, r.AuxFlags = cur.u64(), cur.u64(), cur.u64()
	case RecordItraceStart:
		r.PID, r.TID = cur.u32(), cur.u32()
	case RecordLostSamples:
		r.Lost = cur.u64()
	case RecordSwitch:
	case RecordSwitchCPUWide:
		r.PID, r.TID = cur.u32(), cur.u32()
	}
	if err != nil {
		return 0, err
	}
	if err := c.readSamples(r, &cur); err != nil {
		return 0, err
	}
	if cur.pos != size {
		return 0, ErrNoSync
	}
	return size, nil
}

// readSamples reads the sample_id_all fields at the cursor.
func (c *PeventConfig) readSamples(r *Record, cur *cursor) error {
	st, err := c.sampleType(cur.b, cur.pos)
	if err != nil {
		return err
	}
	s := &r.Sample
	if st&SampleTID != 0 {
		s.Has |= HasTID
		s.PID, s.TID = cur.u32(), cur.u32()
	}
	if st&SampleTime != 0 {
		s.Has |= HasTime
		if cur.pos+8 > len(cur.b) {
			return ErrNoSync
		}
		s.Time = cur.u64()
		if s.TSC, err = c.TimeToTSC(s.Time); err != nil {
			return err
		}
	}
	if st&SampleID != 0 {
		s.Has |= HasID
		s.ID = cur.u64()
	}
	if st&SampleStreamID != 0 {
		s.Has |= HasStreamID
		s.StreamID = cur.u64()
	}
	if st&SampleCPU != 0 {
		s.Has |= HasCPU
		s.CPU = cur.u32()
		cur.pos += 4 // reserved
	}
	if st&SampleIdentifier != 0 {
		s.Has |= HasIdentifier
		s.Identifier = cur.u64()
	}
	return nil
}
