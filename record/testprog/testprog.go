// Package testprog builds the C test programs of testdata/programs for
// tests: record's own, and those of other packages that want recordings of
// them. Build runs make with gcc into a temporary directory once per test
// binary and skips the test when make or gcc is missing.
package testprog

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
)

// Names lists the programs the Makefile builds: <prog>-<static|dyn>-<O0|O2>
// for mix (PLT calls, a vdso call, a jump table, deep recursion, signal
// handlers entered from a syscall and from a fault), threads (three worker
// threads) and forkexec (fork, then exec of its arguments; -v: vfork), plus tiny (no
// libc, a few hundred instructions).
var Names = func() []string {
	n := []string{"tiny", "crash", "spin"}
	for _, p := range []string{"mix", "threads", "forkexec"} {
		for _, l := range []string{"static", "dyn"} {
			for _, o := range []string{"O0", "O2"} {
				n = append(n, p+"-"+l+"-"+o)
			}
		}
	}
	return n
}()

var (
	once sync.Once
	dir  string
	err  error
)

// SourceDir returns testdata/programs of the repository.
func SourceDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "programs")
}

// Dir builds every program (once per process) and returns the directory
// holding them. The directory is removed by Cleanup (call it from TestMain)
// or left in the temporary directory.
func Dir(t testing.TB) string {
	t.Helper()
	for _, tool := range []string{"make", "gcc"} {
		if _, e := exec.LookPath(tool); e != nil {
			t.Skipf("%s not installed: cannot build test programs", tool)
		}
	}
	once.Do(func() {
		dir, err = os.MkdirTemp("", "perfpt-programs-")
		if err != nil {
			return
		}
		src := SourceDir()
		cmd := exec.Command("make", "-s", "-j2", "-f", filepath.Join(src, "Makefile"), "OUT="+dir, "SRC="+src+"/")
		out, e := cmd.CombinedOutput()
		if e != nil {
			err = &buildError{e, string(out)}
		}
	})
	if err != nil {
		t.Fatalf("building test programs: %v", err)
	}
	return dir
}

// Extra lists the programs built only on demand (by Path): ptwtsx (no
// libc) executes PTWRITE and RTM instructions and rtmroll (no libc) checks
// that RTM aborts roll memory back; only the emulating
// recorder can run on CPUs without them.
var Extra = []string{"ptwtsx", "rtmroll"}

// onDemand are the files Path builds on demand: Extra; kmod, which is
// not a program but the text of a stand-in kernel module
// (record/ksynth.LoadModule); walkrare, the text of hand-built flows;
// sse4a (no libc), which runs AMD's EXTRQ and INSERTQ, instructions
// perf's decoder refuses, and only on CPUs with SSE4a; and cold, whose
// functions gcc -O2 splits into fn.cold parts.
var onDemand = append(Extra[:len(Extra):len(Extra)], "kmod", "walkrare", "sse4a", "cold")

var extraMu sync.Mutex

// Path returns the path of the built program name, building it first when
// it is one of Extra or kmod.
func Path(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(Dir(t), name)
	for _, x := range onDemand {
		if x != name {
			continue
		}
		extraMu.Lock()
		defer extraMu.Unlock()
		if _, err := os.Stat(p); err == nil {
			break
		}
		src := SourceDir()
		out, err := exec.Command("make", "-s", "-f", filepath.Join(src, "Makefile"), "OUT="+dir, "SRC="+src+"/", p).CombinedOutput()
		if err != nil {
			t.Fatalf("building %s: %v\n%s", name, err, out)
		}
	}
	return p
}

// Cleanup removes the built programs.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// EmulateFailed ends a test whose emulated recording (record.Emulate)
// returned err: a skip when this machine does not let the tests use ptrace
// (EPERM: a container's seccomp policy or Yama's ptrace_scope), a failure
// otherwise, since the recorder is the project's own code.
func EmulateFailed(t testing.TB, what string, err error) {
	t.Helper()
	if errors.Is(err, syscall.EPERM) {
		t.Skipf("%s: ptrace is not permitted on this machine: %v", what, err)
	}
	t.Fatalf("emulated recording of %s failed: %v", what, err)
}
