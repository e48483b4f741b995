package ptrace

import (
	"context"
	"debug/elf"
	"fmt"
	"slices"
	"testing"

	"github.com/perfpt/perfpt/internal/cpuid"
	"github.com/perfpt/perfpt/record/flow"
	"github.com/perfpt/perfpt/record/testprog"
	"golang.org/x/sys/unix"
)

// TestPTWriteRTM traces ptwtsx, which runs PTWRITE and RTM instructions
// that this CPU lacks, in each mode: the tracer performs them, so the
// program's own checks pass (exit 0: XTEST, nested transactions, XABORT's
// status in EAX and the roll-back of its store), and every mode sees the
// same flow with the expected PTWRITE payloads and transaction events.
func TestPTWriteRTM(t *testing.T) {
	prog := testprog.Path(t, "ptwtsx")
	step, ips := trace(t, Step, prog)
	if step.Exit != 0 {
		t.Fatalf("ptwtsx exited with %d (1: committed transaction, 2: XABORT, 4: XTEST, 8: abort by syscall)", step.Exit)
	}
	var payloads []uint64
	var kinds []flow.Kind
	var n uint64
	for _, e := range step.Trace.Threads[0].Events {
		n += e.Insns
		switch e.Kind {
		case flow.PTWrite:
			payloads = append(payloads, e.Back)
			if narrow := e.Back == 0xfeedface || e.Back&^3 == 0x1000; narrow == e.Taken {
				t.Errorf("%v: 64-bit %v", e, e.Taken)
			}
		case flow.TxBegin, flow.TxCommit, flow.TxAbort:
			kinds = append(kinds, e.Kind)
		}
	}
	if n != uint64(len(ips[step.Trace.Threads[0].Tid])) {
		t.Errorf("events count %d instructions, %d retired", n, len(ips[step.Trace.Threads[0].Tid]))
	}
	want := []uint64{0, 0x1000, 1, 0x1001, 2, 0x1002}
	if len(payloads) != 9 || !slices.Equal(payloads[:6], want) || payloads[7] != 0xfeedface || payloads[8] != 0x7a7a7a7a {
		t.Errorf("payloads %x, want %x, &data, feedface, 7a7a7a7a", payloads, want)
	}
	// Committed (with a nested one), aborted by XABORT, aborted by SYSCALL.
	wantK := []flow.Kind{flow.TxBegin, flow.TxCommit, flow.TxBegin, flow.TxAbort, flow.TxBegin, flow.TxAbort}
	if fmt.Sprint(kinds) != fmt.Sprint(wantK) {
		t.Errorf("transaction events %v, want %v", kinds, wantK)
	}
	fastAgrees(t, []string{prog}, step)
}

// TestRTMRollback traces rtmroll, whose aborted transactions write memory
// (REP STOSB into static and stack buffers in called functions, a counter
// through a pointer, pushes), abort from a nested transaction and fault:
// its exit status is 0 only if every write was rolled back and the abort
// statuses are right (an abort that left memory changed exits 46).
func TestRTMRollback(t *testing.T) {
	prog := testprog.Path(t, "rtmroll")
	step, _ := trace(t, Step, prog)
	if step.Exit != 0 {
		t.Fatalf("single-step: rtmroll exited with %d (see rtmroll.c for the bits)", step.Exit)
	}
	fastAgrees(t, []string{prog}, step)
}

// TestSpecialFaults runs XEND outside a transaction (#GP) and PTWRITE from
// address 0 (#PF): the thread dies of SIGSEGV at that instruction, in every
// mode.
func TestSpecialFaults(t *testing.T) {
	prog := testprog.Path(t, "rtmroll")
	for _, arg := range []string{"x", "p"} {
		step, _ := trace(t, Step, prog, arg)
		evs := step.Trace.Threads[0].Events
		last := evs[len(evs)-1]
		if step.Signal != unix.SIGSEGV || last.Kind != flow.End {
			t.Fatalf("%s: signal %v, last event %v", arg, step.Signal, last)
		}
		in, err := decodeInsn(codeAt(t, prog, last.From), last.From)
		if want := map[string]class{"x": clXEnd, "p": clPTW}[arg]; err != nil || in.class != want {
			t.Errorf("%s: died at %#x, class %d (%v), want %d", arg, last.From, in.class, err, want)
		}
		fastAgrees(t, []string{prog, arg}, step)
	}
}

// codeAt reads 16 bytes of prog's code at virtual address addr.
func codeAt(t *testing.T, prog string, addr uint64) []byte {
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr+16 <= p.Vaddr+p.Filesz {
			b := make([]byte, 16)
			if _, err := p.ReadAt(b, int64(addr-p.Vaddr)); err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("%#x not in %s", addr, prog)
	return nil
}

// fastAgrees traces prog in fast mode, with and without the interpreter,
// and checks that it exits as in step with the flow step saw.
func fastAgrees(t *testing.T, argv []string, step *Result) {
	t.Helper()
	null := devnull(t)
	for _, opt := range []Options{{Mode: Fast}, {Mode: Fast, NoInterp: true}} {
		opt.Stdout, opt.Stderr = null, null
		res, err := Run(context.Background(), argv, opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.Exit != step.Exit {
			t.Errorf("fast (interp %v): exit %d, single-step %d", !opt.NoInterp, res.Exit, step.Exit)
		}
		if d := flow.Equal(step.Trace, res.Trace); d != "" {
			t.Errorf("fast (interp %v) differs from single-step: %s", !opt.NoInterp, d)
		}
	}
}

// TestCPUID runs rtmroll c, which exits 0 when CPUID reports RTM and
// PTWRITE: with Options.CPUID it must, in both modes; without, CPUID
// reports the host.
func TestCPUID(t *testing.T) {
	prog := testprog.Path(t, "rtmroll")
	host := 1
	if c, ok := cpuid.Native(7, 0); ok && c.EBX>>11&1 == 1 {
		if c, _ := cpuid.Native(0x14, 0); c.EBX>>4&1 == 1 {
			host = 0
		}
	}
	null := devnull(t)
	for _, mode := range []Mode{Fast, Step} {
		for _, fake := range []bool{true, false} {
			res, err := Run(context.Background(), []string{prog, "c"}, Options{Mode: mode, CPUID: fake, Stdout: null, Stderr: null})
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 0, false: host}[fake]; res.Exit != want {
				t.Errorf("%v, CPUID %v: exit %d, want %d", mode, fake, res.Exit, want)
			}
		}
	}
}
