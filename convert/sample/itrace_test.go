package sample

import "testing"

func TestParseItrace(t *testing.T) {
	cases := []struct {
		in     string
		check  func(*Itrace) bool
		hasErr bool
	}{
		{"i0ns", func(o *Itrace) bool {
			return o.Instructions && o.Period == 0 && o.PeriodType == PeriodNanosecs
		}, false},
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
