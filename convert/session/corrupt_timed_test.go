package session_test

import (
	"fmt"
	"testing"

	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/ptdecode/packet"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
	"github.com/perfpt/perfpt/record/testprog"
)

// TestCorruptTimedPerf compares the errors and resynchronisation after
// corrupted AUX bytes in timed recordings (TSC, MTC, CYC; per-thread and
// per-CPU) with perf's: bytes overwritten a fixed fraction of the way into
// each buffer, and the payload of the first packet of each kind past 30% of
// it (perf's packet decoder accepts some packets that libipt rejects, and
// the reverse: see ptperf's decodePacket).
//
// The program is hot-dyn-O2 for one round, whose trace is the same, byte
// for byte, on every run. It was mix-dyn-O2, whose clock_gettime retries
// its vdso seqlock when the clock moved under it (often when single-stepped
// on a loaded machine): every packet after it moves, so the bytes at a
// fixed fraction were other packets from run to run, and a difference from
// perf (a TMA with reserved bits set) showed only sometimes.
func TestCorruptTimedPerf(t *testing.T) {
	for _, c := range []struct {
		name   string
		cfg    synth.Config
		perCPU bool
	}{
		{"tsc-mtc", synth.Config{TSC: true, MTC: true, MTCPeriod: 3}, false},
		{"cyc", synth.Config{TSC: true, MTC: true, MTCPeriod: 3, CYC: true}, false},
		{"percpu-tsc-mtc", synth.Config{TSC: true, MTC: true, MTCPeriod: 3}, true},
		{"percpu-cyc", synth.Config{TSC: true, MTC: true, MTCPeriod: 3, CYC: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			needTools(t, "perf", "gcc", "make")
			data := session.RecordPTArgs(t, "hot-dyn-O2", []string{"1"}, record.WriteOptions{PT: c.cfg, PerCPU: c.perCPU})
			compare := func(t *testing.T, bad string) {
				perfCompare(t, bad, 2, "--itrace=i100ie")
				perfCompare(t, bad, 1, "--itrace=be", "--ns")
			}
			ats, fills := []float64{0.3, 0.5, 0.7, 0.9}, []byte{0xff, 0x00, 0x55, 0x02}
			if raceOn {
				ats, fills = ats[:2], fills[:2]
			}
			for _, at := range ats {
				for _, fill := range fills {
					t.Run(fmt.Sprintf("%02x@%.1f", fill, at), func(t *testing.T) {
						compare(t, testprog.CorruptAux(t, data, fill, 7, at))
					})
				}
			}
			kinds := []packet.Kind{packet.KindTSC, packet.KindTMA, packet.KindMTC, packet.KindTNT8, packet.KindTIP,
				packet.KindTIPPGE, packet.KindTIPPGD, packet.KindFUP, packet.KindModeExec, packet.KindPSB,
				packet.KindPSBEnd, packet.KindCBR}
			if c.cfg.CYC {
				kinds = append(kinds, packet.KindCYC)
			}
			for _, kind := range kinds {
				for _, fill := range []byte{0xff, 0x00} {
					t.Run(fmt.Sprintf("%v-%02x", kind, fill), func(t *testing.T) {
						compare(t, testprog.CorruptPacket(t, data, kind, fill, 0.3))
					})
				}
			}
		})
	}
}
