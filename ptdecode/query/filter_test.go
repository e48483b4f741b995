package query

import "testing"

func TestAddrFilter(t *testing.T) {
	tests := []struct {
		name string
		f    AddrFilter
		addr uint64
		want bool
	}{
		{"none", AddrFilter{}, 0x1000, true},
		{"filter in", AddrFilter{Cfg: 0x1, A: [4]uint64{0x1000}, B: [4]uint64{0x2000}}, 0x1000, true},
		{"filter end inclusive", AddrFilter{Cfg: 0x1, A: [4]uint64{0x1000}, B: [4]uint64{0x2000}}, 0x2000, true},
		{"filter out", AddrFilter{Cfg: 0x1, A: [4]uint64{0x1000}, B: [4]uint64{0x2000}}, 0x2001, false},
		{"second filter", AddrFilter{Cfg: 0x10, A: [4]uint64{0, 0x1000}, B: [4]uint64{0, 0x2000}}, 0x1800, true},
		{"stop in", AddrFilter{Cfg: 0x2, A: [4]uint64{0x1000}, B: [4]uint64{0x2000}}, 0x1800, false},
		{"stop out", AddrFilter{Cfg: 0x2, A: [4]uint64{0x1000}, B: [4]uint64{0x2000}}, 0x3000, true},
		{"stop wins", AddrFilter{Cfg: 0x21, A: [4]uint64{0x1000, 0x1800}, B: [4]uint64{0x2000, 0x1900}}, 0x1850, false},
		{"filter and stop", AddrFilter{Cfg: 0x21, A: [4]uint64{0x1000, 0x1800}, B: [4]uint64{0x2000, 0x1900}}, 0x1000, true},
		{"disabled range ignored", AddrFilter{Cfg: 0x0, A: [4]uint64{0x1000}, B: [4]uint64{0x2000}}, 0x5000, true},
		{"unknown cfg ignored", AddrFilter{Cfg: 0x3, A: [4]uint64{0x1000}, B: [4]uint64{0x2000}}, 0x5000, true},
	}
	for _, tt := range tests {
		if got := tt.f.Check(tt.addr); got != tt.want {
			t.Errorf("%s: Check(%#x) = %v, want %v", tt.name, tt.addr, got, tt.want)
		}
	}
}
