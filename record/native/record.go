package native

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/perfpt/perfpt/perfdata"
	"golang.org/x/sys/unix"
)

// Options configure Record.
type Options struct {
	Output    string // perf.data path ("" means perf.data)
	Event     string // cpu-clock (default), task-clock; ":u" user space only, ":k" kernel only
	Target    Target // per-thread, -a or -C
	Freq      int    // samples per second (0: 4000)
	CallGraph bool   // -g: frame-pointer call chains
	// DataPages is the size of the data ring in pages (a power of two; 0
	// means 128).
	DataPages int
	Stdin     *os.File
	Stdout    *os.File
	Stderr    *os.File
	Env       []string
	// OnStart, if set, is called with the command's pid once it runs.
	OnStart func(pid int)
	// Header holds the features to write (hostname, cmdline, ...); build
	// ids of the mapped files are added.
	Header perfdata.Features
}

// Result says what Record recorded.
type Result struct {
	Samples   uint64
	Lost      uint64
	Records   uint64
	AuxBytes  uint64 // intel_pt: bytes of trace copied
	Snapshots int    // intel_pt snapshot mode: snapshots taken
	Triggered bool   // intel_pt with a Trigger: it was hit and its snapshot taken
	Warning   string // what was recorded differently from what was asked, or ""
	Exit      int
}

// SoftwareConfig returns the PERF_TYPE_SOFTWARE config of a named event.
func SoftwareConfig(name string) (uint64, error) {
	switch name {
	case "cpu-clock", "":
		return unix.PERF_COUNT_SW_CPU_CLOCK, nil
	case "task-clock":
		return unix.PERF_COUNT_SW_TASK_CLOCK, nil
	case "page-faults", "faults":
		return unix.PERF_COUNT_SW_PAGE_FAULTS, nil
	case "context-switches", "cs":
		return unix.PERF_COUNT_SW_CONTEXT_SWITCHES, nil
	}
	return 0, fmt.Errorf("unsupported event %q (software events: cpu-clock, task-clock, page-faults, context-switches)", name)
}

// SoftwareAttr builds the attr perf record uses for a sampling software
// event that also tracks mmap, comm and task events: kernel and user space
// unless ev says :u or :k; the CPU in samples for -a and -C; inherit off
// per-thread (perf sets no_inherit when there is no CPU list).
func SoftwareAttr(config uint64, freq int, callGraph bool, ev Event, t Target) perfdata.EventAttr {
	st := perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime | perfdata.SampleFormatPeriod
	if callGraph {
		st |= perfdata.SampleFormatCallchain
	}
	if t.SystemWide() {
		st |= perfdata.SampleFormatCPU
	}
	flags := perfdata.AttrFlagExcludeHV | perfdata.AttrFlagMmap | perfdata.AttrFlagComm | perfdata.AttrFlagFreq |
		perfdata.AttrFlagTask | perfdata.AttrFlagSampleIDAll | perfdata.AttrFlagMmap2 | perfdata.AttrFlagCommExec
	if !t.PerThread {
		flags |= perfdata.AttrFlagInherit
	}
	if ev.User && !ev.Kernel {
		flags |= perfdata.AttrFlagExcludeKernel
	}
	if ev.Kernel && !ev.User {
		flags |= perfdata.AttrFlagExcludeUser
	}
	return perfdata.EventAttr{Type: perfdata.AttrTypeSoftware, Size: perfdata.AttrSize, Config: config,
		SamplePeriod: uint64(freq), SampleType: st, Flags: flags}
}

// KernelAttr converts an attr to the kernel's struct.
func KernelAttr(a perfdata.EventAttr) unix.PerfEventAttr {
	return unix.PerfEventAttr{Type: uint32(a.Type), Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Config: a.Config, Sample: a.SamplePeriod, Sample_type: uint64(a.SampleType), Read_format: uint64(a.ReadFormat),
		Bits: uint64(a.Flags), Wakeup: a.WakeupEvents, Ext1: a.Config1, Ext2: a.Config2,
		Aux_watermark: a.AuxWatermark, Sample_max_stack: a.SampleMaxStack}
}

// Record runs argv and samples it with a software event, writing a
// perf.data that perf report reads: the command and its children on every
// CPU, or (opt.Target) the command's thread alone, or every task on all or
// some CPUs while the command runs.
func Record(ctx context.Context, argv []string, opt Options) (*Result, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command to run")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("cannot run %s: %w", argv[0], err)
	}
	if f, err := elf.Open(path); err == nil {
		m := f.Machine
		f.Close()
		if m != elf.EM_X86_64 {
			return nil, fmt.Errorf("%s: not an x86-64 program (ELF machine %v)", path, m)
		}
	}
	ev, err := ParseEvent(opt.Event)
	if err != nil {
		return nil, err
	}
	if ev.PMU != "" {
		return nil, fmt.Errorf("event %q: only software events are recorded natively so far", opt.Event)
	}
	config, err := SoftwareConfig(ev.Name)
	if err != nil {
		return nil, err
	}
	if err := opt.Target.Check(); err != nil {
		return nil, err
	}
	if opt.Freq <= 0 {
		opt.Freq = 4000
	}
	if opt.DataPages <= 0 {
		opt.DataPages = 128
	}
	if opt.Output == "" {
		opt.Output = "perf.data"
	}
	type out struct {
		res *Result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		runtime.LockOSThread() // ptrace: the forking thread traces
		res, err := record(ctx, path, argv, opt, config, ev)
		ch <- out{res, err}
	}()
	o := <-ch
	return o.res, o.err
}

func record(ctx context.Context, path string, argv []string, opt Options, config uint64, ev Event) (*Result, error) {
	env := opt.Env
	if env == nil {
		env = os.Environ()
	}
	files := []uintptr{fdOf(opt.Stdin, os.Stdin), fdOf(opt.Stdout, os.Stdout), fdOf(opt.Stderr, os.Stderr)}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: files,
		Sys: &syscall.SysProcAttr{Ptrace: true, Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		return nil, fmt.Errorf("cannot run %s: %w", path, err)
	}
	// The child stops after execve: open the event on it, then let it go.
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil || !ws.Stopped() {
		unix.Kill(pid, unix.SIGKILL)
		return nil, fmt.Errorf("starting %s: %v (status %v)", path, err, ws)
	}
	kill := func() { unix.Kill(pid, unix.SIGKILL); unix.Wait4(pid, &ws, 0, nil) }
	attr := SoftwareAttr(config, opt.Freq, opt.CallGraph, ev, opt.Target)
	if opt.Target.SystemWide() {
		// Enabled once the existing tasks are synthesized, as perf does.
		attr.Flags |= perfdata.AttrFlagDisabled
	}
	// By default one event per CPU, inherited by the command's children
	// (the kernel does not let inherited per-task events be mapped).
	ka := KernelAttr(attr)
	var rings []*Ring
	var ids []uint64
	var warning string
	var fds []int
	page := os.Getpagesize()
	for _, o := range opt.Target.Opens(pid, OnlineCPUs()) {
		fd, err := unix.PerfEventOpen(&ka, o.PID, o.CPU, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil && len(ids) == 0 && ev.Modifiers == "" && !opt.Target.SystemWide() &&
			(errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)) {
			// As perf: an event without modifiers falls back to user
			// space when the kernel may not be sampled.
			attr.Flags |= perfdata.AttrFlagExcludeKernel
			ka = KernelAttr(attr)
			ev.User, ev.Modifiers = true, "u"
			warning = fmt.Sprintf("kernel.perf_event_paranoid is %s: kernel not sampled, recording %s:u", paranoid(), opt.Event)
			fd, err = unix.PerfEventOpen(&ka, o.PID, o.CPU, -1, unix.PERF_FLAG_FD_CLOEXEC)
		}
		if err != nil {
			kill()
			return nil, openError(opt.Event, o, err)
		}
		defer unix.Close(fd)
		id, err := eventID(fd)
		if err != nil {
			kill()
			return nil, err
		}
		mem, err := unix.Mmap(fd, 0, (1+opt.DataPages)*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			kill()
			return nil, fmt.Errorf("mmap of the event's ring: %w", err)
		}
		defer unix.Munmap(mem)
		rings = append(rings, NewRing(mem[:page], mem[page:], nil))
		fds = append(fds, fd)
		ids = append(ids, id)
	}

	w, err := perfdata.Create(opt.Output)
	if err != nil {
		kill()
		return nil, err
	}
	name := ev.Name
	if name == "" {
		name = "cpu-clock"
	}
	if ev.Modifiers != "" {
		name += ":" + ev.Modifiers
	}
	if _, err := w.AddAttr(attr, ids, name); err != nil {
		kill()
		w.Close()
		return nil, err
	}
	// What existed before the event: the command's name and mappings.
	mapped := map[string]bool{}
	synth := func() error { return synthesize(w, pid, mapped) }
	if opt.Target.SystemWide() {
		synth = func() error { return synthesizeAll(w, mapped) }
	}
	if attr.Flags&perfdata.AttrFlagExcludeKernel == 0 {
		if err := synthesizeKernel(w); err != nil {
			kill()
			w.Close()
			return nil, err
		}
	}
	if err := synth(); err != nil {
		kill()
		w.Close()
		return nil, err
	}
	if attr.Flags&perfdata.AttrFlagDisabled != 0 {
		for _, fd := range fds {
			if err := ioctl(fd, unix.PERF_EVENT_IOC_ENABLE); err != nil {
				kill()
				w.Close()
				return nil, err
			}
		}
	}
	if err := ptraceDetach(pid); err != nil {
		kill()
		w.Close()
		return nil, fmt.Errorf("detach: %w", err)
	}
	if opt.OnStart != nil {
		opt.OnStart(pid)
	}

	res := &Result{Warning: warning}
	var drainRing func(*Ring) error
	done := make(chan unix.WaitStatus, 1)
	go func() {
		var ws unix.WaitStatus
		for {
			_, err := unix.Wait4(pid, &ws, 0, nil)
			if err != unix.EINTR {
				break
			}
		}
		done <- ws
	}()
	drain := func() error {
		for _, ring := range rings {
			if err := drainRing(ring); err != nil {
				return err
			}
		}
		return nil
	}
	drainRing = func(ring *Ring) error {
		_, err := ring.ReadRecords(func(rec []byte) error {
			res.Records++
			switch perfdata.RecordType(uint32(rec[0]) | uint32(rec[1])<<8 | uint32(rec[2])<<16 | uint32(rec[3])<<24) {
			case perfdata.RecordTypeSample:
				res.Samples++
			case perfdata.RecordTypeLost:
				if len(rec) >= 24 {
					res.Lost += le64(rec[16:])
				}
			case perfdata.RecordTypeMmap2:
				if n := mmap2Name(rec); n != "" {
					mapped[n] = true
				}
			}
			return w.WriteRaw(rec)
		})
		return err
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var werr error
	var status unix.WaitStatus
loop:
	for {
		select {
		case status = <-done:
			break loop
		case <-ctx.Done():
			unix.Kill(pid, unix.SIGKILL)
		case <-tick.C:
			if err := drain(); err != nil && werr == nil {
				werr = err
			}
		}
	}
	if err := drain(); err != nil && werr == nil {
		werr = err
	}
	res.Exit = status.ExitStatus()
	if status.Signaled() {
		res.Exit = 128 + int(status.Signal())
	}
	fs := opt.Header
	for n := range mapped {
		if strings.HasPrefix(n, "/") {
			if bid := fileBuildID(n); bid != nil {
				fs.BuildIDs = append(fs.BuildIDs, perfdata.BuildID{Misc: perfdata.MiscUser, PID: -1, BuildID: bid, Filename: n})
			}
		}
	}
	if attr.Flags&perfdata.AttrFlagExcludeKernel == 0 {
		if bid := kernelBuildID(); bid != nil {
			fs.BuildIDs = append(fs.BuildIDs, perfdata.BuildID{Misc: perfdata.MiscKernel, PID: -1, BuildID: bid, Filename: "[kernel.kallsyms]"})
		}
	}
	if len(fs.BuildIDs) > 0 {
		fs.Set(perfdata.FeatBuildID)
	}
	w.Features = fs
	if err := w.Close(); err != nil && werr == nil {
		werr = err
	}
	if werr != nil {
		return res, fmt.Errorf("writing %s: %w", opt.Output, werr)
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, nil
}

// onlineCPUs lists the CPUs this process may run on.
func onlineCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return []int{0}
	}
	var cpus []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

func fdOf(f, def *os.File) uintptr {
	if f == nil {
		f = def
	}
	return f.Fd()
}

func le64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func eventID(fd int) (uint64, error) {
	var id uint64
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.PERF_EVENT_IOC_ID, uintptr(unsafe.Pointer(&id)))
	if e != 0 {
		return 0, fmt.Errorf("PERF_EVENT_IOC_ID: %w", e)
	}
	return id, nil
}

func ptraceDetach(pid int) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_DETACH, uintptr(pid), 0, 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// mmap2Name returns the file name of a raw MMAP2 record.
func mmap2Name(rec []byte) string {
	const nameOff = 8 + 4 + 4 + 8 + 8 + 8 + 4 + 4 + 8 + 8 + 4 + 4
	if len(rec) <= nameOff {
		return ""
	}
	b := rec[nameOff:]
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return ""
}
