package perfdata

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// Writer writes a file-mode perf.data that perf 6.1 reads back:
//
//	w, _ := perfdata.Create("perf.data")
//	pt, _ := w.AddAttr(perfdata.EventAttr{Type: 8, Config: 1<<0 | 1<<10 | 1<<13, ...}, []uint64{1}, "intel_pt//u")
//	w.WriteRecord(&perfdata.RecordComm{PID: 42, TID: 42, Comm: "prog"})
//	w.WriteRecord(&perfdata.RecordAuxtrace{Data: trace, CPU: -1, TID: 42})
//	w.Features.Hostname = "box"; w.Features.Set(perfdata.FeatHostname)
//	w.Close()
//
// Add every attr before the first record. Records are encoded with the
// sample_type of their attr: RecordCommon.Attr if set, else the attr owning
// SampleID.ID, else the first attr. Record sizes are computed (Size,
// AuxSize and Common().Offset fields are ignored on input and set on
// output). Close writes the feature sections and fixes up the header.
type Writer struct {
	// Features are written by Close. Present bits select the sections;
	// EventDesc and AuxtraceIndex are filled in by the Writer when not set
	// (EventDesc is always written, from the attrs, so perf shows event
	// names; AuxtraceIndex lists every AUXTRACE record written).
	Features Features

	ws      io.WriteSeeker
	bw      *bufio.Writer
	closer  io.Closer
	attrs   []*Attr
	idToAt  map[uint64]*Attr
	started bool
	off     int64 // current file offset
	data    Section
	attrSec Section
	buf     []byte
	err     error
	auxIdx  []AuxtraceIndexEntry
	sample  [2]uint64
	pipe    bool
}

// Create creates the file at path and returns a Writer for it.
func Create(path string) (*Writer, error) {
	fh, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := NewWriter(fh)
	w.closer = fh
	return w, nil
}

// NewWriter returns a Writer writing to ws from its current position 0.
// Close does not close ws.
func NewWriter(ws io.WriteSeeker) *Writer {
	return &Writer{ws: ws, bw: bufio.NewWriterSize(ws, 1<<16), idToAt: make(map[uint64]*Attr)}
}

// NewPipeWriter returns a Writer of pipe-mode perf.data (what `perf record
// -o -` writes) to w: the 16-byte pipe header, a HEADER_ATTR record per
// attr, HEADER_FEATURE records for the features perf synthesises in pipe
// mode, then the records. Set Features before the first record; Close only
// flushes (it does not close w). Record offsets count from the end of the
// pipe header.
func NewPipeWriter(w io.Writer) *Writer {
	return &Writer{bw: bufio.NewWriterSize(w, 1<<16), idToAt: make(map[uint64]*Attr), pipe: true}
}

// pipeFeature reports whether perf synthesises the feature in pipe mode
// (feat_ops[].synthesize in util/header.c).
func pipeFeature(f Feature) bool {
	switch f {
	case FeatTracingData, FeatBuildID, FeatBranchStack, FeatAuxtrace, FeatStat, FeatCache, FeatDirFormat, FeatHybridTopology:
		return false
	}
	return f > 0 && f < featMax
}

// startPipe writes the pipe header, the attrs and the features.
func (w *Writer) startPipe() error {
	var e enc
	e.u64(Magic)
	e.u64(pipeHeaderSize)
	if err := w.write(e.b); err != nil {
		return err
	}
	w.off = 0
	for _, a := range w.attrs {
		b, err := AppendRecord(nil, &RecordHeaderAttr{Attr: a.EventAttr, IDs: a.IDs}, nil)
		if err != nil {
			return err
		}
		if err := w.write(b); err != nil {
			return err
		}
	}
	fs := w.fullFeatures()
	for _, feat := range append(fs.List(), featMax) {
		if feat != featMax && !pipeFeature(feat) {
			continue
		}
		var body enc
		if feat != featMax {
			fs.encode(feat, &body)
		}
		b, err := AppendRecord(nil, &RecordHeaderFeature{Feature: feat, Data: body.b}, nil)
		if err != nil {
			return err
		}
		if err := w.write(b); err != nil {
			return err
		}
	}
	return nil
}

// fullFeatures returns the Features to write, with EVENT_DESC (and, once
// records are written, the auxtrace index and sample times) filled in.
func (w *Writer) fullFeatures() Features {
	fs := w.Features
	if !fs.Has(FeatEventDesc) && len(w.attrs) > 0 {
		fs.EventDesc = nil
		for _, a := range w.attrs {
			fs.EventDesc = append(fs.EventDesc, EventDesc{Attr: a.EventAttr, Name: a.Name, IDs: a.IDs})
		}
		fs.Set(FeatEventDesc)
	}
	if !fs.Has(FeatAuxtrace) && len(w.auxIdx) > 0 {
		fs.AuxtraceIndex = w.auxIdx
		fs.Set(FeatAuxtrace)
	}
	if !fs.Has(FeatSampleTime) && w.sample[1] != 0 {
		fs.SampleTime = w.sample
		fs.Set(FeatSampleTime)
	}
	return fs
}

// Attrs returns the attrs added so far.
func (w *Writer) Attrs() []*Attr { return w.attrs }

// AddAttr adds an event with its sample ids and name (written to
// HEADER_EVENT_DESC; "" leaves it to perf to name the event). It fails
// after the first record has been written.
func (w *Writer) AddAttr(a EventAttr, ids []uint64, name string) (*Attr, error) {
	if w.started {
		return nil, fmt.Errorf("perfdata: AddAttr after the first record")
	}
	for _, id := range ids {
		if w.idToAt[id] != nil {
			return nil, fmt.Errorf("perfdata: sample id %d used by two attrs", id)
		}
	}
	a.Size = AttrSize
	at := &Attr{EventAttr: a, IDs: append([]uint64(nil), ids...), Name: name, Index: len(w.attrs)}
	for _, id := range ids {
		w.idToAt[id] = at
	}
	w.attrs = append(w.attrs, at)
	return at, nil
}

// attrFor picks the attr used to encode r.
func (w *Writer) attrFor(r Record) *Attr {
	c := r.Common()
	if c.Attr != nil {
		if a := w.attrByIndex(c.Attr); a != nil {
			return a
		}
	}
	if a := w.idToAt[c.ID]; a != nil {
		return a
	}
	if len(w.attrs) > 0 {
		return w.attrs[0]
	}
	return nil
}

// attrByIndex maps an attr (possibly from a File being copied) to the
// Writer's attr with the same index and sample layout.
func (w *Writer) attrByIndex(a *Attr) *Attr {
	if a.Index >= 0 && a.Index < len(w.attrs) {
		wa := w.attrs[a.Index]
		if wa == a || (wa.SampleType == a.SampleType && wa.Flags&AttrFlagSampleIDAll == a.Flags&AttrFlagSampleIDAll && wa.ReadFormat == a.ReadFormat) {
			return wa
		}
	}
	return nil
}

// start writes the ids and attrs sections; the data section follows.
func (w *Writer) start() error {
	if w.started {
		return w.err
	}
	w.started = true
	if w.pipe {
		return w.startPipe()
	}
	if _, err := w.ws.Seek(0, io.SeekStart); err != nil {
		w.err = err
		return err
	}
	w.off = 0
	var e enc
	e.zeros(fileHeaderSize)
	idOffs := make([]Section, len(w.attrs))
	for i, a := range w.attrs {
		idOffs[i] = Section{int64(len(e.b)), int64(8 * len(a.IDs))}
		for _, id := range a.IDs {
			e.u64(id)
		}
	}
	w.attrSec = Section{Offset: int64(len(e.b)), Size: int64(len(w.attrs) * (AttrSize + 16))}
	for i, a := range w.attrs {
		e.b = appendAttr(e.b, &a.EventAttr)
		e.u64(uint64(idOffs[i].Offset))
		e.u64(uint64(idOffs[i].Size))
	}
	w.data.Offset = int64(len(e.b))
	return w.write(e.b)
}

func (w *Writer) write(b []byte) error {
	if w.err != nil {
		return w.err
	}
	n, err := w.bw.Write(b)
	w.off += int64(n)
	if err != nil {
		w.err = err
	}
	return err
}

// WriteRecord encodes and writes r (see Writer). For *RecordAuxtrace the
// Data follows the record, zero-padded to a multiple of 8 bytes as perf
// does (the size field counts the padding; zeros are PT PAD packets), and
// an auxtrace index entry is added; for *RecordTracingData Data follows, padded to 8.
func (w *Writer) WriteRecord(r Record) error {
	if err := w.start(); err != nil {
		return err
	}
	a := w.attrFor(r)
	b, err := AppendRecord(w.buf[:0], r, a)
	w.buf = b
	if err != nil {
		return err
	}
	off := w.off
	switch r := r.(type) {
	case *RecordAuxtrace:
		w.auxIdx = append(w.auxIdx, AuxtraceIndexEntry{Offset: off, Size: int64(len(b))})
		if err := w.write(b); err != nil {
			return err
		}
		if err := w.write(r.Data); err != nil {
			return err
		}
		var pad [8]byte
		return w.write(pad[:auxPadded(len(r.Data))-len(r.Data)])
	case *RecordTracingData:
		if err := w.write(b); err != nil {
			return err
		}
		if err := w.write(r.Data); err != nil {
			return err
		}
		var pad [8]byte
		return w.write(pad[:(8-len(r.Data)%8)%8])
	case *RecordSample:
		if a != nil && a.SampleType&SampleFormatTime != 0 {
			if w.sample[0] == 0 || r.Time < w.sample[0] {
				w.sample[0] = r.Time
			}
			if r.Time > w.sample[1] {
				w.sample[1] = r.Time
			}
		}
	}
	return w.write(b)
}

// WriteRaw writes an already-encoded record (header included, with any
// payload that follows it) as is.
func (w *Writer) WriteRaw(b []byte) error {
	if err := w.start(); err != nil {
		return err
	}
	if len(b) >= 8 && RecordType(le32(b)) == RecordTypeAuxtrace {
		w.auxIdx = append(w.auxIdx, AuxtraceIndexEntry{Offset: w.off, Size: int64(le16(b[6:]))})
	}
	return w.write(b)
}

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }

// Offset returns the file offset the next record will be written at.
func (w *Writer) Offset() int64 {
	if !w.started {
		return -1
	}
	return w.off
}

// Close writes the attrs (if no record was written), the feature sections
// and the final header, and closes the file if the Writer opened it.
func (w *Writer) Close() error {
	err := w.finish()
	if w.closer != nil {
		if err2 := w.closer.Close(); err == nil {
			err = err2
		}
		w.closer = nil
	}
	return err
}

func (w *Writer) finish() error {
	if err := w.start(); err != nil {
		return err
	}
	if w.pipe {
		err := w.bw.Flush()
		w.err = ErrClosed
		return err
	}
	w.data.Size = w.off - w.data.Offset
	fs := w.fullFeatures()
	// Feature section table, then the sections.
	list := fs.List()
	tableOff := w.off
	var body enc
	secs := make([]Section, len(list))
	bodyOff := tableOff + int64(16*len(list))
	for i, feat := range list {
		start := len(body.b)
		fs.encode(feat, &body)
		secs[i] = Section{bodyOff + int64(start), int64(len(body.b) - start)}
	}
	var table enc
	for _, s := range secs {
		table.u64(uint64(s.Offset))
		table.u64(uint64(s.Size))
	}
	if err := w.write(table.b); err != nil {
		return err
	}
	if err := w.write(body.b); err != nil {
		return err
	}
	if err := w.bw.Flush(); err != nil {
		return err
	}
	// The header.
	var h enc
	h.u64(Magic)
	h.u64(fileHeaderSize)
	h.u64(AttrSize + 16)
	h.u64(uint64(w.attrSec.Offset))
	h.u64(uint64(w.attrSec.Size))
	h.u64(uint64(w.data.Offset))
	h.u64(uint64(w.data.Size))
	h.u64(0)
	h.u64(0)
	var bitsw [4]uint64
	for _, feat := range list {
		bitsw[feat/64] |= 1 << (feat % 64)
	}
	for _, b := range bitsw {
		h.u64(b)
	}
	if _, err := w.ws.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := w.ws.Write(h.b); err != nil {
		return err
	}
	_, err := w.ws.Seek(0, io.SeekEnd)
	w.err = ErrClosed
	return err
}
