package native

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// fakeCPUID answers leaf 0 with maxLeaf and leaf 0x15 with eax=d, ebx=n.
func fakeCPUID(maxLeaf, d, n uint32) CPUIDFunc {
	return func(leaf, sub uint32) (CPUID, bool) {
		switch {
		case leaf == 0:
			return CPUID{EAX: maxLeaf, EBX: 0x756e6547, EDX: 0x49656e69, ECX: 0x6c65746e}, true // GenuineIntel
		case leaf == 0x15 && leaf <= maxLeaf:
			return CPUID{EAX: d, EBX: n, ECX: 38400000}, true
		}
		return CPUID{}, true
	}
}

func TestTSCCTCRatio(t *testing.T) {
	tests := []struct {
		id   CPUIDFunc
		n, d uint32
	}{
		{fakeCPUID(0x1b, 2, 188), 188, 2}, // n from EBX, d from EAX, as perf
		{fakeCPUID(0x14, 2, 188), 0, 0},   // no leaf 0x15
		{fakeCPUID(0x20, 0, 0), 0, 0},     // leaf 0x15 not enumerated
		{func(uint32, uint32) (CPUID, bool) { return CPUID{}, false }, 0, 0},
	}
	for i, tc := range tests {
		if n, d := TSCCTCRatio(tc.id); n != tc.n || d != tc.d {
			t.Errorf("%d: %d/%d, want %d/%d", i, n, d, tc.n, tc.d)
		}
	}
	if v := Vendor(fakeCPUID(0x1b, 2, 188)); v != "GenuineIntel" {
		t.Errorf("vendor %q", v)
	}
}

// TestNativeCPUID checks the assembly against /proc/cpuinfo's vendor and,
// when readable, the cpuid driver's /dev/cpu/N/cpuid on the same CPU.
func TestNativeCPUID(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("CPUID is read on amd64 only")
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo")
	}
	var vendor string
	for _, l := range strings.Split(string(info), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "vendor_id" {
			vendor = strings.TrimSpace(v)
			break
		}
	}
	if got := Vendor(nil); got != vendor {
		t.Errorf("CPUID vendor %q, /proc/cpuinfo %q", got, vendor)
	}
	n, d := TSCCTCRatio(nil)
	l0, _ := NativeCPUID(0, 0)
	t.Logf("%s, max basic leaf %#x, TSC:CTC %d/%d", vendor, l0.EAX, n, d)
	if l0.EAX < 0x15 && (n != 0 || d != 0) {
		t.Errorf("no leaf 0x15 but ratio %d/%d", n, d)
	}
	// Leaves 0 and 0x15 do not depend on the CPU: compare with the driver.
	dev := DevCPUID(0)
	if _, ok := dev(0, 0); !ok {
		t.Log("/dev/cpu/0/cpuid not readable: driver comparison skipped")
		return
	}
	for _, leaf := range []uint32{0, 0x15, 0x80000000} {
		a, _ := NativeCPUID(leaf, 0)
		b, _ := dev(leaf, 0)
		if a != b {
			t.Errorf("leaf %#x: assembly %+v, /dev/cpu/0/cpuid %+v", leaf, a, b)
		}
	}
	if dn, dd := TSCCTCRatio(dev); dn != n || dd != d {
		t.Errorf("driver ratio %d/%d, assembly %d/%d", dn, dd, n, d)
	}
}
