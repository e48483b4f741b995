package record

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record/ptrace"
	"github.com/perfpt/perfpt/record/testprog"
)

func TestNoSuchCommand(t *testing.T) {
	_, err := Emulate(context.Background(), []string{"/nonexistent/prog"}, Options{Output: filepath.Join(t.TempDir(), "x.data")})
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/prog") || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("got %v", err)
	}
	_, err = Emulate(context.Background(), []string{"perfpt-no-such-command"}, Options{Output: filepath.Join(t.TempDir(), "x.data")})
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("got %v", err)
	}
}

func TestNotX86_64(t *testing.T) {
	src, err := os.ReadFile(testprog.Path(t, "tiny"))
	if err != nil {
		t.Fatal(err)
	}
	src[18], src[19] = 183, 0 // e_machine = EM_AARCH64
	p := filepath.Join(t.TempDir(), "arm64")
	if err := os.WriteFile(p, src, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Emulate(context.Background(), []string{p}, Options{Output: filepath.Join(t.TempDir(), "x.data")})
	if !errors.Is(err, ptrace.ErrNotX86_64) {
		t.Errorf("got %v", err)
	}
}

// readable checks that the perf.data parses and, with perf, decodes.
func readable(t *testing.T, path string) {
	t.Helper()
	f, err := perfdata.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rs := f.Records(perfdata.FileOrder)
	n := 0
	for rs.Next() {
		n++
	}
	if err := rs.Err(); err != nil {
		t.Errorf("%s: %v", path, err)
	}
	f.Close()
	if _, err := exec.LookPath("perf"); err == nil {
		perfScript(t, path, "--itrace=i0ns", "-F", "tid,ip")
	}
}

func TestCrash(t *testing.T) {
	out := filepath.Join(t.TempDir(), "crash.data")
	null := devnull(t)
	res, err := Emulate(context.Background(), []string{testprog.Path(t, "crash")},
		Options{Output: out, Trace: ptrace.Options{Stdout: null, Stderr: null}, WriteOptions: WriteOptions{BuildIDDir: "-"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Exit != 128+11 {
		t.Errorf("exit %d, want 139 (SIGSEGV)", res.Exit)
	}
	readable(t, out)
}

// gone reports whether pid no longer exists (reaped, not stopped).
func gone(pid int) bool {
	_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
	return os.IsNotExist(err)
}

// TestInterrupt cancels a recording (what SIGINT does in perfpt record):
// the command must be killed, not left stopped, and the perf.data so far
// must be readable.
func TestInterrupt(t *testing.T) {
	for _, mode := range []ptrace.Mode{ptrace.Fast, ptrace.Step} {
		t.Run(mode.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "spin.data")
			prog := testprog.Path(t, "spin")
			ctx, cancel := context.WithCancel(context.Background())
			var pid, n int
			// Interrupt once it runs (or after 20 s on a very busy machine).
			time.AfterFunc(20*time.Second, cancel)
			res, err := Emulate(ctx, []string{prog}, Options{Output: out,
				Trace: ptrace.Options{Mode: mode, OnInsn: func(tid int, ip uint64) {
					pid = tid
					if n++; n == 2000 {
						go func() { time.Sleep(50 * time.Millisecond); cancel() }()
					}
				}},
				WriteOptions: WriteOptions{BuildIDDir: "-"}})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v, want context.Canceled", err)
			}
			if res == nil || res.Insns == 0 {
				t.Fatalf("nothing traced: %+v", res)
			}
			if pid == 0 || !gone(pid) {
				t.Errorf("command %d still exists", pid)
			}
			readable(t, out)
		})
	}
}

func TestFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	null := devnull(t)
	_, err := Emulate(context.Background(), []string{testprog.Path(t, "tiny")}, Options{Output: "/dev/full",
		Trace: ptrace.Options{Stdout: null}, WriteOptions: WriteOptions{BuildIDDir: "-"}})
	if err == nil || !strings.Contains(err.Error(), "/dev/full") || !strings.Contains(err.Error(), "no space") {
		t.Errorf("got %v", err)
	}
}
