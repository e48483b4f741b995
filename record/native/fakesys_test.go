package native

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/perfpt/perfpt/perfdata"
	"golang.org/x/sys/unix"
)

// fakeSys stands in for the kernel: events are plain memory, and the test
// plays the kernel by writing trace into the AUX areas. Every call happens
// on the recorder's goroutine.
type fakeSys struct {
	events []*fakeEvent
	log    []string
	// onIoctl runs after each ioctl (the kernel's side of DISABLE/ENABLE).
	onIoctl func(fs *fakeSys, fd int, req uint)
}

type fakeEvent struct {
	attr     unix.PerfEventAttr
	pid, cpu int
	mem, aux []byte
	auxProt  int
	output   int // SET_OUTPUT target, or -1
	pos      uint64
}

const fakeFD = 1 << 20

func (f *fakeSys) ev(fd int) *fakeEvent { return f.events[fd-fakeFD] }

func (f *fakeSys) open(attr *unix.PerfEventAttr, pid, cpu int) (int, error) {
	f.events = append(f.events, &fakeEvent{attr: *attr, pid: pid, cpu: cpu, output: -1})
	f.log = append(f.log, fmt.Sprintf("open type %d pid %d cpu %d", attr.Type, pid, cpu))
	return fakeFD + len(f.events) - 1, nil
}

func (f *fakeSys) id(fd int) (uint64, error) { return uint64(fd - fakeFD + 100), nil }

func (f *fakeSys) mmap(fd int, off int64, size, prot int) ([]byte, error) {
	e := f.ev(fd)
	if off == 0 {
		e.mem = make([]byte, size)
		return e.mem, nil
	}
	pg := (*unix.PerfEventMmapPage)(unsafe.Pointer(&e.mem[0]))
	if uint64(off) != pg.Aux_offset || uint64(size) != pg.Aux_size {
		return nil, unix.EINVAL
	}
	e.aux, e.auxProt = make([]byte, size), prot
	return e.aux, nil
}

func (f *fakeSys) munmap([]byte) {}

func (f *fakeSys) setOutput(fd, target int) error {
	f.ev(fd).output = target
	return nil
}

func (f *fakeSys) ioctl(fd int, req uint) error {
	name := map[uint]string{unix.PERF_EVENT_IOC_DISABLE: "disable", unix.PERF_EVENT_IOC_ENABLE: "enable"}[req]
	f.log = append(f.log, fmt.Sprintf("%s %d", name, fd-fakeFD))
	if f.onIoctl != nil {
		f.onIoctl(f, fd, req)
	}
	return nil
}

func (f *fakeSys) close(int) {}

// pt returns the intel_pt events.
func (f *fakeSys) pt() []*fakeEvent {
	var es []*fakeEvent
	for _, e := range f.events {
		if e.aux != nil {
			es = append(es, e)
		}
	}
	return es
}

// write plays the kernel writing n bytes of trace into e's AUX area:
// advancing aux_head in full-trace mode, overwriting in snapshot mode
// (aux_head an offset in the area).
func (e *fakeEvent) write(n int, overwrite bool) {
	meta := e.mem[:4096]
	for i := 0; i < n; i++ {
		e.aux[(e.pos+uint64(i))%uint64(len(e.aux))] = byte(e.pos+uint64(i))%251 + 1
	}
	e.pos += uint64(n)
	head := e.pos
	if overwrite {
		head %= uint64(len(e.aux))
	}
	binary.LittleEndian.PutUint64(meta[pageAuxHead:], head)
}

// auxtraces reads a perf.data's AUXTRACE records.
func auxtraces(t *testing.T, path string) []*perfdata.RecordAuxtrace {
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var as []*perfdata.RecordAuxtrace
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		if a, ok := rs.Record.(*perfdata.RecordAuxtrace); ok {
			c := *a
			c.Data = append([]byte(nil), a.Data...)
			as = append(as, &c)
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return as
}

// TestRecordPTFullTrace runs a whole default-mode intel_pt recording on
// fake events: one intel_pt and one tracking event per online CPU, the
// tracking one writing to the intel_pt ring, the AUX area writable, and
// every byte the "kernel" wrote copied once, in order, as AUXTRACE records
// of its CPU, with aux_tail given back.
func TestRecordPTFullTrace(t *testing.T) {
	fs := &fakeSys{}
	out := filepath.Join(t.TempDir(), "pt.data")
	var pid int
	written := map[int]int{}
	res, err := RecordPT(context.Background(), []string{"true"}, PTOptions{Root: testSysfs(), Output: out, AuxPages: 2, DataPages: 1,
		sys: fs, OnStart: func(p int) {
			pid = p
			for i, e := range fs.pt() {
				e.write(1000+3000*i, false)
				written[e.cpu] = 1000 + 3000*i
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	online := OnlineCPUs()
	pts := fs.pt()
	if len(pts) != len(online) || len(fs.events) != 2*len(online) {
		t.Fatalf("%d intel_pt events of %d: %v", len(pts), len(fs.events), fs.log)
	}
	for i, e := range fs.events {
		wantPID, wantCPU := pid, online[i%len(online)]
		if e.pid != wantPID || e.cpu != wantCPU {
			t.Errorf("event %d on pid %d cpu %d, want %d %d", i, e.pid, e.cpu, wantPID, wantCPU)
		}
		if i >= len(online) && e.output != fakeFD+i-len(online) {
			t.Errorf("tracking event %d writes to %d", i, e.output)
		}
		if i < len(online) {
			if e.auxProt != unix.PROT_READ|unix.PROT_WRITE || e.attr.Aux_watermark != 2*4096/4 || e.attr.Type != 8 {
				t.Errorf("intel_pt event %d: prot %d attr %+v", i, e.auxProt, e.attr)
			}
			if tail := binary.LittleEndian.Uint64(e.mem[pageAuxTail:]); tail != e.pos {
				t.Errorf("CPU %d: aux_tail %d, head %d", e.cpu, tail, e.pos)
			}
		}
	}
	got := map[int32][]byte{}
	for _, a := range auxtraces(t, out) {
		if a.TID != -1 || a.AuxOffset != uint64(len(got[a.CPU])) {
			t.Errorf("AUXTRACE %+v", a)
		}
		got[a.CPU] = append(got[a.CPU], a.Data...)
	}
	var total uint64
	for cpu, n := range written {
		if !bytes.Equal(got[int32(cpu)], stream(0, uint64(n))) {
			t.Errorf("CPU %d: %d bytes copied, %d written", cpu, len(got[int32(cpu)]), n)
		}
		total += uint64(n)
	}
	if res.AuxBytes != total {
		t.Errorf("AuxBytes %d, want %d", res.AuxBytes, total)
	}
}

// TestRecordPTSnapshots runs a per-thread snapshot-mode recording on a fake
// event: the AUX area is mapped read-only, each SIGUSR2 disables the event,
// copies what is new (the whole area once wrapped) as one AUXTRACE record
// of the thread, and enables it again; SnapshotOnExit takes a last one.
func TestRecordPTSnapshots(t *testing.T) {
	// Keep SIGUSR2 from ever killing the test binary.
	keep := make(chan os.Signal, 4)
	signal.Notify(keep, syscall.SIGUSR2)
	defer signal.Stop(keep)

	fs := &fakeSys{}
	enables := 0
	fs.onIoctl = func(fs *fakeSys, fd int, req uint) {
		if req != unix.PERF_EVENT_IOC_ENABLE {
			return
		}
		enables++
		if enables == 1 { // more trace, wrapping the area, then a second snapshot
			fs.pt()[0].write(10000, true)
			syscall.Kill(os.Getpid(), syscall.SIGUSR2)
		}
	}
	out := filepath.Join(t.TempDir(), "snap.data")
	var pid int
	res, err := RecordPT(context.Background(), []string{"sleep", "0.3"}, PTOptions{Root: testSysfs(), Output: out, AuxPages: 2,
		DataPages: 1, Target: Target{PerThread: true}, Snapshot: true, SnapshotOnExit: true, sys: fs,
		OnStart: func(p int) {
			pid = p
			fs.pt()[0].write(3000, true)
			syscall.Kill(os.Getpid(), syscall.SIGUSR2)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.events) != 2 || fs.events[0].pid != pid || fs.events[0].cpu != -1 || fs.events[1].output != fakeFD {
		t.Fatalf("events %v", fs.log)
	}
	e := fs.events[0]
	if e.auxProt != unix.PROT_READ || e.attr.Aux_watermark != 0 || e.attr.Bits&uint64(perfdata.AttrFlagInherit) != 0 {
		t.Errorf("snapshot event: prot %d attr %+v", e.auxProt, e.attr)
	}
	if res.Snapshots != 3 {
		t.Errorf("%d snapshots, want 3 (log %v)", res.Snapshots, fs.log)
	}
	want := []struct {
		off  uint64
		data []byte
	}{
		{0, stream(0, 3000)},
		{13000 % 8192, stream(13000-8192, 13000)},
		{13000 % 8192, stream(13000-8192, 13000)}, // wrapped: the whole area again
	}
	as := auxtraces(t, out)
	if len(as) != len(want) {
		t.Fatalf("%d AUXTRACE records, want %d", len(as), len(want))
	}
	for i, a := range as {
		if a.AuxOffset != want[i].off || !bytes.Equal(a.Data, want[i].data) || a.TID != int32(pid) || a.CPU != -1 || a.Idx != 0 {
			t.Errorf("snapshot %d: offset %d, %d bytes, tid %d cpu %d idx %d", i, a.AuxOffset, len(a.Data), a.TID, a.CPU, a.Idx)
		}
	}
	wantLog := []string{"disable 0", "enable 0", "disable 0", "enable 0", "disable 0", "enable 0"}
	if got := fs.log[2:]; fmt.Sprint(got) != fmt.Sprint(wantLog) {
		t.Errorf("ioctls %v, want %v", got, wantLog)
	}
	if tail := binary.LittleEndian.Uint64(e.mem[pageAuxTail:]); tail != 0 {
		t.Errorf("aux_tail written in overwrite mode: %d", tail)
	}
}

// TestRecordPTSystemWide checks the opens of -a and -C on fake events:
// pid -1 on each CPU; with -C and a user-space trace, tracking events on
// every online CPU, those without an intel_pt event with their own ring.
func TestRecordPTSystemWide(t *testing.T) {
	online := OnlineCPUs()
	last := online[len(online)-1]
	for _, tc := range []struct {
		name          string
		target        Target
		event         string
		pt, own, kern int // intel_pt events, tracking events with their own ring, kernel MMAP records
	}{
		{"-a", Target{AllCPUs: true}, "intel_pt//u", len(online), 0, 0},
		{"-C user", Target{CPUs: []int{last}}, "intel_pt//u", 1, len(online) - 1, 0},
		{"-C kernel", Target{CPUs: []int{last}}, "intel_pt//k", 1, 0, 1},
	} {
		fs := &fakeSys{}
		out := filepath.Join(t.TempDir(), "pt.data")
		if _, err := RecordPT(context.Background(), []string{"true"}, PTOptions{Root: testSysfs(), Output: out, Event: tc.event,
			AuxPages: 2, DataPages: 1, Target: tc.target, sys: fs}); err != nil {
			t.Fatal(err)
		}
		pt, own, enables := 0, 0, 0
		for _, l := range fs.log {
			if strings.HasPrefix(l, "enable ") {
				enables++
			}
		}
		if enables != len(fs.events) {
			t.Errorf("%s: %d enables of %d disabled events", tc.name, enables, len(fs.events))
		}
		for _, e := range fs.events {
			if e.attr.Bits&uint64(perfdata.AttrFlagDisabled) == 0 {
				t.Errorf("%s: event on CPU %d opened enabled", tc.name, e.cpu)
			}
			if e.pid != -1 {
				t.Errorf("%s: event on pid %d", tc.name, e.pid)
			}
			switch {
			case e.aux != nil:
				pt++
				if e.attr.Sample_type&uint64(perfdata.SampleFormatCPU) == 0 {
					t.Errorf("%s: no CPU in samples", tc.name)
				}
			case e.output < 0:
				own++
				if e.mem == nil || e.cpu == last {
					t.Errorf("%s: tracking event on CPU %d without ring", tc.name, e.cpu)
				}
			}
		}
		if pt != tc.pt || own != tc.own {
			t.Errorf("%s: %d intel_pt events, %d tracking events with own ring; want %d, %d (%v)", tc.name, pt, own, tc.pt, tc.own, fs.log)
		}
		f, err := perfdata.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		kern, comms := 0, 0
		rs := f.Records(perfdata.FileOrder)
		for rs.Next() {
			switch r := rs.Record.(type) {
			case *perfdata.RecordMmap:
				if r.Filename == "[kernel.kallsyms]_text" {
					kern++
				}
			case *perfdata.RecordComm:
				comms++
			case *perfdata.RecordAuxtraceInfo:
				info, _ := perfdata.ParseIntelPTInfo(r.Priv)
				if info.HaveSchedSwitch != 3 || info.PerCPUMmaps != 1 {
					t.Errorf("%s: info %+v", tc.name, info)
				}
			}
		}
		f.Close()
		if text, _ := kallsymsText("/proc/kallsyms"); text == 0 {
			tc.kern = 0
		}
		if kern != tc.kern || comms < 2 {
			t.Errorf("%s: %d kernel MMAPs (want %d), %d COMMs (every task's)", tc.name, kern, tc.kern, comms)
		}
	}
}
