// Package ksynth adds kernel code to emulated traces: a stand-in kernel
// (an ELF whose text is linked at a kernel address, such as
// testdata/programs/kernel.S) whose code the threads' syscalls and
// asynchronous events walk, with branch outcomes drawn from a seeded
// generator, so that a user-space flow becomes the flow of a kernel+user
// trace (intel_pt// without /u): a syscall is an indirect branch to the
// syscall entry, the kernel's branches follow, and SYSRET is an indirect
// branch back; an interrupt is an asynchronous branch (FUP, TIP) to the
// interrupt entry, and IRET returns. It also writes the files perf record
// --kcore keeps in kcore_dir: kcore (an ELF core file of the text),
// kallsyms and modules.
package ksynth

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/record/flow"
)

// Sym is one function of the kernel.
type Sym struct {
	Name string
	Addr uint64
}

// Kernel is a stand-in kernel's text and symbols.
type Kernel struct {
	Text      []byte
	Start     uint64 // the address of Text[0] (_text)
	Syms      []Sym  // sorted by address
	Syscall   uint64 // entry_SYSCALL_64
	Interrupt uint64 // asm_common_interrupt
	Targets   []uint64
	// Modules are the loaded modules (WithModule), whose entry points
	// are among Targets.
	Modules []*Module
	// Trampoline is the PTI entry trampoline's page (_entry_trampoline,
	// 0: none); EntryVA, when set (ThroughTrampoline), is where syscalls
	// enter the kernel: a CPU's copy of that page in its cpu_entry_area,
	// whose indirect jump goes on to Syscall.
	Trampoline, EntryVA uint64
	// TrampolineMaps is the number of CPUs whose trampolines the
	// recording machine's kallsyms lists: perf record writes a kernel
	// MMAP named __entry_SYSCALL_64_trampoline for each
	// (perf_event__synthesize_extra_kmaps), its pgoff _entry_trampoline.
	// With TrampolinesListed, Kallsyms lists them too
	// (__entry_SYSCALL_64_trampoline, as a PTI kernel's arch_get_kallsym
	// does) and Kcore holds their pages, as /proc/kcore does.
	TrampolineMaps    int
	TrampolinesListed bool
}

// TrampolineVA is the address of cpu's copy of the entry trampoline.
func TrampolineVA(cpu int) uint64 {
	return cpuEntryArea + uint64(cpu)*cpuEntryAreaSize + trampolineOff
}

// The x86_64 cpu_entry_area's layout (as perf 6.1's machine.c has it):
// each CPU's area and the trampoline page's offset in it.
const (
	cpuEntryArea     = 0xfffffe0000000000
	cpuEntryAreaSize = 0x2c000
	trampolineOff    = 0x6000
	pageSize         = 0x1000
)

// ThroughTrampoline returns k whose syscalls enter the kernel through
// cpu's PTI entry trampoline, at 0xfffffe0000006000 + cpu * 0x2c000,
// as on a kernel with page table isolation (4.15 to 4.19): the trace goes
// from the user's SYSCALL to the trampoline page, whose code is
// _entry_trampoline's, and on by an indirect jump to entry_SYSCALL_64.
func (k *Kernel) ThroughTrampoline(cpu int) (*Kernel, error) {
	if k.Trampoline == 0 {
		return nil, fmt.Errorf("the kernel has no _entry_trampoline")
	}
	c := *k
	c.EntryVA = TrampolineVA(cpu)
	return &c, nil
}

// inTrampoline says ip is in the trampoline page syscalls enter by.
func (k *Kernel) inTrampoline(ip uint64) bool {
	return k.EntryVA != 0 && ip >= k.EntryVA && ip-k.EntryVA < pageSize
}

// Module is a stand-in kernel module's text and symbols, loaded at
// Start.
type Module struct {
	Name  string // as /proc/modules names it: "ptmod"
	Path  string // the file perf record names in the module's MMAP
	Text  []byte
	Start uint64
	Syms  []Sym // sorted by address
	// Entries are its global functions, which the kernel's indirect
	// calls may reach.
	Entries []uint64
}

// Size is the module's size as /proc/modules gives it: its text rounded
// up to a page.
func (m *Module) Size() uint64 { return (uint64(len(m.Text)) + 0xfff) &^ 0xfff }

// LoadModule reads a module built like testdata/programs/kmod.S (an ELF
// whose .text is linked at a module address) as the module name, whose
// MMAP names the file path.
func LoadModule(elfPath, name, path string) (*Module, error) {
	b, start, syms, err := readText(elfPath)
	if err != nil {
		return nil, err
	}
	m := &Module{Name: name, Path: path, Text: b, Start: start}
	for _, s := range syms {
		m.Syms = append(m.Syms, Sym{s.Name, s.Value})
		if elf.ST_BIND(s.Info) == elf.STB_GLOBAL {
			m.Entries = append(m.Entries, s.Value)
		}
	}
	sort.Slice(m.Syms, func(i, j int) bool { return m.Syms[i].Addr < m.Syms[j].Addr })
	sort.Slice(m.Entries, func(i, j int) bool { return m.Entries[i] < m.Entries[j] })
	if len(m.Entries) == 0 {
		return nil, fmt.Errorf("%s: no global function", elfPath)
	}
	return m, nil
}

// WithModule returns k with module m loaded: the kernel's indirect calls
// may go to m's entry points too.
func (k *Kernel) WithModule(m *Module) *Kernel {
	c := *k
	c.Modules = append(append([]*Module(nil), k.Modules...), m)
	c.Targets = append(append([]uint64(nil), k.Targets...), m.Entries...)
	return &c
}

// code returns the code at ip: the kernel's text or a module's.
func (k *Kernel) code(ip uint64) ([]byte, bool) {
	if k.inTrampoline(ip) {
		ip = k.Trampoline + ip - k.EntryVA
	}
	if ip >= k.Start && ip-k.Start < uint64(len(k.Text)) {
		return k.Text[ip-k.Start:], true
	}
	for _, m := range k.Modules {
		if ip >= m.Start && ip-m.Start < uint64(len(m.Text)) {
			return m.Text[ip-m.Start:], true
		}
	}
	return nil, false
}

// Slid returns k as if it were booted delta bytes above the address it
// is linked at (KASLR): its text, syscall and interrupt entries, symbols
// and indirect call targets move, its code is the same (the stand-in
// kernel's branches are relative, its indirect calls go to Targets).
func (k *Kernel) Slid(delta uint64) *Kernel {
	c := *k
	c.Start += delta
	c.Syscall += delta
	c.Interrupt += delta
	if c.Trampoline != 0 {
		c.Trampoline += delta
	}
	c.Syms = make([]Sym, len(k.Syms))
	for i, s := range k.Syms {
		c.Syms[i] = Sym{s.Name, s.Addr + delta}
	}
	c.Targets = make([]uint64, len(k.Targets))
	for i, t := range k.Targets {
		c.Targets[i] = t // a module's entry: modules do not move with the kernel
		if t >= k.Start && t-k.Start < uint64(len(k.Text)) {
			c.Targets[i] = t + delta
		}
	}
	return &c
}

// readText reads the .text of the ELF at path: its bytes, its address and
// the symbols in it (section symbols left out).
func readText(path string) ([]byte, uint64, []elf.Symbol, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, 0, nil, err
	}
	defer f.Close()
	text := f.Section(".text")
	if text == nil {
		return nil, 0, nil, fmt.Errorf("%s: no .text", path)
	}
	b, err := text.Data()
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s: .text: %w", path, err)
	}
	all, err := f.Symbols()
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s: symbols: %w", path, err)
	}
	var syms []elf.Symbol
	for _, s := range all {
		if elf.ST_TYPE(s.Info) != elf.STT_SECTION && s.Value >= text.Addr && s.Value < text.Addr+uint64(len(b)) {
			syms = append(syms, s)
		}
	}
	return b, text.Addr, syms, nil
}

// Load reads a kernel built like testdata/programs/kernel.S: its .text,
// its function symbols, entry_SYSCALL_64 and asm_common_interrupt; the
// sys_* functions are the targets of indirect calls.
func Load(path string) (*Kernel, error) {
	b, start, syms, err := readText(path)
	if err != nil {
		return nil, err
	}
	k := &Kernel{Text: b, Start: start}
	for _, s := range syms {
		k.Syms = append(k.Syms, Sym{s.Name, s.Value})
		switch {
		case s.Name == "entry_SYSCALL_64":
			k.Syscall = s.Value
		case s.Name == "asm_common_interrupt":
			k.Interrupt = s.Value
		case s.Name == "_entry_trampoline":
			k.Trampoline = s.Value
		case len(s.Name) > 4 && s.Name[:4] == "sys_":
			k.Targets = append(k.Targets, s.Value)
		}
	}
	sort.Slice(k.Syms, func(i, j int) bool {
		if k.Syms[i].Addr != k.Syms[j].Addr {
			return k.Syms[i].Addr < k.Syms[j].Addr
		}
		return k.Syms[i].Name < k.Syms[j].Name
	})
	sort.Slice(k.Targets, func(i, j int) bool { return k.Targets[i] < k.Targets[j] })
	if k.Syscall == 0 || k.Interrupt == 0 || len(k.Targets) == 0 {
		return nil, fmt.Errorf("%s: needs entry_SYSCALL_64, asm_common_interrupt and sys_* functions", path)
	}
	return k, nil
}

// maxSteps bounds one stay in the kernel.
const maxSteps = 10000

// walk runs the kernel from ip until a SYSRET or IRET: the events of its
// branches (Insns counting the instructions before each), the address of
// the SYSRET/IRET, its length and the instructions since the last event
// (the SYSRET/IRET included).
func (k *Kernel) walk(ip uint64, rng *rand.Rand, tm uint64) (evs []flow.Event, exit uint64, exitLen uint8, n uint64, err error) {
	var stack []uint64
	visits := map[uint64]int{}
	for range maxSteps {
		code, ok := k.code(ip)
		if !ok {
			return nil, 0, 0, 0, fmt.Errorf("kernel walk left the text at %#x", ip)
		}
		var d insn.Insn
		if err := insn.Decode(&d, code, insn.Mode64); err != nil {
			return nil, 0, 0, 0, fmt.Errorf("kernel walk at %#x: %w", ip, err)
		}
		n++
		next := ip + uint64(d.Size)
		ev := flow.Event{From: ip, Len: d.Size, Insns: n, Time: tm}
		switch d.Class {
		case insn.ClassOther, insn.ClassPTWrite:
			ip = next
			continue
		case insn.ClassCondJump:
			visits[ip]++
			ev.Kind, ev.Taken = flow.Cond, visits[ip] <= 3 && rng.IntN(4) != 0
			ev.To = next
			if ev.Taken {
				ev.To = uint64(int64(next) + d.Disp)
			}
		case insn.ClassJump:
			switch {
			case d.Direct:
				ev.Kind, ev.To = flow.Jump, uint64(int64(next)+d.Disp)
			case k.inTrampoline(ip):
				// the trampoline's jump to the entry code
				ev.Kind, ev.To = flow.IndJump, k.Syscall
			default:
				return nil, 0, 0, 0, fmt.Errorf("kernel walk: indirect jump at %#x", ip)
			}
		case insn.ClassCall:
			if d.Direct {
				ev.Kind, ev.To = flow.Call, uint64(int64(next)+d.Disp)
			} else {
				ev.Kind, ev.To = flow.IndCall, k.Targets[rng.IntN(len(k.Targets))]
			}
			stack = append(stack, next)
		case insn.ClassReturn:
			if len(stack) == 0 {
				return nil, 0, 0, 0, fmt.Errorf("kernel walk: return with an empty stack at %#x", ip)
			}
			ev.Kind, ev.To = flow.Ret, stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		case insn.ClassFarReturn:
			return evs, ip, d.Size, n, nil
		default:
			return nil, 0, 0, 0, fmt.Errorf("kernel walk: %v at %#x", d.Class, ip)
		}
		evs = append(evs, ev)
		n = 0
		ip = ev.To
	}
	return nil, 0, 0, 0, fmt.Errorf("kernel walk from %#x: no SYSRET or IRET after %d instructions", ip, maxSteps)
}

// Weave makes the threads' flows those of a kernel+user trace: each
// syscall walks the kernel from entry_SYSCALL_64 to its SYSRET, each
// asynchronous event from asm_common_interrupt to its IRET; a syscall or
// event the thread never came back from ends its trace in the kernel,
// before the SYSRET/IRET.
func Weave(tr *flow.Trace, k *Kernel, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x6b65726e656c))
	for _, th := range tr.Threads {
		var out []flow.Event
		for _, ev := range th.Events {
			var entry uint64
			switch ev.Kind {
			case flow.Syscall:
				entry = k.Syscall
				if k.EntryVA != 0 {
					entry = k.EntryVA
				}
				out = append(out, flow.Event{Kind: flow.IndJump, From: ev.From, To: entry, Len: ev.Len, Insns: ev.Insns, Time: ev.Time})
			case flow.Async:
				entry = k.Interrupt
				out = append(out, flow.Event{Kind: flow.Interrupt, From: ev.From, To: entry, Insns: ev.Insns, Time: ev.Time})
			default:
				out = append(out, ev)
				continue
			}
			kev, exit, exitLen, n, err := k.walk(entry, rng, ev.Time)
			if err != nil {
				return fmt.Errorf("tid %d: %w", th.Tid, err)
			}
			out = append(out, kev...)
			if ev.To == 0 {
				out = append(out, flow.Event{Kind: flow.End, From: exit, Insns: n - 1, Time: ev.Time})
				continue
			}
			out = append(out, flow.Event{Kind: flow.IndJump, From: exit, To: ev.To, Len: exitLen, Insns: n, Time: max(ev.Back, ev.Time)})
		}
		th.Events = out
	}
	return nil
}

// Kallsyms is /proc/kallsyms for the kernel: its functions, text
// symbols, then the modules' functions, each followed by a tab and its
// module's name in brackets.
func (k *Kernel) Kallsyms() []byte {
	var b bytes.Buffer
	for _, s := range k.Syms {
		fmt.Fprintf(&b, "%016x T %s\n", s.Addr, s.Name)
	}
	for _, m := range k.Modules {
		for _, s := range m.Syms {
			fmt.Fprintf(&b, "%016x t %s\t[%s]\n", s.Addr, s.Name, m.Name)
		}
	}
	// The trampolines' copies, as a PTI kernel lists them
	// (arch_get_kallsym) when the recording has their MMAPs.
	if k.TrampolinesListed {
		for cpu := range k.TrampolineMaps {
			fmt.Fprintf(&b, "%016x t __entry_SYSCALL_64_trampoline\n", TrampolineVA(cpu))
		}
	}
	return b.Bytes()
}

// ProcModules is /proc/modules for the modules: name, size, use count,
// dependencies, state and address.
func (k *Kernel) ProcModules() []byte {
	var b bytes.Buffer
	for _, m := range k.Modules {
		fmt.Fprintf(&b, "%s %d 0 - Live 0x%016x\n", m.Name, m.Size(), m.Start)
	}
	return b.Bytes()
}

// Kcore is an ELF core file holding the kernel's text and each module's
// as executable PT_LOAD segments at their addresses, as perf record
// --kcore copies /proc/kcore.
func (k *Kernel) Kcore() []byte {
	const ehsize, phsize = 64, 56
	type seg struct {
		addr uint64
		text []byte
	}
	segs := []seg{{k.Start, k.Text}}
	for _, m := range k.Modules {
		segs = append(segs, seg{m.Start, m.Text})
	}
	if code, ok := k.code(k.Trampoline); ok && k.Trampoline != 0 && k.TrampolinesListed {
		for cpu := range k.TrampolineMaps {
			segs = append(segs, seg{TrampolineVA(cpu), code[:min(len(code), pageSize)]})
		}
	}
	var b bytes.Buffer
	le := binary.LittleEndian
	h := make([]byte, ehsize)
	copy(h, "\x7fELF")
	h[4], h[5], h[6] = 2, 1, 1 // ELFCLASS64, ELFDATA2LSB, EV_CURRENT
	le.PutUint16(h[16:], uint16(elf.ET_CORE))
	le.PutUint16(h[18:], uint16(elf.EM_X86_64))
	le.PutUint32(h[20:], 1)
	le.PutUint64(h[32:], ehsize) // e_phoff
	le.PutUint16(h[52:], ehsize)
	le.PutUint16(h[54:], phsize)
	le.PutUint16(h[56:], uint16(len(segs))) // e_phnum
	b.Write(h)
	off := uint64(0x1000)
	for _, s := range segs {
		p := make([]byte, phsize)
		le.PutUint32(p[0:], uint32(elf.PT_LOAD))
		le.PutUint32(p[4:], uint32(elf.PF_R|elf.PF_X))
		le.PutUint64(p[8:], off)
		le.PutUint64(p[16:], s.addr)
		le.PutUint64(p[24:], 0)
		le.PutUint64(p[32:], uint64(len(s.text)))
		le.PutUint64(p[40:], uint64(len(s.text)))
		le.PutUint64(p[48:], 0x1000)
		b.Write(p)
		off += (uint64(len(s.text)) + 0xfff) &^ 0xfff
	}
	for _, s := range segs {
		b.Write(make([]byte, (b.Len()+0xfff)&^0xfff-b.Len()))
		b.Write(s.text)
	}
	return b.Bytes()
}
