package perfdata

import (
	"encoding/binary"
	"sort"
)

// BPFProg is what perf 6.1 prints of one program of HEADER_BPF_PROG_INFO
// (bpf_event__print_bpf_prog_info): its id, name, and per sub-program
// (JITed function) its tag, address and size, and the BTF type of its
// function when the program has BTF.
type BPFProg struct {
	ID    uint32
	Name  string // struct bpf_prog_info's name (16 bytes, NUL-ended)
	BTFID uint32
	// NrKsyms, NrFuncLens and NrProgTags are the info's counts: perf
	// prints the program only when they are equal.
	NrKsyms, NrFuncLens, NrProgTags uint32
	Tags                            [][8]byte
	Ksyms                           []uint64
	FuncLens                        []uint32
	// FuncTypes is each sub-program's func_info type id (nil without
	// func info).
	FuncTypes []uint32
	// Arrays says the sub-programs' arrays were in the data (the info
	// held them as offsets there, as perf writes them); a program whose
	// arrays are not is not printed (perf would follow the recording
	// machine's pointers).
	Arrays bool
}

// BPFBTF is one BTF object of HEADER_BPF_BTF.
type BPFBTF struct {
	ID   uint32
	Data []byte
}

// Offsets in perf 6.1's struct bpf_prog_info (uapi/linux/bpf.h) and the
// bits of perf's bpil arrays bitmask (util/bpf-utils.h).
const (
	bpiID              = 4
	bpiName            = 64
	bpiNrJitedKsyms    = 104
	bpiNrJitedFuncLens = 108
	bpiJitedKsyms      = 112
	bpiJitedFuncLens   = 120
	bpiBTFID           = 128
	bpiFuncInfoRecSize = 132
	bpiFuncInfo        = 136
	bpiNrFuncInfo      = 144
	bpiNrProgTags      = 180
	bpiProgTags        = 184

	bpilJitedKsyms    = 3
	bpilJitedFuncLens = 4
	bpilFuncInfo      = 5
	bpilProgTags      = 8
)

// BPFProgs decodes HEADER_BPF_PROG_INFO as process_bpf_prog_info keeps it
// (perf_env__insert_bpf_prog_info): ordered by id, the first of equal ids
// kept. nil when the section is absent or was not read.
func (fs *Features) BPFProgs() []BPFProg {
	b, ok := fs.Raw[FeatBPFProgInfo]
	if !ok || !fs.Has(FeatBPFProgInfo) {
		return nil
	}
	c := cursor{b: b, what: "feature bpf_prog_info"}
	n := c.u32()
	var progs []BPFProg
	seen := map[uint32]bool{}
	for i := uint32(0); i < n && c.err == nil; i++ {
		infoLen, dataLen := c.u32(), c.u32()
		arrays := c.u64()
		raw := c.bytes(uint64(infoLen))
		data := c.bytes(uint64(dataLen))
		if c.err != nil {
			break
		}
		// A shorter info reads as zeros past its end.
		info := make([]byte, bpfProgInfoSize)
		copy(info, raw)
		p := decodeBPFProg(info, data, arrays)
		if seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		progs = append(progs, p)
	}
	sort.SliceStable(progs, func(i, j int) bool { return progs[i].ID < progs[j].ID })
	return progs
}

func decodeBPFProg(info, data []byte, arrays uint64) BPFProg {
	le := binary.LittleEndian
	p := BPFProg{
		ID:         le.Uint32(info[bpiID:]),
		BTFID:      le.Uint32(info[bpiBTFID:]),
		NrKsyms:    le.Uint32(info[bpiNrJitedKsyms:]),
		NrFuncLens: le.Uint32(info[bpiNrJitedFuncLens:]),
		NrProgTags: le.Uint32(info[bpiNrProgTags:]),
	}
	p.Name = cstring(info[bpiName : bpiName+16])
	// at returns the n records of size bytes of the array field at off,
	// an offset into data; nil when they are not all there.
	at := func(bit uint, off, n, size uint64) []byte {
		if arrays&(1<<bit) == 0 {
			return nil
		}
		o := le.Uint64(info[off:])
		if n > uint64(len(data)) || size > uint64(len(data)) || o > uint64(len(data)) || n*size > uint64(len(data))-o {
			return nil
		}
		return data[o : o+n*size]
	}
	cnt := uint64(p.NrKsyms)
	ks := at(bpilJitedKsyms, bpiJitedKsyms, cnt, 8)
	fl := at(bpilJitedFuncLens, bpiJitedFuncLens, cnt, 4)
	tg := at(bpilProgTags, bpiProgTags, cnt, 8)
	if cnt > 0 && (ks == nil || fl == nil || tg == nil) {
		return p
	}
	p.Arrays = true
	for i := uint64(0); i < cnt; i++ {
		p.Ksyms = append(p.Ksyms, le.Uint64(ks[8*i:]))
		p.FuncLens = append(p.FuncLens, le.Uint32(fl[4*i:]))
		var t [8]byte
		copy(t[:], tg[8*i:])
		p.Tags = append(p.Tags, t)
	}
	recSize := uint64(le.Uint32(info[bpiFuncInfoRecSize:]))
	nfi := uint64(le.Uint32(info[bpiNrFuncInfo:]))
	if recSize >= 8 && nfi >= cnt {
		if fi := at(bpilFuncInfo, bpiFuncInfo, nfi, recSize); fi != nil {
			for i := uint64(0); i < cnt; i++ {
				// struct bpf_func_info: insn_off, type_id
				p.FuncTypes = append(p.FuncTypes, le.Uint32(fi[i*recSize+4:]))
			}
		}
	}
	return p
}

// BPFBTFs decodes HEADER_BPF_BTF as process_bpf_btf keeps it
// (perf_env__insert_btf): ordered by id, the first of equal ids kept.
func (fs *Features) BPFBTFs() []BPFBTF {
	b, ok := fs.Raw[FeatBPFBTF]
	if !ok || !fs.Has(FeatBPFBTF) {
		return nil
	}
	c := cursor{b: b, what: "feature bpf_btf"}
	n := c.u32()
	var btfs []BPFBTF
	seen := map[uint32]bool{}
	for i := uint32(0); i < n && c.err == nil; i++ {
		id, size := c.u32(), c.u32()
		data := c.bytes(uint64(size))
		if c.err != nil || seen[id] {
			continue
		}
		seen[id] = true
		btfs = append(btfs, BPFBTF{ID: id, Data: data})
	}
	sort.SliceStable(btfs, func(i, j int) bool { return btfs[i].ID < btfs[j].ID })
	return btfs
}

// BTFFuncName returns the name of type id in the BTF object data, as
// libbpf's btf__new, btf__type_by_id and btf__name_by_offset give it; ok
// is false when data is not a BTF object libbpf would take (then perf
// names the program without BTF) or has no such type.
func BTFFuncName(data []byte, id uint32) (name string, ok bool) {
	le := binary.LittleEndian
	// struct btf_header: magic u16, version u8, flags u8, hdr_len,
	// type_off, type_len, str_off, str_len (u32 each)
	if len(data) < 24 || le.Uint16(data) != 0xeb9f || data[2] != 1 {
		return "", false
	}
	hdrLen := uint64(le.Uint32(data[4:]))
	typeOff, typeLen := uint64(le.Uint32(data[8:])), uint64(le.Uint32(data[12:]))
	strOff, strLen := uint64(le.Uint32(data[16:])), uint64(le.Uint32(data[20:]))
	if hdrLen < 24 || hdrLen > uint64(len(data)) {
		return "", false
	}
	body := data[hdrLen:]
	if typeOff+typeLen > uint64(len(body)) || strOff+strLen > uint64(len(body)) || strLen == 0 || body[strOff+strLen-1] != 0 {
		return "", false
	}
	types, strs := body[typeOff:typeOff+typeLen], body[strOff:strOff+strLen]
	if strs[0] != 0 {
		return "", false
	}
	// Every type must parse (btf_parse_type_sec); ids start at 1 (0 is
	// void).
	var nameOff uint64
	found := false
	off := uint64(0)
	for cur := uint32(1); off < uint64(len(types)); cur++ {
		if off+12 > uint64(len(types)) {
			return "", false
		}
		no := uint64(le.Uint32(types[off:]))
		info := le.Uint32(types[off+4:])
		vlen, kind := uint64(info&0xffff), (info>>24)&0x1f
		var extra uint64
		switch kind {
		case 1, 14, 17: // INT, VAR, DECL_TAG
			extra = 4
		case 2, 7, 8, 9, 10, 11, 12, 16, 18: // PTR, FWD, TYPEDEF, VOLATILE, CONST, RESTRICT, FUNC, FLOAT, TYPE_TAG
		case 3: // ARRAY
			extra = 12
		case 4, 5, 15, 19: // STRUCT, UNION, DATASEC, ENUM64
			extra = 12 * vlen
		case 6, 13: // ENUM, FUNC_PROTO
			extra = 8 * vlen
		default:
			return "", false
		}
		if cur == id {
			nameOff, found = no, true
		}
		off += 12 + extra
	}
	if off != uint64(len(types)) || !found || nameOff >= uint64(len(strs)) {
		return "", false
	}
	return cstring(strs[nameOff:]), true
}
