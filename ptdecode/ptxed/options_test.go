package ptxed

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	o, err := Parse([]string{"--insn-decoder", "--raw", "a.bin:0x10-0x20:0x1000", "--raw", "b.bin:0x2000",
		"--elf", "c.elf:0x400000", "--elf", "d.elf", "--filter:addr1_cfg", "2", "--filter:addr1_a", "0x10",
		"--filter:addr1_b", "0x20", "--stat", "--block-decoder", "-j", "4", "--pt", "t.pt:8"})
	if err != nil {
		t.Fatal(err)
	}
	want := []imageArg{
		{File: fileArg{Name: "a.bin", Offset: 0x10, Size: 0x10}, Base: 0x1000, HasBase: true},
		{File: fileArg{Name: "b.bin"}, Base: 0x2000, HasBase: true},
		{ELF: true, File: fileArg{Name: "c.elf"}, Base: 0x400000, HasBase: true},
		{ELF: true, File: fileArg{Name: "d.elf"}},
	}
	if !reflect.DeepEqual(o.Images, want) {
		t.Errorf("images %+v, want %+v", o.Images, want)
	}
	if o.InsnDecoder || o.Jobs != 4 || !o.StatInsn || !o.StatBlocks {
		t.Errorf("decoder/jobs/stats: %+v", o)
	}
	if f := o.Flow.Query.Filter; f.Cfg != 0x20 || f.A[1] != 0x10 || f.B[1] != 0x20 {
		t.Errorf("filter %+v", f)
	}
	if o.PT != (fileArg{Name: "t.pt", Offset: 8}) {
		t.Errorf("pt %+v", o.PT)
	}
	for _, bad := range [][]string{
		{"--raw", "a.bin"},                        // no base
		{"--pt", "a", "--pt", "b"},                // two traces
		{"--bogus", "--pt", "a"},                  // unknown option
		{"--filter:addr0_cfg", "16", "--pt", "a"}, // value too big
		{"--raw", "a:0x20-0x10:0x0", "--pt", "a"}, // empty range
		{"--no-inst"},                             // no trace
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
