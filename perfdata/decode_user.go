package perfdata

import "math"

// Caps on counts taken from user records before allocating.
const (
	maxAuxtracePriv = 1 << 12
	maxMapEntries   = 1 << 20
)

func (d *decoder) decodeUser(raw *RawRecord) (Record, error) {
	switch raw.Type {
	case RecordTypeHeaderAttr:
		r := get[RecordHeaderAttr](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		attr, ids, err := decodeHeaderAttr(&c)
		r.Attr, r.IDs = attr, ids
		return r, err
	case RecordTypeHeaderEventType:
		r := get[RecordEventType](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		r.EventID = c.u64()
		r.Name = c.cstr(min(64, uint64(c.left())))
		return r, c.err
	case RecordTypeHeaderTracing:
		r := get[RecordTracingData](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		r.DataSize = c.u32()
		r.Data = raw.AuxData
		if uint64(r.DataSize) <= uint64(len(r.Data)) {
			r.Data = r.Data[:r.DataSize] // without the padding to 8 bytes
		}
		return r, c.err
	case RecordTypeHeaderBuildID:
		r := get[RecordBuildID](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		r.PID = c.i32()
		id := c.bytes(24)
		r.BuildID = nil
		if id != nil {
			n := 20
			if raw.Misc&(1<<15) != 0 && int(id[20]) <= 20 {
				n = int(id[20])
			}
			r.BuildID = d.bytes(id[:n])
		}
		r.Filename = c.cstr(uint64(c.left()))
		return r, c.err
	case RecordTypeFinishedRound:
		r := get[RecordFinishedRound](d, raw.Type)
		_, err := d.common(raw, &r.RecordCommon)
		return r, err
	case RecordTypeFinishedInit:
		r := get[RecordFinishedInit](d, raw.Type)
		_, err := d.common(raw, &r.RecordCommon)
		return r, err
	case RecordTypeIDIndex:
		r := get[RecordIDIndex](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		n := c.u64()
		if n > uint64(c.left()/32) {
			c.fail(32)
			return r, c.err
		}
		r.Entries = r.Entries[:0]
		if !d.reuse {
			r.Entries = make([]IDIndexEntry, 0, n)
		}
		for i := uint64(0); i < n; i++ {
			r.Entries = append(r.Entries, IDIndexEntry{ID: c.u64(), Idx: c.u64(), CPU: c.u64(), TID: c.u64(), MachinePID: 0, VCPU: 0})
		}
		// Linux 6.0+ appends machine_pid/vcpu for each entry.
		if uint64(c.left()) >= n*16 && n > 0 {
			r.HasMachine = true
			for i := range r.Entries {
				r.Entries[i].MachinePID, r.Entries[i].VCPU = c.u64(), c.u64()
			}
		} else {
			r.HasMachine = false
		}
		return r, c.err
	case RecordTypeAuxtraceInfo:
		r := get[RecordAuxtraceInfo](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		r.AuxType, r.Reserved = c.u32(), c.u32()
		n := uint64(c.left() / 8)
		if n > maxAuxtracePriv {
			n = maxAuxtracePriv
		}
		if d.reuse {
			r.Priv = c.u64s(r.Priv, n)
		} else {
			r.Priv = c.u64s(nil, n)
		}
		return r, c.err
	case RecordTypeAuxtrace:
		r := get[RecordAuxtrace](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		r.AuxSize, r.AuxOffset, r.Reference = c.u64(), c.u64(), c.u64()
		r.Idx, r.TID, r.CPU, r.Reserved = c.u32(), c.i32(), c.i32(), c.u32()
		r.DataOffset = raw.Offset + int64(raw.Size)
		r.Data = raw.AuxData
		if raw.Compressed {
			r.DataOffset = -1
		}
		return r, c.err
	case RecordTypeAuxtraceError:
		r := get[RecordAuxtraceError](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		r.ErrType, r.Code = c.u32(), c.u32()
		r.ErrCPU, r.ErrPID, r.ErrTID = c.i32(), c.i32(), c.i32()
		r.Fmt = c.u32()
		r.IP, r.ErrTime = c.u64(), c.u64()
		r.Msg = c.cstr(64)
		r.MachinePID, r.VCPU = 0, 0
		if r.Fmt >= 2 && c.left() >= 8 {
			r.MachinePID, r.VCPU = c.i32(), c.i32()
		}
		return r, c.err
	case RecordTypeThreadMap:
		r := get[RecordThreadMap](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		n := c.u64()
		if n > uint64(c.left()/24) {
			c.fail(24)
			return r, c.err
		}
		r.Entries = r.Entries[:0]
		if !d.reuse {
			r.Entries = make([]ThreadMapEntry, 0, n)
		}
		for i := uint64(0); i < n; i++ {
			r.Entries = append(r.Entries, ThreadMapEntry{PID: c.u64(), Comm: c.cstr(16)})
		}
		return r, c.err
	case RecordTypeCPUMap:
		r := get[RecordCPUMap](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		r.CPUs = decodeCPUMap(&c, r.CPUs[:0])
		return r, c.err
	case RecordTypeStatConfig:
		r := get[RecordStatConfig](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		n := c.u64()
		if n > uint64(c.left()/16) {
			c.fail(16)
			return r, c.err
		}
		r.Entries = r.Entries[:0]
		for i := uint64(0); i < n; i++ {
			r.Entries = append(r.Entries, StatConfigEntry{c.u64(), c.u64()})
		}
		return r, c.err
	case RecordTypeStat:
		r := get[RecordStat](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		r.StatID, r.StatCPU, r.Thread = c.u64(), c.u32(), c.u32()
		r.Val, r.Ena, r.Run = c.u64(), c.u64(), c.u64()
		return r, c.err
	case RecordTypeStatRound:
		r := get[RecordStatRound](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		r.RoundType, r.RoundTime = c.u64(), c.u64()
		return r, c.err
	case RecordTypeEventUpdate:
		r := get[RecordEventUpdate](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		r.UpdateType, r.UpdateID = c.u64(), c.u64()
		r.Data = d.bytes(c.bytes(uint64(c.left())))
		r.Name, r.Unit, r.Scale, r.CPUs = "", "", 0, nil
		switch r.UpdateType {
		case EventUpdateName:
			r.Name = cstring(r.Data)
		case EventUpdateUnit:
			r.Unit = cstring(r.Data)
		case EventUpdateScale:
			if len(r.Data) >= 8 {
				r.Scale = math.Float64frombits(le64(r.Data))
			}
		case EventUpdateCPUs:
			cc := cursor{b: r.Data, base: raw.Offset + 24, what: "EVENT_UPDATE cpus"}
			r.CPUs = decodeCPUMap(&cc, nil)
			if cc.err != nil {
				return r, cc.err
			}
		}
		return r, c.err
	case RecordTypeTimeConv:
		r := get[RecordTimeConv](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		r.TimeShift, r.TimeMult, r.TimeZero = c.u64(), c.u64(), c.u64()
		r.Extended = c.left() >= 24
		r.TimeCycles, r.TimeMask, r.CapUserTimeZero, r.CapUserTimeShort = 0, 0, false, false
		if r.Extended {
			r.TimeCycles, r.TimeMask = c.u64(), c.u64()
			r.CapUserTimeZero = c.u8() != 0
			r.CapUserTimeShort = c.u8() != 0
		}
		return r, c.err
	case RecordTypeHeaderFeature:
		r := get[RecordHeaderFeature](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		r.Feature = Feature(c.u64())
		r.Data = d.bytes(c.bytes(uint64(c.left())))
		return r, c.err
	case RecordTypeCompressed, RecordTypeCompressed2:
		r := get[RecordCompressed](d, raw.Type)
		c, _ := d.common(raw, &r.RecordCommon)
		if raw.Type == RecordTypeCompressed2 {
			n := c.u64()
			r.Data = d.bytes(c.bytes(min(n, uint64(c.left()))))
		} else {
			r.Data = d.bytes(c.bytes(uint64(c.left())))
		}
		return r, c.err
	}
	r := get[RecordUnknown](d, raw.Type)
	c, _ := d.common(raw, &r.RecordCommon)
	r.Data = d.bytes(c.bytes(uint64(c.left())))
	return r, c.err
}

// EVENT_UPDATE kinds.
const (
	EventUpdateUnit  = 0
	EventUpdateScale = 1
	EventUpdateName  = 2
	EventUpdateCPUs  = 3
)

// decodeHeaderAttr decodes a HEADER_ATTR body: the attr then its ids.
func decodeHeaderAttr(c *cursor) (EventAttr, []uint64, error) {
	start := c.off
	if c.left() < attrSize0 {
		c.fail(attrSize0)
		return EventAttr{}, nil, c.err
	}
	sz := int(le32(c.b[c.off+4:]))
	if sz == 0 {
		sz = attrSize0
	}
	if sz < attrSize0 || sz > c.left() {
		return EventAttr{}, nil, errAt(c.base+int64(start)+4, "HEADER_ATTR perf_event_attr.size", ErrBadSize)
	}
	a := decodeAttr(c.bytes(uint64(sz)))
	ids := c.u64s(nil, uint64(c.left()/8))
	return a, ids, c.err
}

func le32(b []byte) uint32 {
	_ = b[3]
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// decodeCPUMap decodes perf_record_cpu_map_data into a CPU list.
func decodeCPUMap(c *cursor, dst []int) []int {
	typ := c.u16()
	switch typ {
	case 0: // PERF_CPU_MAP__CPUS
		n := c.u16()
		if int(n) > c.left()/2 {
			c.fail(2)
			return dst
		}
		for i := 0; i < int(n); i++ {
			cpu := c.u16()
			if cpu == 0xffff {
				dst = append(dst, -1)
			} else {
				dst = append(dst, int(cpu))
			}
		}
	case 1: // PERF_CPU_MAP__MASK
		n, longSize := c.u16(), c.u16()
		switch longSize {
		case 4:
			if int(n) > c.left()/4 {
				c.fail(4)
				return dst
			}
			for i := 0; i < int(n); i++ {
				w := c.u32()
				for b := 0; b < 32; b++ {
					if w&(1<<b) != 0 {
						dst = append(dst, i*32+b)
					}
				}
			}
		case 8:
			c.skip(4)
			if int(n) > c.left()/8 {
				c.fail(8)
				return dst
			}
			for i := 0; i < int(n); i++ {
				w := c.u64()
				for b := 0; b < 64; b++ {
					if w&(1<<b) != 0 {
						dst = append(dst, i*64+b)
					}
				}
			}
		default:
			if c.err == nil {
				c.err = errAt(c.base+int64(c.off)-2, "cpu map long_size", ErrBadValue)
			}
		}
	case 2: // PERF_CPU_MAP__RANGE_CPUS
		anyCPU := c.u8()
		c.skip(1)
		start, end := c.u16(), c.u16()
		if anyCPU != 0 {
			dst = append(dst, -1)
		}
		if end >= start && int(end-start) < maxMapEntries {
			for i := int(start); i <= int(end); i++ {
				dst = append(dst, i)
			}
		}
	default:
		if c.err == nil {
			c.err = errAt(c.base+int64(c.off)-2, "cpu map type", ErrBadValue)
		}
	}
	return dst
}
