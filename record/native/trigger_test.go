package native

import (
	"debug/elf"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestTriggerBreakpoint checks the native trigger's mechanism without
// Intel PT: a breakpoint on the example program's digits (called 6890
// times, static) signals SIGUSR2 at its N-th execution, and not when the
// program calls it fewer times.
func TestTriggerBreakpoint(t *testing.T) {
	prog, err := filepath.Abs("../../testdata/example/symfs/tmp/perfpt-example/primes")
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(prog)
	if err != nil {
		t.Fatal(err) // in the repository
	}
	var digits uint64
	syms, _ := f.Symbols()
	for _, s := range syms {
		if s.Name == "digits" {
			digits = s.Value
		}
	}
	f.Close()
	if digits == 0 {
		t.Fatal("no digits in the example program")
	}
	for _, tc := range []struct {
		n    int
		want bool
	}{{100, true}, {6890, true}, {6891, false}} {
		got, err := runWithTrigger(t, prog, &Trigger{Path: prog, Value: digits, N: tc.n})
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("digits:%d: signalled %v, want %v", tc.n, got, tc.want)
		}
	}
}

// runWithTrigger runs prog with tr's breakpoint and says whether SIGUSR2
// came before it exited.
func runWithTrigger(t *testing.T, prog string, tr *Trigger) (bool, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	usr2 := make(chan os.Signal, 4)
	signal.Notify(usr2, syscall.SIGUSR2)
	defer signal.Stop(usr2)
	pid, err := syscall.ForkExec(prog, []string{prog}, &syscall.ProcAttr{Files: []uintptr{null.Fd(), null.Fd(), null.Fd()},
		Sys: &syscall.SysProcAttr{Ptrace: true, Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		return false, err
	}
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil || !ws.Stopped() {
		return false, errors.New("the program did not stop after its exec")
	}
	fd, err := openTrigger(kernelSys{}, pid, tr)
	if err != nil {
		unix.Kill(pid, unix.SIGKILL)
		unix.Wait4(pid, &ws, 0, nil)
		if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENODEV) {
			t.Skipf("hardware breakpoints are not available here: %v", err)
		}
		return false, err
	}
	defer unix.Close(fd)
	if err := ptraceDetach(pid); err != nil {
		return false, err
	}
	done := make(chan struct{})
	go func() {
		unix.Wait4(pid, &ws, 0, nil)
		close(done)
	}()
	select {
	case <-usr2:
		<-done
		return true, nil
	case <-done:
		// A signal sent just before the exit may still be on its way.
		select {
		case <-usr2:
			return true, nil
		case <-time.After(100 * time.Millisecond):
			return false, nil
		}
	case <-time.After(time.Minute):
		unix.Kill(pid, unix.SIGKILL)
		return false, errors.New("the program did not end")
	}
}
