package ptrace

import (
	"bufio"
	"debug/elf"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestLengthsAgainstObjdump decodes every instruction objdump finds in the
// C library and the dynamic loader and compares lengths (objdump joins FWAIT
// to the next x87 instruction; the CPU and perf do not).
func TestLengthsAgainstObjdump(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	if _, err := exec.LookPath("objdump"); err != nil {
		t.Skip("objdump not installed")
	}
	for _, path := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"} {
		f, err := elf.Open(path)
		if err != nil {
			t.Skip(err)
		}
		text := f.Section(".text")
		data, _ := text.Data()
		out, err := exec.Command("objdump", "-d", "-w", "-j", ".text", path).Output()
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		total, bad := 0, 0
		for sc.Scan() {
			parts := strings.SplitN(sc.Text(), "\t", 3)
			if len(parts) < 3 || !strings.HasSuffix(parts[0], ":") {
				continue
			}
			addr, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(parts[0], ":")), 16, 64)
			if err != nil || addr < text.Addr || addr >= text.Addr+text.Size {
				continue
			}
			n := len(strings.Fields(parts[1]))
			code := data[addr-text.Addr:]
			code = code[:min(len(code), 15)]
			total++
			in, err := decodeInsn(code, addr)
			if strings.HasPrefix(parts[1], "9b ") && err == nil && in.len == 1 {
				continue
			}
			if err != nil || int(in.len) != n {
				if bad++; bad < 10 {
					t.Errorf("%s %#x %s: length %d, objdump %d (%v)", path, addr, parts[2], in.len, n, err)
				}
			}
		}
		t.Logf("%s: %d instructions, %d wrong", path, total, bad)
	}
}
