package perfdata

import (
	"math/bits"
)

// decoder turns RawRecords into typed records.
type decoder struct {
	f *File
	// reuse decodes into one cached value per type.
	reuse bool
	// copyBytes copies byte slices out of raw.Data (when it does not
	// alias the file's memory) unless reuse is set.
	copyBytes bool
	cache     map[RecordType]Record
	// sampleBuf, when set, is the one RecordSample that samples are
	// decoded into (Records.ReuseSamples).
	sampleBuf *RecordSample
	// strs interns names (COMM, MMAP file names) so that the reuse path
	// does not allocate a string per record.
	strs map[string]string
	ids  attrCache
}

// maxInterned bounds the interned strings of one iterator.
const maxInterned = 1 << 12

// str returns b as a string, interned when reusing records.
func (d *decoder) str(b []byte) string {
	if !d.reuse {
		return string(b)
	}
	if s, ok := d.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.strs == nil {
		d.strs = make(map[string]string)
	}
	if len(d.strs) < maxInterned {
		d.strs[s] = s
	}
	return s
}

// Decode decodes a raw record into a newly allocated typed record. Byte
// slices of the result alias raw.Data (and raw.AuxData).
func (f *File) Decode(raw *RawRecord) (Record, error) {
	d := decoder{f: f}
	return d.decode(raw)
}

// DecodeInto decodes raw into r, which must be a pointer to the record
// type matching raw.Type (e.g. *RecordSample for PERF_RECORD_SAMPLE);
// slices already in r are reused. Byte slices alias raw.Data.
func (f *File) DecodeInto(raw *RawRecord, r Record) error {
	d := decoder{f: f, reuse: true, cache: map[RecordType]Record{raw.Type: r}}
	got, err := d.decode(raw)
	if err != nil {
		return err
	}
	if got != r {
		return errAt(raw.Offset, "DecodeInto: record type "+raw.Type.String()+" does not match the target", ErrBadValue)
	}
	return nil
}

// DecodeSample decodes a PERF_RECORD_SAMPLE raw record into s, reusing s's
// slices: no allocation once they are big enough.
func (f *File) DecodeSample(raw *RawRecord, s *RecordSample) error {
	if raw.Type != RecordTypeSample {
		return errAt(raw.Offset, "DecodeSample: not a sample ("+raw.Type.String()+")", ErrBadValue)
	}
	d := decoder{f: f}
	return d.sample(raw, s)
}

// ParseSampleID decodes only the sample_id fields of a raw kernel record
// (the leading fields of a SAMPLE, the trailer of the others) and finds
// its attr. User records have none (zero SampleID, nil attr).
func (f *File) ParseSampleID(raw *RawRecord) (SampleID, *Attr, error) {
	var c RecordCommon
	d := decoder{f: f}
	if raw.Type == RecordTypeSample {
		var s RecordSample
		err := d.sample(raw, &s)
		return s.SampleID, s.Attr, err
	}
	_, err := d.common(raw, &c)
	return c.SampleID, c.Attr, err
}

// attrCache remembers sample ids looked up in File.idToAttr and their
// attrs, for one reader, direct-mapped by the id's low bits: a
// recording's samples come from a few events on a few CPUs, an id each
// (the kernel numbers them in a row), and a map lookup per record cost
// more than a look at one entry.
type attrCache struct {
	ids   [attrCacheLen]uint64
	as    [attrCacheLen]*Attr
	attrs int // len(File.Attrs) when it was filled (a pipe adds attrs)
}

const attrCacheLen = 16

// attrByID is f.idToAttr[id] through c (which may be nil).
func (f *File) attrByID(id uint64, c *attrCache) *Attr {
	if c == nil {
		return f.idToAttr[id]
	}
	i := id % attrCacheLen
	if c.ids[i] == id && c.as[i] != nil && c.attrs == len(f.Attrs) {
		return c.as[i]
	}
	return f.attrByIDMiss(id, c)
}

// attrByIDMiss looks id up in f.idToAttr and caches it in c.
func (f *File) attrByIDMiss(id uint64, c *attrCache) *Attr {
	if c.attrs != len(f.Attrs) {
		*c = attrCache{attrs: len(f.Attrs)}
	}
	a := f.idToAttr[id]
	if a != nil {
		i := id % attrCacheLen
		c.ids[i], c.as[i] = id, a
	}
	return a
}

// attrForCached finds the attr of a kernel record (perf's
// evlist__event2evsel), with its id lookups through c (which may be nil).
func (f *File) attrForCached(raw *RawRecord, c *attrCache) *Attr {
	if raw.Type == RecordTypeSample {
		a, _ := f.sampleAttr(raw, c)
		return a
	}
	if len(f.Attrs) == 1 {
		return f.Attrs[0]
	}
	if len(f.Attrs) == 0 {
		return nil
	}
	b := raw.Data
	if f.isPos > 0 && f.Attrs[0].SampleIDAll() {
		o := len(b) - 8*f.isPos
		if o >= 8 {
			if a := f.attrByID(le64(b[o:]), c); a != nil {
				return a
			}
		}
	}
	return f.Attrs[0]
}

// sampleAttr is attrForCached of a SAMPLE; id is the sample id its attr
// was found by (0: not found by an id).
func (f *File) sampleAttr(raw *RawRecord, c *attrCache) (a *Attr, id uint64) {
	if len(f.Attrs) == 1 {
		return f.Attrs[0], 0
	}
	if len(f.Attrs) == 0 {
		return nil, 0
	}
	if f.idPos >= 0 {
		o := 8 + 8*f.idPos
		if b := raw.Data; o+8 <= len(b) {
			id = le64(b[o:])
			if a := f.attrByID(id, c); a != nil {
				return a, id
			}
		}
	}
	return f.Attrs[0], 0
}

// sampleIDSize is the size of a sample_id trailer for sample type st.
func sampleIDSize(st SampleFormat) int {
	n := bits.OnesCount64(uint64(st & (SampleFormatTID | SampleFormatTime | SampleFormatID | SampleFormatStreamID | SampleFormatCPU | SampleFormatIdentifier)))
	return 8 * n
}

// common fills c from raw's header and sample_id trailer and returns a
// cursor over the record's body (after the header, before the trailer).
func (d *decoder) common(raw *RawRecord, c *RecordCommon) (cursor, error) {
	*c = RecordCommon{Offset: raw.Offset, Type: raw.Type, Misc: raw.Misc, Size: raw.Size, Compressed: raw.Compressed, Source: raw.Source}
	cur := cursor{b: raw.Data, off: 8, base: raw.Offset, what: raw.Type.String()}
	if raw.Type.IsUser() || raw.Type == RecordTypeSample || raw.Type >= recordTypeKernelMax {
		// Unknown kernel types: their layout, trailer included, is unknown.
		return cur, nil
	}
	a := d.f.attrForCached(raw, &d.ids)
	c.Attr = a
	if a == nil || !a.SampleIDAll() {
		return cur, nil
	}
	n := sampleIDSize(a.SampleType)
	if len(raw.Data)-n < 8 {
		return cur, errAt(raw.Offset, raw.Type.String()+" sample_id trailer (record too small)", ErrBadSize)
	}
	tc := cursor{b: raw.Data[len(raw.Data)-n:], base: raw.Offset + int64(len(raw.Data)-n), what: "sample_id"}
	st := a.SampleType
	c.SampleID.Format = st & sampleIDFields
	if st&SampleFormatTID != 0 {
		c.PID, c.TID = tc.i32(), tc.i32()
	}
	if st&SampleFormatTime != 0 {
		c.Time = tc.u64()
	}
	if st&SampleFormatID != 0 {
		c.ID = tc.u64()
	}
	if st&SampleFormatStreamID != 0 {
		c.StreamID = tc.u64()
	}
	if st&SampleFormatCPU != 0 {
		c.CPU, c.Res = tc.u32(), tc.u32()
	}
	if st&SampleFormatIdentifier != 0 {
		c.ID = tc.u64()
	}
	cur.b = raw.Data[:len(raw.Data)-n]
	return cur, tc.err
}

func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// bytes returns b, copied when it must not alias the reader's buffer.
func (d *decoder) bytes(b []byte) []byte {
	if d.copyBytes && !d.reuse && b != nil {
		return append([]byte(nil), b...)
	}
	return b
}

// sampleBytes is bytes for a byte slice of sample s: not copied when s is
// the one RecordSample of Records.ReuseSamples, valid until the next
// Next as it is (the queue's slot, the read buffer or the unpacked
// COMPRESSED data it aliases are reused by a later Next at the earliest).
func (d *decoder) sampleBytes(s *RecordSample, b []byte) []byte {
	if s == d.sampleBuf {
		return b
	}
	return d.bytes(b)
}

// get returns the record value to decode into for type t.
func get[T any, P interface {
	*T
	Record
}](d *decoder, t RecordType) P {
	if d.reuse {
		if r, ok := d.cache[t].(P); ok {
			return r
		}
		p := P(new(T))
		if d.cache == nil {
			d.cache = make(map[RecordType]Record)
		}
		d.cache[t] = p
		return p
	}
	return P(new(T))
}

func (d *decoder) decode(raw *RawRecord) (Record, error) {
	switch raw.Type {
	case RecordTypeSample:
		if d.sampleBuf != nil {
			return d.sampleBuf, d.sample(raw, d.sampleBuf)
		}
		s := get[RecordSample](d, raw.Type)
		return s, d.sample(raw, s)
	case RecordTypeMmap:
		r := get[RecordMmap](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.PID, r.TID = c.i32(), c.i32()
		r.Addr, r.Len, r.PgOff = c.u64(), c.u64(), c.u64()
		r.Filename = d.str(c.cstrRecord(raw.Data))
		return r, firstErr(err, c.err)
	case RecordTypeMmap2:
		r := get[RecordMmap2](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.PID, r.TID = c.i32(), c.i32()
		r.Addr, r.Len, r.PgOff = c.u64(), c.u64(), c.u64()
		if raw.Misc&MiscMmapBuildID != 0 {
			n := c.u8()
			c.skip(3)
			id := c.bytes(20)
			if n > 20 {
				n = 20
			}
			if id != nil {
				r.BuildID = d.bytes(id[:n])
			}
			r.Maj, r.Min, r.Ino, r.InoGeneration = 0, 0, 0, 0
		} else {
			r.Maj, r.Min = c.u32(), c.u32()
			r.Ino, r.InoGeneration = c.u64(), c.u64()
			r.BuildID = nil
		}
		r.Prot, r.Flags = c.u32(), c.u32()
		r.Filename = d.str(c.cstrRecord(raw.Data))
		return r, firstErr(err, c.err)
	case RecordTypeComm:
		r := get[RecordComm](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.PID, r.TID = c.i32(), c.i32()
		r.Comm = d.str(c.cstrRecord(raw.Data))
		return r, firstErr(err, c.err)
	case RecordTypeExit:
		r := get[RecordExit](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.PID, r.PPID, r.TID, r.PTID = c.i32(), c.i32(), c.i32(), c.i32()
		r.ExitTime = c.u64()
		return r, firstErr(err, c.err)
	case RecordTypeFork:
		r := get[RecordFork](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.PID, r.PPID, r.TID, r.PTID = c.i32(), c.i32(), c.i32(), c.i32()
		r.ForkTime = c.u64()
		return r, firstErr(err, c.err)
	case RecordTypeLost:
		r := get[RecordLost](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.LostID, r.Lost = c.u64(), c.u64()
		return r, firstErr(err, c.err)
	case RecordTypeThrottle, RecordTypeUnthrottle:
		r := get[RecordThrottle](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.ThrottleTime, r.ThrottleID, r.ThrottleStreamID = c.u64(), c.u64(), c.u64()
		return r, firstErr(err, c.err)
	case RecordTypeRead:
		r := get[RecordRead](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.PID, r.TID = c.i32(), c.i32()
		var rf ReadFormat
		if r.Attr != nil {
			rf = r.Attr.ReadFormat
		}
		readValues(&c, rf, &r.Values)
		return r, firstErr(err, c.err)
	case RecordTypeAux:
		r := get[RecordAux](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.AuxOffset, r.AuxSize, r.Flags = c.u64(), c.u64(), c.u64()
		return r, firstErr(err, c.err)
	case RecordTypeItraceStart:
		r := get[RecordItraceStart](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.PID, r.TID = c.i32(), c.i32()
		return r, firstErr(err, c.err)
	case RecordTypeLostSamples:
		r := get[RecordLostSamples](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.Lost = c.u64()
		return r, firstErr(err, c.err)
	case RecordTypeSwitch, RecordTypeSwitchCPUWide:
		r := get[RecordSwitch](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.CPUWide = raw.Type == RecordTypeSwitchCPUWide
		r.NextPrevPID, r.NextPrevTID = 0, 0
		if r.CPUWide {
			r.NextPrevPID, r.NextPrevTID = c.i32(), c.i32()
		}
		return r, firstErr(err, c.err)
	case RecordTypeNamespaces:
		r := get[RecordNamespaces](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.PID, r.TID = c.i32(), c.i32()
		n := c.u64()
		if n > uint64(c.left()/16) {
			c.fail(16)
			n = 0
		}
		r.Namespaces = r.Namespaces[:0]
		if !d.reuse {
			r.Namespaces = make([]NamespaceLink, 0, n)
		}
		for i := uint64(0); i < n; i++ {
			r.Namespaces = append(r.Namespaces, NamespaceLink{c.u64(), c.u64()})
		}
		return r, firstErr(err, c.err)
	case RecordTypeKsymbol:
		r := get[RecordKsymbol](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.Addr, r.Len = c.u64(), c.u32()
		r.KsymType, r.KsymFlags = c.u16(), c.u16()
		r.Name = c.cstrAligned(raw.Data)
		return r, firstErr(err, c.err)
	case RecordTypeBPFEvent:
		r := get[RecordBPFEvent](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.BPFType, r.BPFFlags, r.BPFID = c.u16(), c.u16(), c.u32()
		copy(r.Tag[:], c.bytes(8))
		return r, firstErr(err, c.err)
	case RecordTypeCgroup:
		r := get[RecordCgroup](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.CgroupID = c.u64()
		r.Path = c.cstrAligned(raw.Data)
		return r, firstErr(err, c.err)
	case RecordTypeTextPoke:
		r := get[RecordTextPoke](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.Addr = c.u64()
		oldLen, newLen := c.u16(), c.u16()
		r.Old = d.bytes(c.bytes(uint64(oldLen)))
		r.New = d.bytes(c.bytes(uint64(newLen)))
		return r, firstErr(err, c.err)
	case RecordTypeAuxOutputHwID:
		r := get[RecordAuxOutputHwID](d, raw.Type)
		c, err := d.common(raw, &r.RecordCommon)
		r.HwID = c.u64()
		return r, firstErr(err, c.err)
	}
	return d.decodeUser(raw)
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// readValues decodes a read_format block (perf's perf_evsel__read_... ).
func readValues(c *cursor, rf ReadFormat, v *ReadValues) {
	v.TimeEnabled, v.TimeRunning = 0, 0
	v.Values = v.Values[:0]
	one := func() ReadValue {
		var r ReadValue
		r.Value = c.u64()
		if rf&ReadFormatID != 0 {
			r.ID = c.u64()
		}
		if rf&ReadFormatLost != 0 {
			r.Lost = c.u64()
		}
		return r
	}
	if rf&ReadFormatGroup != 0 {
		nr := c.u64()
		if rf&ReadFormatTotalTimeEnabled != 0 {
			v.TimeEnabled = c.u64()
		}
		if rf&ReadFormatTotalTimeRunning != 0 {
			v.TimeRunning = c.u64()
		}
		per := uint64(8 * (1 + bits.OnesCount64(uint64(rf&(ReadFormatID|ReadFormatLost)))))
		if nr > uint64(c.left())/per {
			c.fail(int(per))
			return
		}
		for i := uint64(0); i < nr; i++ {
			v.Values = append(v.Values, one())
		}
		return
	}
	val := c.u64()
	if rf&ReadFormatTotalTimeEnabled != 0 {
		v.TimeEnabled = c.u64()
	}
	if rf&ReadFormatTotalTimeRunning != 0 {
		v.TimeRunning = c.u64()
	}
	r := ReadValue{Value: val}
	if rf&ReadFormatID != 0 {
		r.ID = c.u64()
	}
	if rf&ReadFormatLost != 0 {
		r.Lost = c.u64()
	}
	v.Values = append(v.Values, r)
}
