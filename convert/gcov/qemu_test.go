package gcov

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// qemuFlow runs bin with args under qemu-user with `-d in_asm,exec,nochain`
// and feeds every executed translation block, per emulated thread, to c.
// It is an exact source of control flow for tests, independent of the PT
// pipeline (see PERF-FACTS.md). It returns the program's stdout.
func qemuFlow(t testing.TB, bin string, args []string, c runSink) []byte {
	t.Helper()
	qemu, err := exec.LookPath("qemu-x86_64")
	if err != nil {
		t.Skip("qemu-x86_64 not installed (Debian package qemu-user)")
	}
	textVaddr, err := execVaddr(bin)
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(qemu, append([]string{"-d", "in_asm,exec,nochain,page", "-D", "/dev/fd/3", bin}, args...)...)
	cmd.ExtraFiles = []*os.File{pw}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	perr := parseQemuLog(pr, textVaddr, c)
	io.Copy(io.Discard, pr)
	if err := cmd.Wait(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("qemu: %v", err)
		}
	}
	if perr != nil {
		t.Fatal(perr)
	}
	return stdout.Bytes()
}

// execVaddr returns the p_vaddr of the executable PT_LOAD segment.
func execVaddr(bin string) (uint64, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			return p.Vaddr, nil
		}
	}
	return 0, fmt.Errorf("%s: no executable segment", bin)
}

// runSink takes a flow: Counts, or a recorder in tests.
type runSink interface {
	Run(tid int64, start, last uint64)
	Leave(tid int64)
}

func parseQemuLog(r io.Reader, textVaddr uint64, c runSink) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var base uint64
	haveBase := false
	tbLast := map[uint64]uint64{} // TB start -> address of its last instruction
	var tbStart, tbCur uint64
	inTB := false
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("Trace ")):
			// Trace N: 0xhost [cs_base/pc/flags/cflags] sym
			colon := bytes.IndexByte(line, ':')
			lb := bytes.IndexByte(line, '[')
			if colon < 0 || lb < 0 {
				continue
			}
			tid, _ := strconv.ParseInt(string(line[6:colon]), 10, 64)
			fields := strings.Split(string(line[lb+1:]), "/")
			if len(fields) < 2 {
				continue
			}
			pc, _ := strconv.ParseUint(fields[1], 16, 64)
			last, ok := tbLast[pc]
			if !ok || !haveBase || pc < base {
				c.Leave(tid)
				continue
			}
			c.Run(tid, pc-base, last-base)
		case bytes.HasPrefix(line, []byte("IN:")):
			inTB = true
			tbStart = 0
		case inTB && bytes.HasPrefix(line, []byte("0x")):
			end := bytes.IndexByte(line, ':')
			if end < 0 {
				continue
			}
			a, err := strconv.ParseUint(string(line[2:end]), 16, 64)
			if err != nil {
				continue
			}
			if tbStart == 0 {
				tbStart = a
			}
			tbCur = a
		case inTB && len(line) == 0:
			if tbStart != 0 {
				tbLast[tbStart] = tbCur
			}
			inTB = false
		case bytes.HasPrefix(line, []byte("start_code")):
			f := strings.Fields(string(line))
			if len(f) == 2 {
				v, err := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
				if err == nil && !haveBase {
					base, haveBase = v-textVaddr, true
				}
			}
		}
	}
	return sc.Err()
}
