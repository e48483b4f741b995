package script

import "testing"

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

func TestParseItrace(t *testing.T) {
	cases := []struct {
		in     string
		check  func(*Itrace) bool
		hasErr bool
	}{
		{"i0ns", func(o *Itrace) bool { return o.Instructions && o.Period == 0 && o.PeriodType == PeriodNanosecs }, false},
		{"i100i", func(o *Itrace) bool { return o.Period == 100 && o.PeriodType == PeriodInstructions }, false},
		{"i10us", func(o *Itrace) bool { return o.Period == 10000 && o.PeriodType == PeriodNanosecs }, false},
		{"i", func(o *Itrace) bool { return o.Period == 100000 && o.PeriodType == PeriodNanosecs }, false},
		{"cr", func(o *Itrace) bool { return o.Calls && o.Returns && o.Branches && !o.Instructions }, false},
		{"b", func(o *Itrace) bool { return o.Branches && !o.Calls && !o.Errors }, false},
		{"be-o", func(o *Itrace) bool { return o.Errors && o.ErrorMinusFlags == ErrFlagOverflow }, false},
		{"g32", func(o *Itrace) bool { return o.Callchain && o.CallchainSz == 32 }, false},
		{"", func(o *Itrace) bool { return o.Calls && o.Branches && o.Period == 1 && !o.Instructions }, false},
		{"i1x", nil, true},
		{"k", nil, true},
	}
	for _, c := range cases {
		o, err := ParseItrace(c.in)
		if (err != nil) != c.hasErr {
			t.Errorf("%q: err %v", c.in, err)
			continue
		}
		if err == nil && !c.check(o) {
			t.Errorf("%q: %+v", c.in, o)
		}
	}
}

func TestFlagsString(t *testing.T) {
	cases := map[uint32]string{
		FlagBranch | FlagCall:                    "call                 ",
		FlagBranch | FlagTraceEnd:                "tr end               ",
		FlagBranch | FlagCall | FlagTraceBegin:   "tr strt call         ",
		FlagBranch | FlagCall | FlagSyscallRet:   "syscall              ",
		FlagBranch | FlagConditional | FlagInTx:  "jcc               (x)",
		FlagBranch | FlagReturn | FlagTraceBegin: "tr strt return       ",
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
