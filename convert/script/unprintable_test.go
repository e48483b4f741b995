package script

import (
	"reflect"
	"testing"
)

func TestUnprintable(t *testing.T) {
	for _, tc := range []struct {
		f    string
		want []string
	}{
		{"ip,sym", nil},
		{"+brstacksym,+ipc", nil},
		{"+brstackoff", nil},
		{"hw:ip,weight,iregs,brstackinsn", nil},
		{"ip,brstackinsn,brstackinsnlen,tod,misc", nil},
		{"ip,metric,vcpu", nil},
		{"ip,bpf-output,machine_pid", []string{"bpf-output"}},
		{"-period", nil},
	} {
		f := DefaultFields()
		if _, err := f.Parse(tc.f); err != nil {
			t.Fatalf("%s: %v", tc.f, err)
		}
		if got := f.Unprintable(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("-F %s: Unprintable() = %q, want %q", tc.f, got, tc.want)
		}
	}
}
