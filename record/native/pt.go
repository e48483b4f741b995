package native

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/perfpt/perfpt/perfdata"
	"golang.org/x/sys/unix"
)

// PTOptions configure RecordPT.
type PTOptions struct {
	Output    string // "" means perf.data
	Event     string // "intel_pt//u" and the like
	Root      string // sysfs root ("" means /sys)
	DataPages int    // data ring pages per CPU (0: 128)
	AuxPages  int    // AUX area pages per CPU (0: 4 MiB for root, else 128 KiB, as perf)
	Target    Target // per-thread, -a or -C
	// Snapshot maps the AUX area read-only so that the kernel overwrites
	// it, and copies it on SIGUSR2 (perf record -S); SnapshotOnExit also
	// copies it when the command ends (perf record -Se).
	Snapshot       bool
	SnapshotOnExit bool
	// Trigger takes one snapshot when the command executes a function
	// for the N-th time (a breakpoint event's overflow sends SIGUSR2),
	// then stops the command; it implies Snapshot.
	Trigger *Trigger
	OnStart func(pid int)
	Stdin   *os.File
	Stdout  *os.File
	Stderr  *os.File
	Env     []string
	Header  perfdata.Features

	sys eventSys // nil: the kernel's
}

// PTMode is how an intel_pt recording is made.
type PTMode struct {
	Target   Target
	Snapshot bool // AUX area in overwrite mode, copied on SIGUSR2 (perf record -S)
	AuxPages int  // AUX area pages per CPU (or per thread)
	PageSize int  // 0: os.Getpagesize()
}

// PTAttrs returns the intel_pt and tracking (dummy) attrs perf record uses
// for ev on pmu in mode m: the CPU in samples unless per-thread; inherit
// off per-thread (perf sets no_inherit when there is no CPU list);
// aux_watermark a quarter of the AUX area except in snapshot mode; context
// switch records on the tracking event unless per-thread.
func PTAttrs(pmu *PMU, ev Event, m PTMode) (pt, dummy perfdata.EventAttr, err error) {
	if err := m.Target.Check(); err != nil {
		return pt, dummy, err
	}
	cfg, err := IntelPTConfig(pmu, ev)
	if err != nil {
		return pt, dummy, err
	}
	st := perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime | perfdata.SampleFormatIdentifier
	if !m.Target.PerThread {
		st |= perfdata.SampleFormatCPU
	}
	common := perfdata.AttrFlagExcludeHV | perfdata.AttrFlagSampleIDAll | perfdata.AttrFlagExcludeGuest
	if !m.Target.PerThread {
		common |= perfdata.AttrFlagInherit
	}
	if ev.User && !ev.Kernel {
		common |= perfdata.AttrFlagExcludeKernel
	}
	if ev.Kernel && !ev.User {
		common |= perfdata.AttrFlagExcludeUser
	}
	pt = perfdata.EventAttr{Type: perfdata.AttrType(pmu.Type), Size: perfdata.AttrSize, Config: cfg.Config,
		Config1: cfg.Config1, Config2: cfg.Config2, SamplePeriod: 1, SampleType: st, Flags: common}
	if !m.Snapshot {
		page := m.PageSize
		if page == 0 {
			page = os.Getpagesize()
		}
		pt.AuxWatermark = uint32(min(uint64(m.AuxPages)*uint64(page)/4, 1<<32-1))
	}
	dflags := common | perfdata.AttrFlagMmap | perfdata.AttrFlagComm | perfdata.AttrFlagTask |
		perfdata.AttrFlagMmap2 | perfdata.AttrFlagCommExec
	if !m.Target.PerThread {
		dflags |= perfdata.AttrFlagContextSwitch
	}
	// The tracking event sees user-space sideband even for a kernel-only trace.
	dflags &^= perfdata.AttrFlagExcludeUser
	dummy = perfdata.EventAttr{Type: perfdata.AttrTypeSoftware, Size: perfdata.AttrSize, Config: perfdata.SWDummy,
		SamplePeriod: 1, SampleType: st, Flags: dflags}
	return pt, dummy, nil
}

// HaveSchedSwitch is the AUXTRACE_INFO have_sched_switch value for mode m:
// 0 per-thread (no switch records), 3 system-wide (SWITCH_CPU_WIDE from
// CPU-wide tracking events), 2 for a command on every CPU (SWITCH records
// from its own tracking events, perf's choice when it does not add a
// CPU-wide switch event).
func (m PTMode) HaveSchedSwitch() uint64 {
	switch {
	case m.Target.PerThread:
		return 0
	case m.Target.SystemWide():
		return 3
	}
	return 2
}

// PTInfo returns the intel_pt AUXTRACE_INFO fields for pmu, with the time
// conversion of the mapped user page, the TSC:CTC ratio from CPUID leaf
// 0x15 (id nil: this CPU) and the max non-turbo ratio from the PMU's
// max_nonturbo_ratio file, as perf's intel_pt_info_fill.
func PTInfo(pmu *PMU, tc perfdata.RecordTimeConv, m PTMode, id CPUIDFunc) perfdata.IntelPTInfo {
	info := perfdata.IntelPTInfo{PMUType: uint64(pmu.Type), TimeShift: tc.TimeShift, TimeMult: tc.TimeMult,
		TimeZero: tc.TimeZero, TSCBit: pmu.Format["tsc"].Mask(), NoRetCompBit: pmu.Format["noretcomp"].Mask(),
		MTCBit: pmu.Format["mtc"].Mask(), MTCFreqBits: pmu.Format["mtc_period"].Mask(), CYCBit: pmu.Format["cyc"].Mask(),
		HaveSchedSwitch: m.HaveSchedSwitch()}
	if tc.CapUserTimeZero && tc.TimeMult != 0 {
		info.CapUserTimeZero = 1
	}
	if !m.Target.PerThread {
		info.PerCPUMmaps = 1
	}
	if m.Snapshot {
		info.SnapshotMode = 1
	}
	n, d := TSCCTCRatio(id)
	info.TSCCTCRatioN, info.TSCCTCRatioD = uint64(n), uint64(d)
	if b, err := os.ReadFile(pmu.Dir + "/max_nonturbo_ratio"); err == nil {
		info.MaxNonTurboRatio, _ = strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	}
	return info
}

// timeConv reads the TSC conversion from an event's user page.
func timeConv(meta []byte) perfdata.RecordTimeConv {
	pg := (*unix.PerfEventMmapPage)(unsafe.Pointer(&meta[0]))
	return perfdata.RecordTimeConv{TimeShift: uint64(pg.Time_shift), TimeMult: uint64(pg.Time_mult),
		TimeZero: pg.Time_zero, TimeCycles: pg.Time_cycles, TimeMask: pg.Time_mask,
		CapUserTimeZero: pg.Capabilities&(1<<4) != 0, CapUserTimeShort: pg.Capabilities&(1<<5) != 0, Extended: true}
}

// drainPT copies what a CPU's rings hold into w: the data ring's records
// as they are, the AUX area's new bytes as AUXTRACE records (idx, cpu).
func drainPT(r *Ring, w *perfdata.Writer, idx uint32, cpu int32, ref *uint64) (aux uint64, err error) {
	if _, err := r.ReadRecords(w.WriteRaw); err != nil {
		return 0, err
	}
	return drainAux(r, w, idx, -1, cpu, ref)
}

// RecordPT records argv with the intel_pt PMU as perf record -e intel_pt//u
// does: by default on every CPU following the command's children; with
// opt.Target per thread, on all CPUs or on the listed ones; with
// opt.Snapshot the AUX area is overwritten and copied on SIGUSR2 (and at
// the end when SnapshotOnExit).
func RecordPT(ctx context.Context, argv []string, opt PTOptions) (*Result, error) {
	root := opt.Root
	if root == "" {
		root = SysfsRoot
	}
	pmu, err := LoadPMU(root, "intel_pt")
	if err != nil {
		return nil, fmt.Errorf("no Intel PT on this machine: %v; record with --emulate instead", err)
	}
	if opt.Event == "" {
		opt.Event = "intel_pt//u"
	}
	ev, err := ParseEvent(opt.Event)
	if err != nil {
		return nil, err
	}
	if opt.DataPages <= 0 {
		opt.DataPages = 128
	}
	if opt.AuxPages <= 0 {
		// perf's defaults: 4 MiB when privileged, else 128 KiB.
		opt.AuxPages = (4 << 20) / os.Getpagesize()
		if os.Geteuid() != 0 {
			opt.AuxPages = (128 << 10) / os.Getpagesize()
		}
	}
	if opt.AuxPages&(opt.AuxPages-1) != 0 || opt.DataPages&(opt.DataPages-1) != 0 {
		return nil, fmt.Errorf("data and AUX area sizes must be powers of two pages (got %d and %d)", opt.DataPages, opt.AuxPages)
	}
	if opt.Trigger != nil {
		opt.Snapshot = true
	}
	mode := PTMode{Target: opt.Target, Snapshot: opt.Snapshot, AuxPages: opt.AuxPages}
	ptAttr, dummyAttr, err := PTAttrs(pmu, ev, mode)
	if err != nil {
		return nil, err
	}
	if len(argv) == 0 {
		return nil, errors.New("no command to run")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, fmt.Errorf("cannot run %s: %w", argv[0], err)
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
		runtime.LockOSThread()
		res, err := recordPT(ctx, path, argv, opt, pmu, mode, ptAttr, dummyAttr)
		ch <- out{res, err}
	}()
	o := <-ch
	return o.res, o.err
}

// ptCPU is one mapped ring: the intel_pt event's (with its AUX area), or a
// tracking event's own when it has no intel_pt event to write to.
type ptCPU struct {
	ring *Ring
	fd   int // intel_pt event, or -1
	cpu  int32
	tid  int32 // the thread of a per-thread AUX area, else -1
	snap AuxSnapshot
}

func recordPT(ctx context.Context, path string, argv []string, opt PTOptions, pmu *PMU, mode PTMode, ptAttr, dummyAttr perfdata.EventAttr) (*Result, error) {
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
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil || !ws.Stopped() {
		unix.Kill(pid, unix.SIGKILL)
		return nil, fmt.Errorf("starting %s: %v", path, err)
	}
	kill := func() { unix.Kill(pid, unix.SIGKILL); unix.Wait4(pid, &ws, 0, nil) }
	page := os.Getpagesize()
	sys := opt.sys
	if sys == nil {
		sys = kernelSys{}
	}
	if mode.Target.SystemWide() {
		// Enabled once the existing tasks are synthesized, as perf does.
		ptAttr.Flags |= perfdata.AttrFlagDisabled
		dummyAttr.Flags |= perfdata.AttrFlagDisabled
	}
	pa, da := KernelAttr(ptAttr), KernelAttr(dummyAttr)
	online := OnlineCPUs()
	var allFDs []int
	var rings []*ptCPU
	var ptIDs, dummyIDs []uint64
	ptFD := map[int]int{} // cpu -> intel_pt fd
	auxProt := unix.PROT_READ | unix.PROT_WRITE
	if opt.Snapshot {
		auxProt = unix.PROT_READ // read-only: the kernel overwrites
	}
	for _, o := range mode.Target.Opens(pid, online) {
		pfd, err := sys.open(&pa, o.PID, o.CPU)
		if err != nil {
			kill()
			return nil, openError(opt.Event, o, err)
		}
		defer sys.close(pfd)
		allFDs = append(allFDs, pfd)
		id, err := sys.id(pfd)
		if err != nil {
			kill()
			return nil, err
		}
		mem, err := sys.mmap(pfd, 0, (1+opt.DataPages)*page, unix.PROT_READ|unix.PROT_WRITE)
		if err != nil {
			kill()
			return nil, fmt.Errorf("mmap of the data ring: %w", err)
		}
		defer sys.munmap(mem)
		auxOff := uint64((1 + opt.DataPages) * page)
		setAuxArea(mem, auxOff, uint64(opt.AuxPages*page))
		aux, err := sys.mmap(pfd, int64(auxOff), opt.AuxPages*page, auxProt)
		if err != nil {
			kill()
			if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOMEM) {
				return nil, fmt.Errorf("mmap of the AUX area (%d KiB per CPU): %w: more than kernel.perf_event_mlock_kb and RLIMIT_MEMLOCK allow", opt.AuxPages*page>>10, err)
			}
			return nil, fmt.Errorf("mmap of the AUX area (%d KiB per CPU): %w", opt.AuxPages*page>>10, err)
		}
		defer sys.munmap(aux)
		tid := int32(-1)
		if mode.Target.PerThread {
			tid = int32(o.PID)
		}
		rings = append(rings, &ptCPU{ring: NewRing(mem[:page], mem[page:], aux), fd: pfd, cpu: int32(o.CPU), tid: tid})
		ptIDs = append(ptIDs, id)
		ptFD[o.CPU] = pfd
	}
	// Tracking events: with the intel_pt ones, except that a user-space
	// trace of some CPUs (-C) needs the sideband of every CPU, as tasks
	// migrate.
	dopens := mode.Target.Opens(pid, online)
	if len(mode.Target.CPUs) > 0 && ptAttr.Flags&perfdata.AttrFlagExcludeUser == 0 {
		dopens = Target{AllCPUs: true}.Opens(pid, online)
	}
	for _, o := range dopens {
		dfd, err := sys.open(&da, o.PID, o.CPU)
		if err != nil {
			kill()
			return nil, openError("dummy", o, err)
		}
		defer sys.close(dfd)
		allFDs = append(allFDs, dfd)
		id, err := sys.id(dfd)
		if err != nil {
			kill()
			return nil, err
		}
		dummyIDs = append(dummyIDs, id)
		if pfd, ok := ptFD[o.CPU]; ok {
			// The sideband goes to the intel_pt event's ring.
			if err := sys.setOutput(dfd, pfd); err != nil {
				kill()
				return nil, err
			}
			continue
		}
		mem, err := sys.mmap(dfd, 0, (1+opt.DataPages)*page, unix.PROT_READ|unix.PROT_WRITE)
		if err != nil {
			kill()
			return nil, fmt.Errorf("mmap of the tracking ring: %w", err)
		}
		defer sys.munmap(mem)
		rings = append(rings, &ptCPU{ring: NewRing(mem[:page], mem[page:], nil), fd: -1, cpu: int32(o.CPU), tid: -1})
	}
	w, err := perfdata.Create(opt.Output)
	if err != nil {
		kill()
		return nil, err
	}
	fail := func(err error) (*Result, error) {
		kill()
		w.Close()
		return nil, err
	}
	if err := writePTHeader(w, opt.Event, pmu, mode, ptAttr, dummyAttr, ptIDs, dummyIDs, timeConv(rings[0].ring.meta), nil); err != nil {
		return fail(err)
	}
	if ptAttr.Flags&perfdata.AttrFlagExcludeKernel == 0 {
		if err := synthesizeKernel(w); err != nil {
			return fail(err)
		}
	}
	if mode.Target.SystemWide() {
		err = synthesizeAll(w, map[string]bool{})
	} else {
		err = synthesize(w, pid, map[string]bool{})
	}
	if err != nil {
		return fail(err)
	}
	if mode.Target.SystemWide() {
		for _, fd := range allFDs {
			if err := sys.ioctl(fd, unix.PERF_EVENT_IOC_ENABLE); err != nil {
				return fail(err)
			}
		}
	}
	if opt.Trigger != nil {
		// Opened while the command is stopped after its exec: its
		// executable is mapped.
		bfd, err := openTrigger(sys, pid, opt.Trigger)
		if err != nil {
			return fail(fmt.Errorf("--trigger: %w", err))
		}
		defer sys.close(bfd)
	}
	if err := ptraceDetach(pid); err != nil {
		return fail(err)
	}
	res := &Result{}
	done := make(chan unix.WaitStatus, 1)
	go func() {
		var ws unix.WaitStatus
		for {
			if _, err := unix.Wait4(pid, &ws, 0, nil); err != unix.EINTR {
				break
			}
		}
		done <- ws
	}()
	var ref uint64
	drain := func() error {
		for i, r := range rings {
			if _, err := r.ring.ReadRecords(w.WriteRaw); err != nil {
				return err
			}
			if opt.Snapshot {
				continue
			}
			n, err := drainAux(r.ring, w, uint32(i), r.tid, r.cpu, &ref)
			res.AuxBytes += n
			if err != nil {
				return err
			}
		}
		return nil
	}
	snapshot := func() error {
		var errs []error
		for _, r := range rings {
			if r.fd >= 0 {
				errs = append(errs, sys.ioctl(r.fd, unix.PERF_EVENT_IOC_DISABLE))
			}
		}
		errs = append(errs, drain())
		for i, r := range rings {
			n, err := snapshotAux(r.ring, &r.snap, w, uint32(i), r.tid, r.cpu, &ref)
			res.AuxBytes += n
			errs = append(errs, err)
		}
		for _, r := range rings {
			if r.fd >= 0 {
				errs = append(errs, sys.ioctl(r.fd, unix.PERF_EVENT_IOC_ENABLE))
			}
		}
		res.Snapshots++
		return errors.Join(errs...)
	}
	usr2 := make(chan os.Signal, 1)
	if opt.Snapshot {
		signal.Notify(usr2, syscall.SIGUSR2)
		defer signal.Stop(usr2)
	}
	if opt.OnStart != nil {
		opt.OnStart(pid)
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var werr error
	keep := func(err error) {
		if err != nil && werr == nil {
			werr = err
		}
	}
	var status unix.WaitStatus
loop:
	for {
		select {
		case status = <-done:
			break loop
		case <-ctx.Done():
			unix.Kill(pid, unix.SIGKILL)
		case <-usr2:
			keep(snapshot())
			if opt.Trigger != nil && !res.Triggered {
				// The trigger's snapshot: the recording ends there.
				res.Triggered = true
				unix.Kill(pid, unix.SIGKILL)
			}
		case <-tick.C:
			keep(drain())
		}
	}
	if opt.Snapshot && opt.SnapshotOnExit {
		keep(snapshot())
	}
	keep(drain())
	res.Exit = status.ExitStatus()
	w.Features = opt.Header
	keep(w.Close())
	if werr != nil {
		return res, fmt.Errorf("writing %s: %w", opt.Output, werr)
	}
	if opt.Trigger != nil && !res.Triggered && ctx.Err() == nil {
		return res, ErrTriggerNotHit
	}
	return res, ctx.Err()
}

// writePTHeader writes what a native intel_pt recording starts with: the
// intel_pt and tracking attrs with their ids, AUXTRACE_INFO (PTInfo, with
// perf's trailing Cap Event Trace word) and TIME_CONV.
func writePTHeader(w *perfdata.Writer, event string, pmu *PMU, mode PTMode, ptAttr, dummyAttr perfdata.EventAttr,
	ptIDs, dummyIDs []uint64, tc perfdata.RecordTimeConv, id CPUIDFunc) error {
	if _, err := w.AddAttr(ptAttr, ptIDs, event); err != nil {
		return err
	}
	dname := "dummy:u"
	if dummyAttr.Flags&perfdata.AttrFlagExcludeKernel == 0 {
		dname = "dummy"
	}
	if _, err := w.AddAttr(dummyAttr, dummyIDs, dname); err != nil {
		return err
	}
	info := PTInfo(pmu, tc, mode, id)
	return errors.Join(
		w.WriteRecord(&perfdata.RecordAuxtraceInfo{AuxType: perfdata.AuxtraceIntelPT, Priv: append(info.Priv(), 0)}),
		w.WriteRecord(&tc))
}

// drainAux copies a ring's new AUX bytes into w as AUXTRACE records.
func drainAux(r *Ring, w *perfdata.Writer, idx uint32, tid, cpu int32, ref *uint64) (uint64, error) {
	return r.ReadAux(func(data []byte, off uint64) error {
		*ref++
		return w.WriteRecord(&perfdata.RecordAuxtrace{AuxOffset: off, Reference: *ref, Idx: idx, TID: tid, CPU: cpu, Data: data})
	})
}

// snapshotAux copies an overwrite-mode AUX area's snapshot into w as one
// AUXTRACE record, as perf does: perf's decoder takes each buffer of a
// snapshot recording as one snapshot (and trims its overlap with the
// previous one), so a wrapped area is not cut in two.
func snapshotAux(r *Ring, s *AuxSnapshot, w *perfdata.Writer, idx uint32, tid, cpu int32, ref *uint64) (uint64, error) {
	var buf []byte
	var start uint64
	n, err := r.ReadAuxSnapshot(s, 0, func(data []byte, off uint64) error {
		if buf == nil {
			start = off
		}
		buf = append(buf, data...)
		return nil
	})
	if err != nil || n == 0 {
		return 0, err
	}
	*ref++
	return n, w.WriteRecord(&perfdata.RecordAuxtrace{AuxOffset: start, Reference: *ref, Idx: idx, TID: tid, CPU: cpu, Data: buf})
}

func ioctl(fd int, req uint) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), 0); e != 0 {
		return fmt.Errorf("perf event ioctl %#x: %w", req, e)
	}
	return nil
}
