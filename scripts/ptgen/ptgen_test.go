package main

import (
	"bytes"
	"debug/elf"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

func generate(t *testing.T, size int) (*program, *tracer) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 1))
	p := newProgram(rng, 0x400000, params{funcs: 200, levels: 6})
	tr := newTracer(p, rng, 4096, size)
	if err := tr.run(size); err != nil {
		t.Fatal(err)
	}
	return p, tr
}

// TestStreamDecodes checks that every byte of the stream decodes as packets,
// with a PSB about every 4 KiB, and that the stream ends with the TIP.PGD.
func TestStreamDecodes(t *testing.T) {
	_, tr := generate(t, 64<<10)
	d := packet.NewDecoder(tr.enc.Buf)
	counts := map[packet.Kind]int{}
	last := packet.KindInvalid
	for d.Next() {
		counts[d.Packet().Kind]++
		last = d.Packet().Kind
	}
	if err := d.Err(); err != nil {
		t.Fatal(err)
	}
	if last != packet.KindTIPPGD {
		t.Errorf("last packet %v, want tip.pgd", last)
	}
	if n := counts[packet.KindPSB]; uint64(n) != tr.psbs || n < 16 || n > 17 {
		t.Errorf("%d PSBs (tracer says %d), want 16 or 17 in 64 KiB", n, tr.psbs)
	}
	if counts[packet.KindTNT8] == 0 || counts[packet.KindTIP] == 0 || counts[packet.KindMTC] == 0 {
		t.Errorf("packet mix lacks TNT, TIP or MTC: %v", counts)
	}
}

// TestDeterministic checks that a seed always gives the same files.
func TestDeterministic(t *testing.T) {
	p1, t1 := generate(t, 16<<10)
	p2, t2 := generate(t, 16<<10)
	if !bytes.Equal(p1.code, p2.code) || !bytes.Equal(t1.enc.Buf, t2.enc.Buf) {
		t.Fatal("same seed, different output")
	}
}

// TestAgainstLibiptPtxed decodes the stream with libipt's ptxed (PTXED, or
// ptxed on PATH) and checks it finds no error and counts the instructions
// the generator executed.
func TestAgainstLibiptPtxed(t *testing.T) {
	ptxed := os.Getenv("PTXED")
	if ptxed == "" {
		var err error
		if ptxed, err = exec.LookPath("ptxed"); err != nil {
			t.Skip("libipt ptxed not found (set PTXED or put ptxed on PATH)")
		}
	}
	p, tr := generate(t, 256<<10)
	dir := t.TempDir()
	ptFile, binFile := filepath.Join(dir, "t.pt"), filepath.Join(dir, "t.bin")
	if err := os.WriteFile(ptFile, tr.enc.Buf, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(binFile, p.code, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dec := range []string{"--insn-decoder", "--block-decoder"} {
		out, err := exec.Command(ptxed, dec, "--quiet", "--stat", "--raw", binFile+":0x400000", "--pt", ptFile).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", ptxed, dec, err, out)
		}
		if bytes.Contains(out, []byte("error")) {
			t.Errorf("%s: %s", dec, out)
		}
		m := regexp.MustCompile(`insn: (\d+)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("%s: no insn count in %s", dec, out)
		}
		if n, _ := strconv.ParseUint(string(m[1]), 10, 64); n != tr.insns {
			t.Errorf("%s counts %d instructions, the generator executed %d", dec, n, tr.insns)
		}
	}
}

// TestPerfData writes the ELF and perf.data outputs, checks the ELF's
// symbols, and when perf is installed, that perf script decodes every
// generated instruction without error.
func TestPerfData(t *testing.T) {
	p, tr := generate(t, 96<<10)
	dir := t.TempDir()
	if d := os.Getenv("PTGEN_KEEP"); d != "" {
		dir = d
	}
	elfPath, dataPath := filepath.Join(dir, "prog.elf"), filepath.Join(dir, "prog.data")
	if err := writeELF(elfPath, p); err != nil {
		t.Fatal(err)
	}
	if err := writePerfData(dataPath, elfPath, p, tr); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(elfPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil || len(syms) != len(p.funcs) || syms[0].Name != "main" || syms[0].Value != 0x400000 {
		t.Fatalf("symbols: %v (%d, want %d)", err, len(syms), len(p.funcs))
	}
	text, err := f.Section(".text").Data()
	if err != nil || !bytes.Equal(text, p.code) {
		t.Fatalf(".text differs from the code image: %v", err)
	}
	perf, err := exec.LookPath("perf")
	if err != nil {
		t.Skip("perf not found: perf.data not checked with perf script")
	}
	out, err := exec.Command(perf, "script", "-i", dataPath, "--itrace=i0nse", "-F", "ip").Output()
	if err != nil {
		t.Fatalf("perf script: %v", err)
	}
	if n := uint64(bytes.Count(out, []byte("\n"))); n != tr.insns {
		t.Errorf("perf script prints %d lines, want one per instruction: %d", n, tr.insns)
	}
	if bytes.Contains(out, []byte("error")) {
		t.Errorf("perf script reports errors:\n%s", out[:min(len(out), 2000)])
	}
}
