package gcov

import (
	"debug/elf"
	"strings"
)

// noFakeFuncs are library functions after whose calls gcc adds no fake
// edge to the function's exit, so gcov prints no "call" line for them and
// the call does not end a block: gcc's builtins that cannot throw (memory
// and string functions, malloc and free, math functions) and functions
// declared const or pure (need_fake_edge_p in gcc's tree-cfg.cc). The list
// is gcc 12's verdict, found by compiling a call to each with --coverage
// and reading gcov -b's output, in C and C++ alike.
var noFakeFuncs = map[string]bool{}

// returnsTwiceFuncs are the library functions that return twice (gcc's
// ECF_RETURNS_TWICE): their call starts a block, and gcc adds an
// abnormal dispatcher block after it.
var returnsTwiceFuncs = map[string]bool{"setjmp": true, "_setjmp": true, "__sigsetjmp": true,
	"sigsetjmp": true, "savectx": true, "vfork": true, "getcontext": true}

// noReturnFuncs are library functions that never return: gcc ends the
// block at their call, with only a fake edge to the exit (gcov prints a
// call line, returned 0%).
var noReturnFuncs = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`
		acos asin atan atan2 cos sin tan cosh sinh tanh acosh asinh atanh exp exp2 expm1 exp10
		log log10 log1p log2 logb pow sqrt cbrt hypot fabs floor ceil round lround llround
		trunc rint lrint llrint nearbyint fmod remainder fmin fmax fdim fma copysign erf erfc
		tgamma lgamma ldexp scalbn scalbln ilogb nextafter frexp modf nan
		strlen strnlen strcmp strncmp strchr strrchr strstr strspn strcspn strpbrk memcmp memchr
		strcasecmp strncasecmp strcoll index rindex rawmemchr strchrnul strcasestr memrchr
		memcpy memmove memset mempcpy strcpy strncpy strcat strncat stpcpy stpncpy strdup strndup
		bzero bcopy bcmp strftime wcslen iswalpha ffs
		sprintf snprintf vsprintf vsnprintf sscanf __isoc99_sscanf vsscanf __isoc99_vsscanf
		malloc calloc realloc free posix_memalign aligned_alloc
		atoi atol atoll atof abs labs llabs div ldiv lldiv
		__ctype_b_loc __ctype_tolower_loc __ctype_toupper_loc __errno_location tolower toupper`) {
		noFakeFuncs[n] = true
		noFakeFuncs[n+"f"] = true
		noFakeFuncs[n+"l"] = true
	}
	for _, n := range strings.Fields(`exit _exit _Exit quick_exit abort __assert_fail longjmp siglongjmp
		_longjmp __longjmp_chk pthread_exit __stack_chk_fail __cxa_throw __cxa_rethrow
		__cxa_bad_cast __cxa_bad_typeid __cxa_throw_bad_array_new_length _Unwind_Resume
		__cxa_pure_virtual err errx verr verrx`) {
		noReturnFuncs[n] = true
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

// markCalls flags direct calls through the PLT to noFakeFuncs (pure) and
// to noReturnFuncs (noReturn).
func (p *Program) markCalls(f *elf.File) {
	names := pltNames(f)
	if len(names) == 0 {
		return
	}
	for i := range p.insns {
		in := &p.insns[i]
		if in.kind != kCall {
			continue
		}
		name := names[in.target]
		if at := strings.IndexByte(name, '@'); at > 0 {
			name = name[:at]
		}
		in.pure = noFakeFuncs[name]
		in.noReturn = noReturnFuncs[name]
		in.throws = calleeThrows(name)
		in.dtor = destructorName(name)
		in.raises = raisingFuncs[name]
		in.twice = returnsTwiceFuncs[name]
		in.resume = name == "_Unwind_Resume"
		in.catch = name == "__cxa_begin_catch"
		in.endCatch = name == "__cxa_end_catch"
	}
}

// markThrows decides which calls may throw: a call through a pointer
// may; a call to a function of the program may when that function
// raises or calls something that may throw where no landing pad of its
// own takes the exception and no filter (noexcept) stops it (a fixed
// point over the program's functions, as gcc's nothrow discovery).
func (p *Program) markThrows() {
	for i := range p.insns {
		if p.insns[i].kind == kCallInd {
			p.insns[i].throws = true
		}
	}
	may := make([]bool, len(p.funcs))
	for changed := true; changed; {
		changed = false
		for fi := range p.funcs {
			if may[fi] {
				continue
			}
			fn := &p.funcs[fi]
			for k := fn.first; k < fn.end; k++ {
				in := &p.insns[k]
				if in.kind != kCall && in.kind != kCallInd {
					continue
				}
				throws := in.throws || in.raises
				if callee, ok := p.lowFn[in.target]; ok && in.kind == kCall {
					throws = may[callee]
				}
				if !throws {
					continue
				}
				if s, ok := p.site(fn.low, in.addr); ok && (s.lp != 0 || s.action != 0) {
					continue // a landing pad takes it, or a filter stops it
				}
				may[fi], changed = true, true
				break
			}
		}
	}
	for i := range p.insns {
		in := &p.insns[i]
		if callee, ok := p.lowFn[in.target]; ok && in.kind == kCall {
			in.throws = may[callee]
		}
	}
}
