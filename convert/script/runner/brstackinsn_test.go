package runner

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/session/ptperf"
	"github.com/perfpt/perfpt/perfdata"
)

// TestBrstackinsn compares brstackinsn and brstackinsnlen with perf on the
// committed PT recordings whose programs are in testdata: the last-branch
// stacks of --itrace=l are disassembled from the binaries (perf 6.1 lets
// PT's synthesised samples print them), through calls, returns, loops,
// transactions (INTX, ABORT) and the block up to each sample ("... not
// reaching sample ..." where the sample is not at a branch).
func TestBrstackinsn(t *testing.T) {
	need(t, "perf")
	td := filepath.Join("..", "..", "..", "testdata")
	example := filepath.Join(td, "example", "primes.perf.data")
	exSymfs := "--symfs=" + filepath.Join(td, "example", "symfs")
	tsx := filepath.Join(td, "ptwtsx")
	tsxSymfs := "--symfs=" + filepath.Join(tsx, "symfs")
	for _, f := range []string{example, filepath.Join(tsx, "rtmroll.perf.data"), filepath.Join(tsx, "tsx.perf.data")} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("committed fixture missing: %v", err)
		}
	}
	compare(t, example, exSymfs, "--itrace=i10000il8", "-F", "+brstackinsn")
	compare(t, example, exSymfs, "--itrace=i3000il", "-F", "ip,sym,brstackinsn,brstackinsnlen")
	compare(t, example, exSymfs, "--itrace=bl4", "-F", "+brstackinsnlen,+insn,+insnlen")
	compare(t, example, exSymfs, "--itrace=cl16", "-F", "+brstackinsn,+brstacksym")
	compare(t, example, exSymfs, "--itrace=i1000il16", "-F", "+brstackinsn", "--max-blocks", "3")
	// srcline: each symbol line of a block gets its source line.
	compare(t, example, exSymfs, "--itrace=i1000il16", "-F", "+brstackinsn,+srcline")
	// srccode: the source of the instructions, from where the program's
	// debug info says it is (put there for the test when it is not).
	src := "/tmp/perfpt-example/primes.c"
	if _, err := os.Stat(src); err != nil {
		text, err := os.ReadFile(filepath.Join(td, "example", "symfs", src))
		if err != nil {
			t.Fatalf("committed fixture missing: %v", err)
		}
		if os.MkdirAll(filepath.Dir(src), 0o755) != nil || os.WriteFile(src, text, 0o644) != nil {
			t.Fatalf("cannot put the example's source at %s", src)
		}
		t.Cleanup(func() { os.Remove(src); os.Remove(filepath.Dir(src)) })
	}
	compare(t, example, exSymfs, "--itrace=i10000il16", "-F", "+brstackinsn,+srccode")
	compare(t, example, exSymfs, "--itrace=i3000il4", "-F", "ip,sym,srccode,srcline,brstackinsnlen")
	compare(t, filepath.Join(tsx, "rtmroll.perf.data"), tsxSymfs, "--itrace=i3il16", "-F", "+brstackinsn,+brstackinsnlen")
	compare(t, filepath.Join(tsx, "tsx.perf.data"), tsxSymfs, "--itrace=i1il", "-F", "+brstackinsn")
}

// TestBrstackinsnRefused checks perf's refusal of brstackinsn for events
// that do not record every branch (here: no branch stack at all).
func TestBrstackinsnRefused(t *testing.T) {
	need(t, "perf")
	data := filepath.Join("..", "..", "..", "testdata", "perf", "fields.data")
	for _, f := range []string{"+brstackinsn", "ip,brstackinsnlen"} {
		cmd := exec.Command("perf", "script", "-i", data, "-F", f)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err == nil {
			t.Fatalf("perf script -F %s: no error", f)
		}
		want := strings.TrimSpace(stderr.String())
		var out, errOut bytes.Buffer
		err := Run(configOf(t, data, "-F", f), &out, &errOut)
		if err == nil || strings.TrimSpace(err.Error()) != want {
			t.Errorf("-F %s: perfpt error %v, perf's %q", f, err, want)
		}
	}
}

// TestBrstackinsnLBR compares brstackinsn with perf on a sampled recording
// with LBR stacks and the binary at hand, which this VM (no LBR) cannot
// record: testdata/machine's c-static.data (perf record of a static
// program) copied with perfpt's writer, its event given
// PERF_SAMPLE_BRANCH_STACK with an all-branch filter and each user-space
// sample a branch stack made from the program's code before the sample's
// IP: the taken branches of the function's straight-line code, with
// cycles, predicted/mispredicted, in-transaction and abort flags, and in
// turn a stack ending at the IP itself, one whose last target is past
// the IP, and one with blocks too long to read. Kernel samples get an
// empty stack.
func TestBrstackinsnLBR(t *testing.T) {
	need(t, "perf")
	mdir := filepath.Join("..", "..", "..", "testdata", "machine")
	tmp := t.TempDir()
	t.Setenv("HOME", tmp) // no build-id cache: both tools read --symfs
	t.Setenv("PERF_BUILDID_DIR", "")
	symfs := filepath.Join(tmp, "symfs")
	prog := filepath.Join(symfs, "tmp", "perfpt-corpus", "c-static")
	if err := os.MkdirAll(filepath.Dir(prog), 0o755); err != nil {
		t.Fatal(err)
	}
	code, err := os.ReadFile(filepath.Join(mdir, "bin", "c-static"))
	if err != nil {
		t.Fatalf("committed fixture missing: %v", err)
	}
	if err := os.WriteFile(prog, code, 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(tmp, "lbr.data")
	n := writeLBR(t, filepath.Join(mdir, "c-static.data"), data, prog)
	t.Logf("%d samples given branch stacks", n)
	compare(t, data, "--symfs="+symfs, "-F", "+brstackinsn")
	compare(t, data, "--symfs="+symfs, "-G", "-F", "ip,sym,brstack,brstackinsn,brstackinsnlen")
	compare(t, data, "--symfs="+symfs, "-G", "-F", "+brstackinsn,+srcline")
	compare(t, data, "--symfs="+symfs, "-G", "-F", "+brstackinsnlen,+brstacksym,+ipc")
	// The instruction at each sample's IP, read from the binary
	// (arch_fetch_insn).
	compare(t, data, "--symfs="+symfs, "-G", "-F", "+brstackinsnlen,+insn,+insnlen")
	// Without the binary (an empty --symfs): only what perf prints
	// without code.
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	compare(t, data, "--symfs="+empty, "-G", "-F", "+brstackinsn")
}

// writeLBR copies the recording in to out with branch stacks (see
// TestBrstackinsnLBR) made from the code of prog, the recording's only
// user-space program, and returns how many samples got one.
func writeLBR(t *testing.T, in, out, prog string) int {
	t.Helper()
	ef, syms := openELF(t, prog)
	text := ef.Section(".text")
	textData, err := text.Data()
	if err != nil {
		t.Fatal(err)
	}
	// funcOf returns the function holding ip.
	funcOf := func(ip uint64) (lo, hi uint64, ok bool) {
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Size > 0 && ip >= s.Value && ip < s.Value+s.Size {
				return s.Value, s.Value + s.Size, true
			}
		}
		return 0, 0, false
	}
	// branchesBefore decodes [lo, ip) and returns the branches in it
	// (address and length).
	branchesBefore := func(lo, ip uint64) [][2]uint64 {
		var out [][2]uint64
		for a := lo; a < ip; {
			off := a - text.Addr
			if a < text.Addr || off >= uint64(len(textData)) {
				break
			}
			var pi ptperf.Insn
			if !ptperf.Decode(textData[off:], true, &pi) {
				break
			}
			if pi.Branch != ptperf.BrNone {
				out = append(out, [2]uint64{a, uint64(pi.Length)})
			}
			a += uint64(pi.Length)
		}
		return out
	}
	k, n := 0, 0
	rewriteRecording(t, in, out, func(a *perfdata.EventAttr) {
		a.SampleType |= perfdata.SampleFormatBranchStack
		a.BranchSampleType = perfdata.BranchSampleAny | 1 // and PERF_SAMPLE_BRANCH_USER
	}, nil, func(r perfdata.Record) perfdata.Record {
		s, ok := r.(*perfdata.RecordSample)
		if !ok {
			return r
		}
		c := *s
		c.Attr = nil // encoded with the writer's (only) attr
		c.BranchStack = nil
		if lo, _, ok := funcOf(s.IP); ok && s.CPUMode() == perfdata.MiscUser {
			c.BranchStack = lbrStack(k, s.IP, lo, text.Addr, branchesBefore(lo, s.IP))
			k++
			if len(c.BranchStack) > 0 {
				n++
			}
		}
		return &c
	})
	return n
}

// lbrStack makes the k-th sample's branch stack (most recent first) from
// the branches br before ip in its function (which starts at lo; the
// program's text at textStart).
func lbrStack(k int, ip, lo, textStart uint64, br [][2]uint64) []perfdata.BranchEntry {
	var st []perfdata.BranchEntry
	for i := len(br) - 1; i >= 0 && len(st) < 8; i-- {
		// A taken branch to the instruction after it: the code
		// from there to the next branch is one block.
		st = append(st, perfdata.BranchEntry{From: br[i][0], To: br[i][0] + br[i][1]})
	}
	if len(st) == 0 {
		st = append(st, perfdata.BranchEntry{From: lo, To: lo})
	}
	switch k % 4 {
	case 1: // the sample is at the last branch
		st[0].From = ip
	case 2: // the last target is past the IP: perf scans 128 bytes
		st[0].To = ip + 32
	case 3: // a block too long to read, and a cleared entry
		st = append(st, perfdata.BranchEntry{From: textStart, To: textStart},
			perfdata.BranchEntry{From: 0, To: 0})
	}
	for i := range st {
		j := i + k
		var f uint64
		if j%5 == 0 {
			f |= 1 // mispred
		}
		if j%5 == 1 {
			f |= 2 // predicted
		}
		if j%11 == 0 {
			f |= 4 // in_tx
		}
		if j%13 == 0 && i > 0 {
			f |= 8 // abort
		}
		f |= uint64(j*7%23) << 4 // cycles
		st[i].Flags = f
	}
	return st
}
