package cli

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// demangleFlagChecks are TestEveryFlag's checks of script's demangling
// options, on the C++ recording of testdata/machine (its program put back
// where the recording names it).
func demangleFlagChecks() map[string]func(t *testing.T) {
	data := "../../testdata/machine/cxx-O2.data"
	withCorpus := func(check func(t *testing.T)) func(t *testing.T) {
		return func(t *testing.T) {
			dir, err := filepath.Abs("../../testdata/machine")
			if err != nil {
				t.Fatal(err)
			}
			setupMachineCorpus(t, dir)
			check(t)
		}
	}
	base := []string{"script", "-i", data}
	return map[string]func(t *testing.T){
		"script/no-demangle": withCorpus(differs(base, "--no-demangle")),
		// --demangle is the default: it undoes an earlier --no-demangle.
		"script/demangle": withCorpus(differs(append(base, "--no-demangle"), "--demangle")),
		"script/v":        withCorpus(differs(base, "-v")),
		"script/verbose":  withCorpus(differs(base, "--verbose")),
		// Kernel symbols come from kallsyms, which perf 6.1 does not
		// demangle either: --demangle-kernel changes nothing, in perf
		// as in perfpt.
		"script/demangle-kernel": withCorpus(func(t *testing.T) {
			kdata := "../../testdata/machine/c-static.data"
			with := ok(t, "script", "-i", kdata, "--demangle-kernel").out
			if without := ok(t, "script", "-i", kdata).out; with != without {
				t.Error("--demangle-kernel changed the output of a recording whose kernel symbols come from kallsyms")
			}
			if _, err := exec.LookPath("perf"); err != nil {
				t.Skip("perf not found: not compared with perf --demangle-kernel")
			}
			out, err := exec.Command("perf", "script", "-i", kdata, "--demangle-kernel").Output()
			if err != nil {
				t.Fatalf("perf script --demangle-kernel: %v", err)
			}
			if string(out) != with {
				t.Error("perfpt script --demangle-kernel differs from perf's")
			}
		}),
	}
}
