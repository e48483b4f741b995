package machine

import (
	"math/rand/v2"
	"strings"
)

// Names returns the DSO's short_name and long_name as perf has them: a
// file's base name and path, a kernel module's "[name]" and path, the
// kernel's "[kernel.kallsyms]" and the same or its vmlinux's or kcore's
// path (LongName).
func (d *DSO) Names() (short, long string) {
	long = d.LongName()
	if d.Long != "" || d.Kernel || strings.HasPrefix(d.Name, "[") {
		return d.Name, long
	}
	return shortName(d.Name), long
}

// LongName mirrors dso->long_name: a kernel module's path; the kernel's
// vmlinux (as given) or kcore once its symbols came from one (it loads
// them first, as perf has when it prints the name); for a [vdso] the
// build-id table does not list, perf's copy of its own vdso, which
// machine__findnew_vdso writes to a file made by mkstemp
// ("/tmp/perf-vdso.so-XXXXXX", vdso__get_filename) and names after it:
// a name that changes from run to run, mirrored with six random
// letters, the same for the DSO's life; else the name.
func (d *DSO) LongName() string {
	if d.Kernel && d.module == "" {
		d.Symbols()
	}
	if d.Long != "" {
		return d.Long
	}
	if !isVdso(d.Name) || d.fromTable {
		return d.Name
	}
	d.vdsoOnce.Do(func() {
		const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		b := []byte("/tmp/perf-vdso.so-XXXXXX")
		for i := len(b) - 6; i < len(b); i++ {
			b[i] = letters[rand.IntN(len(letters))]
		}
		d.vdsoFile = string(b)
	})
	return d.vdsoFile
}

// DSOName is the name perf prints for d (map__fprintf_dsoname): its name,
// or its long name with LongNames.
func (m *Machine) DSOName(d *DSO) string {
	if m.LongNames {
		return d.LongName()
	}
	return d.Name
}

// kcoreName mirrors filename_from_kallsyms_filename for dso__load_kcore:
// the kallsyms path with its last element "kallsyms" made "kcore", as a
// string (a perf.data directory's "DIR/kcore_dir/kcore", DIR as given).
func kcoreName(kallsyms string) string {
	if i := strings.LastIndexByte(kallsyms, '/'); i >= 0 && kallsyms[i+1:] == "kallsyms" {
		return kallsyms[:i+1] + "kcore"
	}
	return kallsyms
}
