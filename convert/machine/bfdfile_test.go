package machine

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// bfdFileAsm has functions after a named file symbol, after an empty one
// (as before ld.so's assembly entry points) and a global one after a file
// symbol that followed other symbols (addr2line then reports no file).
const bfdFileAsm = `
	.file "first.c"
	.text
	.type f1, @function
f1:	ret
	.file ""
f2:	nop
	ret
	.file "second.c"
	.globl _start
_start:	xor %edi, %edi
	mov $60, %eax
	syscall
`

// TestBFDFile compares bfdFuncs.file with addr2line's file column for the
// functions of a program without line information.
func TestBFDFile(t *testing.T) {
	for _, tool := range []string{"gcc", "addr2line"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found", tool)
		}
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "f.s"), filepath.Join(dir, "f")
	if err := os.WriteFile(src, []byte(bfdFileAsm), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-nostdlib", "-static", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	addrs := map[string]uint64{}
	for _, s := range syms {
		if s.Name == "f1" || s.Name == "f2" || s.Name == "_start" {
			addrs[s.Name] = s.Value
		}
	}
	b := loadBFDFuncs(bin)
	want := map[string]string{"f1": "first.c:?", "f2": ":?", "_start": "??:?"}
	for name, w := range want {
		pc, ok := addrs[name]
		if !ok {
			t.Fatalf("no symbol %s", name)
		}
		out, err := exec.Command("addr2line", "-e", bin, "-f", "0x"+strconv.FormatUint(pc, 16)).Output()
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		sc.Scan()
		sc.Scan()
		a2l := sc.Text()
		if a2l != w {
			t.Logf("%s: addr2line says %q, the test expected %q", name, a2l, w)
		}
		file, known := b.file(pc)
		got := "??:?"
		if known {
			got = file + ":?"
		}
		if got != a2l {
			t.Errorf("%s at %#x: file %q known %v, addr2line %q", name, pc, file, known, a2l)
		}
	}
}
