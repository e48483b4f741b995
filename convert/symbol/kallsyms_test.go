package symbol

import (
	"os"
	"strings"
	"testing"
)

// TestSortedTableMatchesTree checks that the tables ParseKallsyms builds
// without a tree answer every lookup as perf's tree does: at each symbol's
// start, end and the addresses around them.
func TestSortedTableMatchesTree(t *testing.T) {
	inputs := map[string]string{"synthetic": `ffffffff81000000 T _text
ffffffff81000000 T startup_64
ffffffff81000010 t secondary
ffffffff81000010 W secondary_alias
ffffffff81000040 T __x64_sys_read
ffffffff81001000 D data_sym
ffffffff81002000 b bss_sym
ffffffffc0001000 t mod_a	[mymod]
ffffffffc0001000 t mod_a_dup	[mymod]
ffffffffc0001080 T mod_b	[mymod]
ffffffffc0002000 t other_mod	[other]
`}
	if b, err := os.ReadFile("/proc/kallsyms"); err == nil && len(b) > 0 && !strings.HasPrefix(string(b), "0000000000000000") {
		inputs["/proc/kallsyms"] = string(b)
	}
	for name, in := range inputs {
		ks, err := ParseKallsyms(strings.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		tables := map[string]*Table{"kernel": ks.Kernel}
		for m, mt := range ks.Modules {
			tables[m] = mt
		}
		for tn, tab := range tables {
			ref := &Table{}
			ref.insert(tab.syms)
			ref.finish(nil)
			for _, s := range tab.syms {
				for _, a := range []uint64{s.Start - 1, s.Start, s.Start + 1, s.End - 1, s.End, s.End + 1} {
					got, want := tab.Find(a), ref.Find(a)
					if (got == nil) != (want == nil) || got != nil && *got != *want {
						t.Fatalf("%s %s: Find(%#x) = %+v, tree %+v", name, tn, a, got, want)
					}
				}
			}
		}
	}
	ks, _ := ParseKallsyms(strings.NewReader(inputs["synthetic"]))
	if ks.Text != 0xffffffff81000000 || ks.Kernel.Find(0xffffffff81000010).Name != "secondary_alias" ||
		ks.Modules["mymod"].Find(0xffffffffc0001000).Name != "mod_a_dup" {
		t.Errorf("text %#x, %+v, %+v", ks.Text, ks.Kernel.Find(0xffffffff81000010), ks.Modules["mymod"].Find(0xffffffffc0001000))
	}
}

// BenchmarkParseKallsyms parses this machine's /proc/kallsyms (read once).
func BenchmarkParseKallsyms(b *testing.B) {
	data, err := os.ReadFile("/proc/kallsyms")
	if err != nil || len(data) == 0 {
		b.Skip("no /proc/kallsyms")
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseKallsyms(strings.NewReader(string(data))); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzParseKallsyms: any kallsyms text (a --kallsyms file, a build-id
// cache entry) parses without a panic, and lookups at every symbol's
// bounds do not panic either.
func FuzzParseKallsyms(f *testing.F) {
	f.Add("ffffffff81000000 T _text\nffffffff81000010 t a\nffffffffc0000000 t m\t[mod]\n")
	f.Add("0 T x\n0 W y\nffffffffffffffff T z\n")
	f.Add("zz T bad\n1 Q q\n2 t\n 3 t s\n")
	f.Fuzz(func(t *testing.T, s string) {
		ks, err := ParseKallsyms(strings.NewReader(s))
		if err != nil {
			t.Fatal(err)
		}
		tabs := []*Table{ks.Kernel}
		for _, m := range ks.Modules {
			tabs = append(tabs, m)
		}
		for _, tab := range tabs {
			for _, sym := range tab.Symbols() {
				tab.Find(sym.Start)
				tab.FindRange(sym.End)
			}
		}
	})
}

// TestWithout drops the PTI entry trampolines' symbols from a kallsyms
// kernel table as perf's maps__split_kallsyms does: the others keep their
// bounds (the ends were fixed before), and a table without the name is
// returned as it is.
func TestWithout(t *testing.T) {
	ks, err := ParseKallsyms(strings.NewReader("fffffe0000006000 T __entry_SYSCALL_64_trampoline\n" +
		"fffffe0000032000 T __entry_SYSCALL_64_trampoline\n" +
		"ffffffff81000000 T _text\n" +
		"ffffffff81000100 T _entry_trampoline\n" +
		"ffffffff81000200 T do_syscall_64\n"))
	if err != nil {
		t.Fatal(err)
	}
	before := ks.Kernel.Find(0xffffffff81000100)
	got := ks.Kernel.Without("__entry_SYSCALL_64_trampoline")
	if s := got.Find(0xfffffe0000006000); s != nil {
		t.Errorf("trampoline address resolves to %s", s.Name)
	}
	if lo, _, _ := got.Span(); lo != 0xffffffff81000000 {
		t.Errorf("span starts at %#x", lo)
	}
	if s := got.Find(0xffffffff81000100); s == nil || s.Name != "_entry_trampoline" || s.End != before.End {
		t.Errorf("_entry_trampoline: %+v, was %+v", s, before)
	}
	if got.Len() != 3 {
		t.Errorf("%d symbols left, want 3", got.Len())
	}
	if again := got.Without("__entry_SYSCALL_64_trampoline"); again != got {
		t.Error("a table without the name was copied")
	}
}
