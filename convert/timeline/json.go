package timeline

import (
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// JSON writes Chrome's JSON Trace Event Format (a "traceEvents" array of
// objects with ph, pid, tid, ts in microseconds; B/E, X, i, C and M
// phases), which Perfetto UI, chrome://tracing, speedscope and Firefox
// Profiler open. Timestamps are written with three decimals: nanosecond
// precision. Each string is escaped once and kept quoted by Str; events
// are appended to one buffer written out when it passes about 1 MiB (the
// output file's own block when it can: blockSink).
//
// End events carry the name of their slice, as speedscope needs to match
// them; the arguments stay on the Begin.
type JSON struct {
	w      io.Writer
	sink   blockSink // w, when buf is its block
	buf    []byte
	strs   *Strings
	err    error
	quoted [][]byte // Str -> the JSON string literal
	tracks []fxtTrack
	// heads[t] is `","pid":P,"tid":T,"ts":` of track t; durHeads[t]
	// what a Begin ([0]) and an End ([1]) of track t write before their
	// time, after another event: `,\n{"ph":"B","pid":P,"tid":T,"ts":`.
	heads    [][]byte
	durHeads [][2][]byte
	n        int // events written
	// recent keeps what follows the time in recent Begin and End events,
	// by category, name and argument list (a function's, whose contents
	// never change: the same slice), as FXT.recent does: a call's events
	// are mostly some function's again.
	recent [fxtRecent]jsonTail
	// us holds the digits of the microseconds of the last timestamp
	// written, lastUs: consecutive events mostly fall in the same
	// microsecond.
	us     [20]byte
	usLen  int
	lastUs uint64
}

type jsonTail struct {
	cat, name Str
	args      *Arg // the argument list's first (nil: none)
	nargs     int
	b         []byte
}

const jsonFlushAt = fxtFlushAt

// NewJSON starts a JSON trace on w.
func NewJSON(w io.Writer, strs *Strings) *JSON {
	j := &JSON{w: w, strs: strs}
	j.sink, j.buf = sinkBlock(w, jsonFlushAt)
	j.buf = append(j.buf, `{"displayTimeUnit":"ns","traceEvents":[`...)
	return j
}

// q returns the quoted literal of s.
func (j *JSON) q(s Str) []byte {
	if int(s) >= len(j.quoted) {
		n := max(int(s)+1, 2*len(j.quoted))
		j.quoted = append(j.quoted, make([][]byte, n-len(j.quoted))...)
	}
	if b := j.quoted[s]; b != nil {
		return b
	}
	b := appendJSONString(nil, j.strs.String(s))
	j.quoted[s] = b
	return b
}

// appendJSONString appends s as a JSON string literal; invalid UTF-8
// becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&15])
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// appendMicros appends ns as microseconds with three decimals.
func appendMicros(b []byte, ns uint64) []byte {
	b = strconv.AppendUint(b, ns/1000, 10)
	f := ns % 1000
	return append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

// head starts an event object: phase, pid, tid and ts.
func (j *JSON) head(ph byte, t Track, ts uint64) {
	if j.n > 0 {
		j.buf = append(j.buf, ",\n{\"ph\":\""...)
	} else {
		j.buf = append(j.buf, `{"ph":"`...)
	}
	j.n++
	j.buf = append(j.buf, ph)
	j.buf = append(j.buf, j.heads[t]...)
	j.micros(ts)
}

// micros is appendMicros, with the digits of the microseconds from us.
func (j *JSON) micros(ts uint64) {
	if us := ts / 1000; us != j.lastUs || j.usLen == 0 {
		j.usLen = len(strconv.AppendUint(j.us[:0], us, 10))
		j.lastUs = us
	}
	f := ts % 1000
	j.buf = append(j.buf, j.us[:j.usLen]...)
	j.buf = append(j.buf, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

func (j *JSON) names(cat, name Str) {
	if cat != 0 {
		j.buf = append(j.buf, `,"cat":`...)
		j.buf = append(j.buf, j.q(cat)...)
	}
	j.buf = append(j.buf, `,"name":`...)
	j.buf = append(j.buf, j.q(name)...)
}

func (j *JSON) args(args []Arg) {
	if len(args) == 0 {
		return
	}
	j.buf = append(j.buf, `,"args":{`...)
	for k := range args {
		a := &args[k]
		if k > 0 {
			j.buf = append(j.buf, ',')
		}
		j.buf = append(j.buf, j.q(a.Name)...)
		j.buf = append(j.buf, ':')
		switch a.Kind {
		case ArgString:
			j.buf = append(j.buf, j.q(a.S)...)
		case ArgUint:
			j.buf = strconv.AppendUint(j.buf, a.U, 10)
		case ArgInt:
			j.buf = strconv.AppendInt(j.buf, int64(a.U), 10)
		case ArgFloat:
			v := math.Float64frombits(a.U)
			if math.IsInf(v, 0) || math.IsNaN(v) {
				j.buf = append(j.buf, "null"...)
			} else {
				j.buf = strconv.AppendFloat(j.buf, v, 'g', -1, 64)
			}
		default:
			j.buf = append(j.buf, `"0x`...)
			j.buf = strconv.AppendUint(j.buf, a.U, 16)
			j.buf = append(j.buf, '"')
		}
	}
	j.buf = append(j.buf, '}')
}

func (j *JSON) end() {
	j.buf = append(j.buf, '}')
	if len(j.buf) >= jsonFlushAt {
		j.flush()
	}
}

func (j *JSON) flush() {
	if j.sink != nil {
		j.buf = j.sink.Next(j.buf)
		return
	}
	if j.err == nil && len(j.buf) > 0 {
		_, j.err = j.w.Write(j.buf)
	}
	j.buf = j.buf[:0]
}

// meta writes a metadata event (process_name, thread_name).
func (j *JSON) meta(what string, pid, tid int32, name Str) {
	if j.n > 0 {
		j.buf = append(j.buf, ',', '\n')
	}
	j.n++
	j.buf = append(j.buf, `{"ph":"M","pid":`...)
	j.buf = strconv.AppendInt(j.buf, int64(pid), 10)
	if what == "thread_name" {
		j.buf = append(j.buf, `,"tid":`...)
		j.buf = strconv.AppendInt(j.buf, int64(tid), 10)
	}
	j.buf = append(j.buf, `,"name":"`...)
	j.buf = append(j.buf, what...)
	j.buf = append(j.buf, `","args":{"name":`...)
	j.buf = append(j.buf, j.q(name)...)
	j.buf = append(j.buf, '}')
	j.end()
}

// Process writes a process_name metadata event.
func (j *JSON) Process(pid int32, name Str) { j.meta("process_name", pid, 0, name) }

// Thread defines track t and writes a thread_name metadata event.
func (j *JSON) Thread(t Track, pid, tid int32, name Str) {
	for int(t) >= len(j.tracks) {
		j.tracks = append(j.tracks, fxtTrack{})
	}
	j.tracks[t] = fxtTrack{pid, tid}
	for int(t) >= len(j.heads) {
		j.heads = append(j.heads, nil)
	}
	h := append([]byte(`","pid":`), strconv.Itoa(int(pid))...)
	h = append(append(h, `,"tid":`...), strconv.Itoa(int(tid))...)
	j.heads[t] = append(h, `,"ts":`...)
	for int(t) >= len(j.durHeads) {
		j.durHeads = append(j.durHeads, [2][]byte{})
	}
	for k, ph := range "BE" {
		j.durHeads[t][k] = append(append([]byte(",\n{\"ph\":\""), byte(ph)), j.heads[t]...)
	}
	j.meta("thread_name", pid, tid, name)
}

// Begin writes a "B" event.
func (j *JSON) Begin(t Track, ts uint64, cat, name Str, args []Arg) {
	j.dur(0, t, ts, cat, name, args)
}

// End writes an "E" event.
func (j *JSON) End(t Track, ts uint64, cat, name Str) { j.dur(1, t, ts, cat, name, nil) }

// dur writes a Begin (k 0) or End (1) event: head, tail and end in one
// call, what precedes the time from durHeads and the tail from recent
// when they have them.
func (j *JSON) dur(k int, t Track, ts uint64, cat, name Str, args []Arg) {
	if j.n > 0 {
		j.n++
		j.buf = append(j.buf, j.durHeads[t][k]...)
		j.micros(ts)
	} else {
		j.head("BE"[k], t, ts)
	}
	e := &j.recent[recentIdx(cat, name)]
	if e.b != nil && e.name == name && e.cat == cat && e.nargs == len(args) && (len(args) == 0 || e.args == &args[0]) {
		j.buf = append(j.buf, e.b...)
	} else {
		j.tail(cat, name, args)
	}
	j.buf = append(j.buf, '}')
	if len(j.buf) >= jsonFlushAt {
		j.flush()
	}
}

// tail writes the names and arguments of a Begin or End event, from
// recent when it has them.
func (j *JSON) tail(cat, name Str, args []Arg) {
	e := &j.recent[recentIdx(cat, name)]
	var a0 *Arg
	if len(args) > 0 {
		a0 = &args[0]
	}
	if e.b != nil && e.name == name && e.cat == cat && e.nargs == len(args) && e.args == a0 {
		j.buf = append(j.buf, e.b...)
		return
	}
	n := len(j.buf)
	j.names(cat, name)
	j.args(args)
	e.cat, e.name, e.args, e.nargs = cat, name, a0, len(args)
	e.b = append(e.b[:0], j.buf[n:]...)
}

// Complete writes an "X" event.
func (j *JSON) Complete(t Track, start, end uint64, cat, name Str, args []Arg) {
	j.head('X', t, start)
	j.buf = append(j.buf, `,"dur":`...)
	j.buf = appendMicros(j.buf, end-start)
	j.names(cat, name)
	j.args(args)
	j.end()
}

// Instant writes an "i" event with thread scope.
func (j *JSON) Instant(t Track, ts uint64, cat, name Str, args []Arg) {
	j.head('i', t, ts)
	j.buf = append(j.buf, `,"s":"t"`...)
	j.names(cat, name)
	j.args(args)
	j.end()
}

// Counter writes a "C" event.
func (j *JSON) Counter(t Track, ts uint64, cat, name Str, args []Arg) {
	j.head('C', t, ts)
	j.names(cat, name)
	j.args(args)
	j.end()
}

// Close ends the array and the object and writes out the buffer.
func (j *JSON) Close() error {
	j.buf = append(j.buf, "]}\n"...)
	j.flush()
	return j.err
}
