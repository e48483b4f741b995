package ptrace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

const pageSize = 4096

// mapping is one line of /proc/PID/maps.
type mapping struct {
	start, end, pgoff uint64
	perms             string
	maj, min          uint32
	ino               uint64
	name              string
}

func (m mapping) exec() bool { return len(m.perms) > 2 && m.perms[2] == 'x' }

// addrSpace is one memory image (a process, shared by its threads and by a
// vfork child until it execs). It caches code and decoded instructions and
// owns the breakpoints fast mode plants.
type addrSpace struct {
	pid   int
	mem   *os.File
	pages map[uint64][]byte // page address -> original bytes
	insns map[uint64]insn
	blks  map[uint64]*block
	bps   map[uint64]byte // breakpoint address -> original byte
	known map[mapping]bool
	maps  []mapping
	// cpuid: the tracer performs CPUID (Options.CPUID).
	cpuid bool
}

func newAddrSpace(pid int) (*addrSpace, error) {
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/mem", pid), os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return &addrSpace{pid: pid, mem: f, pages: map[uint64][]byte{}, insns: map[uint64]insn{},
		blks: map[uint64]*block{}, bps: map[uint64]byte{}, known: map[mapping]bool{}}, nil
}

// fork copies as for a forked child (its memory holds the same breakpoints).
func (as *addrSpace) fork(pid int) (*addrSpace, error) {
	c, err := newAddrSpace(pid)
	if err != nil {
		return nil, err
	}
	for a, b := range as.bps {
		c.bps[a] = b
	}
	for m := range as.known {
		c.known[m] = true
	}
	c.maps = append(c.maps, as.maps...)
	c.cpuid = as.cpuid
	return c, nil
}

func (as *addrSpace) close() {
	if as.mem != nil {
		as.mem.Close()
	}
}

// flush drops the code caches (after the mappings changed).
func (as *addrSpace) flush() {
	clear(as.pages)
	clear(as.insns)
	clear(as.blks)
}

// page returns the original bytes of the page at addr (breakpoints masked).
func (as *addrSpace) page(addr uint64) ([]byte, error) {
	pa := addr &^ (pageSize - 1)
	if p, ok := as.pages[pa]; ok {
		return p, nil
	}
	p := make([]byte, pageSize)
	if _, err := as.mem.ReadAt(p, int64(pa)); err != nil {
		return nil, fmt.Errorf("read code at %#x: %w", pa, err)
	}
	for a, b := range as.bps {
		if a&^(pageSize-1) == pa {
			p[a-pa] = b
		}
	}
	as.pages[pa] = p
	return p, nil
}

// code returns up to 15 original bytes at addr.
func (as *addrSpace) code(addr uint64, buf *[16]byte) ([]byte, error) {
	p, err := as.page(addr)
	if err != nil {
		return nil, err
	}
	off := addr & (pageSize - 1)
	n := copy(buf[:15], p[off:])
	if n < 15 {
		if q, err := as.page(addr + uint64(n)); err == nil {
			n += copy(buf[n:15], q)
		}
	}
	return buf[:n], nil
}

// insn decodes (with a cache) the instruction at ip.
func (as *addrSpace) insn(ip uint64) (insn, error) {
	if in, ok := as.insns[ip]; ok {
		return in, nil
	}
	var buf [16]byte
	code, err := as.code(ip, &buf)
	if err != nil {
		return insn{}, err
	}
	in, err := decodeInsn(code, ip)
	if err != nil {
		// Not a branch x86asm knows: the CPU runs it, one step at a time.
		in = insn{ip: ip, class: clUnknown}
	}
	if as.cpuid && in.inst.Op == x86asm.CPUID {
		in.class = clCPUID
	}
	as.insns[ip] = in
	return in, nil
}

func (as *addrSpace) read64(addr uint64) (uint64, error) {
	var b [8]byte
	if _, err := as.mem.ReadAt(b[:], int64(addr)); err != nil {
		return 0, fmt.Errorf("read %#x: %w", addr, err)
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

func (as *addrSpace) write64(addr, v uint64) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	if _, err := as.mem.WriteAt(b[:], int64(addr)); err != nil {
		return fmt.Errorf("write %#x: %w", addr, err)
	}
	return nil
}

// plant puts an INT3 at addr unless one is there.
func (as *addrSpace) plant(addr uint64) error {
	if _, ok := as.bps[addr]; ok {
		return nil
	}
	p, err := as.page(addr)
	if err != nil {
		return err
	}
	orig := p[addr&(pageSize-1)]
	if _, err := as.mem.WriteAt([]byte{0xcc}, int64(addr)); err != nil {
		return fmt.Errorf("breakpoint at %#x: %w", addr, err)
	}
	as.bps[addr] = orig
	return nil
}

// readMaps reads /proc/PID/maps.
func readMaps(pid int) ([]mapping, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, err
	}
	var ms []mapping
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 5 {
			continue
		}
		var m mapping
		lo, hi, _ := strings.Cut(f[0], "-")
		m.start, _ = strconv.ParseUint(lo, 16, 64)
		m.end, _ = strconv.ParseUint(hi, 16, 64)
		m.perms = f[1]
		m.pgoff, _ = strconv.ParseUint(f[2], 16, 64)
		ma, mi, _ := strings.Cut(f[3], ":")
		v, _ := strconv.ParseUint(ma, 16, 32)
		m.maj = uint32(v)
		v, _ = strconv.ParseUint(mi, 16, 32)
		m.min = uint32(v)
		m.ino, _ = strconv.ParseUint(f[4], 10, 64)
		if len(f) > 5 {
			m.name = strings.Join(f[5:], " ")
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// refresh re-reads the mappings; it returns the executable mappings not seen
// before, drops caches and forgets breakpoints that are gone.
func (as *addrSpace) refresh() ([]mapping, error) {
	ms, err := readMaps(as.pid)
	if err != nil {
		return nil, err
	}
	as.maps = ms
	as.flush()
	var fresh []mapping
	for _, m := range ms {
		if m.exec() && !as.known[m] {
			as.known[m] = true
			fresh = append(fresh, m)
		}
	}
	for a := range as.bps {
		var b [1]byte
		if _, err := as.mem.ReadAt(b[:], int64(a)); err != nil || b[0] != 0xcc {
			delete(as.bps, a)
		}
	}
	return fresh, nil
}

// accessible says whether the process may access size bytes at ea, as the
// CPU would check (the tracer's own accesses ignore page protections).
func (as *addrSpace) accessible(ea uint64, size int, write bool) bool {
	lo, hi := 0, len(as.maps)
	for lo < hi {
		mid := (lo + hi) / 2
		if as.maps[mid].end <= ea {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == len(as.maps) {
		return false
	}
	m := as.maps[lo]
	if ea < m.start || ea+uint64(size) > m.end || len(m.perms) < 2 {
		return false
	}
	if write {
		return m.perms[1] == 'w'
	}
	return m.perms[0] == 'r'
}
