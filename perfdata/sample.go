package perfdata

import (
	"encoding/binary"
	"math/bits"
)

// maxBranchEntries caps a branch stack (the kernel allows 127 with LBR;
// perf's PERF_MAX_BRANCH_DEPTH).
const maxBranchEntries = 1 << 16

// sample decodes a PERF_RECORD_SAMPLE in perf's order
// (evsel__parse_sample), reusing s's slices.
func (d *decoder) sample(raw *RawRecord, s *RecordSample) error {
	a, aID := d.f.sampleAttr(raw, &d.ids)
	callchain, branches, regsU, regsI := s.Callchain[:0], s.BranchStack[:0], s.RegsUser[:0], s.RegsIntr[:0]
	readVals := s.Read.Values[:0]
	*s = RecordSample{}
	s.Offset, s.Type, s.Misc, s.Size, s.Compressed, s.Source, s.Attr = raw.Offset, raw.Type, raw.Misc, raw.Size, raw.Compressed, raw.Source, a
	s.BranchHwIdx = -1
	if a == nil {
		return errAt(raw.Offset, "PERF_RECORD_SAMPLE: no attr", ErrBadValue)
	}
	st := a.SampleType
	s.SampleID.Format = st & sampleIDFields
	if st&^flatSampleFields == 0 && d.flatSample(raw.Data, st, s) {
		return d.sampleAttrByID(s, aID)
	}
	// Set field by field: built as a literal, the cursor was made in a
	// temporary and copied, and the copy's wide loads of the narrow
	// stores just made stalled (store forwarding) at every sample.
	var c cursor
	c.b, c.off, c.base, c.what = raw.Data, 8, raw.Offset, "PERF_RECORD_SAMPLE"
	if st&SampleFormatIdentifier != 0 {
		s.ID = c.u64()
	}
	if st&SampleFormatIP != 0 {
		s.IP = c.u64()
	}
	if st&SampleFormatTID != 0 {
		s.PID, s.TID = c.i32(), c.i32()
	}
	if st&SampleFormatTime != 0 {
		s.Time = c.u64()
	}
	if st&SampleFormatAddr != 0 {
		s.Addr = c.u64()
	}
	if st&SampleFormatID != 0 {
		s.ID = c.u64()
	}
	if st&SampleFormatStreamID != 0 {
		s.StreamID = c.u64()
	}
	if st&SampleFormatCPU != 0 {
		s.CPU, s.Res = c.u32(), c.u32()
	}
	if st&SampleFormatPeriod != 0 {
		s.Period = c.u64()
	}
	if st&SampleFormatRead != 0 {
		s.Read.Values = readVals
		c.what = "PERF_RECORD_SAMPLE read values"
		readValues(&c, a.ReadFormat, &s.Read)
	}
	if st&SampleFormatCallchain != 0 {
		c.what = "PERF_RECORD_SAMPLE callchain"
		n := c.u64()
		s.Callchain = c.u64s(callchain, n)
	}
	if st&SampleFormatRaw != 0 {
		c.what = "PERF_RECORD_SAMPLE raw data"
		n := c.u32()
		s.Raw = d.sampleBytes(s, c.bytes(uint64(n)))
		// The u32 size and the data are padded together to 8 bytes.
		if pad := (4 + uint64(n)) % 8; pad != 0 {
			c.skip(8 - pad)
		}
	}
	if st&SampleFormatBranchStack != 0 {
		c.what = "PERF_RECORD_SAMPLE branch stack"
		n := c.u64()
		if a.BranchSampleType&BranchSampleHwIndex != 0 {
			s.BranchHwIdx = int64(c.u64())
		}
		if n > maxBranchEntries || n > uint64(c.left()/24) {
			c.fail(24)
			n = 0
		}
		if uint64(cap(branches)) < n {
			branches = make([]BranchEntry, 0, n)
		}
		for i := uint64(0); i < n; i++ {
			branches = append(branches, BranchEntry{From: c.u64(), To: c.u64(), Flags: c.u64()})
		}
		s.BranchStack = branches
	}
	if st&SampleFormatRegsUser != 0 {
		c.what = "PERF_RECORD_SAMPLE user regs"
		s.RegsUserABI = c.u64()
		if s.RegsUserABI != 0 {
			s.RegsUser = c.u64s(regsU, uint64(bits.OnesCount64(a.SampleRegsUser)))
		}
	}
	if st&SampleFormatStackUser != 0 {
		c.what = "PERF_RECORD_SAMPLE user stack"
		s.StackUserOffset = c.off
		n := c.u64()
		s.StackUser = d.sampleBytes(s, c.bytes(n))
		if n != 0 {
			s.StackUserDynSize = c.u64()
		}
	}
	if st&(SampleFormatWeight|SampleFormatWeightStruct) != 0 {
		c.what = "PERF_RECORD_SAMPLE weight"
		s.Weight = c.u64()
	}
	if st&SampleFormatDataSrc != 0 {
		s.DataSrc = c.u64()
	}
	if st&SampleFormatTransaction != 0 {
		s.Transaction = c.u64()
	}
	if st&SampleFormatRegsIntr != 0 {
		c.what = "PERF_RECORD_SAMPLE intr regs"
		s.RegsIntrABI = c.u64()
		if s.RegsIntrABI != 0 {
			s.RegsIntr = c.u64s(regsI, uint64(bits.OnesCount64(a.SampleRegsIntr)))
		}
	}
	if st&SampleFormatPhysAddr != 0 {
		s.PhysAddr = c.u64()
	}
	if st&SampleFormatCgroup != 0 {
		s.Cgroup = c.u64()
	}
	if st&SampleFormatDataPageSize != 0 {
		s.DataPageSize = c.u64()
	}
	if st&SampleFormatCodePageSize != 0 {
		s.CodePageSize = c.u64()
	}
	if st&SampleFormatAux != 0 {
		c.what = "PERF_RECORD_SAMPLE aux data"
		n := c.u64()
		s.Aux = d.sampleBytes(s, c.bytes(n))
	}
	if c.err != nil {
		return c.err
	}
	return d.sampleAttrByID(s, aID)
}

// sampleAttrByID sets the attr of a decoded sample to that of its own id
// (found already when the id at File.idPos, aID, is the same).
func (d *decoder) sampleAttrByID(s *RecordSample, aID uint64) error {
	if s.Attr != nil && len(d.f.Attrs) > 1 && s.ID != 0 && s.ID != aID {
		if a2 := d.f.attrByID(s.ID, &d.ids); a2 != nil {
			s.Attr = a2
		}
	}
	return nil
}

// flatSampleFields are the sample fields flatSample decodes: fixed
// 8-byte words and the raw data.
const flatSampleFields = SampleFormatIdentifier | SampleFormatIP | SampleFormatTID | SampleFormatTime |
	SampleFormatAddr | SampleFormatID | SampleFormatStreamID | SampleFormatCPU | SampleFormatPeriod | SampleFormatRaw

// flatSample decodes the fields of a sample whose type has none but
// flatSampleFields (tracepoint and most counter samples) in a straight
// line, as sample does: the general path's cursor checks per field
// cost more than the reads. It returns false, having decoded nothing
// for sure, when the record is too short: sample then reports where.
func (d *decoder) flatSample(b []byte, st SampleFormat, s *RecordSample) bool {
	o := 8 + 8*bits.OnesCount64(uint64(st&^SampleFormatRaw))
	if o > len(b) {
		return false
	}
	if st&SampleFormatRaw != 0 {
		if o+4 > len(b) {
			return false
		}
		n := int(binary.LittleEndian.Uint32(b[o:]))
		// The u32 size and the data are padded together to 8 bytes.
		if n > len(b)-o-4 || (4+n+7)&^7 > len(b)-o {
			return false
		}
		s.Raw = d.sampleBytes(s, b[o+4:o+4+n])
	}
	o = 8
	if st&SampleFormatIdentifier != 0 {
		s.ID = binary.LittleEndian.Uint64(b[o:])
		o += 8
	}
	if st&SampleFormatIP != 0 {
		s.IP = binary.LittleEndian.Uint64(b[o:])
		o += 8
	}
	if st&SampleFormatTID != 0 {
		s.PID, s.TID = int32(binary.LittleEndian.Uint32(b[o:])), int32(binary.LittleEndian.Uint32(b[o+4:]))
		o += 8
	}
	if st&SampleFormatTime != 0 {
		s.Time = binary.LittleEndian.Uint64(b[o:])
		o += 8
	}
	if st&SampleFormatAddr != 0 {
		s.Addr = binary.LittleEndian.Uint64(b[o:])
		o += 8
	}
	if st&SampleFormatID != 0 {
		s.ID = binary.LittleEndian.Uint64(b[o:])
		o += 8
	}
	if st&SampleFormatStreamID != 0 {
		s.StreamID = binary.LittleEndian.Uint64(b[o:])
		o += 8
	}
	if st&SampleFormatCPU != 0 {
		s.CPU, s.Res = binary.LittleEndian.Uint32(b[o:]), binary.LittleEndian.Uint32(b[o+4:])
		o += 8
	}
	if st&SampleFormatPeriod != 0 {
		s.Period = binary.LittleEndian.Uint64(b[o:])
	}
	return true
}
