package srcline

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// build compiles testdata/src with gcc and the given flags into a temp dir.
func build(t testing.TB, src string, flags ...string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not installed")
	}
	out := filepath.Join(t.TempDir(), strings.TrimSuffix(src, ".c"))
	abs, _ := filepath.Abs(filepath.Join("testdata", src))
	args := append(append([]string{}, flags...), "-o", out, abs)
	if b, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %v: %v\n%s", args, err, b)
	}
	return out
}

var discrim = regexp.MustCompile(` \(discriminator \d+\)$`)

// addr2line runs `addr2line -i -f -a` on pcs and returns its frames per pc.
func addr2line(t *testing.T, bin string, pcs []uint64) map[uint64][]Frame {
	t.Helper()
	tool, err := exec.LookPath("addr2line")
	if err != nil {
		t.Skip("addr2line not installed")
	}
	var in bytes.Buffer
	for _, pc := range pcs {
		fmt.Fprintf(&in, "%#x\n", pc)
	}
	cmd := exec.Command(tool, "-i", "-f", "-a", "-e", bin)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("addr2line: %v", err)
	}
	res := map[uint64][]Frame{}
	var cur uint64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "0x") {
			cur, _ = strconv.ParseUint(line[2:], 16, 64)
			res[cur] = nil
			continue
		}
		fn := line
		if !sc.Scan() {
			break
		}
		pos := discrim.ReplaceAllString(sc.Text(), "")
		i := strings.LastIndexByte(pos, ':')
		ln, _ := strconv.Atoi(pos[i+1:])
		res[cur] = append(res[cur], Frame{Func: fn, File: pos[:i], Line: ln})
	}
	return res
}

func TestFramesMatchAddr2line(t *testing.T) {
	for _, opt := range []string{"-O0", "-O2"} {
		t.Run(opt, func(t *testing.T) {
			bin := build(t, "inl.c", "-g", opt)
			tab, err := Open(bin)
			if err != nil {
				t.Fatal(err)
			}
			// Every row address and a byte inside each row, plus the
			// functions' first and last bytes.
			seen := map[uint64]bool{}
			var pcs []uint64
			add := func(pc uint64) {
				if !seen[pc] {
					seen[pc] = true
					pcs = append(pcs, pc)
				}
			}
			rows := tab.Rows()
			for i, r := range rows {
				if r.EndSeq {
					continue
				}
				add(r.Addr)
				if i+1 < len(rows) && rows[i+1].Addr > r.Addr+1 {
					add(r.Addr + 1)
				}
			}
			// Every byte of every function.
			for _, f := range tab.Funcs() {
				for pc := f.Low; pc < f.High; pc++ {
					add(pc)
				}
			}
			if len(pcs) < 20 {
				t.Fatalf("only %d addresses from the line table", len(pcs))
			}
			want := addr2line(t, bin, pcs)
			bad := 0
			inlined := 0
			for _, pc := range pcs {
				got := tab.Frames(pc, nil)
				if len(got) > 1 {
					inlined++
				}
				w := want[pc]
				if !sameFrames(got, w) {
					bad++
					if bad <= 10 {
						t.Errorf("%#x: got %v, addr2line %v", pc, got, w)
					}
				}
			}
			t.Logf("%s: %d addresses, %d with inline chains, %d differ", opt, len(pcs), inlined, bad)
			if opt == "-O2" && inlined == 0 {
				t.Errorf("no inlined frames found at -O2")
			}
		})
	}
}

func sameFrames(got, want []Frame) bool {
	if len(got) == 0 {
		return len(want) == 1 && want[0].Func == "??"
	}
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Func != w.Func || g.Line != w.Line {
			return false
		}
		if g.File != w.File && filepath.Base(g.File) != filepath.Base(w.File) {
			return false
		}
	}
	return true
}

func TestFuncAndLine(t *testing.T) {
	bin := build(t, "inl.c", "-g", "-O0")
	tab, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	var main *Func
	for i := range tab.Funcs() {
		if f := &tab.Funcs()[i]; f.Name == "main" {
			main = f
		}
	}
	if main == nil {
		t.Fatal("no main")
	}
	if main.Line != 30 || filepath.Base(main.File) != "inl.c" || !main.External {
		t.Errorf("main declared at %s:%d external=%v, want inl.c:30 external", main.File, main.Line, main.External)
	}
	f, ok := tab.Func(main.Low + 1)
	if !ok || f.Name != "main" {
		t.Errorf("Func(main+1) = %v %v", f, ok)
	}
	r, ok := tab.Line(main.Low)
	if !ok || r.Line != 31 {
		t.Errorf("Line(main) = %+v %v, want line 31 (the prologue)", r, ok)
	}
	if _, ok := tab.Line(0); ok {
		t.Errorf("Line(0) found a row")
	}
}

func TestNoDebugInfo(t *testing.T) {
	bin := build(t, "inl.c", "-O1", "-s")
	tab, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows()) != 0 || len(tab.Frames(0x1000, nil)) != 0 {
		t.Errorf("stripped binary gave rows")
	}
}

func BenchmarkFrames(b *testing.B) {
	bin := build(b, "inl.c", "-g", "-O2")
	tab, err := Open(bin)
	if err != nil {
		b.Fatal(err)
	}
	rows := tab.Rows()
	var buf []Frame
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = tab.Frames(rows[i%len(rows)].Addr, buf[:0])
	}
}

func TestInlinedCalls(t *testing.T) {
	bin := build(t, "inl.c", "-g", "-O2")
	tab, err := Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, ic := range tab.InlinedCalls() {
		seen[ic.Func]++
		fn, ok := tab.Func(ic.Entry)
		if !ok {
			t.Errorf("inlined %s: entry %#x in no function", ic.Func, ic.Entry)
			continue
		}
		if fr := tab.Frames(ic.Entry, nil); len(fr) < 2 {
			t.Errorf("inlined %s: no inline chain at its entry %#x (in %s)", ic.Func, ic.Entry, fn.Name)
		}
		if ic.DeclFile == "" || ic.DeclLine == 0 || filepath.Base(ic.CallFile) != "inl.c" || ic.CallLine == 0 {
			t.Errorf("inlined %+v", ic)
		}
	}
	if seen["sq"] == 0 || seen["add_sq"] == 0 {
		t.Errorf("inlined calls %v, want sq and add_sq", seen)
	}
}
