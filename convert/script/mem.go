package script

import (
	"strconv"

	"github.com/perfpt/perfpt/convert/sample"
)

// The fields of a PERF_SAMPLE_DATA_SRC word (union perf_mem_data_src).
const (
	memOpShift     = 0
	memLvlShift    = 5
	memSnoopShift  = 19
	memLockShift   = 24
	memDTLBShift   = 26
	memLvlNumShift = 33
	memRemoteShift = 37
	memSnoopXShift = 38
	memBlkShift    = 40
	memHopsShift   = 43
)

func memField(v uint64, shift, bits uint) uint64 { return v >> shift & (1<<bits - 1) }

var (
	memTLBAccess = []string{"N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault"}
	memLvl       = []string{"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM",
		"Remote RAM (1 hop)", "Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached"}
	memLvlNum = map[uint64]string{0x09: "CXL", 0x0a: "I/O", 0x0b: "Any cache", 0x0c: "LFB/MAB", 0x0d: "RAM",
		0x0e: "PMEM", 0x0f: "N/A"}
	memHops    = []string{"N/A", "core, same node", "node, same socket", "socket, same board", "board"}
	memSnoop   = []string{"N/A", "None", "Hit", "Miss", "HitM"}
	memSnoopX  = []string{"Fwd", "Peer"}
	memDecodes = [...]func(c *cbuf, off, sz int, d uint64) int{memOp, memLvlText, memSnp, memTLB, memLck, memBlk}
)

// cbuf is a C char array written with scnprintf and strcat, so that the
// decode is cut where perf's fixed buffers cut it.
type cbuf struct {
	b   []byte // the array
	len int    // strlen
}

func newCbuf(n int) *cbuf { return &cbuf{b: make([]byte, n)} }

// scnprintf writes s at off within size bytes (NUL included) and returns
// what it wrote.
func (c *cbuf) scnprintf(off, size int, s string) int {
	if size <= 0 || off >= len(c.b) {
		return 0
	}
	n := min(len(s), size-1, len(c.b)-off-1)
	copy(c.b[off:], s[:n])
	c.b[off+n] = 0
	c.len = off + n
	return n
}

// strcat appends s at the string's end (perf's unbounded strcat; cut at
// the array's end).
func (c *cbuf) strcat(s string) {
	n := min(len(s), len(c.b)-c.len-1)
	copy(c.b[c.len:], s[:n])
	c.len += n
	c.b[c.len] = 0
}

// at resets the string to end at off (out[0] = '\0' of a callee).
func (c *cbuf) at(off int) {
	if off < len(c.b) {
		c.b[off] = 0
		c.len = off
	}
}

func (c *cbuf) String() string { return string(c.b[:c.len]) }

// memDecode mirrors perf_script__meminfo_scnprintf into a 100-byte
// buffer, as data_src__fprintf calls it (perf passes the whole size, not
// what is left, to the level's decode; that is kept).
func memDecode(d uint64) string {
	const sz = 100
	c := newCbuf(sz)
	labels := [...]string{"|OP ", "|LVL ", "|SNP ", "|TLB ", "|LCK ", "|BLK "}
	i := 0
	for k, label := range labels {
		i += c.scnprintf(i, sz-i, label)
		n := sz - i
		if k == 1 {
			n = sz // perf_mem__lvl_scnprintf(out + i, sz, ...)
		}
		i += memDecodes[k](c, i, n, d)
	}
	return c.String()
}

// memOp mirrors perf_mem__op_scnprintf.
func memOp(c *cbuf, off, sz int, d uint64) int {
	op := memField(d, memOpShift, 5)
	s := "No"
	switch {
	case op&1 != 0:
		s = "N/A"
	case op&2 != 0:
		s = "LOAD"
	case op&4 != 0:
		s = "STORE"
	case op&8 != 0:
		s = "PFETCH"
	case op&16 != 0:
		s = "EXEC"
	}
	return c.scnprintf(off, sz, s)
}

// memLvlText mirrors perf_mem__lvl_scnprintf.
func memLvlText(c *cbuf, off, sz int, d uint64) int {
	m := memField(d, memLvlShift, 14)
	sz--
	c.at(off)
	hit, miss := m&2 != 0, m&4 != 0
	m &^= 2 | 4
	l, printed := 0, 0
	if memField(d, memRemoteShift, 1) != 0 {
		c.strcat("Remote ")
		l += 7
	}
	if hops := memField(d, memHopsShift, 3); hops != 0 {
		name := ""
		if int(hops) < len(memHops) {
			name = memHops[hops]
		}
		l += c.scnprintf(off+l, sz-l, name+" ")
	} else {
		for i := 0; m != 0 && i < len(memLvl); i, m = i+1, m>>1 {
			if m&1 == 0 {
				continue
			}
			if printed > 0 {
				c.strcat(" or ")
				l += 4
			}
			printed++
			l += c.scnprintf(off+l, sz-l, memLvl[i])
		}
	}
	if num := memField(d, memLvlNumShift, 4); num != 0 {
		if printed > 0 {
			c.strcat(" or ")
			l += 4
		}
		if name, ok := memLvlNum[num]; ok {
			l += c.scnprintf(off+l, sz-l, name)
		} else {
			l += c.scnprintf(off+l, sz-l, "L"+strconv.FormatUint(num, 10))
		}
	}
	if l == 0 {
		l += c.scnprintf(off+l, sz-l, "N/A")
	}
	if hit {
		l += c.scnprintf(off+l, sz-l, " hit")
	}
	if miss {
		l += c.scnprintf(off+l, sz-l, " miss")
	}
	return l
}

// memSnp mirrors perf_mem__snp_scnprintf.
func memSnp(c *cbuf, off, sz int, d uint64) int {
	sz--
	c.at(off)
	l := memBitNames(c, off, sz, 0, memField(d, memSnoopShift, 5), memSnoop)
	l = memBitNames(c, off, sz, l, memField(d, memSnoopXShift, 2), memSnoopX)
	if c.len == off {
		l += c.scnprintf(off, sz-l, "N/A")
	}
	return l
}

// memBitNames prints the names of the bits set in m, joined by " or "
// after what l bytes already hold, as perf's decoders do; it returns the
// new length.
func memBitNames(c *cbuf, off, sz, l int, m uint64, names []string) int {
	for i := 0; m != 0 && i < len(names); i, m = i+1, m>>1 {
		if m&1 == 0 {
			continue
		}
		if l > 0 {
			c.strcat(" or ")
			l += 4
		}
		l += c.scnprintf(off+l, sz-l, names[i])
	}
	return l
}

// memTLB mirrors perf_mem__tlb_scnprintf.
func memTLB(c *cbuf, off, sz int, d uint64) int {
	sz--
	c.at(off)
	m := memField(d, memDTLBShift, 7)
	hit, miss := m&2 != 0, m&4 != 0
	m &^= 2 | 4
	l := memBitNames(c, off, sz, 0, m, memTLBAccess)
	if c.len == off {
		l += c.scnprintf(off, sz-l, "N/A")
	}
	if hit {
		l += c.scnprintf(off+l, sz-l, " hit")
	}
	if miss {
		l += c.scnprintf(off+l, sz-l, " miss")
	}
	return l
}

// memLck mirrors perf_mem__lck_scnprintf.
func memLck(c *cbuf, off, sz int, d uint64) int {
	m := memField(d, memLockShift, 2)
	s := "No"
	switch {
	case m&1 != 0:
		s = "N/A"
	case m&2 != 0:
		s = "Yes"
	}
	return c.scnprintf(off, sz, s)
}

// memBlk mirrors perf_mem__blk_scnprintf.
func memBlk(c *cbuf, off, sz int, d uint64) int {
	sz--
	c.at(off)
	m := memField(d, memBlkShift, 3)
	if m == 0 || m&1 != 0 {
		return c.scnprintf(off, sz, " N/A")
	}
	l := 0
	if m&2 != 0 {
		l += c.scnprintf(off+l, sz-l, " Data")
	}
	if m&4 != 0 {
		l += c.scnprintf(off+l, sz-l, " Addr")
	}
	return l
}

// dataSrc is data_src__fprintf's column: "%16x decode", cut at 99 bytes,
// padded to the widest one printed so far (perf's static maxlen).
func (p *Printer) dataSrc(b []byte, d uint64) []byte {
	out := newCbuf(100)
	var x [16]byte
	h := strconv.AppendUint(x[:0], d, 16)
	s := string(padLeft(nil, h, 16)) + " " + memDecode(d)
	out.scnprintf(0, 100, s)
	txt := out.String()
	if len(txt) > p.dataSrcMax {
		p.dataSrcMax = len(txt)
	}
	b = append(b, txt...)
	return appendSpaces(b, p.dataSrcMax-len(txt))
}

// PageSizeName mirrors get_page_size_name: unit_number__scnprintf of the
// size ("4K"), or "N/A" for 0.
func PageSizeName(n uint64) string {
	if n == 0 {
		return "N/A"
	}
	unit := "BKMG"
	i := 0
	for n/1024 > 1 && i < 3 {
		n /= 1024
		i++
	}
	return strconv.FormatUint(n, 10) + unit[i:i+1]
}

// memFields prints data_src, weight and ins_lat, which process_event
// prints after the address.
func (p *Printer) memFields(b []byte, m *sample.MemFields, f Field) []byte {
	if f&FieldDataSrc != 0 {
		b = p.dataSrc(b, m.DataSrc)
	}
	if f&FieldWeight != 0 {
		b = appendUintPad(b, m.Weight, 16)
	}
	if f&FieldInsLat != 0 {
		b = appendUintPad(b, uint64(m.InsLat), 16)
	}
	return b
}

// memTail prints phys_addr and the page sizes, which process_event
// prints after the instruction bytes.
func memTail(b []byte, m *sample.MemFields, f Field) []byte {
	if f&FieldPhysAddr != 0 {
		var x [16]byte
		b = padLeft(b, strconv.AppendUint(x[:0], m.PhysAddr, 16), 16)
	}
	if f&FieldDataPageSize != 0 {
		b = append(b, ' ')
		b = append(b, PageSizeName(m.DataPageSize)...)
	}
	if f&FieldCodePageSize != 0 {
		b = append(b, ' ')
		b = append(b, PageSizeName(m.CodePageSize)...)
	}
	return b
}
