package errata

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestForCPU(t *testing.T) {
	tests := []struct {
		cpu  string
		want string
		err  error
	}{
		{"6/61", "bdm70,bdm64", nil},
		{"6/0x56/3", "bdm70,bdm64", nil},
		{"6/78", "bdm70,skd007,skd022,skd010,skl014,skl168", nil},
		{"6/158/9", "bdm70,skd007,skd022,skd010,skl014,skl168", nil},
		{"6/85", "bdm70,skd022,skl014,skz84", nil},
		{"6/143", "bdm70,skd022,skz84", nil},
		{"6/0x7e", "bdm70,skd022,skl014", nil},
		{"6/0x9a", "bdm70,skd022,apl11", nil},
		{"6/92", "apl12,apl11", nil},
		{"6/95", "apl12,apl11", nil},
		{"6/0x7a", "apl11", nil},
		{"0x12/1", "bdm70,skd022,apl11", nil},
		{"0x13/1", "bdm70,skd022,skz84", nil},
		{"0/0", "", ErrBadCPU},
		{"6/1", "", ErrBadCPU},
		{"none", "", ErrBadCPU},
	}
	for _, tt := range tests {
		cpu, err := ParseCPU(tt.cpu)
		if err != nil {
			t.Fatalf("ParseCPU(%q): %v", tt.cpu, err)
		}
		e, err := ForCPU(cpu)
		if !errors.Is(err, tt.err) {
			t.Errorf("ForCPU(%s) error %v, want %v", tt.cpu, err, tt.err)
		}
		if got := e.String(); got != tt.want {
			t.Errorf("ForCPU(%s) = %q, want %q", tt.cpu, got, tt.want)
		}
	}
}

func TestParseCPU(t *testing.T) {
	tests := []struct {
		in   string
		want CPU
		ok   bool
	}{
		{"6/61", CPU{VendorIntel, 6, 61, 0}, true},
		{"6/61/4", CPU{VendorIntel, 6, 61, 4}, true},
		{"0x6/0x3d/010", CPU{VendorIntel, 6, 61, 8}, true},
		{"65535/255/255", CPU{VendorIntel, 65535, 255, 255}, true},
		{"none", CPU{}, true},
		{"65536/1", CPU{}, false},
		{"6/256", CPU{}, false},
		{"6/1/256", CPU{}, false},
		{"6", CPU{}, false},
		{"6/", CPU{}, false},
		{"/6", CPU{}, false},
		{"6/1/2/3", CPU{}, false},
		{"6/-1", CPU{}, false},
		{"6/61/", CPU{VendorIntel, 6, 61, 0}, true},
		{"-0/61", CPU{VendorIntel, 0, 61, 0}, true},
		{" 6/+61", CPU{VendorIntel, 6, 61, 0}, true},
		{"6/61 ", CPU{}, false},
		{"08/1", CPU{}, false},
		{"0x/1", CPU{}, false},
		{"6/+-1", CPU{}, false},
		{"6/1x", CPU{}, false},
		{"", CPU{}, false},
	}
	for _, tt := range tests {
		got, err := ParseCPU(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseCPU(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestSet(t *testing.T) {
	var e Errata
	for _, n := range Names {
		if !e.Set(n) {
			t.Fatalf("Set(%q) failed", n)
		}
	}
	if e.Set("bogus") {
		t.Error("Set(bogus) succeeded")
	}
	if got := e.String(); got != "bdm70,bdm64,skd007,skd022,skd010,skl014,apl12,apl11,skl168,skz84" {
		t.Errorf("all errata: %q", got)
	}
}

// TestLibiptTable compares ForCPU for every family 0..0x1f and model
// 0..255 with the errata that libipt's pt_cpu_errata reports
// (testdata/libipt-errata.txt, printed by a program linked with libipt).
func TestLibiptTable(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "libipt-errata.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.HasPrefix(l, "#") {
			want = append(want, strings.TrimSpace(l))
		}
	}
	var got []string
	for f := 0; f < 0x20; f++ {
		for m := 0; m < 256; m++ {
			e, err := ForCPU(CPU{VendorIntel, uint16(f), uint8(m), 0})
			if err != nil {
				continue
			}
			got = append(got, strings.TrimSpace(fmt.Sprintf("%d/%d: %s", f, m, strings.ReplaceAll(e.String(), ",", " "))))
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errata table differs from libipt's:\ngot:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
