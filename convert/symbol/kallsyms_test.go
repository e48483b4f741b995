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
			ref.finish()
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
