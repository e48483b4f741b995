package script

import (
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
)

func TestParseFields(t *testing.T) {
	f := DefaultFields()
	if _, err := f.Parse("+flags,+addr"); err != nil {
		t.Fatal(err)
	}
	if !f.Flags || !f.Has(TypeHardware, FieldAddr) || !f.Has(TypeHardware, FieldIP) || !f.UserSet(TypeHardware) {
		t.Errorf("+flags,+addr: %+v", f.out[TypeHardware])
	}
	f = DefaultFields()
	if _, err := f.Parse("comm,tid,ip,sym,symoff,dso"); err != nil {
		t.Fatal(err)
	}
	want := FieldComm | FieldTID | FieldIP | FieldSym | FieldSymOff | FieldDSO
	if f.Of(TypeHardware) != want || f.Of(TypeSynth) != want {
		t.Errorf("set: %x want %x", f.Of(TypeHardware), want)
	}
	f = DefaultFields()
	if _, err := f.Parse("ip,+sym"); err == nil {
		t.Error("mixing set and + must fail")
	}
	f = DefaultFields()
	if _, err := f.Parse("hw:ip"); err != nil || f.Of(TypeHardware) != FieldIP || f.Of(TypeSoftware) == FieldIP {
		t.Errorf("hw:ip: %v %x", err, f.Of(TypeHardware))
	}
	if _, err := DefaultFields().Parse("bogus"); err == nil {
		t.Error("bogus field accepted")
	}
}

func TestFlagsString(t *testing.T) {
	cases := map[uint32]string{
		sample.FlagBranch | sample.FlagCall:                           "call                 ",
		sample.FlagBranch | sample.FlagTraceEnd:                       "tr end               ",
		sample.FlagBranch | sample.FlagCall | sample.FlagTraceBegin:   "tr strt call         ",
		sample.FlagBranch | sample.FlagCall | sample.FlagSyscallRet:   "syscall              ",
		sample.FlagBranch | sample.FlagConditional | sample.FlagInTx:  "jcc               (x)",
		sample.FlagBranch | sample.FlagReturn | sample.FlagTraceBegin: "tr strt return       ",
	}
	for in, want := range cases {
		got := FlagsString(in)
		if len(got) < len(want) {
			got += "                     "[:len(want)-len(got)]
		}
		if got != want {
			t.Errorf("%#x: %q want %q", in, got, want)
		}
	}
}

func TestAppendTime(t *testing.T) {
	if got := string(AppendTime(nil, 229189400123, false)); got != "  229.189400" {
		t.Errorf("usec: %q", got)
	}
	if got := string(AppendTime(nil, 4525744123981, true)); got != " 4525.744123981" {
		t.Errorf("ns: %q", got)
	}
}
