package perfdata

import (
	"errors"
	"fmt"
)

// Sentinel errors wrapped by *Error; test for them with errors.Is.
var (
	// ErrTruncated means the input ended inside a structure.
	ErrTruncated = errors.New("truncated")
	// ErrBadMagic means the file does not start with perf's PERFILE2 magic.
	ErrBadMagic = errors.New("bad magic")
	// ErrBigEndian means the file was written on a big-endian machine;
	// perfdata reads little-endian files only.
	ErrBigEndian = errors.New("big-endian perf.data is not supported")
	// ErrBadSize means a size field is zero, too small for its type or
	// points past the end of its section.
	ErrBadSize = errors.New("bad size")
	// ErrBadValue means a field holds a value the format does not allow.
	ErrBadValue = errors.New("bad value")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("file closed")
)

// Error describes a problem at a file offset. Err wraps one of the sentinel
// errors above (or an I/O error).
type Error struct {
	Offset int64  // file offset (or stream offset in pipe mode) of the problem
	What   string // what was being read, e.g. "PERF_RECORD_SAMPLE callchain"
	Err    error
	// File is the perf.data directory's data.N file (DIR/data.N) that
	// Offset is in; "" for the file opened.
	File string
}

func (e *Error) Error() string {
	where := "perf.data"
	if e.File != "" {
		where = e.File
	}
	return fmt.Sprintf("%s offset %#x: %s: %v", where, e.Offset, e.What, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

func errAt(off int64, what string, err error) *Error {
	return &Error{Offset: off, What: what, Err: err}
}

// HeaderSizeError is the cause (Error.Err) of a record whose header gives
// a size smaller than the header itself, where perf stops ("bad event
// header size" in a pipe, "OFF [SIZE]: failed to process type: TYPE" in a
// file). It wraps ErrBadSize.
type HeaderSizeError struct {
	Offset int64 // the record's offset (in the stream after the header, for a pipe)
	Type   RecordType
	Size   int
}

func (e *HeaderSizeError) Error() string { return ErrBadSize.Error() }

func (e *HeaderSizeError) Unwrap() error { return ErrBadSize }

func headerSizeError(off int64, raw *RawRecord) error {
	return errAt(off+6, fmt.Sprintf("%v size %d (smaller than its header)", raw.Type, raw.Size),
		&HeaderSizeError{Offset: off, Type: raw.Type, Size: raw.Size})
}
