package perfdata

import (
	"bufio"
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
	buf     []byte
	err     error
	auxIdx  []AuxtraceIndexEntry
	sample  [2]uint64
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

// Attrs returns the attrs added so far.
func (w *Writer) Attrs() []*Attr { return w.attrs }
