package perfdata

import "io"

// DefaultMaxQueueBytes bounds the bytes held by a TimeOrder iterator's
// queue; beyond it the older half of the queued time range is flushed, as
// perf does when its ordered-events allocation limit is reached.
const DefaultMaxQueueBytes = 512 << 20

// Next advances to the next record and reports whether there is one.
func (rs *Records) Next() bool {
	if rs.err != nil || rs.done {
		return false
	}
	if !rs.started {
		rs.start()
	}
	for {
		if rs.readyAt < len(rs.ready) {
			raw := &rs.ready[rs.readyAt]
			rs.cur = *raw
			*raw = RawRecord{}
			rs.readyAt++
			if rs.readyAt == len(rs.ready) {
				rs.ready, rs.readyAt = rs.ready[:0], 0
			}
			return rs.emit(&rs.cur)
		}
		if rs.flushLimit != 0 {
			if rs.queue.popInto(rs.flushLimit, &rs.cur) {
				return rs.emit(&rs.cur)
			}
			rs.flushLimit = 0
		}
		if rs.eof {
			rs.done = true
			rs.src.close()
			return false
		}
		err := rs.src.next(&rs.raw)
		if err == io.EOF {
			rs.eof = true
			if err := rs.src.checkEnd(); err != nil {
				rs.err = err
				return false
			}
			if rs.queue != nil {
				rs.flushLimit = ^uint64(0)
			}
			continue
		}
		if err != nil {
			rs.err = err
			rs.src.close()
			return false
		}
		rs.f.observe(&rs.raw)
		if rs.queue == nil {
			return rs.emit(&rs.raw)
		}
		if !rs.enqueue(&rs.raw) {
			return false
		}
	}
}

func (rs *Records) start() {
	rs.started = true
	rs.dec = decoder{f: rs.f, reuse: rs.Reuse}
	rs.src.ownAux = !rs.Reuse
	rs.src.lazyAux = rs.LazyAux
	if rs.queue != nil && rs.src.mem != nil {
		rs.queue.mem, rs.queue.pinOrigin = rs.src.mem, rs.src.memBase
		if rs.src.dropMem {
			rs.queue.pinning = true
			rs.src.pins = rs.queue
		}
	}
	if rs.MaxQueueBytes == 0 {
		rs.MaxQueueBytes = DefaultMaxQueueBytes
	}
}

// enqueue routes the record just read: kernel records with a time go
// into the queue, the others to rs.ready; a FINISHED_ROUND flushes the
// queue after itself (rs.flushLimit: Next takes the records from the
// queue up to it, after those in rs.ready).
func (rs *Records) enqueue(raw *RawRecord) bool {
	switch {
	case raw.Type == RecordTypeFinishedRound:
		rs.ready = append(rs.ready, *raw)
		rs.flushLimit = rs.queue.roundLimit()
	case raw.Type.IsUser():
		rs.ready = append(rs.ready, *raw)
	default:
		t, ok, err := rs.f.rawTime(raw, &rs.ids)
		if err != nil {
			rs.err = err
			return false
		}
		if !ok || t == 0 || t == ^uint64(0) {
			rs.ready = append(rs.ready, *raw)
			return true
		}
		// A record of a mapped file is queued as a slice of the mapping,
		// not copied; where the reader gives the pages back as it goes
		// (dropMem), the queue pins them until the record is flushed
		// (orderedQueue.pinnedFrom).
		own := rs.src.mem != nil && !raw.Compressed && raw.Type == RecordTypeSample
		rs.queue.push(t, raw, own)
		if rs.queue.bytes > rs.MaxQueueBytes {
			rs.flushLimit = rs.queue.halfLimit()
		}
	}
	return true
}

// emit decodes raw into rs.Record.
func (rs *Records) emit(raw *RawRecord) bool {
	if raw.Type >= recordTypeMax || (raw.Type >= recordTypeKernelMax && raw.Type < RecordTypeUserStart) {
		rs.Skipped[raw.Type]++
	}
	// Byte slices of the record (a build id, raw sample data, a user
	// stack) may alias the file's mapping, valid until Close, but not a
	// buffer reused for the next records: the time-order queue's copy or
	// the unpacked COMPRESSED data.
	rs.dec.copyBytes = rs.src.mem == nil || raw.owned || raw.Compressed
	switch {
	case !rs.ReuseSamples:
		rs.dec.sampleBuf = nil
	case rs.dec.sampleBuf == nil:
		rs.dec.sampleBuf = new(RecordSample)
	}
	r, err := rs.dec.decode(raw)
	if err != nil {
		rs.err = err
		return false
	}
	rs.Record, rs.last = r, raw
	return true
}

// Raw returns the current record undecoded (valid until the next call):
// its bytes as read (after unpacking, for a record of a COMPRESSED one).
func (rs *Records) Raw() *RawRecord {
	if rs.last == nil {
		return &rs.cur
	}
	return rs.last
}

// Unordered returns how many records a TimeOrder iteration met with a time
// before the last flush (perf warns about them).
func (rs *Records) Unordered() int {
	if rs.queue == nil {
		return 0
	}
	return rs.queue.Unordered
}

// Close stops the iteration early and releases its resources (the zstd
// decoder of a compressed file). Next returns false afterwards.
func (rs *Records) Close() {
	rs.done = true
	if rs.src != nil {
		rs.src.close()
	}
}

// rawTime returns the time of a kernel record (perf's
// evlist__parse_sample_timestamp); ok is false when it has none.
func (f *File) rawTime(raw *RawRecord, c *attrCache) (uint64, bool, error) {
	if raw.Type >= recordTypeKernelMax {
		return 0, false, nil
	}
	a := f.attrForCached(raw, c)
	if a == nil || a.SampleType&SampleFormatTime == 0 {
		return 0, false, nil
	}
	st := a.SampleType
	b := raw.Data
	if raw.Type == RecordTypeSample {
		o := 8
		for _, bit := range [...]SampleFormat{SampleFormatIdentifier, SampleFormatIP, SampleFormatTID} {
			if st&bit != 0 {
				o += 8
			}
		}
		if o+8 > len(b) {
			return 0, false, errAt(raw.Offset, "PERF_RECORD_SAMPLE time", ErrTruncated)
		}
		return le64(b[o:]), true, nil
	}
	if !a.SampleIDAll() {
		return 0, false, nil
	}
	n := sampleIDSize(st)
	o := len(b) - n
	if st&SampleFormatTID != 0 {
		o += 8
	}
	if o < 8 || o+8 > len(b) {
		return 0, false, errAt(raw.Offset, raw.Type.String()+" sample_id time", ErrTruncated)
	}
	return le64(b[o:]), true, nil
}

// CompressedRecords returns how many COMPRESSED records were unpacked so
// far (they are not returned themselves; perf counts them in its stats).
func (rs *Records) CompressedRecords() int {
	if rs.src == nil {
		return 0
	}
	return rs.src.compressed
}
