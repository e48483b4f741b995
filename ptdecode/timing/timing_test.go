package timing

import (
	"errors"
	"testing"
)

func TestTimeNoTSC(t *testing.T) {
	var tm Time
	if _, _, _, err := tm.TSC(); err != ErrNoTime {
		t.Fatalf("TSC before any packet: %v", err)
	}
	cfg := Config{CPUID15EAX: 1, CPUID15EBX: 1}
	if err := tm.UpdateTMA(1, 1, &cfg); !errors.Is(err, ErrBadContext) {
		t.Errorf("TMA without TSC: %v", err)
	}
	if err := tm.UpdateCBR(0); !errors.Is(err, ErrBadPacket) {
		t.Errorf("CBR 0: %v", err)
	}
	if _, err := tm.CBR(); err != ErrNoCBR {
		t.Errorf("CBR before any: %v", err)
	}
	// CYC without calibration counts as lost.
	if err := tm.UpdateCYC(10, &cfg, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, lost, _ := tm.TSC(); lost != 1 {
		t.Errorf("lost CYC = %d, want 1", lost)
	}
}

// TestTimeSequence follows TSC, TMA, MTC and CYC packets through their
// effect on the estimated TSC (libipt pt_time semantics).
func TestTimeSequence(t *testing.T) {
	cfg := Config{MTCFreq: 0, CPUID15EAX: 1, CPUID15EBX: 2}
	var tm Time
	tsc := func() uint64 {
		v, _, _, err := tm.TSC()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tm.UpdateTSC(0x1000)
	// An MTC between TSC and TMA is ignored.
	if err := tm.UpdateMTC(0x55, &cfg); err != nil || tsc() != 0x1000 {
		t.Fatalf("MTC before TMA: %#x, %v", tsc(), err)
	}
	// TMA: CTC 0x10 at fast counter 4, i.e. the last MTC was 4 ticks ago.
	if err := tm.UpdateTMA(0x10, 4, &cfg); err != nil || tsc() != 0x1000 {
		t.Fatalf("TMA: %#x, %v", tsc(), err)
	}
	if err := tm.UpdateTMA(0x10, 4, &cfg); !errors.Is(err, ErrBadContext) {
		t.Errorf("second TMA: %v", err)
	}
	// MTC 0x12: two CTC ticks = 4 TSC ticks after the base 0xffc.
	if err := tm.UpdateMTC(0x12, &cfg); err != nil || tsc() != 0x1000 {
		t.Fatalf("MTC 0x12: %#x, %v", tsc(), err)
	}
	// MTC wrapping around: 0x12 -> 0x02 is 0xf0 ticks.
	if err := tm.UpdateMTC(0x02, &cfg); err != nil || tsc() != 0x1000+2*0xf0 {
		t.Fatalf("MTC wrap: %#x, %v", tsc(), err)
	}
	// CYC with an FCR of 2.0. The cycle counter runs on across MTCs: of
	// 250 cycles, the 0xf0 (0x1e0 TSC ticks) of the last MTC period since
	// the counter was last reset are not new, the other 10 are 20 ticks.
	if err := tm.UpdateCYC(250, &cfg, 2<<FCRShift); err != nil || tsc() != 0x1000+2*0xf0+20 {
		t.Fatalf("CYC: %#x, %v", tsc(), err)
	}
	// A zero CPUID 0x15 is a configuration error at the next MTC.
	bad := Config{}
	if err := tm.UpdateMTC(0x03, &bad); !errors.Is(err, ErrBadConfig) {
		t.Errorf("MTC without CPUID 0x15: %v", err)
	}
}

func TestCal(t *testing.T) {
	var c Cal
	if _, err := c.FCR(); err != ErrNoTime {
		t.Fatalf("zero Cal: %v", err)
	}
	c.Reset()
	cfg := Config{NomFreq: 8, CPUID15EAX: 1, CPUID15EBX: 1}
	if err := c.HeaderCBR(4, &cfg); err != nil {
		t.Fatal(err)
	}
	if fcr, err := c.FCR(); err != nil || fcr != 2<<FCRShift {
		t.Fatalf("FCR from CBR = %#x, %v; want %#x", fcr, err, 2<<FCRShift)
	}
	// MTC calibration: 100 cycles over 0x20 CTC ticks = 0x20 TSC ticks.
	c.Reset()
	if err := c.UpdateMTC(0x10, &cfg); err != nil {
		t.Fatal(err)
	}
	c.UpdateCYC(100)
	if err := c.UpdateMTC(0x30, &cfg); err != nil {
		t.Fatal(err)
	}
	if fcr, err := c.FCR(); err != nil || fcr != (0x20<<FCRShift)/100 {
		t.Fatalf("FCR from MTC = %#x, %v", fcr, err)
	}
	// TSC calibration in PSB+ when there are no MTCs.
	c.Reset()
	c.UpdateTSC(1000)
	c.UpdateCYC(50)
	if err := c.HeaderTSC(1100); err != nil {
		t.Fatal(err)
	}
	if fcr, _ := c.FCR(); fcr != (100<<FCRShift)/50 {
		t.Errorf("FCR from TSC = %#x", fcr)
	}
	// A CBR outside PSB+ resets the calibration; without a nominal
	// frequency nothing is left.
	if err := c.UpdateCBR(3, &Config{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.FCR(); err != ErrNoTime {
		t.Errorf("after CBR: %v", err)
	}
}
