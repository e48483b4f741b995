package timeline

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/perfpt/perfpt/internal/outfile"
)

// Str is an interned string: an index into a Strings table (0 is "").
type Str uint32

// Strings interns the strings of a timeline: names, categories, argument
// names and values. The converter interns, the writers read; a writer keeps
// its own encoding of each string (a Fuchsia string-table index, a quoted
// JSON string) by Str, so that a string is encoded once.
type Strings struct {
	list []string
	idx  map[string]Str
}

// NewStrings returns a table holding only "".
func NewStrings() *Strings {
	return &Strings{list: []string{""}, idx: map[string]Str{"": 0}}
}

// Intern returns the Str of v, adding it if new.
func (s *Strings) Intern(v string) Str {
	if id, ok := s.idx[v]; ok {
		return id
	}
	id := Str(len(s.list))
	s.list = append(s.list, v)
	s.idx[v] = id
	return id
}

// InternBytes is Intern of string(v), without a copy when v is known.
func (s *Strings) InternBytes(v []byte) Str {
	if id, ok := s.idx[string(v)]; ok {
		return id
	}
	return s.Intern(string(v))
}

// String returns the text of id.
func (s *Strings) String(id Str) string { return s.list[id] }

// Len is the number of strings, "" included.
func (s *Strings) Len() int { return len(s.list) }

// ArgKind is the type of an argument's value.
type ArgKind uint8

// Argument value types.
const (
	ArgString  ArgKind = iota // Arg.S
	ArgUint                   // Arg.U
	ArgInt                    // int64(Arg.U)
	ArgFloat                  // math.Float64frombits(Arg.U)
	ArgPointer                // Arg.U, an address
)

// Arg is one argument of an event: a name and a typed value.
type Arg struct {
	Name Str
	Kind ArgKind
	S    Str
	U    uint64
}

// MaxArgs is the most arguments an event carries (the Fuchsia format's
// limit).
const MaxArgs = 15

// Track is a thread track, as numbered by the converter: 0, 1, 2, ... in
// the order of Writer.Thread calls.
type Track int32

// Writer receives a timeline in a trace format. Timestamps are
// nanoseconds after the timeline's base time. The events of one track
// come in time order: an event at its timestamp, a complete event at its
// end. The []Arg slices are valid during the call only. Errors are sticky
// and returned by Close.
type Writer interface {
	// Process names a process (again when its name changes).
	Process(pid int32, name Str)
	// Thread defines track t, a thread of process pid, before its first
	// event; it is called again when the thread's name changes.
	Thread(t Track, pid, tid int32, name Str)
	// Begin and End delimit a slice: Ends close the innermost open
	// Begin of the track, and carry its name.
	Begin(t Track, ts uint64, cat, name Str, args []Arg)
	End(t Track, ts uint64, cat, name Str)
	// Complete is a slice from start to end written at its end.
	Complete(t Track, start, end uint64, cat, name Str, args []Arg)
	// Instant marks a moment on track t.
	Instant(t Track, ts uint64, cat, name Str, args []Arg)
	// Counter sets the values (args, numbers) of counter name of the
	// process of track t.
	Counter(t Track, ts uint64, cat, name Str, args []Arg)
	// Close finishes the output (it does not close the underlying
	// io.Writer) and returns the first error.
	Close() error
}

// Format is an output format.
type Format int

// Output formats.
const (
	FormatFXT  Format = iota // Fuchsia trace format
	FormatJSON               // Chrome JSON Trace Event Format
)

func (f Format) String() string {
	if f == FormatJSON {
		return "json"
	}
	return "fxt"
}

// ParseFormat parses a --format value: "fxt" or "json".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "fxt", "fuchsia":
		return FormatFXT, nil
	case "json", "chrome":
		return FormatJSON, nil
	}
	return 0, fmt.Errorf("unknown timeline format %q (fxt or json)", s)
}

// FormatOf chooses the format and compression from a file name: .fxt,
// .json, either followed by .gz. ok is false for other names.
func FormatOf(path string) (f Format, gz, ok bool) {
	p := strings.ToLower(path)
	if strings.HasSuffix(p, ".gz") {
		gz, p = true, strings.TrimSuffix(p, ".gz")
	}
	switch {
	case strings.HasSuffix(p, ".fxt"):
		return FormatFXT, gz, true
	case strings.HasSuffix(p, ".json"):
		return FormatJSON, gz, true
	}
	return 0, gz, false
}

// NewWriter returns a writer of format f on w.
func NewWriter(f Format, w io.Writer, strs *Strings) Writer {
	if f == FormatJSON {
		return NewJSON(w, strs)
	}
	return NewFXT(w, strs)
}

// File is an output file with its writer: Close finishes the format,
// the compression and the file.
type File struct {
	Writer
	f  *outfile.File
	bw *bufio.Writer
	gz *gzip.Writer
}

// Create creates path and a writer of format f on it, gzip-compressed
// when gz is set. The file is written by internal/outfile: in blocks, on
// a goroutine, without the page cache where it can.
func Create(path string, f Format, gz bool, strs *Strings) (*File, error) {
	fd, err := outfile.Create(path)
	if err != nil {
		return nil, err
	}
	out := &File{f: fd}
	var w io.Writer = fd
	if gz {
		// BestSpeed: the compressor is the costliest part of a
		// timeline; level 1 still shrinks the repetitive records
		// about tenfold.
		out.gz, _ = gzip.NewWriterLevel(fd, gzip.BestSpeed)
		out.bw = bufio.NewWriterSize(out.gz, 1<<16)
		w = out.bw
	}
	out.Writer = NewWriter(f, w, strs)
	return out, nil
}

// Close finishes the trace and closes the file.
func (o *File) Close() error {
	err := o.Writer.Close()
	if o.bw != nil {
		if e := o.bw.Flush(); err == nil {
			err = e
		}
	}
	if o.gz != nil {
		if e := o.gz.Close(); err == nil {
			err = e
		}
	}
	if e := o.f.Close(); err == nil {
		err = e
	}
	return err
}
