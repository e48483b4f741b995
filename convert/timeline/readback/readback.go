// Package readback reads the timelines that convert/timeline writes, in
// both formats (the Fuchsia trace format and Chrome's JSON Trace Event
// Format), checking as it goes that every record is well formed and that
// every string and thread reference is defined before it is used; Checker
// then checks what a viewer relies on: per thread, slices properly nested
// and timestamps in order.
//
// The readers are ours and independent of the writers: they follow the
// format specifications (fuchsia.dev reference/tracing/trace-format, the
// Trace Event Format document), so that a writer's mistake is not repeated
// by its reader.
package readback

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
)

// Event is one event of a timeline, in a form common to both formats.
type Event struct {
	// Phase is the Trace Event Format's: 'B', 'E', 'X' (complete), 'i'
	// (instant), 'C' (counter).
	Phase    byte
	Pid, Tid int64
	Ts, End  uint64 // nanoseconds; End for 'X'
	Cat      string
	Name     string
	Args     []Arg
	// Offset is where the event is: the byte offset of its record
	// (Fuchsia), or its index in traceEvents (JSON).
	Offset int64
}

// Arg is an event argument; Val is a string, uint64, int64 or float64.
type Arg struct {
	Name string
	Val  any
}

// ArgVal returns the value of the argument named name, nil if absent.
func (e *Event) ArgVal(name string) any {
	for _, a := range e.Args {
		if a.Name == name {
			return a.Val
		}
	}
	return nil
}

// Info is what a timeline says besides its events.
type Info struct {
	Format    string              // "fxt" or "json"
	Threads   map[[2]int64]string // (pid, tid) -> name
	Processes map[int64]string
	Records   int // records (Fuchsia) or objects (JSON) read
}

// Error is a malformed timeline: what is wrong and where.
type Error struct {
	Offset int64 // byte offset (Fuchsia) or event index (JSON)
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("at %d: %s", e.Offset, e.Msg) }

// ReadFile reads the timeline at path, choosing the format by its first
// bytes (gzip is undone first), and calls fn for each event in file
// order; the Event is reused after fn returns.
func ReadFile(path string, fn func(*Event) error) (*Info, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, fn)
}

// Read reads a timeline from r (see ReadFile).
func Read(r io.Reader, fn func(*Event) error) (*Info, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, _ := br.Peek(2)
	var in io.Reader = br
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		in = bufio.NewReaderSize(zr, 1<<16)
	}
	bin := in.(*bufio.Reader)
	first, err := bin.Peek(8)
	if err != nil && len(first) == 0 {
		return nil, fmt.Errorf("empty timeline")
	}
	if bytes.Equal(first, []byte{0x10, 0x00, 0x04, 0x46, 0x78, 0x54, 0x16, 0x00}) {
		return ReadFXT(bin, fn)
	}
	if strings.HasPrefix(strings.TrimSpace(string(first)), "{") || strings.HasPrefix(strings.TrimSpace(string(first)), "[") {
		return ReadJSON(bin, fn)
	}
	return nil, fmt.Errorf("neither a Fuchsia trace nor a JSON trace (starts % x)", first)
}
