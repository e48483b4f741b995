package symbol

import (
	"debug/elf"
	"encoding/binary"
)

// packedSyms holds a table's symbols in a compact form, each decoded into
// a Symbol the first time a lookup returns it (a symSource): the running
// kernel's 120,000 symbols come from the kallsyms cache (kcache.go) this
// way, and a recording resolves a few hundred of them.
type packedSyms struct {
	recs  []byte // packedRecSize bytes a symbol, see packedRecSize
	names []byte
	delta uint64 // added to every address (Table.Shift)
}

// A packed record: start, end (u64), name offset (u32) and length (u16),
// binding and type (u8), little-endian.
const packedRecSize = 24

func (p *packedSyms) len() int { return len(p.recs) / packedRecSize }

// symbol decodes symbol i.
func (p *packedSyms) symbol(i int32) Symbol {
	r := p.recs[int(i)*packedRecSize : int(i+1)*packedRecSize]
	off, n := binary.LittleEndian.Uint32(r[16:]), binary.LittleEndian.Uint16(r[20:])
	return Symbol{
		Start: binary.LittleEndian.Uint64(r) + p.delta,
		End:   binary.LittleEndian.Uint64(r[8:]) + p.delta,
		Name:  string(p.names[off : off+uint32(n)]),
		Bind:  elf.SymBind(r[22]),
		Type:  elf.SymType(r[23]),
	}
}

// packSymbols packs syms, whose names must be shorter than 64 KiB (and
// 4 GiB in all); it reports false when one is not. Both slices are sized
// ahead: the names of the running kernel's 120,000 symbols are 2.5 MB.
func packSymbols(syms []Symbol) (recs, names []byte, ok bool) {
	nameLen := 0
	for i := range syms {
		s := &syms[i]
		if len(s.Name) > 0xffff || nameLen > 0xffffffff-len(s.Name) || s.Bind > 0xff || s.Type > 0xff {
			return nil, nil, false
		}
		nameLen += len(s.Name)
	}
	recs = make([]byte, len(syms)*packedRecSize)
	names = make([]byte, 0, nameLen)
	for i := range syms {
		s := &syms[i]
		names = packRecord(recs[i*packedRecSize:], names, s.Start, s.End, s.Name, byte(s.Bind), byte(s.Type))
	}
	return recs, names, true
}

// packRecord writes the packed record of a symbol into r, its name at the
// end of names, and returns names with the name appended.
func packRecord(r, names []byte, start, end uint64, name string, bind, typ byte) []byte {
	binary.LittleEndian.PutUint64(r, start)
	binary.LittleEndian.PutUint64(r[8:], end)
	binary.LittleEndian.PutUint32(r[16:], uint32(len(names)))
	binary.LittleEndian.PutUint16(r[20:], uint16(len(name)))
	r[22], r[23] = bind, typ
	return append(names, name...)
}

// packedTable makes a table of packed symbols with the given runs.
func packedTable(recs, names []byte, segs []seg, delta uint64) *Table {
	return &Table{src: newLazySyms(&packedSyms{recs: recs, names: names, delta: delta}), segs: segs}
}
