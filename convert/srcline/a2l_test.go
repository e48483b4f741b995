package srcline

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// render prints records as `addr2line -a -f -i` does.
func render(b *strings.Builder, pc uint64, recs []Record, ok bool) {
	fmt.Fprintf(b, "0x%016x\n", pc)
	if !ok {
		b.WriteString("??\n??:0\n")
		return
	}
	for _, r := range recs {
		b.WriteString(r.Func)
		b.WriteByte('\n')
		b.WriteString(r.File)
		b.WriteByte(':')
		switch {
		case r.Line == 0:
			b.WriteString("?")
		case r.Discriminator != 0:
			fmt.Fprintf(b, "%d (discriminator %d)", r.Line, r.Discriminator)
		default:
			fmt.Fprintf(b, "%d", r.Line)
		}
		b.WriteByte('\n')
	}
}

// probeAddrs returns addresses to ask about in bin: around every
// function symbol, and every n-th line-table row, in a fixed shuffled
// order (bfd's answers depend on the order of the questions).
func probeAddrs(t testing.TB, bin string, limit int) []uint64 {
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	set := map[uint64]bool{}
	syms, _ := ef.Symbols()
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			set[s.Value] = true
			set[s.Value+1] = true
			if s.Size > 2 {
				set[s.Value+s.Size/2] = true
				set[s.Value+s.Size-1] = true
				set[s.Value+s.Size] = true
			}
		}
	}
	if tab, err := New(ef); err == nil {
		rows := tab.Rows()
		step := max(1, len(rows)/limit)
		for i := 0; i < len(rows); i += step {
			set[rows[i].Addr] = true
			set[rows[i].Addr+1] = true
		}
	}
	var out []uint64
	for a := range set {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	// A fixed permutation, so that lookups do not come in address
	// order.
	for i := range out {
		j := (i*7919 + 13) % len(out)
		out[i], out[j] = out[j], out[i]
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// compareAddr2line asks addr2line and File about pcs, in the same order,
// and reports the differing addresses.
func compareAddr2line(t *testing.T, bin string, pcs []uint64) {
	t.Helper()
	tool, err := exec.LookPath("addr2line")
	if err != nil {
		t.Skip("addr2line not installed")
	}
	var in bytes.Buffer
	for _, pc := range pcs {
		fmt.Fprintf(&in, "%#x\n", pc)
	}
	cmd := exec.Command(tool, "-a", "-f", "-i", "-e", bin)
	cmd.Stdin = &in
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("addr2line: %v", err)
	}
	f, err := OpenFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got strings.Builder
	var recs []Record
	for _, pc := range pcs {
		var ok bool
		recs, ok = f.Addr2line(pc, recs[:0])
		render(&got, pc, recs, ok)
	}
	split := func(s string) []string {
		var out []string
		for _, blk := range strings.Split(s, "\n0x") {
			out = append(out, strings.TrimPrefix(blk, "0x"))
		}
		return out
	}
	w, g := split(string(want)), split(got.String())
	if len(w) != len(g) {
		t.Fatalf("%s: %d answers from addr2line, %d from File", bin, len(w), len(g))
	}
	bad := 0
	for i := range w {
		if w[i] != g[i] {
			if bad < 10 {
				t.Errorf("%s question %d:\naddr2line: %q\nFile:      %q", filepath.Base(bin), i, w[i], g[i])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d addresses differ", bin, bad, len(pcs))
	} else {
		t.Logf("%s: %d addresses as addr2line", filepath.Base(bin), len(pcs))
	}
}

func TestAddr2lineMatches(t *testing.T) {
	for _, opt := range []string{"-O0", "-O2", "-O2 -gdwarf-4", "-O3 -gdwarf-5 -flto"} {
		t.Run(opt, func(t *testing.T) {
			bin := build(t, "inl.c", append([]string{"-g"}, strings.Fields(opt)...)...)
			compareAddr2line(t, bin, probeAddrs(t, bin, 5000))
		})
	}
	for _, bin := range []string{
		"../../testdata/unwind/cwork-dyn", "../../testdata/unwind/cwork-static",
		"../../testdata/unwind/cppwork", "../../testdata/unwind/rustwork",
	} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			compareAddr2line(t, bin, probeAddrs(t, bin, 3000))
		})
	}
}

// systemDebugFile returns the first large debug file (libc's, compressed
// DWARF 5) in /usr/lib/debug/.build-id; the test skips without one.
func systemDebugFile(t *testing.T) string {
	matches, _ := filepath.Glob("/usr/lib/debug/.build-id/*/*.debug")
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && st.Size() > 2<<20 {
			return m
		}
	}
	t.Skip("no large debug file in /usr/lib/debug/.build-id")
	return ""
}

// TestAddr2lineSystem compares with addr2line on the system's libc
// debug file (compressed DWARF 5), when installed.
func TestAddr2lineSystem(t *testing.T) {
	libc := systemDebugFile(t)
	compareAddr2line(t, libc, probeAddrs(t, libc, 3000))
}

// TestFileFramesMatchTable: File's Frames, built one unit at a time,
// equal a whole Table's.
func TestFileFramesMatchTable(t *testing.T) {
	bins := []string{"../../testdata/unwind/cwork-dyn", "../../testdata/unwind/cppwork", "../../testdata/unwind/cwork-static"}
	for _, opt := range []string{"-O2", "-O2 -gdwarf-4"} {
		bins = append(bins, build(t, "inl.c", append([]string{"-g"}, strings.Fields(opt)...)...))
	}
	for _, bin := range bins {
		tab, err := Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		f, err := OpenFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, pc := range probeAddrs(t, bin, 3000) {
			wf := tab.Frames(pc, nil)
			if len(wf) == 1 && wf[0].Func == "??" {
				// No function, only a row: the whole Table sorts an
				// end-of-sequence row before another row at its address
				// and so stretches the sequence's last row past its end;
				// File decodes a unit's rows as bfd does.
				continue
			}
			want := fmt.Sprint(wf)
			got := fmt.Sprint(f.Frames(pc, nil))
			if want != got {
				if n < 5 {
					t.Errorf("%s %#x:\nTable %s\nFile  %s", filepath.Base(bin), pc, want, got)
				}
				n++
			}
		}
		if n > 0 {
			t.Errorf("%s: %d addresses differ", bin, n)
		}
		f.Close()
	}
}

// symAsm has functions after a named file symbol, after an empty one (as
// before ld.so's assembly entry points), a global one after a file
// symbol that followed other symbols (addr2line then gives no file),
// aliases at one address (bfd takes the larger, else the first), a label
// inside a function and an annobin-like hidden marker, all without
// line information: addr2line names them from the symbol table.
const symAsm = `
	.file "first.c"
	.text
	.type f1, @function
f1:	ret
	.size f1, .-f1
	.file ""
f2:	nop
inner:	nop
	ret
	.hidden marker
marker:	nop
	.file "second.c"
	.globl _start
	.type _start, @function
_start:	xor %edi, %edi
	mov $60, %eax
	syscall
	.size _start, .-_start
	.globl alias_small, alias_big
	.type alias_small, @function
	.type alias_big, @function
alias_small:
alias_big:
	nop
	nop
	ret
	.size alias_small, 1
	.size alias_big, 3
	.weak weak_first
	.globl strong_second
	.type weak_first, @function
	.type strong_second, @function
weak_first:
strong_second:
	nop
	ret
	.size weak_first, 2
	.size strong_second, 2
`

// TestAddr2lineSymbols compares File with addr2line on a program without
// DWARF (with and without its file symbols' help), asking about every
// byte of it twice, in two orders (bfd caches the symbol found last).
func TestAddr2lineSymbols(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not installed")
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "f.s"), filepath.Join(dir, "f")
	if err := os.WriteFile(src, []byte(symAsm), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-nostdlib", "-static", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	text := ef.Section(".text")
	ef.Close()
	var pcs []uint64
	for pc := text.Addr; pc <= text.Addr+text.Size; pc++ {
		pcs = append(pcs, pc)
	}
	for i := len(pcs) - 1; i >= 0; i-- {
		pcs = append(pcs, pcs[i])
	}
	compareAddr2line(t, bin, pcs)
}

// TestAddr2lineNamesMatch: Addr2lineNames gives Addr2line's names and
// answers, asked in the same order of two Files.
func TestAddr2lineNamesMatch(t *testing.T) {
	bins := []string{"../../testdata/unwind/cwork-dyn", "../../testdata/unwind/cppwork",
		"../../testdata/unwind/cwork-static", "../../testdata/unwind/rustwork"}
	for _, opt := range []string{"-O2", "-O0 -gdwarf-4"} {
		bins = append(bins, build(t, "inl.c", append([]string{"-g"}, strings.Fields(opt)...)...))
	}
	for _, bin := range bins {
		full, err := OpenFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		names, err := OpenFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for _, pc := range probeAddrs(t, bin, 3000) {
			a, aok := full.Addr2line(pc, nil)
			b, bok := names.Addr2lineNames(pc, nil)
			var an, bn []string
			for _, r := range a {
				an = append(an, r.Func)
			}
			for _, r := range b {
				bn = append(bn, r.Func)
				if r.File != "??" || r.Line != 0 {
					t.Fatalf("%s %#x: Addr2lineNames gave a position: %+v", bin, pc, r)
				}
			}
			if aok != bok || strings.Join(an, "/") != strings.Join(bn, "/") {
				if bad < 5 {
					t.Errorf("%s %#x: Addr2line %v %v, Addr2lineNames %v %v", filepath.Base(bin), pc, aok, an, bok, bn)
				}
				bad++
			}
		}
		full.Close()
		names.Close()
	}
}

// TestAddr2lineGoBinary compares with addr2line on a Go program built by
// the installed Go: Go 1.25 and later write DWARF 5 unit entries whose
// range lists start with DW_RLE_base_addressx, which binutils 2.40 cannot
// read, so that it reads no unit at all and names every address from the
// symbol table (perf script -F +srcline then prints "go.go:0").
func TestAddr2lineGoBinary(t *testing.T) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not installed")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	prog := "package main\n\nimport \"fmt\"\n\nfunc work(n int) int {\n\ts := 0\n\tfor i := 0; i < n; i++ {\n\t\ts += i * i\n\t}\n\treturn s\n}\n\nfunc main() { fmt.Println(work(10)) }\n"
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "goprog")
	cmd := exec.Command(gotool, "build", "-o", bin, src)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=off", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("go build: %v\n%s", err, out)
	}
	compareAddr2line(t, bin, probeAddrs(t, bin, 1500))
}
