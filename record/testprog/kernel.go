package testprog

import (
	"testing"

	"github.com/perfpt/perfpt/record/ksynth"
)

// ModulePath is the file the stand-in module's MMAP names, as perf record
// names a module by its path under /lib/modules (absent here, as a
// module's .ko is on a machine that decodes another's recording).
const ModulePath = "/lib/modules/6.1.0-perfpt/kernel/drivers/misc/ptmod.ko"

// KernelWithModule returns the stand-in kernel (testdata/programs/kernel.S)
// with the stand-in module of kmod.S loaded as "ptmod", its MMAP naming
// ModulePath.
func KernelWithModule(t testing.TB) *ksynth.Kernel {
	t.Helper()
	k, err := ksynth.Load(Path(t, "kernel"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ksynth.LoadModule(Path(t, "kmod"), "ptmod", ModulePath)
	if err != nil {
		t.Fatal(err)
	}
	return k.WithModule(m)
}
