package perfdata

import (
	"io"
	"iter"
)

// Order selects the order in which Records returns records.
type Order int

const (
	// FileOrder returns records as stored (perf report -D order).
	FileOrder Order = iota
	// TimeOrder returns records sorted by time the way perf 6.1's
	// ordered-events queue delivers them (and perf report -D prints
	// them): kernel records with a non-zero timestamp are queued; each
	// FINISHED_ROUND is returned, then flushes the queued records up to
	// the largest timestamp seen before the previous round ended;
	// everything is flushed at the end. User records (FINISHED_INIT
	// included, which perf 6.1 does not flush on) and records without a
	// time pass straight through. Memory is bounded by the records of
	// two rounds, and by MaxQueueBytes.
	TimeOrder
)

// RawRecord is an undecoded record: its header fields and bytes.
type RawRecord struct {
	Offset     int64 // file offset of the header (see RecordCommon.Offset)
	Type       RecordType
	Misc       uint16
	Size       int    // header.size
	Compressed bool   // unpacked from a COMPRESSED record
	Source     int    // see RecordCommon.Source
	Data       []byte // the whole record, header included (Size bytes); for AUXTRACE without its trace data
	// AuxData is the trace data that follows an AUXTRACE record (nil for
	// other types); it aliases the file when mmapped.
	AuxData []byte

	owned bool // Data is a copy held by the time-order queue
}

// Records iterates over a file's records:
//
//	rs := f.Records(perfdata.TimeOrder)
//	for rs.Next() {
//		switch r := rs.Record.(type) {
//		case *perfdata.RecordSample: ...
//		}
//	}
//	if err := rs.Err(); err != nil { ... }
//
// COMPRESSED records are unpacked; their records are returned in their
// place (the wrapper is not). Unknown record types are returned as
// *RecordUnknown and counted in Skipped.
type Records struct {
	// Record is the current record, set by Next.
	Record Record
	// Reuse makes Next decode into one record value per type that is
	// overwritten by the following call (no allocation per record). Set it
	// before the first Next.
	Reuse bool
	// ReuseSamples makes Next decode every sample into one RecordSample,
	// its slices (callchain, registers, branch stack, read values, and
	// the raw data, user stack and aux sample, which alias what was read)
	// valid until the next call; other records are new values. It may
	// change between calls to Next.
	ReuseSamples bool
	// Skipped counts records of unknown type.
	Skipped map[RecordType]int

	// LazyAux leaves RecordAuxtrace.Data nil when the file is read
	// through an io.ReaderAt (New) instead of reading every AUXTRACE
	// buffer into memory: read it later at DataOffset through
	// File.ReaderAt. Mmapped files (Open, NewBytes) always give Data
	// without copying; pipes always read it. Set it before the first Next.
	LazyAux bool
	// MaxQueueBytes bounds the memory of a TimeOrder queue (default
	// DefaultMaxQueueBytes). Set it before the first Next.
	MaxQueueBytes int

	f     *File
	order Order
	src   *rawReader
	raw   RawRecord
	cur   RawRecord
	last  *RawRecord // the record Record was decoded from
	err   error
	dec   decoder
	queue *orderedQueue
	ids   attrCache // rawTime's
	// ready holds the records to return before reading more, from
	// readyAt on: the record just read when it is not queued (a
	// FINISHED_ROUND, a user record, a record without a time).
	ready   []RawRecord
	readyAt int
	// flushLimit, when not 0, is the time up to which Next takes the
	// queue's records, after ready's, before reading more.
	flushLimit uint64
	started    bool
	eof        bool
	done       bool
}

// Records returns an iterator over the file's records in the given order.
// In pipe mode it can be used once, and it fills in f.Attrs and the
// features as it goes.
func (f *File) Records(order Order) *Records {
	rs := &Records{f: f, order: order, Skipped: make(map[RecordType]int)}
	rs.src, rs.err = f.newRawReader()
	rs.ready = make([]RawRecord, 0, 16)
	if order == TimeOrder {
		rs.queue = newOrderedQueue()
	}
	return rs
}

// Err returns the error that stopped Next, or nil at a clean end.
func (rs *Records) Err() error { return rs.err }

// All returns the records as an iter.Seq2; a final non-nil error is
// yielded with a nil record.
func (rs *Records) All() iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		for rs.Next() {
			if !yield(rs.Record, nil) {
				return
			}
		}
		if rs.err != nil {
			yield(nil, rs.err)
		}
	}
}

// ReadInto reads the next record in file order into raw without decoding
// it and without allocating; raw.Data aliases the file or an internal
// buffer valid until the next call. It returns io.EOF at the end. Do not
// mix ReadInto and Next on one iterator. Decode the record with
// File.Decode, File.DecodeInto or File.DecodeSample.
func (rs *Records) ReadInto(raw *RawRecord) error {
	if rs.err != nil {
		return rs.err
	}
	rs.src.lazyAux = rs.LazyAux
	if err := rs.src.next(raw); err != nil {
		if err == io.EOF {
			if err2 := rs.src.checkEnd(); err2 != nil {
				err = err2
			}
		}
		if err != io.EOF {
			rs.err = err
		}
		rs.src.close()
		return err
	}
	rs.f.observe(raw)
	return nil
}
