package tracing

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/perfpt/perfpt/internal/cnum"
)

// Sentinel errors wrapped by *Error.
var (
	// ErrTruncated: the tracing data ends inside a part.
	ErrTruncated = errors.New("truncated")
	// ErrBadValue: a magic, tag or size is not what perf writes.
	ErrBadValue = errors.New("bad value")
)

// Error is a framing problem of the tracing data at Offset (from the start
// of the section or record payload).
type Error struct {
	Offset int64
	What   string
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("tracing data offset %#x: %s: %v", e.Offset, e.What, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Data is the decoded tracing data.
type Data struct {
	Version   string
	BigEndian bool
	// LongSize is the recording kernel's long size: the header page's
	// commit field size when there is one, else the recorded byte
	// (perf's read_header_files).
	LongSize int
	PageSize int
	// HeaderPage and HeaderEvent are the texts of events/header_page and
	// events/header_event.
	HeaderPage, HeaderEvent []byte
	Ftrace                  []*Format // the ftrace system's formats
	Events                  []*Format // every other system's formats, in file order
	// Kallsyms is the /proc/kallsyms copy (empty in files of perf >= 5.x;
	// perf 6.1 skips it and resolves %pS through its own kernel map).
	Kallsyms []byte
	// Printk maps the addresses of trace_printk format strings to them.
	Printk map[uint64]string
	// Cmdlines maps pids to comms from saved_cmdlines.
	Cmdlines map[int]string
	// Size is the number of bytes the tracing data took.
	Size int64
	// Skipped lists the format files that could not be read at all (no
	// name or id: libtraceevent drops them).
	Skipped []error

	byID map[int]*Format
}

// Order returns the recording's byte order.
func (d *Data) Order() binary.ByteOrder {
	if d.BigEndian {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// Event returns the format with the given id (a tracepoint attr's config),
// nil if there is none.
func (d *Data) Event(id int) *Format {
	return d.byID[id]
}

// EventByName returns the format SYSTEM:NAME, nil if there is none.
func (d *Data) EventByName(system, name string) *Format {
	for _, f := range d.Events {
		if f.System == system && f.Name == name {
			return f
		}
	}
	for _, f := range d.Ftrace {
		if f.System == system && f.Name == name {
			return f
		}
	}
	return nil
}

// reader reads the tracing data section's parts from b in the recording's
// byte order; err is the first error, after which reads return zeros.
type reader struct {
	b     []byte
	off   int
	order binary.ByteOrder
	err   error
}

func (r *reader) fail(what string, err error) {
	if r.err == nil {
		r.err = &Error{Offset: int64(r.off), What: what, Err: err}
	}
	r.off = len(r.b)
}

func (r *reader) bytes(n uint64, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)-r.off) {
		r.fail(what, ErrTruncated)
		return nil
	}
	v := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return v
}

func (r *reader) u32(what string) uint32 {
	b := r.bytes(4, what)
	if b == nil {
		return 0
	}
	return r.order.Uint32(b)
}

func (r *reader) u64(what string) uint64 {
	b := r.bytes(8, what)
	if b == nil {
		return 0
	}
	return r.order.Uint64(b)
}

func (r *reader) cstring(what string) string {
	if r.err != nil {
		return ""
	}
	i := bytes.IndexByte(r.b[r.off:], 0)
	if i < 0 {
		r.fail(what, ErrTruncated)
		return ""
	}
	s := string(r.b[r.off : r.off+i])
	r.off += i + 1
	return s
}

func (r *reader) tag(want string, what string) {
	b := r.bytes(uint64(len(want)), what)
	if r.err == nil && string(b) != want {
		r.off -= len(want)
		r.fail(what, fmt.Errorf("%w: %q", ErrBadValue, b))
	}
}

// Parse decodes tracing data (perf's trace_report). b may extend past the
// data (the pipe-mode record pads it); Size says how much was used. A
// format file that fails to parse does not stop the reading: the format is
// kept with its Err, or listed in Skipped when it has no name or id.
func Parse(b []byte) (*Data, error) {
	r := &reader{b: b, order: binary.LittleEndian}
	d := &Data{byID: map[int]*Format{}}
	r.tag("\x17\x08\x44tracing", "magic")
	d.Version = r.cstring("version")
	if e := r.bytes(1, "endianness"); e != nil {
		d.BigEndian = e[0] != 0
		if d.BigEndian {
			r.order = binary.BigEndian
		}
	}
	if l := r.bytes(1, "long size"); l != nil {
		d.LongSize = int(l[0])
	}
	d.PageSize = int(r.u32("page size"))
	if r.err == nil && d.PageSize == 0 {
		r.fail("page size", ErrBadValue)
	}
	r.tag("header_page\x00", "header_page tag")
	d.HeaderPage = r.bytes(r.u64("header_page size"), "header_page")
	if sz := commitSize(d.HeaderPage); sz > 0 {
		d.LongSize = sz
	}
	r.tag("header_event\x00", "header_event tag")
	d.HeaderEvent = r.bytes(r.u64("header_event size"), "header_event")
	if r.err != nil {
		return nil, r.err
	}
	n := r.u32("ftrace format count")
	for i := uint32(0); i < n && r.err == nil; i++ {
		off := r.off
		text := r.bytes(r.u64("ftrace format size"), "ftrace format")
		if r.err == nil {
			d.add(&d.Ftrace, text, "ftrace", off)
		}
	}
	systems := r.u32("system count")
	for i := uint32(0); i < systems && r.err == nil; i++ {
		sys := r.cstring("system name")
		n := r.u32("format count")
		for j := uint32(0); j < n && r.err == nil; j++ {
			off := r.off
			text := r.bytes(r.u64("format size"), "format of "+sys)
			if r.err == nil {
				d.add(&d.Events, text, sys, off)
			}
		}
	}
	d.Kallsyms = r.bytes(uint64(r.u32("kallsyms size")), "kallsyms")
	d.Printk = parsePrintk(r.bytes(uint64(r.u32("printk size")), "printk formats"))
	if v, _ := strconv.ParseFloat(leadingFloat(d.Version), 64); v >= 0.6 {
		d.Cmdlines = parseCmdlines(r.bytes(r.u64("saved cmdlines size"), "saved cmdlines"))
	}
	if r.err != nil {
		return nil, r.err
	}
	d.Size = int64(r.off)
	return d, nil
}

func (d *Data) add(list *[]*Format, text []byte, sys string, off int) {
	f, err := ParseFormat(text, sys, d.LongSize)
	if err != nil {
		if fe, ok := err.(*FormatError); ok {
			fe.Offset += off + 8
		}
		d.Skipped = append(d.Skipped, err)
		return
	}
	*list = append(*list, f)
	d.byID[f.ID] = f
}

// leadingFloat keeps the part of s atof would read.
func leadingFloat(s string) string {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	return s[:i]
}

// commitSize returns the size of header_page's commit field, 0 if none
// (tep_parse_header_page; perf then takes it as the long size).
func commitSize(text []byte) int {
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "field:") {
			continue
		}
		parts := strings.Split(line, ";")
		if len(parts) < 3 {
			continue
		}
		decl := strings.Fields(strings.TrimPrefix(parts[0], "field:"))
		if len(decl) < 2 || decl[len(decl)-1] != "commit" {
			continue
		}
		size := strings.TrimSpace(parts[2])
		if v, ok := strings.CutPrefix(size, "size:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// parsePrintk reads the "0xADDR : "format"" lines of the kernel's
// printk_formats as perf 6.1's parse_ftrace_printk and libtraceevent's
// tep_register_print_string do: lines split at the first ':', the address
// read by strtoull(..., 16) (the kernel writes a "0x" prefix, which
// strtoull takes and strconv.ParseUint does not), the character after the
// ':' skipped, then a leading and a trailing double quote stripped and,
// after a stripped trailing quote, a trailing "\n" escape.
func parsePrintk(b []byte) map[uint64]string {
	if len(b) == 0 {
		return nil
	}
	m := map[uint64]string{}
	for _, line := range strings.Split(string(b), "\n") {
		// strtok_r skips leading ':'s; a line without a ':' after
		// them has no format (perf reads past its end).
		addr, f, ok := strings.Cut(strings.TrimLeft(line, ":"), ":")
		if !ok {
			continue
		}
		a, _, _ := cnum.Strtoull(addr, 16)
		if f != "" {
			f = f[1:]
		}
		f = strings.TrimPrefix(f, "\"")
		if g, ok := strings.CutSuffix(f, "\""); ok {
			f = strings.TrimSuffix(g, "\\n")
		}
		m[a] = f
	}
	return m
}

// parseCmdlines reads "PID COMM" lines (tep_parse_saved_cmdlines).
func parseCmdlines(b []byte) map[int]string {
	if len(b) == 0 {
		return nil
	}
	m := map[int]string{}
	for _, line := range strings.Split(string(b), "\n") {
		pid, comm, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(pid)
		if err != nil {
			continue
		}
		m[n] = comm
	}
	return m
}

// IDs returns the ids of every format, sorted.
func (d *Data) IDs() []int {
	ids := make([]int, 0, len(d.byID))
	for id := range d.byID {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	return ids
}
