package perfdata

import "errors"

var errTODO = errors.New("perfdata: not implemented yet")

type rawReader struct{}

func (f *File) newRawReader() (*rawReader, error) { return &rawReader{}, nil }
func (r *rawReader) next(raw *RawRecord) error    { return errTODO }
func (f *File) observe(raw *RawRecord)            {}
func (f *File) nameAttrs()                        {}

type decoder struct{}
type orderedQueue struct{}

func newOrderedQueue() *orderedQueue { return &orderedQueue{} }

type decompressor struct{}

// Next advances to the next record and reports whether there is one.
func (rs *Records) Next() bool { return false }

// Decode decodes a raw record into a newly allocated typed record.
func (f *File) Decode(raw *RawRecord) (Record, error) { return nil, errTODO }

// DecodeSample decodes a SAMPLE raw record into s, reusing s's slices.
func (f *File) DecodeSample(raw *RawRecord, s *RecordSample) error { return errTODO }

// ParseSampleID decodes only the sample_id fields of a raw record (the
// leading fields of a SAMPLE, the trailer of others) and its attr.
func (f *File) ParseSampleID(raw *RawRecord) (SampleID, *Attr, error) {
	return SampleID{}, nil, errTODO
}

// Features decodes the header feature sections (file mode) or those seen
// in HEADER_FEATURE records so far (pipe mode).
func (f *File) Features() (*Features, error) { return nil, errTODO }

// FeatureData returns the raw bytes of a feature section.
func (f *File) FeatureData(feat Feature) ([]byte, bool) { return nil, false }

// TimeConv returns the file's TIME_CONV record, once iteration has seen it.
func (f *File) TimeConv() *RecordTimeConv { return f.timeConv }

// AddAttr adds an event with its sample ids and name (for EVENT_DESC; ""
// derives one). It fails after the first record has been written.
func (w *Writer) AddAttr(a EventAttr, ids []uint64, name string) (*Attr, error) { return nil, errTODO }

// WriteRecord encodes and writes r. For *RecordAuxtrace the Data follows the
// record and an auxtrace index entry is added.
func (w *Writer) WriteRecord(r Record) error { return errTODO }

// WriteRaw writes an already-encoded record (header included) as is.
func (w *Writer) WriteRaw(b []byte) error { return errTODO }

// Close writes the attrs (if no record was written), the feature sections
// and the final header, and closes the file if the Writer opened it.
func (w *Writer) Close() error { return errTODO }
