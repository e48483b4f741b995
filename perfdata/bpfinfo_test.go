package perfdata

import (
	"encoding/binary"
	"testing"
)

// bpfSection builds a HEADER_BPF_PROG_INFO section of progs, each given
// as its info fields and its data.
func bpfProgSection(progs ...[2][]byte) []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, uint32(len(progs)))
	for _, p := range progs {
		b = le.AppendUint32(b, uint32(len(p[0])))
		b = le.AppendUint32(b, uint32(len(p[1])))
		b = le.AppendUint64(b, 1<<bpilJitedKsyms|1<<bpilJitedFuncLens|1<<bpilFuncInfo|1<<bpilProgTags)
		b = append(b, p[0]...)
		b = append(b, p[1]...)
	}
	return b
}

// bpfProg makes a program's info and data: id, name, btf id, and per
// sub-program an address, a length, a tag byte and a BTF type id.
func bpfProg(id uint32, name string, btfID uint32, addrs []uint64, lens []uint32, tags []byte, types []uint32) [2][]byte {
	le := binary.LittleEndian
	info := make([]byte, bpfProgInfoSize)
	n := uint32(len(addrs))
	le.PutUint32(info[bpiID:], id)
	copy(info[bpiName:bpiName+16], name)
	le.PutUint32(info[bpiNrJitedKsyms:], n)
	le.PutUint32(info[bpiNrJitedFuncLens:], n)
	le.PutUint32(info[bpiNrProgTags:], n)
	le.PutUint32(info[bpiBTFID:], btfID)
	le.PutUint32(info[bpiFuncInfoRecSize:], 8)
	le.PutUint32(info[bpiNrFuncInfo:], n)
	var data []byte
	le.PutUint64(info[bpiJitedKsyms:], uint64(len(data)))
	for _, a := range addrs {
		data = le.AppendUint64(data, a)
	}
	le.PutUint64(info[bpiJitedFuncLens:], uint64(len(data)))
	for _, l := range lens {
		data = le.AppendUint32(data, l)
	}
	le.PutUint64(info[bpiProgTags:], uint64(len(data)))
	for _, t := range tags {
		data = append(data, t, 0, 0, 0, 0, 0, 0, t)
	}
	le.PutUint64(info[bpiFuncInfo:], uint64(len(data)))
	for _, t := range types {
		data = le.AppendUint32(le.AppendUint32(data, 0), t)
	}
	return [2][]byte{info, data}
}

// btfObject is a BTF object with an INT type (id 1) and FUNC types named
// names (ids 2...).
func btfObject(names ...string) []byte {
	le := binary.LittleEndian
	strs := []byte("\x00int\x00")
	var types []byte
	types = le.AppendUint32(types, 1)
	types = le.AppendUint32(types, 1<<24)
	types = le.AppendUint32(types, 4)
	types = le.AppendUint32(types, 0) // INT's extra word
	for _, n := range names {
		types = le.AppendUint32(types, uint32(len(strs)))
		types = le.AppendUint32(types, 12<<24)
		types = le.AppendUint32(types, 0)
		strs = append(append(strs, n...), 0)
	}
	h := []byte{0x9f, 0xeb, 1, 0}
	h = le.AppendUint32(h, 24)
	h = le.AppendUint32(h, 0)
	h = le.AppendUint32(h, uint32(len(types)))
	h = le.AppendUint32(h, uint32(len(types)))
	h = le.AppendUint32(h, uint32(len(strs)))
	return append(append(h, types...), strs...)
}

// TestBPFProgs decodes programs as process_bpf_prog_info keeps them
// (by id, the first of a repeated id) with their sub-programs and BTF
// function names.
func TestBPFProgs(t *testing.T) {
	fs := &Features{Raw: map[Feature][]byte{}}
	fs.Raw[FeatBPFProgInfo] = bpfProgSection(
		bpfProg(9, "two_funcs", 52, []uint64{0xffffffffc0001000, 0xffffffffc0002000}, []uint32{10, 20}, []byte{0xab, 0xcd}, []uint32{2, 3}),
		bpfProg(4, "lone", 0, []uint64{0xffffffffc0000100}, []uint32{15}, []byte{0x11}, []uint32{0}),
		bpfProg(9, "again", 0, nil, nil, nil, nil),
	)
	btf := btfObject("first_func", "second_func")
	le := binary.LittleEndian
	sec := le.AppendUint32(nil, 1)
	sec = le.AppendUint32(le.AppendUint32(sec, 52), uint32(len(btf)))
	fs.Raw[FeatBPFBTF] = append(sec, btf...)
	// The section must read as the header reader reads it.
	chk := Features{Raw: map[Feature][]byte{}}
	if err := chk.decode(FeatBPFProgInfo, fs.Raw[FeatBPFProgInfo], 0); err != nil {
		t.Fatal(err)
	}
	fs.Set(FeatBPFProgInfo)
	fs.Set(FeatBPFBTF)
	progs := fs.BPFProgs()
	if len(progs) != 2 || progs[0].ID != 4 || progs[1].ID != 9 || progs[1].Name != "two_funcs" {
		t.Fatalf("programs %+v", progs)
	}
	p := progs[1]
	if !p.Arrays || len(p.Ksyms) != 2 || p.Ksyms[1] != 0xffffffffc0002000 || p.FuncLens[1] != 20 || p.Tags[1] != [8]byte{0xcd, 0, 0, 0, 0, 0, 0, 0xcd} || p.FuncTypes[1] != 3 {
		t.Fatalf("program 9: %+v", p)
	}
	btfs := fs.BPFBTFs()
	if len(btfs) != 1 || btfs[0].ID != 52 {
		t.Fatalf("btfs %+v", btfs)
	}
	for id, want := range map[uint32]string{2: "first_func", 3: "second_func"} {
		if got, ok := BTFFuncName(btfs[0].Data, id); !ok || got != want {
			t.Errorf("type %d: %q %v, want %q", id, got, ok, want)
		}
	}
	if _, ok := BTFFuncName(btfs[0].Data, 4); ok {
		t.Error("type 4 found")
	}
	bad := append([]byte(nil), btf...)
	bad[24+4+3] = 30 // an unknown kind: libbpf refuses the object
	if _, ok := BTFFuncName(bad, 2); ok {
		t.Error("a BTF object with an unknown kind was taken")
	}
}

// FuzzBPFInfo: the BPF sections are read from files made anywhere.
func FuzzBPFInfo(f *testing.F) {
	f.Add(bpfProgSection(bpfProg(4, "lone", 1, []uint64{1}, []uint32{15}, []byte{0x11}, []uint32{2})), btfObject("f"), uint32(2))
	f.Fuzz(func(t *testing.T, progs, btf []byte, id uint32) {
		fs := &Features{Raw: map[Feature][]byte{FeatBPFProgInfo: progs, FeatBPFBTF: btf}}
		fs.Set(FeatBPFProgInfo)
		fs.Set(FeatBPFBTF)
		fs.BPFProgs()
		fs.BPFBTFs()
		BTFFuncName(btf, id)
	})
}
