// Package errata selects the Intel PT erratum workarounds that apply to a
// CPU, given as family/model/stepping, the way libipt's pt_cpu_errata does.
//
// The decoders consult the flags: the packet layer (SKD007, SKZ84), the
// query/event layer (BDM70, SKD010, APL11, APL12), the time layer (SKL168)
// and the instruction/block decoders (BDM64, SKD022, SKL014).
package errata

import (
	"errors"
	"fmt"
	"strings"

	"github.com/perfpt/perfpt/internal/cnum"
)

// Vendor identifies a CPU vendor. Only Intel CPUs have known errata.
type Vendor uint8

const (
	VendorUnknown Vendor = iota // no CPU given: no errata apply
	VendorIntel
)

// CPU identifies a processor like libipt's struct pt_cpu.
type CPU struct {
	Vendor   Vendor
	Family   uint16
	Model    uint8
	Stepping uint8
}

// String formats the CPU the way ParseCPU reads it ("f/m/s"), or "none".
func (c CPU) String() string {
	if c.Vendor != VendorIntel {
		return "none"
	}
	return fmt.Sprintf("%d/%d/%d", c.Family, c.Model, c.Stepping)
}

// ErrBadCPU is returned by ForCPU for a CPU whose errata are not known
// (libipt's pte_bad_cpu, "unknown cpu"); the returned Errata is then empty.
var ErrBadCPU = errors.New("unknown cpu")

// ErrBadCPUSpec is returned by ParseCPU for text that is not f/m[/s].
var ErrBadCPUSpec = errors.New("cpu must be specified as f/m[/s]")

// Errata holds one flag per erratum workaround. The zero value enables none.
type Errata struct {
	// BDM70: PSB+ may contain unexpected FUP and MODE.Exec packets before
	// a TIP.PGE (same as SKD024, SKL021, KBL021).
	BDM70 bool
	// BDM64: an incorrect TIP/TNT may be recorded before the packet of a
	// transactional abort.
	BDM64 bool
	// SKD007: an OVF may follow the first byte of a multi-byte CYC.
	SKD007 bool
	// SKD022: a VM entry that clears TraceEn may generate a FUP before
	// the TIP.PGD.
	SKD022 bool
	// SKD010: the FUP after an OVF may be dropped.
	SKD010 bool
	// SKL014: a TIP.PGD after a direct branch that clears FilterEn may
	// have no IP payload.
	SKL014 bool
	// APL12: an OVF may be followed by an unexpected FUP while tracing is
	// disabled.
	APL12 bool
	// APL11: an OVF may be followed by a TIP.PGD.
	APL11 bool
	// SKL168: CYC (and MTC) packets right before a PSB may be dropped.
	SKL168 bool
	// SKZ84: with VMX TSC scaling or offsetting, TMA packets are corrupt
	// and followed by a bogus byte.
	SKZ84 bool
}

// Names lists the erratum names in the order of the Errata fields.
var Names = [...]string{"bdm70", "bdm64", "skd007", "skd022", "skd010",
	"skl014", "apl12", "apl11", "skl168", "skz84"}

func (e *Errata) flags() [len(Names)]*bool {
	return [...]*bool{&e.BDM70, &e.BDM64, &e.SKD007, &e.SKD022, &e.SKD010,
		&e.SKL014, &e.APL12, &e.APL11, &e.SKL168, &e.SKZ84}
}

// String lists the enabled errata, comma separated ("" for none).
func (e Errata) String() string {
	var on []string
	for i, f := range e.flags() {
		if *f {
			on = append(on, Names[i])
		}
	}
	return strings.Join(on, ",")
}

// Set enables the named erratum; it reports false for an unknown name.
func (e *Errata) Set(name string) bool {
	for i, f := range e.flags() {
		if Names[i] == strings.ToLower(name) {
			*f = true
			return true
		}
	}
	return false
}

// The erratum sets of the CPU groups libipt knows, by family and model.
var (
	broadwell = Errata{BDM70: true, BDM64: true}
	skylake   = Errata{BDM70: true, SKD007: true, SKD022: true, SKD010: true,
		SKL014: true, SKL168: true}
	skylakeX = Errata{BDM70: true, SKL014: true, SKD022: true, SKZ84: true}
	sapphire = Errata{BDM70: true, SKD022: true, SKZ84: true}
	icelake  = Errata{BDM70: true, SKL014: true, SKD022: true}
	alder    = Errata{BDM70: true, SKD022: true, APL11: true}
	goldmont = Errata{APL12: true, APL11: true}
	gmPlus   = Errata{APL11: true}
)

type familyModel struct {
	family uint16
	model  uint8
}

var table = func() map[familyModel]Errata {
	m := map[familyModel]Errata{}
	add := func(e Errata, family uint16, models ...uint8) {
		for _, model := range models {
			m[familyModel{family, model}] = e
		}
	}
	add(broadwell, 6, 0x3d, 0x47, 0x4f, 0x56)
	add(skylake, 6, 0x4e, 0x5e, 0x8e, 0x9e, 0xa5, 0xa6)
	add(skylakeX, 6, 0x55, 0x6a, 0x6c)
	add(sapphire, 6, 0x8f, 0xcf, 0xad, 0xae)
	add(icelake, 6, 0x66, 0x7d, 0x7e, 0x8c, 0x8d, 0xa7, 0xa8)
	add(alder, 6, 0x97, 0x9a, 0xba, 0xb7, 0xbf, 0xc5, 0xc6, 0xb5, 0xaa,
		0xac, 0xbd, 0xcc, 0xd5)
	add(goldmont, 6, 0x5c, 0x5f)
	add(gmPlus, 6, 0x7a, 0x86, 0x96, 0x9c, 0xb6, 0xaf, 0xdd)
	add(alder, 0x12, 0x01, 0x03)
	add(sapphire, 0x13, 0x01)
	return m
}()

// ForCPU returns the errata of cpu (libipt's pt_cpu_errata). The stepping
// does not matter for any erratum known today. For a CPU that is not
// Intel or not in the table it returns empty Errata and ErrBadCPU.
func ForCPU(cpu CPU) (Errata, error) {
	if cpu.Vendor != VendorIntel {
		return Errata{}, ErrBadCPU
	}
	e, ok := table[familyModel{cpu.Family, cpu.Model}]
	if !ok {
		return Errata{}, ErrBadCPU
	}
	return e, nil
}

// ParseCPU reads "family/model[/stepping]" as ptxed's and ptdump's --cpu do
// (libipt's pt_cpu_parse): each number by strtol with base 0 (cnum.Strtol:
// leading blanks, a sign, 0x hex or 0 octal), family at most 65535, model
// and stepping at most 255; stepping 0 when omitted or empty ("f/m/").
// The result is an Intel CPU. "none" gives the zero CPU.
func ParseCPU(s string) (CPU, error) {
	if s == "none" {
		return CPU{}, nil
	}
	family, n, _ := cnum.Strtol(s, 0)
	if n == 0 || n == len(s) || s[n] != '/' || family < 0 || family > 0xffff {
		return CPU{}, ErrBadCPUSpec
	}
	s = s[n+1:]
	model, n, _ := cnum.Strtol(s, 0)
	if n == 0 || n < len(s) && s[n] != '/' || model < 0 || model > 0xff {
		return CPU{}, ErrBadCPUSpec
	}
	var stepping int64
	if n < len(s) {
		s = s[n+1:]
		if stepping, n, _ = cnum.Strtol(s, 0); n != len(s) || stepping < 0 || stepping > 0xff {
			return CPU{}, ErrBadCPUSpec
		}
	}
	return CPU{Vendor: VendorIntel, Family: uint16(family), Model: uint8(model),
		Stepping: uint8(stepping)}, nil
}
