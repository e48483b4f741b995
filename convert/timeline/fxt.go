package timeline

import (
	"encoding/binary"
	"io"
	"strings"
	"unicode/utf8"
)

// The Fuchsia trace format (fuchsia.dev, reference/tracing/trace-format):
// little-endian 64-bit words; every record starts with a header word
// holding its type (bits 0-3) and its size in words (bits 4-15). Strings
// and threads are referred to by small indexes into tables that string
// and thread records fill; a record may refer only to entries defined
// before it.
const (
	fxtMagic = 0x0016547846040010 // the magic number record

	fxtInit         = 1 // initialization record: ticks per second
	fxtString       = 2
	fxtThread       = 3
	fxtEvent        = 4
	fxtKernelObject = 7

	// Event types.
	fxtInstant  = 0
	fxtCounter  = 1
	fxtBegin    = 2
	fxtEnd      = 3
	fxtComplete = 4

	// Argument types.
	fxtArgInt32   = 1
	fxtArgUint32  = 2
	fxtArgInt64   = 3
	fxtArgUint64  = 4
	fxtArgDouble  = 5
	fxtArgString  = 6
	fxtArgPointer = 7
	fxtArgKoid    = 8

	// Kernel object types (zircon's ZX_OBJ_TYPE_*).
	fxtObjProcess = 1
	fxtObjThread  = 2

	fxtMaxStrings = 0x7fff // string indexes 1..0x7fff
	fxtMaxThreads = 0xff   // thread indexes 1..0xff
	// fxtMaxStrLen is the spec's conservative limit on a string's length.
	fxtMaxStrLen = 32000

	// The buffer is written out once past fxtFlushAt: its capacity
	// leaves room for a record after that (fxtRecord.put relies on it),
	// and is internal/outfile's block (blockSink).
	fxtFlushAt = 1<<20 - fxtRoom
	fxtRoom    = 1 << 15
)

// blockSink is an io.Writer whose blocks the writers fill in place
// (internal/outfile.File): Block returns the first, Next takes a filled
// one and returns the next, which may hold bytes of the last already.
type blockSink interface {
	Block() []byte
	Next(filled []byte) []byte
}

// sinkBlock returns w's first block when w is a blockSink whose blocks
// have room for flushAt bytes and a record after them.
func sinkBlock(w io.Writer, flushAt int) (blockSink, []byte) {
	if s, ok := w.(blockSink); ok {
		if b := s.Block(); cap(b) >= flushAt+fxtRoom && len(b) == 0 {
			return s, b
		}
	}
	return nil, make([]byte, 0, flushAt+fxtRoom)
}

// FXT writes the Fuchsia trace format, which Perfetto UI opens. Records
// are built word by word at the end of one buffer, written out when it
// passes fxtFlushAt (about 1 MiB; the output file's own block, filled in
// place, when it is an internal/outfile file): no allocation per event.
// The string table holds up to 32767 strings: when it is full, the
// entries are reused round robin (the string is defined again before its
// next use), skipping those the record being built refers to. The thread
// table (255 entries) works the same way (a record refers to one thread).
type FXT struct {
	w    io.Writer
	sink blockSink // w, when buf is its block
	buf  []byte
	strs *Strings
	err  error

	sidx  []uint16 // Str -> string index (0: not in the table)
	sown  [fxtMaxStrings + 1]Str
	snext uint16
	// sgen[i] == gen: index i is referred to by the record being built,
	// which starts a new gen.
	sgen [fxtMaxStrings + 1]uint32
	gen  uint32

	tidx   []uint8 // Track -> thread index
	town   [fxtMaxThreads + 1]Track
	tnext  uint8
	tracks []fxtTrack

	// The references of the record being built: names, values.
	argName, argVal [MaxArgs]uint16

	// recent caches the words of recent Begin and End records after
	// their thread and type (header, arguments), by category, name and
	// argument list (a function's, whose contents never change: the
	// same slice): a call's records are mostly some function's again.
	// An entry holds while no string index was reused since (epoch).
	recent [fxtRecent]fxtRecord
	epoch  uint32
}

// fxtRecent is the size of FXT.recent.
const (
	fxtRecentBits = 9
	fxtRecent     = 1 << fxtRecentBits
)

// fxtMaxCached is the most argument words a cached record holds
// (fxtRecord.put writes that many).
const fxtMaxCached = 6

type fxtRecord struct {
	cat, name Str
	args      *Arg // the argument list's first (nil: none)
	nargs     int
	epoch     uint32
	hdr       uint64 // the header word but type and thread
	nw        int
	words     [8 * fxtMaxCached]byte // the argument words, as written
}

type fxtTrack struct{ pid, tid int32 }

// NewFXT starts a Fuchsia trace on w: the magic number and an
// initialization record (1 tick = 1 ns).
func NewFXT(w io.Writer, strs *Strings) *FXT {
	f := &FXT{w: w, strs: strs}
	f.sink, f.buf = sinkBlock(w, fxtFlushAt)
	f.word(fxtMagic)
	f.word(fxtInit | 2<<4)
	f.word(1e9)
	return f
}

func (f *FXT) word(v uint64) { f.buf = binary.LittleEndian.AppendUint64(f.buf, v) }

// bytes appends b padded with zeros to a multiple of 8 bytes.
func (f *FXT) bytes(b string) {
	f.buf = append(f.buf, b...)
	if r := len(b) & 7; r != 0 {
		var zero [8]byte
		f.buf = append(f.buf, zero[:8-r]...)
	}
}

func (f *FXT) flush() {
	if f.sink != nil {
		f.buf = f.sink.Next(f.buf)
		return
	}
	if f.err == nil && len(f.buf) > 0 {
		_, f.err = f.w.Write(f.buf)
	}
	f.buf = f.buf[:0]
}

// done ends a record: the buffer is written out when full enough.
func (f *FXT) done() {
	if len(f.buf) >= fxtFlushAt {
		f.flush()
	}
}

func words(n int) uint64 { return uint64(n+7) / 8 }

// fxtText returns s as valid UTF-8 cut to the format's longest string,
// at a rune boundary.
func fxtText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= fxtMaxStrLen {
		return s
	}
	n := fxtMaxStrLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// str returns the string reference of s, writing a string record first
// when s is not in the table.
func (f *FXT) str(s Str) uint16 {
	if s == 0 {
		return 0
	}
	if int(s) < len(f.sidx) {
		if i := f.sidx[s]; i != 0 {
			f.sgen[i] = f.gen
			return i
		}
	} else {
		n := max(int(s)+1, 2*len(f.sidx))
		f.sidx = append(f.sidx, make([]uint16, n-len(f.sidx))...)
	}
	for {
		f.snext++
		if f.snext > fxtMaxStrings {
			f.snext = 1
		}
		if f.sgen[f.snext] != f.gen {
			break
		}
	}
	i := f.snext
	f.sgen[i] = f.gen
	if old := f.sown[i]; old != 0 {
		f.sidx[old] = 0
		f.epoch++ // cached records may refer to it (recent)
	}
	f.sown[i], f.sidx[s] = s, i
	t := fxtText(f.strs.String(s))
	f.word(fxtString | (1+words(len(t)))<<4 | uint64(i)<<16 | uint64(len(t))<<32)
	f.bytes(t)
	return i
}

// thread returns the thread reference of t, writing a thread record
// first when t is not in the table.
func (f *FXT) thread(t Track) uint8 {
	if int(t) < len(f.tidx) {
		if i := f.tidx[t]; i != 0 {
			return i
		}
	}
	for int(t) >= len(f.tidx) {
		f.tidx = append(f.tidx, 0)
	}
	f.tnext++
	if f.tnext == 0 {
		f.tnext = 1
	}
	i := f.tnext
	if old := f.town[i]; f.tidx[old] == i {
		f.tidx[old] = 0
	}
	f.town[i], f.tidx[t] = t, i
	tr := f.tracks[t]
	f.word(fxtThread | 3<<4 | uint64(i)<<16)
	f.word(uint64(uint32(tr.pid)))
	f.word(uint64(uint32(tr.tid)))
	return i
}

// argsRefs defines the strings of args and returns their size in words.
func (f *FXT) argRefs(args []Arg) uint64 {
	var n uint64
	for k := range args {
		a := &args[k]
		f.argName[k] = f.str(a.Name)
		switch a.Kind {
		case ArgString:
			f.argVal[k] = f.str(a.S)
			n++
		case ArgUint:
			n += 1 + b2w(a.U > 0xffffffff)
		case ArgInt:
			n += 1 + b2w(int64(a.U) != int64(int32(a.U)))
		default:
			n += 2
		}
	}
	return n
}

func b2w(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// args writes the arguments whose references argRefs made.
func (f *FXT) args(args []Arg) {
	for k := range args {
		a := &args[k]
		h := uint64(f.argName[k]) << 16
		switch a.Kind {
		case ArgString:
			f.word(fxtArgString | 1<<4 | h | uint64(f.argVal[k])<<32)
		case ArgUint:
			if a.U > 0xffffffff {
				f.word(fxtArgUint64 | 2<<4 | h)
				f.word(a.U)
			} else {
				f.word(fxtArgUint32 | 1<<4 | h | a.U<<32)
			}
		case ArgInt:
			if int64(a.U) != int64(int32(a.U)) {
				f.word(fxtArgInt64 | 2<<4 | h)
				f.word(a.U)
			} else {
				f.word(fxtArgInt32 | 1<<4 | h | uint64(uint32(a.U))<<32)
			}
		case ArgFloat:
			f.word(fxtArgDouble | 2<<4 | h)
			f.word(a.U)
		default:
			f.word(fxtArgPointer | 2<<4 | h)
			f.word(a.U)
		}
	}
}

// event writes an event record; extra is the event type's word (the end
// time of a complete event, a counter's id), written when hasExtra.
func (f *FXT) event(typ uint64, t Track, ts uint64, cat, name Str, args []Arg, extra uint64, hasExtra bool) {
	if len(args) > MaxArgs {
		args = args[:MaxArgs]
	}
	f.gen++
	th := f.thread(t)
	c, n := f.str(cat), f.str(name)
	size := 2 + f.argRefs(args) + b2w(hasExtra)
	at := len(f.buf)
	hdr := fxtEvent | size<<4 | uint64(len(args))<<20 | uint64(c)<<32 | uint64(n)<<48
	f.word(hdr | typ<<16 | uint64(th)<<24)
	f.word(ts)
	f.args(args)
	if hasExtra {
		f.word(extra)
	}
	if (typ == fxtBegin || typ == fxtEnd) && len(args) <= fxtMaxCached/2 {
		// Remember the record for cachedEvent.
		e := &f.recent[recentIdx(cat, name)]
		e.cat, e.name, e.nargs, e.epoch, e.hdr, e.args = cat, name, len(args), f.epoch, hdr, nil
		if len(args) > 0 {
			e.args = &args[0]
		}
		w := f.buf[at+16:]
		e.nw = len(w) / 8
		copy(e.words[:], w)
	}
	f.done()
}

// put appends the record of e to buf, whose capacity has room for
// fxtMaxCached words after its header and time: its header with the type
// and thread th, and time ts. It copies all the words (one move of a
// fixed size, one bounds check) and keeps the record's.
func (e *fxtRecord) put(buf []byte, th, ts uint64) []byte {
	n := len(buf)
	b := buf[n : n+16+8*fxtMaxCached]
	binary.LittleEndian.PutUint64(b, e.hdr|th)
	binary.LittleEndian.PutUint64(b[8:], ts)
	*(*[8 * fxtMaxCached]byte)(b[16:]) = e.words
	return buf[:n+16+8*e.nw]
}

func recentIdx(cat, name Str) uint32 {
	return (uint32(name) ^ uint32(cat)<<20) * 0x9e3779b1 >> (32 - fxtRecentBits)
}

// cachedEvent writes a Begin or End record (typ) as event would, from
// recent, and reports whether it could. (A cached record refers to no
// string it defines: the string table's gen need not move.)
func (f *FXT) cachedEvent(typ uint64, t Track, ts uint64, cat, name Str, args []Arg) bool {
	e := &f.recent[recentIdx(cat, name)]
	if e.name != name || e.cat != cat || e.epoch != f.epoch || e.nargs != len(args) || len(args) > 0 && e.args != &args[0] {
		return false
	}
	if int(t) >= len(f.tidx) || f.tidx[t] == 0 {
		return false // the thread record first (event)
	}
	n := len(f.buf)
	if n+16+8*fxtMaxCached > cap(f.buf) {
		return false // (not reached: done leaves room)
	}
	f.buf = e.put(f.buf, typ<<16|uint64(f.tidx[t])<<24, ts)
	if len(f.buf) >= fxtFlushAt {
		f.flush()
	}
	return true
}

// cached returns FXT.recent's record of a Begin or End of category cat,
// name and arguments args, or a record whose cat is 0 when it holds none.
func (f *FXT) cached(cat, name Str, args []Arg) fxtRecord {
	e := &f.recent[recentIdx(cat, name)]
	if e.name != name || e.cat != cat || e.epoch != f.epoch || e.nargs != len(args) || len(args) > 0 && e.args != &args[0] {
		return fxtRecord{}
	}
	return *e
}

// kernelObject names a process or thread koid; a thread's record says
// its process.
func (f *FXT) kernelObject(typ uint64, koid uint64, name Str, process int32) {
	f.gen++
	n := f.str(name)
	var pn uint16
	size := uint64(2)
	nargs := uint64(0)
	if typ == fxtObjThread {
		pn = f.str(f.strs.Intern("process"))
		size += 2
		nargs = 1
	}
	f.word(fxtKernelObject | size<<4 | typ<<16 | uint64(n)<<24 | nargs<<40)
	f.word(koid)
	if nargs != 0 {
		f.word(fxtArgKoid | 2<<4 | uint64(pn)<<16)
		f.word(uint64(uint32(process)))
	}
	f.done()
}

// Process writes a kernel object record naming the process.
func (f *FXT) Process(pid int32, name Str) {
	f.kernelObject(fxtObjProcess, uint64(uint32(pid)), name, 0)
}

// Thread defines track t and names its thread.
func (f *FXT) Thread(t Track, pid, tid int32, name Str) {
	for int(t) >= len(f.tracks) {
		f.tracks = append(f.tracks, fxtTrack{})
	}
	if old := f.tracks[t]; old != (fxtTrack{pid, tid}) && int(t) < len(f.tidx) && f.tidx[t] != 0 {
		// The track is another thread now: its table entry is stale.
		f.town[f.tidx[t]] = 0
		f.tidx[t] = 0
	}
	f.tracks[t] = fxtTrack{pid, tid}
	f.kernelObject(fxtObjThread, uint64(uint32(tid)), name, pid)
}

// Begin writes a duration begin event.
func (f *FXT) Begin(t Track, ts uint64, cat, name Str, args []Arg) {
	if f.cachedEvent(fxtBegin, t, ts, cat, name, args) {
		return
	}
	f.event(fxtBegin, t, ts, cat, name, args, 0, false)
}

// End writes a duration end event.
func (f *FXT) End(t Track, ts uint64, cat, name Str) {
	if f.cachedEvent(fxtEnd, t, ts, cat, name, nil) {
		return
	}
	f.event(fxtEnd, t, ts, cat, name, nil, 0, false)
}

// Complete writes a duration complete event.
func (f *FXT) Complete(t Track, start, end uint64, cat, name Str, args []Arg) {
	f.event(fxtComplete, t, start, cat, name, args, end, true)
}

// Instant writes an instant event.
func (f *FXT) Instant(t Track, ts uint64, cat, name Str, args []Arg) {
	f.event(fxtInstant, t, ts, cat, name, args, 0, false)
}

// Counter writes a counter event (counter id 0: the name says which).
func (f *FXT) Counter(t Track, ts uint64, cat, name Str, args []Arg) {
	f.event(fxtCounter, t, ts, cat, name, args, 0, true)
}

// Close writes out what is buffered.
func (f *FXT) Close() error {
	f.flush()
	return f.err
}
