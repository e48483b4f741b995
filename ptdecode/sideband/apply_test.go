package sideband

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// fakeImage records what the session maps.
type fakeImage struct {
	name string
	maps []string
}

func (f *fakeImage) AddFile(path string, offset, size, vaddr uint64) error {
	f.maps = append(f.maps, fmt.Sprintf("%s+%x:%x@%x", path, offset, size, vaddr))
	return nil
}

func (f *fakeImage) CopyFrom(src Image) error {
	f.maps = append(f.maps, src.(*fakeImage).maps...)
	return nil
}

// switchBody is a SWITCH_CPU_WIDE body: next/prev pid and tid.
func switchBody(pid, tid uint32) []byte {
	b := binary.LittleEndian.AppendUint32(nil, pid)
	return binary.LittleEndian.AppendUint32(b, tid)
}

func newTestSession(t *testing.T, files ...[]byte) (*Session, *bytes.Buffer, *bufio.Writer) {
	s := NewSession()
	for i, f := range files {
		s.AddDecoder(NewPevent(PeventConfig{Filename: fmt.Sprintf("f%d", i), Primary: i == 0,
			SampleType: SampleTID | SampleTime, TimeMult: 1, KernelStart: 0xffff800000000000}, f))
	}
	s.SetImages(func(name string) Image { return &fakeImage{name: name} })
	s.SetDumpFlags(DumpCompact)
	s.SetWarnings(true)
	s.SetSeverity(true)
	s.NotifySwitch(func(w *bufio.Writer, c *Context) { fmt.Fprintf(w, "[context: %s]\n", c.Name) })
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	s.Init(w)
	return s, &out, w
}

// TestEventSwitch follows libipt's pevent-tip_pgd-switch-tsc-tip_pge test:
// the context of ITRACE_START is installed at once; a SWITCH.IN waits for
// the trace to be in the kernel (here: after a TIP.PGD without IP).
func TestEventSwitch(t *testing.T) {
	var sb []byte
	sb = append(sb, rec(RecordMmap, 0, mmapBody(0x1000, 3, 0, "t.bin"), 1, 1, 0)...)
	sb = append(sb, rec(RecordItraceStart, 0, switchBody(1, 1), 1, 1, 0)...)
	sb = append(sb, rec(RecordSwitch, MiscSwitchOut, nil, 1, 1, 2)...)
	sb = append(sb, rec(RecordSwitch, 0, nil, 3, 3, 3)...)
	sb = append(sb, rec(RecordSwitch, 0, nil, 2, 2, 3)...)
	s, out, w := newTestSession(t, sb)
	var got []string
	step := func(ev Event) {
		img := s.Event(w, &ev)
		w.Flush()
		name := "-"
		if img != nil {
			name = img.(*fakeImage).name
		}
		got = append(got, strings.TrimSpace(out.String())+" => "+name)
		out.Reset()
	}
	step(Event{TSC: 1, Loc: LocIP, IP: 0x1000})               // enabled
	step(Event{TSC: 1, Loc: LocDisabled, IPSuppressed: true}) // disabled
	step(Event{TSC: 4, Loc: LocIP, IP: 0x2000})               // enabled
	step(Event{TSC: 5, Loc: LocDisabled, IPSuppressed: true}) // nothing left
	want := []string{
		"PERF_RECORD_MMAP  1/2, 1000, 3, 0, t.bin  { 1/1 0 }\nPERF_RECORD_ITRACE_START  1/1  { 1/1 0 }\n[context: pid-1] => pid-1",
		" => -",
		"PERF_RECORD_SWITCH.OUT  { 1/1 2 }\nPERF_RECORD_SWITCH.IN  { 3/3 3 }\nPERF_RECORD_SWITCH.IN  { 2/2 3 }\n[context: pid-2] => pid-2",
		" => -",
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d:\n%s\nwant:\n%s", i, got[i], want[i])
		}
	}
	if c := s.contextByPID(1, false); c == nil || len(c.Image.(*fakeImage).maps) != 1 {
		t.Errorf("pid 1 image: %+v", c)
	}
}

// TestEventExecFork checks COMM.EXEC (a new image, switched to in the
// kernel), FORK (the child starts as a copy of its parent) and warnings.
func TestEventExecFork(t *testing.T) {
	fork := binary.LittleEndian.AppendUint32(nil, 2) // pid
	fork = binary.LittleEndian.AppendUint32(fork, 1) // ppid
	fork = binary.LittleEndian.AppendUint32(fork, 2) // tid
	fork = binary.LittleEndian.AppendUint32(fork, 1) // ptid
	fork = binary.LittleEndian.AppendUint64(fork, 7) // time
	comm := append(switchBody(1, 1), "sh\x00\x00\x00\x00\x00\x00"...)
	var sb []byte
	sb = append(sb, rec(RecordItraceStart, 0, switchBody(1, 1), 1, 1, 0)...)
	sb = append(sb, rec(RecordMmap, 0, mmapBody(0x1000, 3, 0, "a.bin"), 1, 1, 1)...)
	sb = append(sb, rec(RecordComm, MiscCommExec, comm, 1, 1, 2)...)
	sb = append(sb, rec(RecordMmap, 0, mmapBody(0x4000, 3, 0, "b.bin"), 1, 1, 2)...)
	sb = append(sb, rec(RecordFork, 0, fork, 1, 1, 3)...)
	sb = append(sb, rec(RecordMmap, 0, mmapBody(0x9000, 3, 0, "//anon"), 1, 1, 3)...)
	s, out, w := newTestSession(t, sb)
	s.SetDumpFlags(0)
	if img := s.Event(w, &Event{TSC: 0, Loc: LocIP, IP: 0x1000}); img == nil {
		t.Fatal("no image at ITRACE_START")
	}
	// User space: the exec's switch waits.
	if img := s.Event(w, &Event{TSC: 3, Loc: LocIP, IP: 0x1000}); img != nil {
		t.Fatalf("switched in user space to %v", img)
	}
	// Kernel: now.
	img := s.Event(w, &Event{TSC: 3, Loc: LocIP, IP: 0xffff800000001000})
	w.Flush()
	if img == nil || strings.Join(img.(*fakeImage).maps, " ") != "b.bin+0:3@4000" {
		t.Fatalf("after exec: %+v", img)
	}
	child := s.contextByPID(2, false)
	if child == nil || strings.Join(child.Image.(*fakeImage).maps, " ") != "b.bin+0:3@4000" {
		t.Errorf("child image: %+v", child)
	}
	if !strings.Contains(out.String(), "[f0:00000000000000f8 sideband warning: image section lost]") {
		t.Errorf("no //anon warning in %q", out.String())
	}
}
