// Command ptgen writes a large, realistic Intel PT stream and the code image
// it runs on, for the benchmarks of scripts/bench.sh (ptdump and ptxed,
// against libipt's tools).
//
// It lays out a synthetic program of many functions made of basic blocks
// (straight-line instructions ending in jcc, direct and indirect calls, a
// jump table, returns), runs it on a virtual CPU with seeded random branch
// outcomes, and encodes with ptdecode/packet what intel_pt//u would record:
// short TNT, return compression (only for calls since the last PSB, as the
// SDM says), TIP with last-IP compression, PSB+ every -psb bytes with TSC,
// TMA, MODE.Exec and FUP, MTC timing. Tracing is disabled with a TIP.PGD once
// the stream reaches its size, so the whole stream decodes without error:
//
//	ptgen -mb 64 -pt big.pt -bin big.bin -base 0x400000
//	ptxed --block-decoder --raw big.bin:0x400000 --pt big.pt
//
// With -data it also writes the program as an ELF executable (-elf) and a
// perf.data of one thread running it, as `perf record -e intel_pt//u` would
// (per-thread AUX stream, TSC+MTC), so that `perf script` and `perfpt
// script` can be compared on traces of any size.
//
// It prints key=value facts on stdout (insns: the number of instructions
// executed, as ptxed --stat counts them; bytes; psbs; ...).
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	var (
		mb     = flag.Float64("mb", 64, "size of the PT stream in MiB")
		ptOut  = flag.String("pt", "ptgen.pt", "PT stream output file")
		binOut = flag.String("bin", "ptgen.bin", "raw code image output file")
		base   = flag.String("base", "0x400000", "load address of the code image")
		seed   = flag.Uint64("seed", 1, "random seed")
		funcs  = flag.Int("funcs", 3000, "functions in the synthetic program")
		levels = flag.Int("levels", 8, "call levels (the call depth stays below this)")
		psb    = flag.Int("psb", 4096, "PSB period in bytes")
		data   = flag.String("data", "", "also write a perf.data recording of the program (perf script can read it)")
		elfOut = flag.String("elf", "", "with -data: the program as an ELF executable (default: -data's name with .elf)")
	)
	flag.Parse()
	addr, err := strconv.ParseUint(*base, 0, 64)
	if err != nil || *funcs < 2 || *levels < 2 || *psb < 64 || *mb <= 0 {
		fmt.Fprintln(os.Stderr, "ptgen: bad -base, -funcs, -levels, -psb or -mb")
		os.Exit(2)
	}
	if *data != "" && *elfOut == "" {
		*elfOut = strings.TrimSuffix(*data, ".data") + ".elf"
	}
	out := outputs{pt: *ptOut, bin: *binOut, data: *data, elf: *elfOut}
	if err := run(addr, *seed, params{funcs: *funcs, levels: *levels}, *psb, int(*mb*(1<<20)), out); err != nil {
		fmt.Fprintln(os.Stderr, "ptgen:", err)
		os.Exit(1)
	}
}

// outputs are the files to write; data and elf may be empty.
type outputs struct{ pt, bin, data, elf string }

func run(base, seed uint64, pr params, psb, size int, out outputs) error {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	p := newProgram(rng, base, pr)
	t := newTracer(p, rng, psb, size)
	if err := t.run(size); err != nil {
		return err
	}
	if err := os.WriteFile(out.bin, p.code, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(out.pt, t.enc.Buf, 0o644); err != nil {
		return err
	}
	if out.data != "" {
		elfPath, err := filepath.Abs(out.elf)
		if err != nil {
			return err
		}
		if err := writeELF(elfPath, p); err != nil {
			return err
		}
		if err := writePerfData(out.data, elfPath, p, t); err != nil {
			return err
		}
	}
	fmt.Printf("insns=%d\nbytes=%d\nbranches=%d\ntips=%d\npsbs=%d\ncode=%d\nbase=%#x\n",
		t.insns, len(t.enc.Buf), t.branches, t.tips, t.psbs, len(p.code), base)
	return nil
}
