package machine

import (
	"bytes"
	"encoding/hex"

	"github.com/perfpt/perfpt/convert/symbol"
	"github.com/perfpt/perfpt/internal/cachedir"
)

// hostNotes is where the running kernel's build id is read, hostBootID
// this boot's id (variables for the tests).
var (
	hostNotes  = "/sys/kernel/notes"
	hostBootID = "/proc/sys/kernel/random/boot_id"
)

// hostKallsyms is the running kernel's kallsyms.
const hostKallsyms = "/proc/kallsyms"

// hostKallsymsCache says where the running kernel's symbols are cached
// between runs (symbol.LoadHostKallsyms): perfpt's directory in the
// user's cache directory (cachedir), none when there is no such
// directory; and, for a cold cache, the copy of kallsyms
// that perf record saved in the build-id cache perf would look in.
func (m *Machine) hostKallsymsCache() *symbol.KallsymsCache {
	return &symbol.KallsymsCache{Notes: hostNotes, BootID: hostBootID, PerfCopy: m.symOpts.KallsymsCacheFile,
		Dir: cachedir.Path()}
}

// kernelSymbolsPath mirrors the kallsyms part of dso__load_kernel_sym and
// dso__find_kallsyms: the file perf reads the kernel's symbols from, or ""
// for none, when no vmlinux (-k, or one of perf's vmlinux path:
// SearchVmlinux) gave them. After --kallsyms the order is: nothing with
// --symfs (perf tries no local file then);
// /proc/kallsyms when no kernel build id was recorded (pipe mode) or it is
// the running kernel's; else the kallsyms that perf record saved in the
// build-id cache; else none, with perf's error line.
func (m *Machine) kernelSymbolsPath() string {
	if m.kPath != "" {
		return m.kPath
	}
	if m.symOpts != nil && m.symOpts.Symfs != "" {
		return ""
	}
	if len(m.kernelBuildID) == 0 {
		return hostKallsyms
	}
	if host := symbol.KernelNotesBuildID(hostNotes); host != nil && bytes.Equal(host, m.kernelBuildID) {
		return hostKallsyms
	}
	if f := m.symOpts.KallsymsCacheFile(m.kernelBuildID); f != "" {
		return f
	}
	m.warn("No kallsyms or vmlinux with build-id " + hex.EncodeToString(m.kernelBuildID) + " was found")
	return ""
}

// relocate mirrors kallsyms__delta and the shift of dso__split_kallsyms:
// the core kernel's symbols move by the difference between the recorded
// address of the reference symbol (_text) and its address in the kallsyms
// read, as when the kernel was booted at another address (KASLR). It
// reports false, as perf fails the load, when the kallsyms lacks the
// reference symbol.
func (m *Machine) relocate(ks *symbol.KernelSymbols) bool {
	if m.refAddr == 0 {
		return true
	}
	var local uint64
	switch m.refName {
	case "_text":
		local = ks.Text
	case "_stext":
		local = ks.Stext
	}
	if local == 0 {
		return false
	}
	if delta := local - m.refAddr; delta != 0 {
		ks.Kernel = ks.Kernel.Shift(-delta)
	}
	return true
}

func (m *Machine) warn(msg string) {
	if m.Warn != nil {
		m.Warn(msg)
	}
}

// buildIDDefined mirrors build_id__is_defined: a build id of at least one
// byte that is not all zeros.
func buildIDDefined(bid []byte) bool {
	for _, b := range bid {
		if b != 0 {
			return true
		}
	}
	return false
}
