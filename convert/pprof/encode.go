package pprof

import (
	"maps"
	"reflect"
	"slices"

	"github.com/google/pprof/profile"
)

// encoder writes a profile as profile.proto's Profile message, as
// profile.Profile.WriteUncompressed does. Its cost is what it saves: the
// profile package sorts and interns every sample's labels anew, which for
// a PT profile of tens of thousands of samples, all with the labels of
// their thread, cost as much as the compression; here a sample with the
// label maps of the sample before it reuses that sample's encoded labels.
type encoder struct {
	sub     []byte // a nested message being encoded
	strs    map[string]int64
	table   []string
	labels  []byte // the encoded labels of the last label maps
	lastLbl [3]uintptr
}

// Protocol buffer wire types.
const (
	wireVarint = 0
	wireBytes  = 2
)

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendKey(b []byte, field, wire int) []byte {
	return appendVarint(b, uint64(field<<3|wire))
}

// appendUint appends field = v, omitted when 0 (proto3).
func appendUint(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return appendVarint(appendKey(b, field, wireVarint), v)
}

func appendInt(b []byte, field int, v int64) []byte { return appendUint(b, field, uint64(v)) }

func appendBool(b []byte, field int, v bool) []byte {
	if !v {
		return b
	}
	return appendUint(b, field, 1)
}

// appendBytes appends a length-delimited field.
func appendBytes(b []byte, field int, v []byte) []byte {
	b = appendVarint(appendKey(b, field, wireBytes), uint64(len(v)))
	return append(b, v...)
}

// appendPacked appends a packed repeated varint field, omitted when empty.
func appendPacked[T int64 | uint64](b []byte, field int, vs []T) []byte {
	if len(vs) == 0 {
		return b
	}
	n := 0
	for _, v := range vs {
		n += varintLen(uint64(v))
	}
	b = appendVarint(appendKey(b, field, wireBytes), uint64(n))
	for _, v := range vs {
		b = appendVarint(b, uint64(v))
	}
	return b
}

func varintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// str returns the string table index of s.
func (e *encoder) str(s string) int64 {
	if i, ok := e.strs[s]; ok {
		return i
	}
	i := int64(len(e.table))
	e.strs[s] = i
	e.table = append(e.table, s)
	return i
}

// encodeProfile returns p's protobuf encoding.
func encodeProfile(p *profile.Profile) []byte {
	e := &encoder{strs: map[string]int64{}}
	e.str("")
	b := make([]byte, 0, 32*(len(p.Sample)+len(p.Location)))
	for _, vt := range p.SampleType {
		b = e.valueType(b, 1, vt)
	}
	for _, s := range p.Sample {
		b = e.sample(b, s)
	}
	for _, m := range p.Mapping {
		sub := appendUint(e.sub[:0], 1, m.ID)
		sub = appendUint(sub, 2, m.Start)
		sub = appendUint(sub, 3, m.Limit)
		sub = appendUint(sub, 4, m.Offset)
		sub = appendInt(sub, 5, e.str(m.File))
		sub = appendInt(sub, 6, e.str(m.BuildID))
		sub = appendBool(sub, 7, m.HasFunctions)
		sub = appendBool(sub, 8, m.HasFilenames)
		sub = appendBool(sub, 9, m.HasLineNumbers)
		sub = appendBool(sub, 10, m.HasInlineFrames)
		e.sub = sub
		b = appendBytes(b, 3, sub)
	}
	var line []byte
	for _, l := range p.Location {
		sub := appendUint(e.sub[:0], 1, l.ID)
		if l.Mapping != nil {
			sub = appendUint(sub, 2, l.Mapping.ID)
		}
		sub = appendUint(sub, 3, l.Address)
		for _, ln := range l.Line {
			line = line[:0]
			if ln.Function != nil {
				line = appendUint(line, 1, ln.Function.ID)
			}
			line = appendInt(line, 2, ln.Line)
			line = appendInt(line, 3, ln.Column)
			sub = appendBytes(sub, 4, line)
		}
		sub = appendBool(sub, 5, l.IsFolded)
		e.sub = sub
		b = appendBytes(b, 4, sub)
	}
	for _, f := range p.Function {
		sub := appendUint(e.sub[:0], 1, f.ID)
		sub = appendInt(sub, 2, e.str(f.Name))
		sub = appendInt(sub, 3, e.str(f.SystemName))
		sub = appendInt(sub, 4, e.str(f.Filename))
		sub = appendInt(sub, 5, f.StartLine)
		e.sub = sub
		b = appendBytes(b, 5, sub)
	}
	// The strings of the fields after the table go in before it.
	drop, keep := e.str(p.DropFrames), e.str(p.KeepFrames)
	var period []byte
	if pt := p.PeriodType; pt != nil && (pt.Type != "" || pt.Unit != "") {
		period = e.valueType(nil, 11, pt)
	}
	comments := make([]int64, len(p.Comments))
	for i, c := range p.Comments {
		comments[i] = e.str(c)
	}
	dflt, doc := e.str(p.DefaultSampleType), e.str(p.DocURL)
	for _, s := range e.table {
		b = appendVarint(appendKey(b, 6, wireBytes), uint64(len(s)))
		b = append(b, s...)
	}
	b = appendInt(b, 7, drop)
	b = appendInt(b, 8, keep)
	b = appendInt(b, 9, p.TimeNanos)
	b = appendInt(b, 10, p.DurationNanos)
	b = append(b, period...)
	b = appendInt(b, 12, p.Period)
	b = appendPacked(b, 13, comments)
	b = appendInt(b, 14, dflt)
	b = appendInt(b, 15, doc)
	return b
}

// valueType appends ValueType vt as field.
func (e *encoder) valueType(b []byte, field int, vt *profile.ValueType) []byte {
	sub := appendInt(e.sub[:0], 1, e.str(vt.Type))
	sub = appendInt(sub, 2, e.str(vt.Unit))
	e.sub = sub
	return appendBytes(b, field, sub)
}

func (e *encoder) sample(b []byte, s *profile.Sample) []byte {
	sub := e.sub[:0]
	if n := len(s.Location); n > 0 {
		ids := 0
		for _, l := range s.Location {
			ids += varintLen(l.ID)
		}
		sub = appendVarint(appendKey(sub, 1, wireBytes), uint64(ids))
		for _, l := range s.Location {
			sub = appendVarint(sub, l.ID)
		}
	}
	sub = appendPacked(sub, 2, s.Value)
	// Label maps are shared between samples (Builder.labelMaps): the
	// encoding of the last ones is reused.
	id := [3]uintptr{mapID(s.Label), mapID(s.NumLabel), mapID(s.NumUnit)}
	if id != e.lastLbl || id == [3]uintptr{} {
		e.labels = e.encodeLabels(e.labels[:0], s)
		e.lastLbl = id
	}
	sub = append(sub, e.labels...)
	e.sub = sub
	return appendBytes(b, 2, sub)
}

// mapID identifies a map by its pointer (0 for nil).
func mapID[V any](m map[string]V) uintptr {
	if m == nil {
		return 0
	}
	return uintptr(reflect.ValueOf(m).UnsafePointer())
}

// encodeLabels appends s's labels, string labels then numeric ones, each
// in key order (as the profile package writes them).
func (e *encoder) encodeLabels(b []byte, s *profile.Sample) []byte {
	var lb []byte
	for _, k := range slices.Sorted(maps.Keys(s.Label)) {
		for _, v := range s.Label[k] {
			lb = appendInt(lb[:0], 1, e.str(k))
			lb = appendInt(lb, 2, e.str(v))
			b = appendBytes(b, 3, lb)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.NumLabel)) {
		units := s.NumUnit[k]
		for i, v := range s.NumLabel[k] {
			lb = appendInt(lb[:0], 1, e.str(k))
			lb = appendInt(lb, 3, v)
			if i < len(units) {
				lb = appendInt(lb, 4, e.str(units[i]))
			}
			b = appendBytes(b, 3, lb)
		}
	}
	return b
}
