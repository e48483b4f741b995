// Package image holds the memory image a trace is decoded against: code
// sections mapped at virtual addresses, like libipt's pt_image.
//
// A Section is the immutable content of a file (or a byte slice); a Cache
// shares sections between images and goroutines. An Image maps ranges of
// sections at addresses. Adding a mapping that overlaps earlier ones cuts
// those (the newest mapping wins where they overlap), as pt_image_add does.
//
// An Image is safe for concurrent readers once built; changing it while
// decoders read it needs outside synchronisation (use Clone to give a decoder
// its own copy, e.g. one image per process).
package image

import (
	"errors"
	"fmt"
	"sort"
	"sync/atomic"
)

// ErrNoMap reports an address no section is mapped at.
var ErrNoMap = errors.New("no memory mapped at this address")

// Section is the immutable content of a file or buffer.
type Section struct {
	Name string // file name, for messages
	Data []byte
}

var mappingIDs atomic.Uint64

// Mapping is a range of a section mapped at [Start, End).
type Mapping struct {
	Start, End uint64
	Sec        *Section
	Offset     uint64 // offset of Start in Sec.Data
	// ID identifies the mapping for caches: every Add and every cut makes a
	// new ID, so decoders may cache decoded blocks per ID.
	ID uint64
}

// Bytes returns the mapped bytes from ip to the end of the mapping.
func (m *Mapping) Bytes(ip uint64) []byte {
	if ip < m.Start || ip >= m.End {
		return nil
	}
	o := m.Offset + (ip - m.Start)
	return m.Sec.Data[o : m.Offset+(m.End-m.Start)]
}

// Contains reports whether ip is in the mapping.
func (m *Mapping) Contains(ip uint64) bool { return ip >= m.Start && ip < m.End }

// Image is a set of non-overlapping mappings sorted by address.
type Image struct {
	Name string
	maps []Mapping
	gen  uint64 // changes with every change of the mappings
}

// Generation changes whenever the mappings change; *Mapping pointers from
// Find are valid only while it stays the same.
func (im *Image) Generation() uint64 { return im.gen }

// New returns an empty image.
func New(name string) *Image { return &Image{Name: name} }

// Clone returns a copy that can be changed independently.
func (im *Image) Clone() *Image {
	return &Image{Name: im.Name, maps: append([]Mapping(nil), im.maps...)}
}

// Mappings returns the mappings in address order; do not modify them.
func (im *Image) Mappings() []Mapping { return im.maps }

// Add maps size bytes of sec from offset at vaddr. size 0 means to the end of
// the section. Parts of earlier mappings under the new one are removed.
func (im *Image) Add(sec *Section, offset, size, vaddr uint64) error {
	if offset > uint64(len(sec.Data)) {
		return fmt.Errorf("image: %s: offset %#x beyond size %#x", sec.Name, offset, len(sec.Data))
	}
	if size == 0 || size > uint64(len(sec.Data))-offset {
		size = uint64(len(sec.Data)) - offset
	}
	if size == 0 {
		return fmt.Errorf("image: %s: empty section", sec.Name)
	}
	end := vaddr + size
	if end < vaddr {
		return fmt.Errorf("image: %s: mapping at %#x wraps around", sec.Name, vaddr)
	}
	im.Remove(vaddr, end)
	im.gen++
	nm := Mapping{Start: vaddr, End: end, Sec: sec, Offset: offset, ID: mappingIDs.Add(1)}
	i := sort.Search(len(im.maps), func(i int) bool { return im.maps[i].Start >= vaddr })
	im.maps = append(im.maps, Mapping{})
	copy(im.maps[i+1:], im.maps[i:])
	im.maps[i] = nm
	return nil
}

// AddBytes maps a copy-free section over data at vaddr.
func (im *Image) AddBytes(name string, data []byte, vaddr uint64) error {
	return im.Add(&Section{Name: name, Data: data}, 0, 0, vaddr)
}

// Remove unmaps [start, end), cutting mappings that overlap it.
func (im *Image) Remove(start, end uint64) {
	out := im.maps[:0:0]
	changed := false
	for _, m := range im.maps {
		if m.End <= start || m.Start >= end {
			out = append(out, m)
			continue
		}
		changed = true
		if m.Start < start {
			l := m
			l.End = start
			l.ID = mappingIDs.Add(1)
			out = append(out, l)
		}
		if m.End > end {
			r := m
			r.Offset += end - m.Start
			r.Start = end
			r.ID = mappingIDs.Add(1)
			out = append(out, r)
		}
	}
	if changed {
		im.maps = out
		im.gen++
	}
}

// RemoveSection unmaps every mapping of sec.
func (im *Image) RemoveSection(sec *Section) {
	out := im.maps[:0:0]
	for _, m := range im.maps {
		if m.Sec != sec {
			out = append(out, m)
		}
	}
	im.maps = out
	im.gen++
}

// Find returns the mapping containing ip.
func (im *Image) Find(ip uint64) (*Mapping, bool) {
	ms := im.maps
	lo, hi := 0, len(ms)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if ms[h].End <= ip {
			lo = h + 1
		} else {
			hi = h
		}
	}
	if lo < len(ms) && ms[lo].Start <= ip {
		return &ms[lo], true
	}
	return nil, false
}

// Read copies bytes at ip into buf from the one mapping containing ip (it
// does not cross into the next mapping) and returns how many it copied, or
// ErrNoMap.
func (im *Image) Read(buf []byte, ip uint64) (int, error) {
	m, ok := im.Find(ip)
	if !ok {
		return 0, ErrNoMap
	}
	return copy(buf, m.Bytes(ip)), nil
}
