// Command qemuflow turns the execution of a statically linked x86-64
// program under qemu-user into the Intel PT recording intel_pt//u would
// have made of it, for the benchmark set of scripts/bench.sh: traces of
// programs nobody here tuned the decoders on, large enough to take seconds.
//
// qemu-x86_64 -d in_asm,exec,nochain logs every translation block it runs
// (PERF-FACTS.md: an exact source of control flow, 2-3 M instructions/s).
// qemuflow reads that log from a pipe, walks the program's code from block
// to block (ptdecode/insn classifies the instruction that ends each
// straight-line run), and turns the choices into record/flow events:
// conditional outcomes, indirect and return targets, syscalls. It then
// writes, with record/synth and record.WriteTrace,
//
//	NAME.pt     the raw PT stream of the thread (ptxed --pt, libipt's too)
//	NAME.data   a perf.data of the run (perf script, perfpt script/pprof/gcov)
//	NAME.info   key=value facts: insns (as ptxed --stat counts them), bytes, ...
//
// The program must be static and not position-independent (gcc -static
// -no-pie), so that its code is at its link addresses for ptxed --elf and
// perf alike; code outside its executable segments (a vdso, if qemu maps
// one) ends the run with a trace stop and resumes where the program's code
// is reached again.
//
//	qemuflow -o DIR/NAME [-max-insns N] [-ctc RATIO] -- PROG ARGS...
package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/perfpt/perfpt/ptdecode/insn"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/flow"
	"github.com/perfpt/perfpt/record/synth"
)

func main() {
	out := flag.String("o", "", "output prefix (writes PREFIX.pt, PREFIX.data, PREFIX.info)")
	maxInsns := flag.Uint64("max-insns", 0, "stop the flow after this many instructions (0: the whole run)")
	ctc := flag.Uint("ctc", 96, "TSC:CTC ratio (the virtual clock ticks once per instruction; 96 puts an MTC every 768 instructions at mtc_period 3, as on a 2.4 GHz core with a 25 MHz crystal)")
	flag.Parse()
	if *out == "" || flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: qemuflow -o PREFIX [-max-insns N] -- PROG ARGS...")
		os.Exit(2)
	}
	if err := run(*out, *maxInsns, uint32(*ctc), flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "qemuflow:", err)
		os.Exit(1)
	}
}

// image is the program's executable code at its link addresses.
type image struct {
	segs []segment
}

type segment struct {
	vaddr, off, filesz uint64
	data               []byte
}

func loadImage(path string) (*image, *elf.File, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if f.Type != elf.ET_EXEC {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a static non-PIE executable (build with -static -no-pie)", path)
	}
	im := &image{}
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD || p.Flags&elf.PF_X == 0 {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
			f.Close()
			return nil, nil, err
		}
		im.segs = append(im.segs, segment{vaddr: p.Vaddr, off: p.Off, filesz: p.Filesz, data: b})
	}
	if len(im.segs) == 0 {
		f.Close()
		return nil, nil, fmt.Errorf("%s: no executable segment", path)
	}
	return im, f, nil
}

// code returns the bytes from ip to the end of its segment, or nil.
func (im *image) code(ip uint64) []byte {
	for i := range im.segs {
		s := &im.segs[i]
		if ip >= s.vaddr && ip-s.vaddr < s.filesz {
			return s.data[ip-s.vaddr:]
		}
	}
	return nil
}

// walker builds a thread's flow from the blocks qemu ran.
type walker struct {
	im    *image
	th    *flow.Thread
	clock uint64
	// run is the straight-line run being walked: from start, whose last
	// instruction (a branch, or the last before code we cannot read) is
	// at last; pend says the branch waits for its target.
	start, last uint64
	lastIn      insn.Insn
	insns       uint64 // instructions since the previous event
	pend        bool
	on          bool // tracing enabled (in the program's code)
	total       uint64
	decoded     map[uint64]walkedRun
}

// walkedRun is the straight-line run from an address to its first branch.
type walkedRun struct {
	last  uint64
	n     uint64
	in    insn.Insn
	ends  []uint64 // instruction addresses (for blocks qemu split)
	noEnd bool     // the code ran out before a branch
}

func (w *walker) walk(ip uint64) (*walkedRun, error) {
	if r, ok := w.decoded[ip]; ok {
		return &r, nil
	}
	var r walkedRun
	for a := ip; ; {
		b := w.im.code(a)
		if b == nil {
			r.noEnd = true
			break
		}
		var in insn.Insn
		if err := insn.Decode(&in, b[:min(len(b), 15)], insn.Mode64); err != nil {
			return nil, fmt.Errorf("cannot decode the instruction at %#x: %v", a, err)
		}
		in.IP = a
		r.n++
		r.last, r.in = a, in
		r.ends = append(r.ends, a)
		if in.Class != insn.ClassOther && in.Class != insn.ClassPTWrite {
			break
		}
		a += uint64(in.Size)
	}
	w.decoded[ip] = r
	return &r, nil
}

func (w *walker) event(e flow.Event) {
	e.Insns = w.insns
	w.insns = 0
	e.Time = w.clock
	w.th.Events = append(w.th.Events, e)
}

// block takes the next block qemu ran, at pc.
func (w *walker) block(pc uint64) error {
	if w.im.code(pc) == nil {
		// Not the program's code (a vdso): the trace stops.
		if w.on {
			if w.pend {
				return w.resolve(pc)
			}
			w.event(flow.Event{Kind: flow.End, From: pc})
			w.on = false
		}
		return nil
	}
	if !w.on {
		w.event(flow.Event{Kind: flow.Begin, To: pc})
		w.on = true
		return w.enter(pc)
	}
	if !w.pend {
		return fmt.Errorf("block at %#x after a run that did not end", pc)
	}
	if pc > w.start && pc <= w.last {
		// qemu ended its block without a branch (a page boundary,
		// its size limit): the run goes on.
		return nil
	}
	if err := w.resolve(pc); err != nil {
		return err
	}
	return w.enter(pc)
}

// enter walks the run that starts at pc.
func (w *walker) enter(pc uint64) error {
	r, err := w.walk(pc)
	if err != nil {
		return err
	}
	w.start, w.last, w.lastIn = pc, r.last, r.in
	w.insns += r.n
	w.clock += r.n
	w.total += r.n
	w.pend = !r.noEnd
	if r.noEnd {
		w.event(flow.Event{Kind: flow.End, From: r.last})
		w.on = false
	}
	return nil
}

// resolve ends the pending run: its branch went to pc.
func (w *walker) resolve(pc uint64) error {
	in := &w.lastIn
	e := flow.Event{From: w.last, To: pc, Len: in.Size}
	ft := w.last + uint64(in.Size)
	switch {
	case in.Class == insn.ClassCondJump:
		e.Kind, e.Taken = flow.Cond, pc != ft
	case in.Class == insn.ClassCall && in.Direct:
		e.Kind = flow.Call
	case in.Class == insn.ClassCall:
		e.Kind = flow.IndCall
	case in.Class == insn.ClassJump && in.Direct:
		e.Kind = flow.Jump
	case in.Class == insn.ClassJump:
		e.Kind = flow.IndJump
	case in.Class == insn.ClassReturn:
		e.Kind = flow.Ret
	case in.IClass == insn.ISyscall:
		e.Kind = flow.Syscall
		e.Back = w.clock + flow.KernelTicks
		w.clock += flow.KernelTicks
	default:
		return fmt.Errorf("unsupported control transfer %v at %#x", in.IClass, w.last)
	}
	if w.im.code(pc) == nil && e.Kind != flow.Syscall {
		// Into code that is not the program's: stop the trace after the
		// branch (its target is what the trace would show).
		w.event(e)
		w.event(flow.Event{Kind: flow.End, From: pc})
		w.on, w.pend = false, false
		return nil
	}
	w.event(e)
	w.pend = false
	return nil
}

// finish ends the flow: an exit syscall never returns.
func (w *walker) finish() {
	if !w.on {
		return
	}
	if w.pend && w.lastIn.IClass == insn.ISyscall {
		w.event(flow.Event{Kind: flow.Syscall, From: w.last, Len: w.lastIn.Size})
	} else {
		// The trace ends before the branch at w.last retires.
		if w.pend && w.insns > 0 {
			w.insns--
			w.total--
		}
		w.event(flow.Event{Kind: flow.End, From: w.last})
	}
	w.on = false
}

func run(out string, maxInsns uint64, ctc uint32, argv []string) error {
	prog, err := filepath.Abs(argv[0])
	if err != nil {
		return err
	}
	im, ef, err := loadImage(prog)
	if err != nil {
		return err
	}
	defer ef.Close()
	qemu, err := exec.LookPath("qemu-x86_64")
	if err != nil {
		return fmt.Errorf("qemu-x86_64 not installed (Debian package qemu-user)")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(qemu, append([]string{"-d", "exec,nochain", "-D", "/dev/fd/3", prog}, argv[1:]...)...)
	cmd.ExtraFiles = []*os.File{pw}
	cmd.Stdout = io.Discard
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	pw.Close()
	const pid = 4242
	w := &walker{im: im, th: &flow.Thread{Pid: pid, Tid: pid}, clock: record.DefaultClockStart + 1000,
		decoded: map[uint64]walkedRun{}}
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var werr error
	for sc.Scan() {
		line := sc.Bytes()
		// Trace N: 0xhost [cs_base/pc/flags/cflags] sym
		if !bytes.HasPrefix(line, []byte("Trace ")) {
			continue
		}
		lb := bytes.IndexByte(line, '[')
		if lb < 0 {
			continue
		}
		f := bytes.Split(line[lb+1:], []byte("/"))
		if len(f) < 2 {
			continue
		}
		pc, err := strconv.ParseUint(string(f[1]), 16, 64)
		if err != nil {
			continue
		}
		if werr = w.block(pc); werr != nil {
			break
		}
		if maxInsns != 0 && w.total >= maxInsns && w.pend {
			break
		}
	}
	if werr != nil || maxInsns != 0 {
		cmd.Process.Kill()
	}
	io.Copy(io.Discard, pr)
	cmd.Wait()
	if werr != nil {
		return werr
	}
	if err := sc.Err(); err != nil {
		return err
	}
	w.finish()
	th := w.th
	name := filepath.Base(prog)
	tr := &flow.Trace{Threads: []*flow.Thread{th}, ClockStart: record.DefaultClockStart, Clock: w.clock}
	tr.Side = append(tr.Side, flow.Side{Kind: flow.Comm, Time: record.DefaultClockStart + 10, Pid: pid, Tid: pid, Name: name, Exec: true})
	for _, p := range ef.Progs {
		if p.Type != elf.PT_LOAD || p.Flags&elf.PF_X == 0 {
			continue
		}
		start := p.Vaddr &^ 0xfff
		tr.Side = append(tr.Side, flow.Side{Kind: flow.Mmap, Time: record.DefaultClockStart + 20, Pid: pid, Tid: pid,
			Addr: start, Len: (p.Vaddr + p.Memsz - start + 0xfff) &^ 0xfff, Pgoff: p.Off &^ 0xfff,
			Prot: 5, Flags: 2, Name: prog})
	}
	// intel_pt//u's defaults: TSC, MTC at mtc_period 3, return compression.
	cfg := synth.Config{TSC: true, MTC: true, MTCPeriod: 3, CTCNum: ctc, CTCDen: 1}
	st, err := synth.Encode(th, cfg)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out+".pt", st.Data, 0o644); err != nil {
		return err
	}
	ws, err := record.WriteTrace(out+".data", tr, record.WriteOptions{PT: cfg, BuildIDDir: "-", Cmdline: argv})
	if err != nil {
		return err
	}
	insns := th.Insns()
	info := fmt.Sprintf("insns=%d\nbytes=%d\nevents=%d\nprog=%s\nelf=%s\nbuffers=%d\n",
		insns, len(st.Data), len(th.Events), name, prog, ws.Buffers)
	return os.WriteFile(out+".info", []byte(info), 0o644)
}
