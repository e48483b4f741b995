package runner

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	// srcline and srccode with brstackinsn are not done yet.
	var out, errOut bytes.Buffer
	if err := Run(configOf(t, data, "-F", "+brstackinsn,+srcline"), &out, &errOut); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("-F +brstackinsn,+srcline: %v, want a refusal", err)
	}
}
