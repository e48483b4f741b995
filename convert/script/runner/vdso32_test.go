package runner

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestVdso32: the [vdso] of a 32-bit process is perf's [vdso32] DSO
// (machine__findnew_vdso: the first file-backed map of the process is a
// 32-bit ELF file), whose symbols come from the build-id cache; perfpt
// named it [vdso] and looked for its symbols in its own 64-bit vdso, so
// that a call chain through __kernel_vsyscall printed
// "[unknown] ([vdso])" where perf prints "__kernel_vsyscall+0x9
// ([vdso32])".
func TestVdso32(t *testing.T) {
	if testing.Short() {
		t.Skip("records with perf")
	}
	need(t, "perf", "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "sys32.c")
	if err := os.WriteFile(src, []byte("#include <unistd.h>\nint main(void) { long s = 0; for (int i = 0; i < 300000; i++) s += getppid(); return s == 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "sys32")
	if out, err := exec.Command("gcc", "-m32", "-O1", "-o", prog, src).CombinedOutput(); err != nil {
		t.Skipf("gcc -m32 cannot build here (no 32-bit C library?): %v\n%s", err, out)
	}
	// Without a build-id table (-B) perf reads the 32-bit vdso with its
	// perf-read-vdso32 helper, perfpt from a 32-bit process of its own.
	// Under sh (64-bit, mapping the 64-bit vdso) the table lists [vdso]
	// too: map__new then gives the [vdso32] DSO the 64-bit vdso's build
	// id (the table's DSO named "[vdso]"), so perf reads its symbols from
	// the 64-bit vdso and prints "[unknown] ([vdso32])".
	for _, rec := range []struct{ name, opt string }{{"table", "-g"}, {"no-table", "-B"}, {"with-64-bit-vdso", "-g"}} {
		t.Run(rec.name, func(t *testing.T) {
			data := filepath.Join(dir, rec.name+".data")
			cmd := []string{prog}
			if rec.name == "with-64-bit-vdso" {
				cmd = []string{"sh", "-c", prog + "; true"}
			}
			if err := perfTo(t, data, false, append([]string{"record", "-q", "-o", data, "-g", rec.opt, "-e", "cpu-clock", "-c", "50000", "--"}, cmd...)...); err != nil {
				t.Skipf("perf record: %v", err)
			}
			want, err := exec.Command("perf", "script", "-i", data, "-F", "comm,tid,ip,sym,dso").Output()
			if err != nil {
				t.Fatalf("perf script: %v", err)
			}
			if !bytes.Contains(want, []byte("([vdso32])")) {
				t.Skip("perf script printed no [vdso32] frame (no 32-bit vdso here?)")
			}
			if rec.name == "with-64-bit-vdso" {
				ids, err := exec.Command("perf", "buildid-list", "-i", data).Output()
				if err != nil {
					t.Fatalf("perf buildid-list: %v", err)
				}
				if !bytes.Contains(ids, []byte(" [vdso]\n")) {
					t.Skipf("the build-id table lists no 64-bit [vdso]:\n%s", ids)
				}
			} else if !bytes.Contains(want, []byte("__kernel_vsyscall")) {
				t.Skip("perf script printed no __kernel_vsyscall frame")
			}
			compare(t, data, "-F", "comm,tid,ip,sym,dso")
			compare(t, data, "--show-mmap-events")
		})
	}
}
