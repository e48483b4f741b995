package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// TestDifferentialLibipt compares the decoders with libipt's event and
// query decoders on random packet streams. It needs an oracle program: set
// PERFPT_EVDUMP to a binary that takes [--cpu f/m] [--iflags]
// [--keep-tcal] [--backward|--query] FILE.pt and prints what libipt gives
// in the format of dumpStream, dumpBackward and dumpQuery (built from
// libipt outside the repository; not part of it). PERFPT_EVDUMP_N sets the
// number of streams (default 300).
func TestDifferentialLibipt(t *testing.T) {
	oracle := os.Getenv("PERFPT_EVDUMP")
	if oracle == "" {
		t.Skip("PERFPT_EVDUMP (a libipt event dump program) not set")
	}
	n := 300
	if s := os.Getenv("PERFPT_EVDUMP_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	dir := t.TempDir()
	cpus := []string{"", "6/78", "6/92", "6/61", "6/154"}
	fails := 0
	// Corpus streams to mutate, when present.
	corpus, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "conformance", "libipt", "cases", "*", "*.pt"))
	for i := 0; i < n && fails < 5; i++ {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		buf := randomStream(rng)
		if i%3 == 2 && len(corpus) > 0 {
			// A corpus stream with a few bytes changed.
			b, err := os.ReadFile(corpus[rng.IntN(len(corpus))])
			if err == nil && len(b) > 0 {
				buf = append([]byte(nil), b...)
				for k := 1 + rng.IntN(3); k > 0; k-- {
					buf[rng.IntN(len(buf))] = byte(rng.Uint32())
				}
			}
		}
		file := filepath.Join(dir, fmt.Sprintf("s%d.pt", i))
		if err := os.WriteFile(file, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		var args []string
		if cpu := cpus[rng.IntN(len(cpus))]; cpu != "" {
			args = append(args, "--cpu", cpu)
		}
		if rng.IntN(3) == 0 {
			args = append(args, "--iflags")
		}
		if rng.IntN(3) == 0 {
			args = append(args, "--keep-tcal")
		}
		switch rng.IntN(4) {
		case 0:
			args = append(args, "--query")
		case 1:
			args = append(args, "--backward")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, err := exec.CommandContext(ctx, oracle, append(args, file)...).Output()
		timedOut := ctx.Err() == context.DeadlineExceeded
		cancel()
		if err != nil && timedOut && args[len(args)-1] == "--backward" {
			// libipt's backward synchronisation loops forever when a PSB
			// follows PSB-like bytes; ours ends (dumpBackward returns).
			dumpBackward(buf, &Config{})
			continue
		}
		if err != nil {
			keep := filepath.Join(os.TempDir(), fmt.Sprintf("evdiff%d.pt", i))
			os.WriteFile(keep, buf, 0o644)
			t.Errorf("oracle on stream %d (%s %v): %v", i, keep, args, err)
			fails++
			continue
		}
		want := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		cfg, pre, err := oracleConfig(args)
		if err != nil {
			t.Fatal(err)
		}
		got := append(pre, dumpMode(buf, &cfg, args)...)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			fails++
			keep := filepath.Join(os.TempDir(), fmt.Sprintf("evdiff%d.pt", i))
			os.WriteFile(keep, buf, 0o644)
			t.Errorf("stream %d (%s %v):\n%s", i, keep, args, diffLines(got, want))
		}
	}
}

// randomStream builds a plausible packet stream: PSB+ headers with random
// content, then packets drawn with weights that favour the interesting
// binding cases (FUP, TIP, MODE, OVF, event tracing).
func randomStream(rng *rand.Rand) []byte {
	var buf []byte
	add := func(p P) {
		if b, err := packet.Append(buf, p); err == nil {
			buf = b
		}
	}
	ip := func() uint64 { return 0x1000 + uint64(rng.IntN(16))*0x10 }
	ipp := func(k packet.Kind) P {
		switch rng.IntN(6) {
		case 0:
			return ipPkt(k, packet.IPCSuppressed, 0)
		case 1:
			return ipPkt(k, packet.IPCUpdate16, ip()&0xffff)
		}
		return ipPkt(k, packet.IPCSext48, ip())
	}
	header := func() {
		add(psb())
		for j := rng.IntN(5); j > 0; j-- {
			switch rng.IntN(9) {
			case 0:
				add(tsc(uint64(rng.IntN(1 << 20))))
			case 1:
				add(cbr(uint64(rng.IntN(3))))
			case 2:
				add(mode64())
			case 3:
				add(ipp(packet.KindFUP))
			case 4:
				add(pip(0xabc000))
			case 5:
				add(vmcs(0x5000))
			case 6:
				add(tsx(rng.IntN(2) == 0, rng.IntN(4) == 0))
			case 7:
				add(tma(uint16(rng.IntN(4)), 0))
			case 8:
				add(mnt(7))
			}
		}
		switch rng.IntN(8) {
		case 0:
			add(ovf())
		case 1:
		default:
			add(psbend())
		}
	}
	header()
	for j := 10 + rng.IntN(40); j > 0; j-- {
		switch rng.IntN(40) {
		case 0:
			header()
		case 1, 2, 3, 4:
			add(ipp(packet.KindFUP))
		case 5, 6, 7, 8:
			add(ipp(packet.KindTIP))
		case 9, 10:
			add(ipp(packet.KindTIPPGE))
		case 11, 12:
			add(ipp(packet.KindTIPPGD))
		case 13, 14, 15:
			add(tnt([]string{"!", ".", "!.", "!!.", "......."}[rng.IntN(5)]))
		case 16, 17:
			add([]P{mode64(), mode32(), mode16(), modeIF(packet.FlagCSL)}[rng.IntN(4)])
		case 18:
			add(tsx(rng.IntN(2) == 0, rng.IntN(3) == 0))
		case 19, 20:
			add(ovf())
		case 21:
			add(pip(0xdef000))
		case 22:
			add(vmcs(0x6000))
		case 23:
			add(tsc(uint64(rng.IntN(1 << 20))))
		case 24:
			add(cbr(uint64(1 + rng.IntN(3))))
		case 25:
			add(exstop(rng.IntN(2) == 0))
		case 26:
			add(mwait(1, 2))
		case 27:
			add(pwre(1, 0, rng.IntN(2) == 0))
		case 28:
			add(pwrx(1, 2, packet.FlagInterrupt))
		case 29:
			add(ptw(0x42, rng.IntN(2) == 0, rng.IntN(2) == 0))
		case 30:
			add(stop())
		case 31, 32:
			typ := []uint8{cfeIntr, cfeIret, cfeSMI, cfeRSM, cfeSIPI, cfeInit, cfeVMEntry, cfeVMExit,
				cfeVMExitIntr, cfeShutdown, cfeUintr, cfeUiret, cfeSwintr, cfeSyscall, 0x1f}[rng.IntN(15)]
			add(cfe(typ, uint8(rng.IntN(32)), rng.IntN(2) == 0))
		case 33:
			add(evd(uint8(rng.IntN(4)), 0x77))
		case 34:
			f := packet.Flags(0)
			if rng.IntN(2) == 0 {
				f |= packet.FlagIP
			}
			if rng.IntN(2) == 0 {
				f |= packet.FlagICNTV
			}
			add(P{Kind: packet.KindTrig, Payload: 1, Flags: f, Ext: uint32(rng.IntN(2))})
		case 35:
			add(mtc(uint16(rng.IntN(256))))
		case 36:
			add(cyc(uint64(1 + rng.IntN(100))))
		case 37:
			add(pad())
		case 38:
			add(mnt(3))
		case 39:
			add(psbend())
		}
	}
	return buf
}

// TestDifferentialLibiptCycles compares cycle-accurate times (TSC, TMA,
// MTC, CYC with calibration, overflows with and without keeping the
// calibration) with libipt's on generated streams; PERFPT_EVDUMP as above.
func TestDifferentialLibiptCycles(t *testing.T) {
	oracle := os.Getenv("PERFPT_EVDUMP")
	if oracle == "" {
		t.Skip("PERFPT_EVDUMP (a libipt event dump program) not set")
	}
	dir := t.TempDir()
	for seed := uint64(1); seed <= 8; seed++ {
		buf := cycStream(seed, 32<<10)
		file := filepath.Join(dir, "cyc.pt")
		if err := os.WriteFile(file, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, keep := range []bool{false, true} {
			args := []string{"--mtc-freq", fmt.Sprint(seed % 4), "--cpuid-0x15.eax", "2", "--cpuid-0x15.ebx", "7"}
			if keep {
				args = append(args, "--keep-tcal")
			}
			out, err := exec.Command(oracle, append(args, file)...).Output()
			if err != nil {
				t.Fatalf("oracle: %v", err)
			}
			cfg, _, err := oracleConfig(args)
			if err != nil {
				t.Fatal(err)
			}
			got := dumpStream(buf, &cfg)
			want := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("seed %d %v:\n%s", seed, args, diffLines(got, want))
			}
		}
	}
}

// TestDifferentialLibiptTable runs the streams of the table test through
// libipt too, so that the hand-written expectations are libipt's;
// PERFPT_EVDUMP as above.
func TestDifferentialLibiptTable(t *testing.T) {
	oracle := os.Getenv("PERFPT_EVDUMP")
	if oracle == "" {
		t.Skip("PERFPT_EVDUMP (a libipt event dump program) not set")
	}
	dir := t.TempDir()
	for i, tt := range decoderTests {
		buf := encode(t, tt.pkts...)
		file := filepath.Join(dir, fmt.Sprintf("t%d.pt", i))
		if err := os.WriteFile(file, buf, 0o644); err != nil {
			t.Fatal(err)
		}
		var args []string
		if tt.cfg.CPU.Vendor != 0 {
			args = append(args, "--cpu", tt.cfg.CPU.String())
		}
		if tt.cfg.IFlagsEvents {
			args = append(args, "--iflags")
		}
		if tt.cfg.KeepTcalOnOvf {
			args = append(args, "--keep-tcal")
		}
		tc := tt.cfg.Timing
		args = append(args, "--mtc-freq", fmt.Sprint(tc.MTCFreq), "--cpuid-0x15.eax", fmt.Sprint(tc.CPUID15EAX),
			"--cpuid-0x15.ebx", fmt.Sprint(tc.CPUID15EBX))
		out, err := exec.Command(oracle, append(args, file)...).Output()
		if err != nil {
			t.Fatalf("oracle: %v", err)
		}
		want := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		if got := dumpStream(buf, &tt.cfg); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n%s", tt.name, diffLines(got, want))
		}
	}
}
