package native

import (
	"encoding/binary"
	"errors"
	"sync/atomic"
	"unsafe"
)

// Offsets in struct perf_event_mmap_page (include/uapi/linux/perf_event.h)
// of the fields the ring protocol uses.
const (
	pageDataHead = 1024
	pageDataTail = 1032
	pageAuxHead  = 1056
	pageAuxTail  = 1064
)

// ErrShort is returned when a record in the ring is malformed.
var ErrShort = errors.New("malformed record in ring buffer")

// Ring is a perf ring buffer: a user page followed by the data area, and
// optionally an AUX area. It works on any memory (tests use plain slices).
type Ring struct {
	meta []byte // the user page (at least 4 KiB)
	data []byte // the data area (a power of two)
	aux  []byte // the AUX area (a power of two), or nil
	rec  []byte // scratch for records that wrap
}

// NewRing wraps the memory of a mapped event.
func NewRing(meta, data, aux []byte) *Ring { return &Ring{meta: meta, data: data, aux: aux} }

func (r *Ring) u64p(off int) *uint64 { return (*uint64)(unsafe.Pointer(&r.meta[off])) }

// The head is read with acquire semantics (the kernel writes the data, then
// the head); the tail is written with release semantics after the data was
// consumed, so that the kernel may reuse it. Go's atomics give both.
func (r *Ring) dataHead() uint64     { return atomic.LoadUint64(r.u64p(pageDataHead)) }
func (r *Ring) dataTail() uint64     { return atomic.LoadUint64(r.u64p(pageDataTail)) }
func (r *Ring) setDataTail(t uint64) { atomic.StoreUint64(r.u64p(pageDataTail), t) }
func (r *Ring) auxHead() uint64      { return atomic.LoadUint64(r.u64p(pageAuxHead)) }
func (r *Ring) auxTail() uint64      { return atomic.LoadUint64(r.u64p(pageAuxTail)) }
func (r *Ring) setAuxTail(t uint64)  { atomic.StoreUint64(r.u64p(pageAuxTail), t) }

// ReadRecords calls fn with each complete record between tail and head (a
// record that wraps is copied, so rec is only valid during the call), then
// releases them to the kernel. It returns the number of records.
func (r *Ring) ReadRecords(fn func(rec []byte) error) (int, error) {
	head := r.dataHead()
	tail := r.dataTail()
	size := uint64(len(r.data))
	n := 0
	for tail < head {
		if head-tail < 8 {
			return n, ErrShort
		}
		var hdr [8]byte
		r.copyOut(hdr[:], tail)
		rs := uint64(binary.LittleEndian.Uint16(hdr[6:]))
		if rs < 8 || rs > head-tail || rs > size {
			return n, ErrShort
		}
		start := tail % size
		var rec []byte
		if start+rs <= size {
			rec = r.data[start : start+rs]
		} else {
			if cap(r.rec) < int(rs) {
				r.rec = make([]byte, rs)
			}
			rec = r.rec[:rs]
			r.copyOut(rec, tail)
		}
		if err := fn(rec); err != nil {
			r.setDataTail(tail + rs)
			return n, err
		}
		tail += rs
		n++
	}
	r.setDataTail(tail)
	return n, nil
}

func (r *Ring) copyOut(dst []byte, pos uint64) {
	size := uint64(len(r.data))
	start := pos % size
	n := copy(dst, r.data[start:])
	copy(dst[n:], r.data)
}

// ReadAux calls fn with the AUX data between aux_tail and aux_head, as one
// or two slices (when it wraps) with the stream offset of the first byte,
// then releases it.
func (r *Ring) ReadAux(fn func(data []byte, off uint64) error) (uint64, error) {
	if len(r.aux) == 0 {
		return 0, nil
	}
	head := r.auxHead()
	tail := r.auxTail()
	size := uint64(len(r.aux))
	if head <= tail {
		return 0, nil
	}
	if head-tail > size {
		// Overwritten: only the last size bytes are valid.
		tail = head - size
	}
	n := head - tail
	start := tail % size
	first := min(n, size-start)
	if err := fn(r.aux[start:start+first], tail); err != nil {
		return 0, err
	}
	if first < n {
		if err := fn(r.aux[:n-first], tail+first); err != nil {
			return 0, err
		}
	}
	r.setAuxTail(head)
	return n, nil
}

// AuxSnapshot follows one AUX area mapped read-only, which the kernel
// fills in overwrite mode (perf record -S): aux_head is then an offset in
// the area and nothing tells how much of it is new. Like perf, the area is
// taken to have wrapped once any of its last 4 KiB is non-zero (it starts
// zeroed); from then on every snapshot is the whole area ending at head.
type AuxSnapshot struct {
	prev    uint64 // head at the previous snapshot (stream offset)
	wrapped bool
}

// Wrapped says whether the area has wrapped.
func (s *AuxSnapshot) Wrapped() bool { return s.wrapped }

// auxFirstWrap reports whether any byte of the last 4 KiB of aux is set.
func auxFirstWrap(aux []byte) bool {
	for _, b := range aux[max(0, len(aux)-4096):] {
		if b != 0 {
			return true
		}
	}
	return false
}

// ReadAuxSnapshot calls fn with the AUX data written since the previous
// snapshot, at most limit bytes (0: the whole area) ending at aux_head, as
// one or two slices with the stream offset of their first byte. The event
// should be disabled meanwhile (PERF_EVENT_IOC_DISABLE), as perf does. It
// does not write aux_tail: in overwrite mode the kernel ignores it.
func (r *Ring) ReadAuxSnapshot(s *AuxSnapshot, limit uint64, fn func(data []byte, off uint64) error) (uint64, error) {
	size := uint64(len(r.aux))
	if size == 0 {
		return 0, nil
	}
	head := r.auxHead() % size
	if !s.wrapped && auxFirstWrap(r.aux) {
		s.wrapped = true
	}
	var old uint64
	if s.wrapped {
		old, head = head, head+size
	} else {
		old = s.prev % size
		if old > head {
			head += size
		}
	}
	if old == head {
		return 0, nil
	}
	n := head - old
	if limit > 0 && n > limit {
		n = limit
	}
	off := head - n
	start := off % size
	first := min(n, size-start)
	if err := fn(r.aux[start:start+first], off); err != nil {
		return 0, err
	}
	if first < n {
		if err := fn(r.aux[:n-first], off+first); err != nil {
			return 0, err
		}
	}
	s.prev = head
	return n, nil
}
