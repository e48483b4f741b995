package ptdump

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/errata"
)

// FuzzDump dumps arbitrary bytes with option sets chosen by the fuzzer:
// it must not panic, whatever the packets, errata or timing parameters.
func FuzzDump(f *testing.F) {
	for _, name := range []string{"all-kinds.pt", "blocks.pt"} {
		if data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "pt", name)); err == nil {
			f.Add(data, uint32(0xffff), uint8(6), uint8(0x4e))
		}
	}
	f.Add([]byte{0x02, 0x82, 0x02, 0x73, 1, 2, 3, 4, 5}, uint32(1<<12), uint8(0), uint8(0x55))
	f.Fuzz(func(t *testing.T, data []byte, bits uint32, freq, model uint8) {
		on := func(i int) bool { return bits&(1<<i) != 0 }
		opt := Options{ShowOffset: on(0), Raw: on(1), LastIP: on(2), ExecMode: on(3),
			Time: on(4), TCal: on(5) && !on(4), TimeDelta: on(6), NoTCal: on(7), NoWallClock: on(8),
			KeepTCalOnOVF: on(9), NoSync: on(10), Quiet: on(11), NoPad: on(12), NoTiming: on(13),
			NoCYC: on(14), BlockItems: on(15)}
		opt.Timing.MTCFreq = freq & 0x1f
		opt.Timing.NomFreq = freq
		opt.Timing.CPUID15EAX = uint32(model & 7)
		opt.Timing.CPUID15EBX = uint32(model >> 3)
		if on(16) {
			opt.CPU = errata.CPU{Vendor: errata.VendorIntel, Family: 6, Model: model}
		}
		if err := Dump(io.Discard, data, &opt); err != nil {
			t.Fatal(err)
		}
	})
}
