package native

import (
	"reflect"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/perfdata"
)

// TestFormatCPUList: the lists perf prints, and the online CPUs found.
func TestFormatCPUList(t *testing.T) {
	if s := perfdata.FormatCPUList([]int{0, 1, 2, 4, 6, 7}); s != "0-2,4,6-7" {
		t.Errorf("FormatCPUList: %q", s)
	}
	if c := OnlineCPUs(); len(c) == 0 {
		t.Error("no online CPUs")
	}
}

func TestTargetOpens(t *testing.T) {
	online := []int{0, 1, 2}
	tests := []struct {
		name string
		t    Target
		want []Open
	}{
		{"default", Target{}, []Open{{42, 0}, {42, 1}, {42, 2}}},
		{"per-thread", Target{PerThread: true}, []Open{{42, -1}}},
		{"-a", Target{AllCPUs: true}, []Open{{-1, 0}, {-1, 1}, {-1, 2}}},
		{"-C", Target{CPUs: []int{2}}, []Open{{-1, 2}}},
		{"-a -C", Target{AllCPUs: true, CPUs: []int{1}}, []Open{{-1, 1}}},
	}
	for _, tc := range tests {
		if got := tc.t.Opens(42, online); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if err := (Target{PerThread: true, AllCPUs: true}).Check(); err == nil {
		t.Error("--per-thread -a accepted")
	}
}

// TestSoftwareAttr checks the attr of each mode against perf record's:
// inherit off per-thread, the CPU in samples for -a/-C, exclude bits from
// the modifiers.
func TestSoftwareAttr(t *testing.T) {
	const (
		inherit = perfdata.AttrFlagInherit
		exclK   = perfdata.AttrFlagExcludeKernel
		exclU   = perfdata.AttrFlagExcludeUser
	)
	tests := []struct {
		event   string
		t       Target
		cg      bool
		set     perfdata.AttrFlags
		clear   perfdata.AttrFlags
		cpu, cc bool
	}{
		{"cpu-clock", Target{}, false, inherit, exclK | exclU, false, false},
		{"cpu-clock:u", Target{}, true, inherit | exclK, exclU, false, true},
		{"cpu-clock:k", Target{AllCPUs: true}, false, inherit | exclU, exclK, true, false},
		{"task-clock", Target{PerThread: true}, false, 0, inherit | exclK, false, false},
		{"cpu-clock:uk", Target{CPUs: []int{0}}, true, inherit, exclK | exclU, true, true},
	}
	for _, tc := range tests {
		ev, err := ParseEvent(tc.event)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := SoftwareConfig(ev.Name)
		a := SoftwareAttr(cfg, 999, tc.cg, ev, tc.t)
		if a.Flags&tc.set != tc.set || a.Flags&tc.clear != 0 {
			t.Errorf("%s %+v: flags %#x, want %#x set and %#x clear", tc.event, tc.t, a.Flags, tc.set, tc.clear)
		}
		if got := a.SampleType&perfdata.SampleFormatCPU != 0; got != tc.cpu {
			t.Errorf("%s %+v: CPU in samples %v", tc.event, tc.t, got)
		}
		if got := a.SampleType&perfdata.SampleFormatCallchain != 0; got != tc.cc {
			t.Errorf("%s %+v: callchain %v", tc.event, tc.t, got)
		}
		if a.SamplePeriod != 999 || a.Flags&perfdata.AttrFlagFreq == 0 {
			t.Errorf("%s: frequency %d", tc.event, a.SamplePeriod)
		}
	}
}

func TestPermissionHint(t *testing.T) {
	for _, tc := range []struct {
		p          string
		root, wide bool
		want       string
	}{
		{"2", false, false, "add :u"},
		{"2", false, true, "-a and -C need it at most 0"},
		{"1", false, true, "-a and -C need"},
		{"0", false, true, "need root or CAP_PERFMON"},
		{"2", true, false, "denied even to root"},
		{"", false, false, "unknown"},
	} {
		if h := permissionHint(tc.p, tc.root, tc.wide); !strings.Contains(h, tc.want) {
			t.Errorf("paranoid %q root %v wide %v: %q, want %q", tc.p, tc.root, tc.wide, h, tc.want)
		}
	}
}
