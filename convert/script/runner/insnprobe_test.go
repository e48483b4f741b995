package runner

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// writeInsnProbes builds (with gcc) a static executable whose code holds
// each of codes at 16-byte steps (the rest of each step int3s) in one
// function, and writes a perf.data of one cpu-clock sample at each, for
// perf script -F ip,insnlen to decode them (arch_fetch_insn reads the 16
// bytes at the sample's ip from the file). It returns the perf.data's
// path.
func writeInsnProbes(t *testing.T, dir string, codes [][]byte, m32 bool) string {
	t.Helper()
	var src strings.Builder
	src.WriteString(".text\n.globl _start\n.type _start,@function\n.balign 16\n_start:\n")
	for _, c := range codes {
		src.WriteString(".byte ")
		for j := range 16 {
			b := byte(0xcc)
			if j < len(c) {
				b = c[j]
			}
			if j > 0 {
				src.WriteByte(',')
			}
			src.WriteString(strconv.Itoa(int(b)))
		}
		src.WriteByte('\n')
	}
	src.WriteString(".size _start,.-_start\n")
	asm := filepath.Join(dir, "probes.S")
	if err := os.WriteFile(asm, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "probes")
	gccArgs := []string{"-nostdlib", "-static", "-no-pie", "-o", bin, asm}
	if m32 {
		gccArgs = append([]string{"-m32"}, gccArgs...)
	}
	if out, err := exec.Command("gcc", gccArgs...).CombinedOutput(); err != nil {
		if m32 {
			t.Skipf("gcc cannot build 32-bit code here: %v\n%s", err, out)
		}
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	var text *elf.Prog
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			text = p
		}
	}
	if text == nil {
		t.Fatal("no code segment")
	}
	start := ef.Entry
	data := filepath.Join(dir, "probes.data")
	w, err := perfdata.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	// perf script fetches instructions only for a recording of this
	// machine's architecture (native_arch).
	w.Features.Arch = "x86_64"
	w.Features.Set(perfdata.FeatArch)
	attr := perfdata.EventAttr{Type: perfdata.AttrTypeSoftware, SamplePeriod: 1,
		SampleType: perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime,
		Flags:      perfdata.AttrFlagSampleIDAll | perfdata.AttrFlagExcludeKernel | perfdata.AttrFlagExcludeHV}
	if _, err := w.AddAttr(attr, []uint64{1}, "cpu-clock:u"); err != nil {
		t.Fatal(err)
	}
	const pid = 4242
	sid := func(tm uint64) perfdata.SampleID { return perfdata.SampleID{PID: pid, TID: pid, Time: tm} }
	recs := execRecords(pid, "probes", bin, text)
	for i := range codes {
		recs = append(recs, &perfdata.RecordSample{
			RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser, SampleID: sid(2000 + uint64(i))},
			IP:           start + 16*uint64(i)})
	}
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			t.Fatalf("%T: %v", r, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return data
}

// vexProbe is the encoding of opcode op in map m with implied prefix pp
// under VEX2 ("vex2", map 1 only), VEX3 or EVEX, W and L set as given,
// after the prefixes pfx, followed by rest (the ModRM and what follows).
func vexProbe(pfx []byte, form string, m, pp, w, l int, op byte, rest ...byte) []byte {
	c := append([]byte(nil), pfx...)
	switch form {
	case "vex2":
		c = append(c, 0xc5, byte(0x78|l<<2|pp))
	case "vex3":
		c = append(c, 0xc4, byte(0xe0|m), byte(w<<7|0x78|l<<2|pp))
	case "evex":
		c = append(c, 0x62, byte(0xf0|m), byte(w<<7|0x7c|pp), byte(0x08|l<<5))
	}
	return append(append(c, op), rest...)
}

// TestInsnLenMatchesPerf compares -F ip,insnlen with perf on a sample at
// each VEX2, VEX3 and EVEX encoding of every opcode of maps 0 to 7 and
// every implied prefix: with a register ModRM (every reg for the opcodes
// perf decodes as groups under some map) and an immediate byte, and with
// a SIB and disp8 memory operand, W set and a 66 prefix before. perf 6.1
// refuses the opcodes its AVX tables do not mark (perfinsn.vexOK). With
// PERFPT_INSN_PROBES_FULL set, every ModRM.reg, VEX.L and more memory
// forms (about 600000 samples; what the tables were measured on).
func TestInsnLenMatchesPerf(t *testing.T) {
	need(t, "perf", "gcc")
	full := os.Getenv("PERFPT_INSN_PROBES_FULL") != ""
	group := map[byte]bool{0xae: true, 0x71: true, 0x72: true, 0x73: true, 0xf3: true, 0xc6: true, 0xc7: true}
	var codes [][]byte
	for _, form := range []string{"vex2", "vex3", "evex"} {
		for m := range 8 {
			if form == "vex2" && m != 1 {
				continue
			}
			for pp := range 4 {
				for op := range 256 {
					regs := 1
					if full || group[byte(op)] {
						regs = 8
					}
					ls := 1
					if full {
						ls = 2
					}
					for l := range ls {
						for reg := range regs {
							codes = append(codes, vexProbe(nil, form, m, pp, 0, l, byte(op), byte(0xc0|reg<<3), 0x11, 0x22))
						}
					}
					mems := [][]byte{{0x4c, 0x24, 0x7f}}
					if full {
						mems = append(mems, []byte{0x04, 0x24}, []byte{0x84, 0x24, 1, 2, 3, 4}, []byte{0x05, 1, 2, 3, 4}, []byte{0x0c, 0x88})
					}
					for _, mem := range mems {
						for _, pfx := range [][]byte{{0x66}, {0x48}} {
							codes = append(codes, vexProbe(pfx, form, m, pp, 1, 0, byte(op), append(mem, 0x11, 0x22)...))
						}
					}
				}
			}
		}
	}
	t.Run("64-bit", func(t *testing.T) {
		compare(t, writeInsnProbes(t, t.TempDir(), codes, false), "-F", "ip,insnlen")
	})
	// 32-bit code: C4, C5 and 62 are LES, LDS and BOUND unless the next
	// byte's top bits are 11 (VEX2 with R clear is LDS here).
	var codes32 [][]byte
	for _, c := range codes {
		if c[0] != 0x66 && c[0] != 0x48 {
			codes32 = append(codes32, c)
		}
	}
	t.Run("32-bit", func(t *testing.T) {
		compare(t, writeInsnProbes(t, t.TempDir(), codes32, true), "-F", "ip,insnlen")
	})
}

// TestLegacyInsnLenMatchesPerf compares -F ip,insnlen with perf on a
// sample at every opcode of the one-byte, 0F, 0F 38 and 0F 3A maps
// after no prefix, 66, F2 or F3, with every ModRM.reg in a register form
// and a SIB+disp8 memory form, in 64- and 32-bit code, and, for the four
// maps, after more prefix sequences (the last of 66, F2 and F3 chooses
// perf's table, another prefix after them none; REX.W; 67). perf 6.1
// gives its undefined opcodes no ModRM or immediate, refuses the VEX-only
// ones (perfinsn.legacyNoModRM and legacyRefused) and a far CALL or
// JMP after REX.W.
func TestLegacyInsnLenMatchesPerf(t *testing.T) {
	need(t, "perf", "gcc")
	var codes, codes32 [][]byte
	for _, pfx := range [][]byte{nil, {0x66}, {0xf2}, {0xf3}} {
		for _, esc := range [][]byte{nil, {0x0f}, {0x0f, 0x38}, {0x0f, 0x3a}} {
			for op := range 256 {
				for reg := range 8 {
					c := append(append(append([]byte(nil), pfx...), esc...), byte(op), byte(0xc0|reg<<3), 0x11, 0x22, 0x33, 0x44, 0x55)
					codes = append(codes, c)
					c = append(append(append([]byte(nil), pfx...), esc...), byte(op), byte(0x44|reg<<3), 0x24, 0x7f, 0x11, 0x22, 0x33, 0x44)
					codes = append(codes, c)
				}
			}
		}
	}
	codes32 = append(codes32, codes...)
	more := [][]byte{{0x66, 0xf2}, {0xf2, 0x66}, {0xf3, 0x66, 0xf3}, {0x66, 0x2e}, {0xf2, 0x3e}, {0xf3, 0xf0}, {0xf2, 0xf3, 0x67}, {0x66, 0x48}, {0x48}, {0x67}, {0x66, 0x67}}
	for _, pfx := range more {
		for _, esc := range [][]byte{nil, {0x0f}, {0x0f, 0x38}, {0x0f, 0x3a}} {
			for op := range 256 {
				for _, rest := range [][]byte{{0xd0, 0x11, 0x22, 0x33, 0x44, 0x55}, {0x8c, 0x88, 1, 2, 3, 4, 5}, {0x05, 1, 2, 3, 4, 5}} {
					c := append(append(append(append([]byte(nil), pfx...), esc...), byte(op)), rest...)
					codes = append(codes, c)
					if pfx[len(pfx)-1] != 0x48 {
						codes32 = append(codes32, c)
					}
				}
			}
		}
	}
	t.Run("64-bit", func(t *testing.T) {
		compare(t, writeInsnProbes(t, t.TempDir(), codes, false), "-F", "ip,insnlen")
	})
	t.Run("32-bit", func(t *testing.T) {
		compare(t, writeInsnProbes(t, t.TempDir(), codes32, true), "-F", "ip,insnlen")
	})
}
