package gcov

import (
	"debug/elf"
	"strings"
)

// pureFuncs are library functions that gcc knows as const or pure (glibc
// declares them so, or they are math builtins): gcc adds no fake exit edge
// after calls to them, so gcov prints no "call" line for them.
var pureFuncs = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`
		acos asin atan atan2 cos sin tan cosh sinh tanh acosh asinh atanh exp exp2 expm1 exp10
		log log10 log1p log2 logb pow sqrt cbrt hypot fabs floor ceil round lround llround
		trunc rint lrint llrint nearbyint fmod remainder fmin fmax fdim fma copysign erf erfc
		tgamma lgamma ldexp scalbn scalbln ilogb nextafter
		strlen strnlen strcmp strncmp strchr strrchr strstr strspn strcspn strpbrk memcmp memchr
		strcasecmp strncasecmp strcoll index rindex rawmemchr strchrnul
		atoi atol atoll atof abs labs llabs
		__ctype_b_loc __ctype_tolower_loc __ctype_toupper_loc __errno_location`) {
		pureFuncs[n] = true
		pureFuncs[n+"f"] = true
		pureFuncs[n+"l"] = true
	}
}

// pltNames maps the address of each PLT entry of f to the name of the
// function it calls, from .rela.plt (entries follow PLT0 in .plt, or start
// at .plt.sec when the binary has one).
func pltNames(f *elf.File) map[uint64]string {
	rela := f.Section(".rela.plt")
	if rela == nil || f.Class != elf.ELFCLASS64 {
		return nil
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return nil
	}
	data, err := rela.Data()
	if err != nil {
		return nil
	}
	base, step := uint64(0), uint64(16)
	if s := f.Section(".plt.sec"); s != nil {
		base = s.Addr
	} else if s := f.Section(".plt"); s != nil {
		base = s.Addr + 16
	} else {
		return nil
	}
	out := map[uint64]string{}
	for i := 0; (i+1)*24 <= len(data); i++ {
		info := f.ByteOrder.Uint64(data[i*24+8:])
		si := int(info >> 32)
		if si < 1 || si > len(syms) {
			continue
		}
		out[base+uint64(i)*step] = syms[si-1].Name
	}
	return out
}

// markPureCalls flags direct calls through the PLT to pureFuncs.
func (p *Program) markPureCalls(f *elf.File) {
	names := pltNames(f)
	if len(names) == 0 {
		return
	}
	for i := range p.insns {
		in := &p.insns[i]
		if in.kind == kCall && pureFuncs[names[in.target]] {
			in.pure = true
		}
	}
}
