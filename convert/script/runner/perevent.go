package runner

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/internal/perfopt"
)

// perEventDump is perf script --per-event-dump: each event's samples go
// to a file of its own, "<input>.<event name>.dump" (perf's
// evsel_script__new), the rest (side-band lines, error lines, the
// header) to stdout; at the end a line per event says what its file got
// (perf_script__exit_per_event_dump_stats).
type perEventDump struct {
	path  string // the input as given: perf's data->file.path
	files map[*sample.Event]*eventDump
	order []*eventDump // perf's evlist order
	// route is the printer's writer: stdout, or while a sample is
	// printed the file of its event.
	route  *routeWriter
	stdout io.Writer
}

// eventDump is one event's file (perf's evsel_script).
type eventDump struct {
	name    string
	f       *os.File
	w       *bufio.Writer
	n       int64 // bytes written
	samples uint64
}

func (d *eventDump) Write(b []byte) (int, error) {
	d.n += int64(len(b))
	return d.w.Write(b)
}

// routeWriter writes to w.
type routeWriter struct{ w io.Writer }

func (r *routeWriter) Write(b []byte) (int, error) { return r.w.Write(b) }

// errDumpFiles is perf's refusal when a file cannot be created (an event
// name with a '/', as intel_pt//u, names a folder that is not there).
var errDumpFiles = &perfopt.Exit{Msg: "Couldn't create the per event dump files", Status: 255}

// newPerEventDump opens the files of the events known (perf's
// perf_script__fopen_per_event_dump, before the events are processed).
// A pipe's path is perf's NULL, printed "(null)".
func newPerEventDump(input string, pipe bool, events []*sample.Event, route *routeWriter) (*perEventDump, error) {
	d := &perEventDump{path: input, files: map[*sample.Event]*eventDump{}, route: route, stdout: route.w}
	if pipe {
		d.path = "(null)"
	}
	for _, e := range events {
		if err := d.open(e); err != nil {
			d.close()
			return nil, err
		}
	}
	return d, nil
}

// open creates event e's file unless it has one.
func (d *perEventDump) open(e *sample.Event) error {
	if d.files[e] != nil {
		return nil
	}
	name := d.path + "." + e.Name + ".dump"
	f, err := os.Create(name)
	if err != nil {
		return errDumpFiles
	}
	// glibc's stdio buffer: st_blksize below BUFSIZ (8192), else
	// BUFSIZ (_IO_file_doallocate). perf's line reports what fstat
	// says of the file before it is closed: what left that buffer.
	size := 8192
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) == nil && st.Blksize > 0 && st.Blksize < 8192 {
		size = int(st.Blksize)
	}
	ed := &eventDump{name: name, f: f, w: bufio.NewWriterSize(f, size)}
	d.files[e] = ed
	d.order = append(d.order, ed)
	return nil
}

// sample prints smp with print into its event's file; counted says
// whether perf counts it (its event's type prints some field).
func (d *perEventDump) sample(smp *sample.Sample, flush func() error, print func(*sample.Sample), counted bool) {
	ed := d.files[smp.Ev]
	if ed == nil {
		// An event perf would have opened a file for (a pipe's
		// attr, a synthesised event): open it now.
		if d.open(smp.Ev) != nil {
			print(smp)
			return
		}
		ed = d.files[smp.Ev]
	}
	flush()
	d.route.w = ed
	print(smp)
	flush()
	d.route.w = d.stdout
	if counted {
		ed.samples++
	}
}

// stats writes perf's line for each file, then closes them: the size is
// what glibc's buffer had written (whole buffers) when perf asked. perf
// flushes every stream before it starts an addr2line process (subcmd's
// start_command: fflush(NULL)), once per DSO whose source lines it looks
// up (srcline, srccode, inlined frames): the size it reports then also
// counts the partial buffers of those moments, which perfpt, looking
// source lines up itself, does not have (the files are the same).
func (d *perEventDump) stats(w io.Writer) error {
	var first error
	for _, ed := range d.order {
		written := ed.n - ed.n%int64(ed.w.Size())
		fmt.Fprintf(w, "[ perf script: Wrote %.3f MB %s (%d samples) ]\n", float64(written)/1024/1024, ed.name, ed.samples)
		if err := ed.w.Flush(); err != nil && first == nil {
			first = err
		}
		if err := ed.f.Close(); err != nil && first == nil {
			first = err
		}
	}
	d.order = nil
	return first
}

// close closes the files without a word (perf_script__fclose_per_event_dump).
func (d *perEventDump) close() {
	for _, ed := range d.order {
		ed.w.Flush()
		ed.f.Close()
	}
	d.order = nil
}
