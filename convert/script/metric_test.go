package script

import (
	"strings"
	"testing"

	"github.com/perfpt/perfpt/convert/sample"
)

// TestCheckMetric: groups of software events are printed; a group with
// any other event is refused, naming it.
func TestCheckMetric(t *testing.T) {
	group := func(evs ...*sample.Event) []*sample.Event {
		evs[0].Members = evs
		for _, e := range evs[1:] {
			e.Leader = evs[0]
		}
		return evs
	}
	sw := func(name string, config uint64) *sample.Event {
		return &sample.Event{Name: name, AttrType: perfTypeSoftware, Config: config}
	}
	ok := append(group(sw("cpu-clock", 0), sw("page-faults", 2)), sw("task-clock", 1))
	if err := CheckMetric(ok); err != nil {
		t.Errorf("software groups: %v", err)
	}
	bad := group(sw("cpu-clock", 0), &sample.Event{Name: "instructions", AttrType: 0, Config: 1})
	if err := CheckMetric(bad); err == nil || !strings.Contains(err.Error(), "'instructions'") {
		t.Errorf("a group with a hardware event: %v", err)
	}
}

// TestConvertUnitDouble: perf's convert_unit_double.
func TestConvertUnitDouble(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want float64
		unit byte
	}{
		{0, 0, ' '}, {1000, 1000, ' '}, {1000.5, 1.0005, 'K'}, {2.25e9, 2.25, 'G'}, {1e9, 1000, 'M'}, {5e12, 5000, 'G'},
	} {
		got, unit := convertUnitDouble(tc.in)
		if got != tc.want || unit != tc.unit {
			t.Errorf("convertUnitDouble(%g) = %g %q, want %g %q", tc.in, got, unit, tc.want, tc.unit)
		}
	}
}
