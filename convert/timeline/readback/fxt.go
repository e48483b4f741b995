package readback

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"
)

// fxtReader reads a Fuchsia trace record by record.
type fxtReader struct {
	r       io.Reader
	off     int64 // offset of the record being read
	rec     []byte
	strs    map[uint16]string
	threads map[uint8][2]uint64
	// koids named by kernel object records: thread koid -> process koid
	threadProc map[uint64]uint64
	info       *Info
	ticks      uint64 // ticks per second
}

func (x *fxtReader) fail(format string, a ...any) error {
	return &Error{Offset: x.off, Msg: fmt.Sprintf(format, a...)}
}

// ReadFXT reads a Fuchsia trace (see ReadFile): the magic number record
// first, then records of the types the spec defines, each exactly as long
// as its header says, string and thread references to entries defined
// before.
func ReadFXT(r io.Reader, fn func(*Event) error) (*Info, error) {
	x := &fxtReader{r: r, strs: map[uint16]string{}, threads: map[uint8][2]uint64{},
		threadProc: map[uint64]uint64{}, ticks: 1e9,
		info: &Info{Format: "fxt", Threads: map[[2]int64]string{}, Processes: map[int64]string{}}}
	var ev Event
	first := true
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			if errors.Is(err, io.EOF) && !first {
				return x.info, nil
			}
			return x.info, x.fail("truncated record header: %v", err)
		}
		h := binary.LittleEndian.Uint64(hdr[:])
		if first {
			if h != 0x0016547846040010 {
				return x.info, x.fail("no magic number record first (%#x)", h)
			}
			first = false
			x.off += 8
			x.info.Records++
			continue
		}
		typ := h & 15
		size := int(h >> 4 & 0xfff)
		if typ == 15 {
			return x.info, x.fail("large record (type 15): not written by perfpt")
		}
		if size == 0 {
			return x.info, x.fail("record of size 0")
		}
		if cap(x.rec) < size*8 {
			x.rec = make([]byte, size*8)
		}
		x.rec = x.rec[:size*8]
		copy(x.rec, hdr[:])
		if _, err := io.ReadFull(r, x.rec[8:]); err != nil {
			return x.info, x.fail("record of %d words truncated: %v", size, err)
		}
		x.info.Records++
		var err error
		switch typ {
		case 0:
			err = x.metadata(h)
		case 1:
			if size != 2 {
				err = x.fail("initialization record of %d words", size)
			} else if x.ticks = binary.LittleEndian.Uint64(x.rec[8:]); x.ticks == 0 {
				err = x.fail("0 ticks per second")
			}
		case 2:
			err = x.stringRecord(h)
		case 3:
			err = x.threadRecord(h)
		case 4:
			ev = Event{Offset: x.off, Args: ev.Args[:0]}
			if err = x.event(h, &ev); err == nil {
				err = fn(&ev)
			}
		case 7:
			err = x.kernelObject(h)
		default:
			err = x.fail("record type %d: not written by perfpt", typ)
		}
		if err != nil {
			return x.info, err
		}
		x.off += int64(size) * 8
	}
}

func (x *fxtReader) metadata(h uint64) error {
	if h>>16&15 == 4 && h>>20&15 == 0 {
		return x.fail("magic number record again")
	}
	return nil
}

func (x *fxtReader) stringRecord(h uint64) error {
	idx := uint16(h >> 16 & 0xffff)
	n := int(h >> 32 & 0xffff)
	if idx&0x8000 != 0 || n&0x8000 != 0 || h>>48 != 0 {
		return x.fail("string record with bits 31, 47 or 48-63 set (%#x)", h)
	}
	if idx == 0 {
		return x.fail("string record for index 0")
	}
	if 8+(n+7)/8*8 != len(x.rec) {
		return x.fail("string of %d bytes in a record of %d words", n, len(x.rec)/8)
	}
	s := string(x.rec[8 : 8+n])
	if !utf8.ValidString(s) {
		return x.fail("string %d is not UTF-8", idx)
	}
	for _, b := range x.rec[8+n:] {
		if b != 0 {
			return x.fail("string padding not zero")
		}
	}
	x.strs[idx] = s
	return nil
}

func (x *fxtReader) threadRecord(h uint64) error {
	idx := uint8(h >> 16)
	if idx == 0 {
		return x.fail("thread record for index 0")
	}
	if len(x.rec) != 24 || h>>24 != 0 {
		return x.fail("thread record of %d words, header %#x", len(x.rec)/8, h)
	}
	x.threads[idx] = [2]uint64{binary.LittleEndian.Uint64(x.rec[8:]), binary.LittleEndian.Uint64(x.rec[16:])}
	return nil
}

// cursor reads the words of the record after the header.
type cursor struct {
	x   *fxtReader
	pos int
}

func (c *cursor) word() (uint64, error) {
	if c.pos+8 > len(c.x.rec) {
		return 0, c.x.fail("record too short for its contents")
	}
	v := binary.LittleEndian.Uint64(c.x.rec[c.pos:])
	c.pos += 8
	return v, nil
}

// str resolves a string reference: an index defined before, or an
// inline string read here.
func (c *cursor) str(ref uint16) (string, error) {
	if ref == 0 {
		return "", nil
	}
	if ref&0x8000 == 0 {
		s, ok := c.x.strs[ref]
		if !ok {
			return "", c.x.fail("string index %d used before it is defined", ref)
		}
		return s, nil
	}
	n := int(ref & 0x7fff)
	end := c.pos + (n+7)/8*8
	if end > len(c.x.rec) {
		return "", c.x.fail("inline string of %d bytes past the record", n)
	}
	s := string(c.x.rec[c.pos : c.pos+n])
	c.pos = end
	return s, nil
}

// thread resolves a thread reference.
func (c *cursor) thread(ref uint8) (pid, tid uint64, err error) {
	if ref == 0 {
		if pid, err = c.word(); err == nil {
			tid, err = c.word()
		}
		return
	}
	t, ok := c.x.threads[ref]
	if !ok {
		return 0, 0, c.x.fail("thread index %d used before it is defined", ref)
	}
	return t[0], t[1], nil
}

// args reads n arguments.
func (c *cursor) args(n int, out []Arg) ([]Arg, error) {
	for i := 0; i < n; i++ {
		start := c.pos
		h, err := c.word()
		if err != nil {
			return out, err
		}
		typ := h & 15
		size := int(h >> 4 & 0xfff)
		name, err := c.str(uint16(h >> 16))
		if err != nil {
			return out, err
		}
		if name == "" {
			return out, c.x.fail("argument without a name")
		}
		var v any
		switch typ {
		case 1:
			v = int64(int32(h >> 32))
		case 2:
			v = h >> 32
		case 3, 4, 5, 7, 8:
			if h>>32 != 0 {
				return out, c.x.fail("argument %q of type %d with bits 32-63 set", name, typ)
			}
			w, err := c.word()
			if err != nil {
				return out, err
			}
			switch typ {
			case 3:
				v = int64(w)
			case 5:
				v = math.Float64frombits(w)
			default:
				v = w
			}
		case 6:
			if h>>48 != 0 {
				return out, c.x.fail("string argument %q with bits 48-63 set", name)
			}
			if v, err = c.str(uint16(h >> 32)); err != nil {
				return out, err
			}
		case 9:
			v = h>>32&1 != 0
		default:
			return out, c.x.fail("argument %q of unknown type %d", name, typ)
		}
		if c.pos-start != size*8 {
			return out, c.x.fail("argument %q of type %d: %d words, its header says %d", name, typ, (c.pos-start)/8, size)
		}
		out = append(out, Arg{Name: name, Val: v})
	}
	return out, nil
}

func (x *fxtReader) event(h uint64, e *Event) error {
	etype := h >> 16 & 15
	nargs := int(h >> 20 & 15)
	c := &cursor{x: x, pos: 8}
	ts, err := c.word()
	if err != nil {
		return err
	}
	pid, tid, err := c.thread(uint8(h >> 24))
	if err != nil {
		return err
	}
	if e.Cat, err = c.str(uint16(h >> 32)); err != nil {
		return err
	}
	if e.Name, err = c.str(uint16(h >> 48)); err != nil {
		return err
	}
	if e.Args, err = c.args(nargs, e.Args); err != nil {
		return err
	}
	e.Pid, e.Tid, e.Ts = int64(pid), int64(tid), x.ns(ts)
	switch etype {
	case 0:
		e.Phase = 'i'
	case 1:
		e.Phase = 'C'
		if _, err := c.word(); err != nil { // counter id
			return err
		}
	case 2:
		e.Phase = 'B'
	case 3:
		e.Phase = 'E'
	case 4:
		e.Phase = 'X'
		end, err := c.word()
		if err != nil {
			return err
		}
		if e.End = x.ns(end); e.End < e.Ts {
			return x.fail("complete event %q ends (%d) before it starts (%d)", e.Name, e.End, e.Ts)
		}
	default:
		return x.fail("event type %d: not written by perfpt", etype)
	}
	if c.pos != len(x.rec) {
		return x.fail("event record of %d words holds %d", len(x.rec)/8, c.pos/8)
	}
	if e.Phase != 'E' && e.Name == "" {
		return x.fail("event of type %d without a name", etype)
	}
	return nil
}

func (x *fxtReader) ns(ticks uint64) uint64 {
	if x.ticks == 1e9 {
		return ticks
	}
	return uint64(float64(ticks) * 1e9 / float64(x.ticks))
}

func (x *fxtReader) kernelObject(h uint64) error {
	typ := h >> 16 & 0xff
	nargs := int(h >> 40 & 15)
	c := &cursor{x: x, pos: 8}
	koid, err := c.word()
	if err != nil {
		return err
	}
	name, err := c.str(uint16(h >> 24))
	if err != nil {
		return err
	}
	args, err := c.args(nargs, nil)
	if err != nil {
		return err
	}
	if c.pos != len(x.rec) {
		return x.fail("kernel object record of %d words holds %d", len(x.rec)/8, c.pos/8)
	}
	switch typ {
	case 1:
		x.info.Processes[int64(koid)] = name
	case 2:
		var proc any
		for _, a := range args {
			if a.Name == "process" {
				proc = a.Val
			}
		}
		p, ok := proc.(uint64)
		if !ok {
			return x.fail("thread %d named without its process", koid)
		}
		x.threadProc[koid] = p
		x.info.Threads[[2]int64{int64(p), int64(koid)}] = name
	default:
		return x.fail("kernel object of type %d: not written by perfpt", typ)
	}
	return nil
}
