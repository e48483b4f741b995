package perfdata

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
)

// enc appends little-endian values to a byte slice.
type enc struct{ b []byte }

func (e *enc) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) u16(v uint16) { e.b = binary.LittleEndian.AppendUint16(e.b, v) }
func (e *enc) i32(v int32)  { e.u32(uint32(v)) }
func (e *enc) raw(b []byte) { e.b = append(e.b, b...) }
func (e *enc) zeros(n int) {
	for i := 0; i < n; i++ {
		e.b = append(e.b, 0)
	}
}

// str appends s, its NUL and zero padding to a multiple of 8 bytes (the
// kernel's layout of names in MMAP, COMM, ... records).
func (e *enc) str8(s string) {
	e.b = append(e.b, s...)
	e.zeros((len(s)+8)&^7 - len(s))
}

// fixed appends s NUL-padded to exactly n bytes (truncating).
func (e *enc) fixed(s string, n int) {
	if len(s) >= n {
		s = s[:n-1]
	}
	e.b = append(e.b, s...)
	e.zeros(n - len(s))
}

func (e *enc) sampleID(a *Attr, id *SampleID) {
	if a == nil || !a.SampleIDAll() {
		return
	}
	st := a.SampleType
	if st&SampleFormatTID != 0 {
		e.i32(id.PID)
		e.i32(id.TID)
	}
	if st&SampleFormatTime != 0 {
		e.u64(id.Time)
	}
	if st&SampleFormatID != 0 {
		e.u64(id.ID)
	}
	if st&SampleFormatStreamID != 0 {
		e.u64(id.StreamID)
	}
	if st&SampleFormatCPU != 0 {
		e.u32(id.CPU)
		e.u32(id.Res)
	}
	if st&SampleFormatIdentifier != 0 {
		e.u64(id.ID)
	}
}

// regs writes a register dump (REGS_USER or REGS_INTR): the ABI, then, when
// the ABI is not none, one value per bit set in the attr's register mask.
func (e *enc) regs(abi uint64, regs []uint64, mask uint64, what string) error {
	e.u64(abi)
	if abi == 0 {
		return nil
	}
	if len(regs) != bits.OnesCount64(mask) {
		return fmt.Errorf("perfdata: sample has %d %s regs, attr asks for %d", len(regs), what, bits.OnesCount64(mask))
	}
	for _, r := range regs {
		e.u64(r)
	}
	return nil
}

func (e *enc) readValues(rf ReadFormat, v *ReadValues) {
	one := func(r ReadValue) {
		e.u64(r.Value)
		if rf&ReadFormatID != 0 {
			e.u64(r.ID)
		}
		if rf&ReadFormatLost != 0 {
			e.u64(r.Lost)
		}
	}
	if rf&ReadFormatGroup != 0 {
		e.u64(uint64(len(v.Values)))
		if rf&ReadFormatTotalTimeEnabled != 0 {
			e.u64(v.TimeEnabled)
		}
		if rf&ReadFormatTotalTimeRunning != 0 {
			e.u64(v.TimeRunning)
		}
		for _, r := range v.Values {
			one(r)
		}
		return
	}
	var r ReadValue
	if len(v.Values) > 0 {
		r = v.Values[0]
	}
	e.u64(r.Value)
	if rf&ReadFormatTotalTimeEnabled != 0 {
		e.u64(v.TimeEnabled)
	}
	if rf&ReadFormatTotalTimeRunning != 0 {
		e.u64(v.TimeRunning)
	}
	if rf&ReadFormatID != 0 {
		e.u64(r.ID)
	}
	if rf&ReadFormatLost != 0 {
		e.u64(r.Lost)
	}
}

func (e *enc) sample(a *Attr, s *RecordSample) error {
	if a == nil {
		return fmt.Errorf("perfdata: writing a sample needs an attr")
	}
	st := a.SampleType
	if st&SampleFormatIdentifier != 0 {
		e.u64(s.ID)
	}
	if st&SampleFormatIP != 0 {
		e.u64(s.IP)
	}
	if st&SampleFormatTID != 0 {
		e.i32(s.PID)
		e.i32(s.TID)
	}
	if st&SampleFormatTime != 0 {
		e.u64(s.Time)
	}
	if st&SampleFormatAddr != 0 {
		e.u64(s.Addr)
	}
	if st&SampleFormatID != 0 {
		e.u64(s.ID)
	}
	if st&SampleFormatStreamID != 0 {
		e.u64(s.StreamID)
	}
	if st&SampleFormatCPU != 0 {
		e.u32(s.CPU)
		e.u32(s.Res)
	}
	if st&SampleFormatPeriod != 0 {
		e.u64(s.Period)
	}
	if st&SampleFormatRead != 0 {
		e.readValues(a.ReadFormat, &s.Read)
	}
	if st&SampleFormatCallchain != 0 {
		e.u64(uint64(len(s.Callchain)))
		for _, ip := range s.Callchain {
			e.u64(ip)
		}
	}
	if st&SampleFormatRaw != 0 {
		e.u32(uint32(len(s.Raw)))
		e.raw(s.Raw)
		if pad := (4 + len(s.Raw)) % 8; pad != 0 {
			e.zeros(8 - pad)
		}
	}
	if st&SampleFormatBranchStack != 0 {
		e.u64(uint64(len(s.BranchStack)))
		if a.BranchSampleType&BranchSampleHwIndex != 0 {
			e.u64(uint64(s.BranchHwIdx))
		}
		for _, b := range s.BranchStack {
			e.u64(b.From)
			e.u64(b.To)
			e.u64(b.Flags)
		}
	}
	if st&SampleFormatRegsUser != 0 {
		if err := e.regs(s.RegsUserABI, s.RegsUser, a.SampleRegsUser, "user"); err != nil {
			return err
		}
	}
	if st&SampleFormatStackUser != 0 {
		e.u64(uint64(len(s.StackUser)))
		if len(s.StackUser) > 0 {
			e.raw(s.StackUser)
			e.u64(s.StackUserDynSize)
		}
	}
	if st&(SampleFormatWeight|SampleFormatWeightStruct) != 0 {
		e.u64(s.Weight)
	}
	if st&SampleFormatDataSrc != 0 {
		e.u64(s.DataSrc)
	}
	if st&SampleFormatTransaction != 0 {
		e.u64(s.Transaction)
	}
	if st&SampleFormatRegsIntr != 0 {
		if err := e.regs(s.RegsIntrABI, s.RegsIntr, a.SampleRegsIntr, "intr"); err != nil {
			return err
		}
	}
	if st&SampleFormatPhysAddr != 0 {
		e.u64(s.PhysAddr)
	}
	if st&SampleFormatCgroup != 0 {
		e.u64(s.Cgroup)
	}
	if st&SampleFormatDataPageSize != 0 {
		e.u64(s.DataPageSize)
	}
	if st&SampleFormatCodePageSize != 0 {
		e.u64(s.CodePageSize)
	}
	if st&SampleFormatAux != 0 {
		e.u64(uint64(len(s.Aux)))
		e.raw(s.Aux)
	}
	return nil
}

func (e *enc) cpuMap(cpus []int) {
	// PERF_CPU_MAP__CPUS: u16 type, u16 nr, u16 cpu[].
	e.u16(0)
	e.u16(uint16(len(cpus)))
	for _, c := range cpus {
		e.u16(uint16(c))
	}
}

// AppendRecord appends the encoding of r (header included, size fixed up)
// to b, using attr a for the sample layout and sample_id trailer. The
// AUXTRACE data and tracing data payloads are not included (see
// Writer.WriteRecord).
func AppendRecord(b []byte, r Record, a *Attr) ([]byte, error) {
	start := len(b)
	e := enc{b: b}
	c := r.Common()
	typ, misc := recordTypeOf(r), c.Misc
	if typ == RecordTypeHeaderBuildID {
		misc |= 1 << 15 // PERF_RECORD_MISC_BUILD_ID_SIZE: the size byte is valid
	}
	e.u32(uint32(typ))
	e.u16(misc)
	e.u16(0) // size, fixed below
	trailer := true
	switch r := r.(type) {
	case *RecordSample:
		trailer = false
		if err := e.sample(a, r); err != nil {
			return b, err
		}
	case *RecordMmap:
		e.i32(r.PID)
		e.i32(r.TID)
		e.u64(r.Addr)
		e.u64(r.Len)
		e.u64(r.PgOff)
		e.str8(r.Filename)
	case *RecordMmap2:
		e.i32(r.PID)
		e.i32(r.TID)
		e.u64(r.Addr)
		e.u64(r.Len)
		e.u64(r.PgOff)
		if misc&MiscMmapBuildID != 0 {
			id := r.BuildID
			if len(id) > 20 {
				id = id[:20]
			}
			e.b = append(e.b, byte(len(id)), 0, 0, 0)
			e.raw(id)
			e.zeros(20 - len(id))
		} else {
			e.u32(r.Maj)
			e.u32(r.Min)
			e.u64(r.Ino)
			e.u64(r.InoGeneration)
		}
		e.u32(r.Prot)
		e.u32(r.Flags)
		e.str8(r.Filename)
	case *RecordComm:
		e.i32(r.PID)
		e.i32(r.TID)
		e.str8(r.Comm)
	case *RecordExit:
		e.i32(r.PID)
		e.i32(r.PPID)
		e.i32(r.TID)
		e.i32(r.PTID)
		e.u64(r.ExitTime)
	case *RecordFork:
		e.i32(r.PID)
		e.i32(r.PPID)
		e.i32(r.TID)
		e.i32(r.PTID)
		e.u64(r.ForkTime)
	case *RecordLost:
		e.u64(r.LostID)
		e.u64(r.Lost)
	case *RecordThrottle:
		e.u64(r.ThrottleTime)
		e.u64(r.ThrottleID)
		e.u64(r.ThrottleStreamID)
	case *RecordRead:
		e.i32(r.PID)
		e.i32(r.TID)
		var rf ReadFormat
		if a != nil {
			rf = a.ReadFormat
		}
		e.readValues(rf, &r.Values)
	case *RecordAux:
		e.u64(r.AuxOffset)
		e.u64(r.AuxSize)
		e.u64(r.Flags)
	case *RecordItraceStart:
		e.i32(r.PID)
		e.i32(r.TID)
	case *RecordLostSamples:
		e.u64(r.Lost)
	case *RecordSwitch:
		if r.CPUWide {
			e.i32(r.NextPrevPID)
			e.i32(r.NextPrevTID)
		}
	case *RecordNamespaces:
		e.i32(r.PID)
		e.i32(r.TID)
		e.u64(uint64(len(r.Namespaces)))
		for _, n := range r.Namespaces {
			e.u64(n.Dev)
			e.u64(n.Ino)
		}
	case *RecordKsymbol:
		e.u64(r.Addr)
		e.u32(r.Len)
		e.u16(r.KsymType)
		e.u16(r.KsymFlags)
		e.str8(r.Name)
	case *RecordBPFEvent:
		e.u16(r.BPFType)
		e.u16(r.BPFFlags)
		e.u32(r.BPFID)
		e.raw(r.Tag[:])
	case *RecordCgroup:
		e.u64(r.CgroupID)
		e.str8(r.Path)
	case *RecordTextPoke:
		e.u64(r.Addr)
		e.u16(uint16(len(r.Old)))
		e.u16(uint16(len(r.New)))
		e.raw(r.Old)
		e.raw(r.New)
		if n := (len(e.b) - start) % 8; n != 0 {
			e.zeros(8 - n)
		}
	case *RecordAuxOutputHwID:
		e.u64(r.HwID)
	default:
		trailer = false
		if err := e.user(r); err != nil {
			return b, err
		}
	}
	if trailer {
		e.sampleID(a, &c.SampleID)
	}
	size := len(e.b) - start
	if size > math.MaxUint16 {
		return b, fmt.Errorf("perfdata: %v record of %d bytes is too big (max 65535)", typ, size)
	}
	binary.LittleEndian.PutUint16(e.b[start+6:], uint16(size))
	return e.b, nil
}

func (e *enc) user(r Record) error {
	switch r := r.(type) {
	case *RecordHeaderAttr:
		e.b = appendAttr(e.b, &r.Attr)
		for _, id := range r.IDs {
			e.u64(id)
		}
	case *RecordEventType:
		e.u64(r.EventID)
		e.fixed(r.Name, 64)
	case *RecordTracingData:
		e.u32(uint32(len(r.Data)))
		e.zeros(4)
	case *RecordBuildID:
		e.i32(r.PID)
		id := r.BuildID
		if len(id) > 20 {
			id = id[:20]
		}
		e.raw(id)
		e.zeros(20 - len(id))
		e.b = append(e.b, byte(len(id)), 0, 0, 0)
		e.str64(r.Filename)
	case *RecordFinishedRound, *RecordFinishedInit:
	case *RecordIDIndex:
		e.u64(uint64(len(r.Entries)))
		for _, x := range r.Entries {
			e.u64(x.ID)
			e.u64(x.Idx)
			e.u64(x.CPU)
			e.u64(x.TID)
		}
		if r.HasMachine {
			for _, x := range r.Entries {
				e.u64(x.MachinePID)
				e.u64(x.VCPU)
			}
		}
	case *RecordAuxtraceInfo:
		e.u32(r.AuxType)
		e.u32(r.Reserved)
		for _, p := range r.Priv {
			e.u64(p)
		}
	case *RecordAuxtrace:
		e.u64(uint64(auxPadded(len(r.Data))))
		e.u64(r.AuxOffset)
		e.u64(r.Reference)
		e.u32(r.Idx)
		e.i32(r.TID)
		e.i32(r.CPU)
		e.u32(r.Reserved)
	case *RecordAuxtraceError:
		e.u32(r.ErrType)
		e.u32(r.Code)
		e.i32(r.ErrCPU)
		e.i32(r.ErrPID)
		e.i32(r.ErrTID)
		e.u32(r.Fmt)
		e.u64(r.IP)
		e.u64(r.ErrTime)
		e.fixed(r.Msg, 64)
		if r.Fmt >= 2 {
			e.i32(r.MachinePID)
			e.i32(r.VCPU)
		}
	case *RecordThreadMap:
		e.u64(uint64(len(r.Entries)))
		for _, t := range r.Entries {
			e.u64(t.PID)
			e.fixed(t.Comm, 16)
		}
	case *RecordCPUMap:
		e.cpuMap(r.CPUs)
		e.pad8()
	case *RecordStatConfig:
		e.u64(uint64(len(r.Entries)))
		for _, x := range r.Entries {
			e.u64(x.Tag)
			e.u64(x.Val)
		}
	case *RecordStat:
		e.u64(r.StatID)
		e.u32(r.StatCPU)
		e.u32(r.Thread)
		e.u64(r.Val)
		e.u64(r.Ena)
		e.u64(r.Run)
	case *RecordStatRound:
		e.u64(r.RoundType)
		e.u64(r.RoundTime)
	case *RecordEventUpdate:
		e.u64(r.UpdateType)
		e.u64(r.UpdateID)
		switch {
		case r.Data != nil:
			e.raw(r.Data)
		case r.UpdateType == EventUpdateName:
			e.str8(r.Name)
		case r.UpdateType == EventUpdateUnit:
			e.str8(r.Unit)
		case r.UpdateType == EventUpdateScale:
			e.u64(math.Float64bits(r.Scale))
		case r.UpdateType == EventUpdateCPUs:
			e.cpuMap(r.CPUs)
			e.pad8()
		}
	case *RecordTimeConv:
		e.u64(r.TimeShift)
		e.u64(r.TimeMult)
		e.u64(r.TimeZero)
		if r.Extended {
			e.u64(r.TimeCycles)
			e.u64(r.TimeMask)
			e.b = append(e.b, b2u8(r.CapUserTimeZero), b2u8(r.CapUserTimeShort), 0, 0, 0, 0, 0, 0)
		}
	case *RecordHeaderFeature:
		e.u64(uint64(r.Feature))
		e.raw(r.Data)
	case *RecordCompressed:
		e.raw(r.Data)
	case *RecordUnknown:
		e.raw(r.Data)
	case *RecordCommon:
		return fmt.Errorf("perfdata: cannot write a bare RecordCommon")
	default:
		return fmt.Errorf("perfdata: cannot write record of type %T", r)
	}
	return nil
}

func (e *enc) pad8() {
	if n := len(e.b) % 8; n != 0 {
		e.zeros(8 - n)
	}
}

// str64 appends s and its NUL padded to a multiple of 64 bytes (perf's
// NAME_ALIGN for build id file names).
func (e *enc) str64(s string) {
	n := (len(s) + 1 + 63) &^ 63
	e.b = append(e.b, s...)
	e.zeros(n - len(s))
}

func b2u8(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// recordTypeOf returns the type to write for r: its Go type decides, except
// for the types that share a struct.
func recordTypeOf(r Record) RecordType {
	c := r.Common()
	switch r := r.(type) {
	case *RecordSample:
		return RecordTypeSample
	case *RecordMmap:
		return RecordTypeMmap
	case *RecordMmap2:
		return RecordTypeMmap2
	case *RecordComm:
		return RecordTypeComm
	case *RecordExit:
		return RecordTypeExit
	case *RecordFork:
		return RecordTypeFork
	case *RecordLost:
		return RecordTypeLost
	case *RecordThrottle:
		if c.Type == RecordTypeUnthrottle {
			return RecordTypeUnthrottle
		}
		return RecordTypeThrottle
	case *RecordRead:
		return RecordTypeRead
	case *RecordAux:
		return RecordTypeAux
	case *RecordItraceStart:
		return RecordTypeItraceStart
	case *RecordLostSamples:
		return RecordTypeLostSamples
	case *RecordSwitch:
		if r.CPUWide {
			return RecordTypeSwitchCPUWide
		}
		return RecordTypeSwitch
	case *RecordNamespaces:
		return RecordTypeNamespaces
	case *RecordKsymbol:
		return RecordTypeKsymbol
	case *RecordBPFEvent:
		return RecordTypeBPFEvent
	case *RecordCgroup:
		return RecordTypeCgroup
	case *RecordTextPoke:
		return RecordTypeTextPoke
	case *RecordAuxOutputHwID:
		return RecordTypeAuxOutputHwID
	case *RecordHeaderAttr:
		return RecordTypeHeaderAttr
	case *RecordEventType:
		return RecordTypeHeaderEventType
	case *RecordTracingData:
		return RecordTypeHeaderTracing
	case *RecordBuildID:
		return RecordTypeHeaderBuildID
	case *RecordFinishedRound:
		return RecordTypeFinishedRound
	case *RecordFinishedInit:
		return RecordTypeFinishedInit
	case *RecordIDIndex:
		return RecordTypeIDIndex
	case *RecordAuxtraceInfo:
		return RecordTypeAuxtraceInfo
	case *RecordAuxtrace:
		return RecordTypeAuxtrace
	case *RecordAuxtraceError:
		return RecordTypeAuxtraceError
	case *RecordThreadMap:
		return RecordTypeThreadMap
	case *RecordCPUMap:
		return RecordTypeCPUMap
	case *RecordStatConfig:
		return RecordTypeStatConfig
	case *RecordStat:
		return RecordTypeStat
	case *RecordStatRound:
		return RecordTypeStatRound
	case *RecordEventUpdate:
		return RecordTypeEventUpdate
	case *RecordTimeConv:
		return RecordTypeTimeConv
	case *RecordHeaderFeature:
		return RecordTypeHeaderFeature
	case *RecordCompressed:
		if c.Type == RecordTypeCompressed2 {
			return RecordTypeCompressed2
		}
		return RecordTypeCompressed
	}
	return c.Type
}

// auxPadded is the AUXTRACE size perf writes for n bytes of trace: padded
// to 8 bytes (PERF_AUXTRACE_RECORD_ALIGNMENT) so records stay aligned.
func auxPadded(n int) int { return (n + 7) &^ 7 }
