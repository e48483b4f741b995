package query

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// cycStream is a cycle-accurate trace: PSB+ with TSC, TMA and CBR every
// ~512 bytes, MTC and CYC packets between the branches, an overflow now
// and then.
func cycStream(seed uint64, size int) []byte {
	rng := rand.New(rand.NewPCG(seed, 3))
	var e packet.Encoder
	add := func(p P) { e.Append(p) }
	tscv := uint64(1 << 20)
	ctc := uint16(0)
	last := -1 << 30
	for len(e.Buf) < size {
		if len(e.Buf)-last > 512 {
			last = len(e.Buf)
			add(psb())
			add(tsc(tscv))
			add(tma(ctc, uint16(rng.IntN(100))))
			add(cbr(0x20))
			add(mode64())
			e.AppendIP(packet.KindFUP, 0x400000+uint64(rng.IntN(1<<16)))
			add(psbend())
		}
		switch r := rng.IntN(20); {
		case r < 8:
			add(tnt("!.!"))
		case r < 12:
			e.AppendIP(packet.KindTIP, 0x400000+uint64(rng.IntN(1<<16)))
		case r < 16:
			add(cyc(uint64(1 + rng.IntN(300))))
		case r < 19:
			ctc++
			tscv += 0x100
			add(mtc(ctc))
		default:
			if rng.IntN(10) == 0 {
				add(ovf())
				e.AppendIP(packet.KindFUP, 0x400000+uint64(rng.IntN(1<<16)))
			}
		}
	}
	return e.Buf
}

func timedEvents(d *Decoder, end uint64) []string {
	var out []string
	var ev Event
	for {
		if err := d.Next(&ev); err != nil {
			if CodeOf(err) != CodeEOS || d.Offset() != end {
				out = append(out, fmt.Sprintf("error %v at %x", CodeOf(err), d.Offset()))
			}
			return out
		}
		out = append(out, dumpEvent(&ev, d.Offset()))
	}
}

func TestClocksAt(t *testing.T) {
	for _, keep := range []bool{false, true} {
		buf := cycStream(1, 64<<10)
		cfg := Config{Timing: timingCfg(0, 2, 7), KeepTcalOnOvf: keep}
		d := NewDecoder(buf, &cfg)
		if err := d.SyncForward(); err != nil {
			t.Fatal(err)
		}
		want := timedEvents(d, uint64(len(buf)))

		psbs := packet.PSBIndex(nil, buf)
		offs := make([]uint64, len(psbs))
		for i, p := range psbs {
			offs[i] = uint64(p)
		}
		clocks := ClocksAt(buf, &cfg, offs)
		var got, naive []string
		for i, off := range offs {
			end := uint64(len(buf))
			if i+1 < len(offs) {
				end = offs[i+1]
			}
			for _, c := range []struct {
				out *[]string
				cl  *Clock
			}{{&got, &clocks[i]}, {&naive, nil}} {
				d := NewDecoder(buf, &cfg)
				d.SetEnd(end)
				var err error
				if c.cl != nil {
					err = d.SyncSetClock(off, *c.cl)
				} else {
					err = d.SyncSet(off)
				}
				if err != nil {
					t.Fatal(err)
				}
				*c.out = append(*c.out, timedEvents(d, end)...)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("keep=%v: chunks with ClocksAt differ:\n%s", keep, diffLines(got, want))
		}
		// Without the clocks, cycle-accurate times differ: the test has teeth.
		if strings.Join(naive, "\n") == strings.Join(want, "\n") {
			t.Errorf("keep=%v: chunks without clocks give the same times; the stream does not exercise calibration", keep)
		}
		t.Logf("keep=%v: %d events in %d chunks", keep, len(want), len(offs))
	}
}
