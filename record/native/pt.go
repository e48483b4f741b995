package native

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
	AuxPages  int    // AUX area pages per CPU (0: 1024, 4 MiB)
	Snapshot  bool   // not supported yet
	Stdin     *os.File
	Stdout    *os.File
	Stderr    *os.File
	Env       []string
	Header    perfdata.Features
}

// PTAttrs returns the intel_pt and tracking (dummy) attrs perf record uses
// for a per-CPU recording of ev on pmu.
func PTAttrs(pmu *PMU, ev Event) (pt, dummy perfdata.EventAttr, err error) {
	cfg, err := IntelPTConfig(pmu, ev)
	if err != nil {
		return pt, dummy, err
	}
	st := perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime |
		perfdata.SampleFormatCPU | perfdata.SampleFormatIdentifier
	common := perfdata.AttrFlagInherit | perfdata.AttrFlagExcludeHV | perfdata.AttrFlagSampleIDAll |
		perfdata.AttrFlagExcludeGuest
	if ev.User && !ev.Kernel {
		common |= perfdata.AttrFlagExcludeKernel
	}
	pt = perfdata.EventAttr{Type: perfdata.AttrType(pmu.Type), Size: perfdata.AttrSize, Config: cfg.Config,
		Config1: cfg.Config1, Config2: cfg.Config2, SamplePeriod: 1, SampleType: st, Flags: common}
	dummy = perfdata.EventAttr{Type: perfdata.AttrTypeSoftware, Size: perfdata.AttrSize, Config: perfdata.SWDummy,
		SamplePeriod: 1, SampleType: st, Flags: common | perfdata.AttrFlagMmap | perfdata.AttrFlagComm |
			perfdata.AttrFlagTask | perfdata.AttrFlagMmap2 | perfdata.AttrFlagCommExec | perfdata.AttrFlagContextSwitch}
	return pt, dummy, nil
}

// PTInfo returns the intel_pt AUXTRACE_INFO fields for pmu, with the time
// conversion of the mapped user page.
func PTInfo(pmu *PMU, tc perfdata.RecordTimeConv, perCPU bool) perfdata.IntelPTInfo {
	info := perfdata.IntelPTInfo{PMUType: uint64(pmu.Type), TimeShift: tc.TimeShift, TimeMult: tc.TimeMult,
		TimeZero: tc.TimeZero, TSCBit: pmu.Format["tsc"].Mask(), NoRetCompBit: pmu.Format["noretcomp"].Mask(),
		MTCBit: pmu.Format["mtc"].Mask(), MTCFreqBits: pmu.Format["mtc_period"].Mask(), CYCBit: pmu.Format["cyc"].Mask()}
	if tc.CapUserTimeZero {
		info.CapUserTimeZero = 1
	}
	if perCPU {
		info.PerCPUMmaps = 1
	}
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
	return r.ReadAux(func(data []byte, off uint64) error {
		*ref++
		return w.WriteRecord(&perfdata.RecordAuxtrace{AuxOffset: off, Reference: *ref, Idx: idx, TID: -1, CPU: cpu, Data: data})
	})
}

// RecordPT records argv with the intel_pt PMU, per CPU, following its
// children, as perf record -e intel_pt//u does.
func RecordPT(ctx context.Context, argv []string, opt PTOptions) (*Result, error) {
	root := opt.Root
	if root == "" {
		root = SysfsRoot
	}
	pmu, err := LoadPMU(root, "intel_pt")
	if err != nil {
		return nil, fmt.Errorf("no Intel PT on this machine: %v; record with --emulate instead", err)
	}
	if opt.Snapshot {
		return nil, errors.New("intel_pt snapshot mode is not supported yet")
	}
	if opt.Event == "" {
		opt.Event = "intel_pt//u"
	}
	ev, err := ParseEvent(opt.Event)
	if err != nil {
		return nil, err
	}
	ptAttr, dummyAttr, err := PTAttrs(pmu, ev)
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
	if opt.DataPages <= 0 {
		opt.DataPages = 128
	}
	if opt.AuxPages <= 0 {
		opt.AuxPages = 1024
	}
	type out struct {
		res *Result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		runtime.LockOSThread()
		res, err := recordPT(ctx, path, argv, opt, pmu, ptAttr, dummyAttr)
		ch <- out{res, err}
	}()
	o := <-ch
	return o.res, o.err
}

func recordPT(ctx context.Context, path string, argv []string, opt PTOptions, pmu *PMU, ptAttr, dummyAttr perfdata.EventAttr) (*Result, error) {
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
	pa, da := KernelAttr(ptAttr), KernelAttr(dummyAttr)
	var rings []*Ring
	var cpus []int32
	var ptIDs, dummyIDs []uint64
	for _, cpu := range onlineCPUs() {
		pfd, err := unix.PerfEventOpen(&pa, pid, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			kill()
			return nil, fmt.Errorf("perf_event_open(%s) on CPU %d: %w", opt.Event, cpu, err)
		}
		defer unix.Close(pfd)
		dfd, err := unix.PerfEventOpen(&da, pid, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			kill()
			return nil, fmt.Errorf("perf_event_open(dummy) on CPU %d: %w", cpu, err)
		}
		defer unix.Close(dfd)
		pid1, err1 := eventID(pfd)
		did, err2 := eventID(dfd)
		if err := errors.Join(err1, err2); err != nil {
			kill()
			return nil, err
		}
		mem, err := unix.Mmap(pfd, 0, (1+opt.DataPages)*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			kill()
			return nil, fmt.Errorf("mmap of the data ring: %w", err)
		}
		defer unix.Munmap(mem)
		// The sideband goes to the intel_pt event's ring.
		if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(dfd), unix.PERF_EVENT_IOC_SET_OUTPUT, uintptr(pfd)); e != 0 {
			kill()
			return nil, fmt.Errorf("PERF_EVENT_IOC_SET_OUTPUT: %w", e)
		}
		// The AUX area follows the data ring; writable means the kernel
		// stops rather than overwrites when we fall behind.
		pg := (*unix.PerfEventMmapPage)(unsafe.Pointer(&mem[0]))
		auxOff := uint64((1 + opt.DataPages) * page)
		pg.Aux_offset, pg.Aux_size = auxOff, uint64(opt.AuxPages*page)
		aux, err := unix.Mmap(pfd, int64(auxOff), opt.AuxPages*page, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		if err != nil {
			kill()
			return nil, fmt.Errorf("mmap of the AUX area: %w", err)
		}
		defer unix.Munmap(aux)
		rings = append(rings, NewRing(mem[:page], mem[page:], aux))
		cpus = append(cpus, int32(cpu))
		ptIDs, dummyIDs = append(ptIDs, pid1), append(dummyIDs, did)
	}
	w, err := perfdata.Create(opt.Output)
	if err != nil {
		kill()
		return nil, err
	}
	if _, err := w.AddAttr(ptAttr, ptIDs, opt.Event); err != nil {
		kill()
		w.Close()
		return nil, err
	}
	if _, err := w.AddAttr(dummyAttr, dummyIDs, "dummy:u"); err != nil {
		kill()
		w.Close()
		return nil, err
	}
	tc := timeConv(rings[0].meta)
	info := PTInfo(pmu, tc, true)
	if err := errors.Join(
		w.WriteRecord(&perfdata.RecordAuxtraceInfo{AuxType: perfdata.AuxtraceIntelPT, Priv: append(info.Priv(), 0)}),
		w.WriteRecord(&tc),
		synthesize(w, pid, map[string]bool{})); err != nil {
		kill()
		w.Close()
		return nil, err
	}
	if err := ptraceDetach(pid); err != nil {
		kill()
		w.Close()
		return nil, err
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
			n, err := drainPT(r, w, uint32(i), cpus[i], &ref)
			res.AuxBytes += n
			if err != nil {
				return err
			}
		}
		return nil
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
	w.Features = opt.Header
	if err := w.Close(); err != nil && werr == nil {
		werr = err
	}
	if werr != nil {
		return res, fmt.Errorf("writing %s: %w", opt.Output, werr)
	}
	return res, ctx.Err()
}
