package perfdata

import "errors"

var errTODO = errors.New("perfdata: not implemented yet")

func (f *File) nameAttrs() {}

// Features decodes the header feature sections (file mode) or those seen
// in HEADER_FEATURE records so far (pipe mode).
func (f *File) Features() (*Features, error) { return nil, errTODO }

// FeatureData returns the raw bytes of a feature section.
func (f *File) FeatureData(feat Feature) ([]byte, bool) { return nil, false }

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
