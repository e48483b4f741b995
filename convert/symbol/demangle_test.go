package symbol

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// demangleKnown are the names perf's libiberty prints otherwise than
// perfpt, by binary, as perf prints them.
var demangleKnown = map[string][]string{}

// TestDemangleAgainstPerf compares the demangled names of every symbol
// of real binaries (the C++ and Rust programs of testdata/machine, the
// system's libstdc++) with perf's: `perf probe -F` lists a binary's
// function symbols as perf names them, demangled or not.
func TestDemangleAgainstPerf(t *testing.T) {
	if _, err := exec.LookPath("perf"); err != nil {
		t.Skip("perf not found")
	}
	bins := map[string]string{}
	for _, b := range []string{"cxx-O0", "cxx-O2", "rust-legacy", "rust-v0"} {
		bins[b] = "../../testdata/machine/bin/" + b
	}
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/libstdc++.so.6"); err == nil {
		bins["libstdc++"] = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
	}
	list := func(t *testing.T, bin string, raw bool) []string {
		args := []string{"probe", "-x", bin, "-F", "--filter", "*"}
		if raw {
			args = append(args, "--no-demangle")
		}
		out, err := exec.Command("perf", args...).Output()
		if err != nil {
			t.Fatalf("perf %s: %v", strings.Join(args, " "), err)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	for name, bin := range bins {
		t.Run(name, func(t *testing.T) {
			want := list(t, bin, false)
			var got []string
			for _, raw := range list(t, bin, true) {
				if base, ok := strings.CutSuffix(raw, "@plt"); ok {
					// dso__synthesize_plt_symbols demangles, then adds @plt.
					got = append(got, demangleName(base, false)+"@plt")
					continue
				}
				got = append(got, demangleName(raw, false))
			}
			slices.Sort(want)
			slices.Sort(got)
			var onlyPerf []string
			for _, w := range want {
				if i, ok := slices.BinarySearch(got, w); ok {
					got = slices.Delete(got, i, i+1)
					continue
				}
				onlyPerf = append(onlyPerf, w)
			}
			known := slices.Clone(demangleKnown[name])
			slices.Sort(known)
			if !slices.Equal(onlyPerf, known) {
				t.Errorf("%d of %d names differ from perf's; perf's:\n%s\nperfpt's:\n%s\nknown: %q",
					len(onlyPerf), len(want), strings.Join(onlyPerf, "\n"), strings.Join(got, "\n"), known)
			}
			t.Logf("%d names, %d known to differ", len(want), len(onlyPerf))
		})
	}
}

// TestDemangleName checks perf's rules around the demangler: no
// parameters nor clone suffixes by default, a version tail ignored,
// inheriting constructors named after their base class, Rust
// legacy identifiers that start with "__", OCaml names, and names left
// alone.
func TestDemangleName(t *testing.T) {
	for _, c := range []struct {
		in     string
		params bool
		want   string
	}{
		{"_ZN3app4workEi", false, "app::work"},
		{"_ZN3app4workEi", true, "app::work(int)"},
		{"_ZN3app4workEi.cold", false, "app::work"},
		{"_ZN3app4workEi.cold", true, "app::work(int) [clone .cold]"},
		{"_ZTISt13runtime_error@GLIBCXX_3.4", false, "typeinfo for std::runtime_error"},
		{"_ZTISt13runtime_error@GLIBCXX_3.4", true, "_ZTISt13runtime_error@GLIBCXX_3.4"},
		{"_ZN3std3sys9backtrace28__rust_begin_short_backtrace17h0123456789abcdefE", false, "std::sys::backtrace::__rust_begin_short_backtrace"},
		{"_ZN4core3ptr42drop_in_place$LT$alloc..string..String$GT$17hfedcba9876543210E", false, "core::ptr::drop_in_place<alloc::string::String>"},
		// Inheriting constructors are named after the base class, as
		// c++filt (libiberty) names them; its template arguments do not
		// count.
		{"_ZNSt15__uniq_ptr_dataI5ShapeSt14default_deleteIS0_ELb1ELb1EECI4St15__uniq_ptr_implIS0_S2_EEPS0_", false,
			"std::__uniq_ptr_data<Shape, std::default_delete<Shape>, true, true>::__uniq_ptr_impl"},
		{"_ZNSt15__uniq_ptr_dataI5ShapeSt14default_deleteIS0_ELb1ELb1EECI4St15__uniq_ptr_implIS0_S2_EEPS0_", true,
			"std::__uniq_ptr_data<Shape, std::default_delete<Shape>, true, true>::__uniq_ptr_impl(Shape*)"},
		{"_ZN1DCI21BI1XEEi", false, "D::B"},
		{"_ZN1DCI2N1N1BIiEEEi", true, "D::B(int)"},
		// Empty argument packs (JE) as libiberty prints them (c++filt,
		// c++filt -p): a comma before one that is not at the end, none
		// at the end, and then no space between two closing '>'.
		// Reference temporaries as libiberty reads them (d_special_name):
		// the local name's discriminator, then a decimal number; with
		// params (c++filt's DMGL_PARAMS) nothing may follow. perf probe -F
		// names node's simdutf one so.
		{"_ZGRZN7simdutf8internalL37get_available_implementation_pointersEvE33available_implementation_pointers_", false,
			"reference temporary #0 for simdutf::internal::get_available_implementation_pointers()::available_implementation_pointers"},
		{"_ZGRZ1fvE1x_", true, "reference temporary #0 for f()::x"},
		{"_ZGRZ1fvE1x__12_", true, "reference temporary #0 for f()::x"},
		{"_ZGRZ1fvE1x_3", true, "reference temporary #0 for f()::x"},
		{"_ZGRZ1fvE1x0_", true, "_ZGRZ1fvE1x0_"},
		{"_ZGRN1a1xE1", true, "reference temporary #1 for a::x"},
		{"_ZGRN1a1xE1_", true, "_ZGRN1a1xE1_"},
		{"_ZGRN1a1xE1_", false, "reference temporary #1 for a::x"},
		{"_ZGR1xIiE_", true, "_ZGR1xIiE_"},
		{"_ZNSt6threadC1IZ4mainEUlvE0_JEvEEOT_DpOT0_", false, "std::thread::thread<main::{lambda()#2}, , void>"},
		{"_ZNSt6threadC1IZ4mainEUlvE0_JEvEEOT_DpOT0_", true, "std::thread::thread<main::{lambda()#2}, , void>(main::{lambda()#2}&&)"},
		{"_ZN2v88internal8compiler12PipelineImpl3RunINS1_24AllocateFPRegistersPhaseINS1_19LinearScanAllocatorEEEJEEEDaDpOT0_", false,
			"v8::internal::compiler::PipelineImpl::Run<v8::internal::compiler::AllocateFPRegistersPhase<v8::internal::compiler::LinearScanAllocator>>"},
		{"_Z1fIJEEvDpT_i", true, "void f<>(, int)"},
		{"_Z1fIJEiEvDpT_i", true, "void f<, int>(, int)"},
		{"_Z1fIJEiJEEvv", false, "f<, int>"},
		{"_Z1fIiJEJEEvv", false, "f<int>"},
		{"_Z1fIJ1AIiJEEEEvv", false, "f<A<int> >"}, // the pack is not in A<int>'s list
		{"_Z1fIJ1AIJEEEEvv", false, "f<A<> >"},
		{"_Z1fI1AIiJEEJEEvv", false, "f<A<int>>"},
		// The address of a function keeps its type unless its name is
		// a plain qualified name (binutils 2.40's libiberty, c++filt -p).
		{"_Z1fIXadL_Z1gvEEEvv", false, "f<&(g())>"},
		{"_Z1fIXadL_Z1giEEEvv", false, "f<&(g(int))>"},
		{"_Z1fIXadL_ZN1A1gEvEEEvv", false, "f<&A::g>"},
		{"_Z1fIXadL_ZN1A1gIiEEvvEEEvv", false, "f<&(void A::g<int>())>"},
		{"_Z1fIL_Z1gvEEvv", false, "f<g()>"},
		{"_ZN4node10StreamBase8JSMethodIXadL_ZNS0_11WriteStringILNS_8encodingE0EEEiRKN2v820FunctionCallbackInfoINS4_5ValueEEEEEEEvS9_", false,
			"node::StreamBase::JSMethod<&(int node::StreamBase::WriteString<(node::encoding)0>(v8::FunctionCallbackInfo<v8::Value> const&))>"},
		{"camlStdlib__List__map_123", false, "Stdlib.List.map_123"},
		{"main", false, "main"},
		{"_Znotmangled", false, "_Znotmangled"},
	} {
		if got := demangleName(c.in, c.params); got != c.want {
			t.Errorf("demangleName(%q, %v) = %q, want %q", c.in, c.params, got, c.want)
		}
	}
}

// TestRustV0 checks Rust v0 names against binutils 2.40's c++filt, whose
// libiberty is perf 6.1's demangler (c++filt prints DMGL_VERBOSE: crate
// hashes and const types, left out here as perf leaves them out): the
// three std names ianlancetaylor/demangle misread (a "0" length before a
// digit), punycode, consts, shims, binders, dyn bounds, libiberty's
// quirks (an ABI's '_' after a replaced one, a const of more than 16
// digits printed one character late, a lifetime index past the binder),
// '.' suffixes dropped, and names libiberty refuses kept mangled.
func TestRustV0(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"_RNCNCNCNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal00s_0B9_", "std::rt::lang_start_internal::{closure#0}::{closure#0}::{closure#1}"},
		{"_RNvNCNvNtCsjrHSEGnQ3l9_3std9panicking12default_hook011FIRST_PANIC", "std::panicking::default_hook::{closure#0}::FIRST_PANIC"},
		{"_RNCINvNtNtCsjrHSEGnQ3l9_3std6thread7current17with_current_nameNCNCNvNtB8_9panicking12default_hook00uE0B8_",
			"std::thread::current::with_current_name::<std::panicking::default_hook::{closure#0}::{closure#0}, ()>::{closure#0}"},
		{"_RNvCs5HidHlAx4Vm_4h15uu10wgv71a119e", "h15u::日本語"},
		{"_RNvCs5HidHlAx4Vm_4h15uu15gre_ber_1va0sjc", "h15u::größe_über"},
		{"_RNvMCs5HidHlAx4Vm_4h15uINtB2_1WKjc_Kcdf_Kb1_E3getB2_", "<h15u::W<12, '\\u{df}', true>>::get"},
		{"_RNvMCs5HidHlAx4Vm_4h15uINtB2_1WKj3_Kca_Kb0_E3getB2_", "<h15u::W<3, '\\n', false>>::get"},
		{"_RNSNvYNCNvCs5HidHlAx4Vm_4h15u4main0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceTRhEE9call_once6vtableB8_",
			"<h15u::main::{closure#0} as core::ops::function::FnOnce<(&u8,)>>::call_once::{shim:vtable#0}"},
		{"_RNvXsZ_NtCsjrHSEGnQ3l9_3std7processuNtB5_11Termination6reportCs5HidHlAx4Vm_4h15u", "<() as std::process::Termination>::report"},
		{"_RINvNtNtCsjrHSEGnQ3l9_3std3sys9backtrace28___rust_begin_short_backtraceFEuuECs5HidHlAx4Vm_4h15u", "std::sys::backtrace::__rust_begin_short_backtrace::<fn(), ()>"},
		{"_RNvNvMNtNtCsgEmfK2I1SDS_4core3ptr9const_ptrPp20offset_from_unsigned18precondition_checkCs5HidHlAx4Vm_4h15u", "<*const _>::offset_from_unsigned::precondition_check"},
		{"_RINvCs1_1a1fFG0_KCRL0_hEuE", "a::f::<for<'a, 'b> extern \"C\" fn(&'b u8)>"},
		{"_RINvCs1_1a1fFUK10rust_call_RhEuE", "a::f::<unsafe extern \"rust-call-\" fn(&u8)>"},
		{"_RINvCs1_1a1fKc1f600_E", "a::f::<'\\u{1f600}'>"},
		{"_RINvCs1_1a1fKanff_E", "a::f::<-255>"},
		{"_RINvCs1_1a1fKo10000000000000000_E", "a::f::<0x0000000000000000_>"},
		{"_RINvCs1_1a1fKpE", "a::f::<_>"},
		{"_RINvCs1_1a1fTlEE", "a::f::<(i32,)>"},
		{"_RINvCs1_1a1fPOQRL_mE", "a::f::<*const *mut &mut &u32>"},
		{"_RINvCs1_1a1fzE", "a::f::<!>"},
		{"_RINvCs1_1a1fDNtCs1_1b1TEL_E", "a::f::<dyn b::T>"},
		{"_RINvCs1_1a1fDNtCs1_1b1TEL0_E", "a::f::<dyn b::T + '_18446744073709551615>"},
		{"_RNvCs1_1a1f.llvm.123", "a::f"},
		{"_RNvCsa_1a3foo.cold@x", "a::foo"},
		// Refused by libiberty, kept as they are.
		{"_RNvCs1_1a1f@VER", "_RNvCs1_1a1f@VER"},
		{"_RINvCs1_1a1fKbn1_E", "_RINvCs1_1a1fKbn1_E"},
		{"_RINvCs1_1a1fSAhKj10_E", "_RINvCs1_1a1fSAhKj10_E"},
		{"_RINvCs1_1a1fKjp_E", "_RINvCs1_1a1fKjp_E"},
		{"_RNvNtCs1234_7mycrate3foou8bar_yzb", "_RNvNtCs1234_7mycrate3foou8bar_yzb"},
		{"_R", "_R"},
		{"_Rc", "_Rc"},
	} {
		for _, params := range []bool{false, true} {
			if got := demangleName(c.in, params); got != c.want {
				t.Errorf("demangleName(%q, %v) = %q, want %q", c.in, params, got, c.want)
			}
		}
	}
}

// TestRustV0Bounded: a name whose backreferences make libiberty walk a
// 1000-deep path that prints nothing 5000 times is refused after
// v0MaxSteps; one whose output would grow past v0MaxOut too.
func TestRustV0Bounded(t *testing.T) {
	const k = 1000
	chain := strings.Repeat("Nv", k) + "C0" + strings.Repeat("0", k)
	slow := "_RI" + chain + "T" + strings.Repeat("B0_", 5000) + "EE"
	if out, ok := rustV0(slow); ok {
		t.Errorf("slow name demangled (%d bytes)", len(out))
	}
	if _, ok := rustV0("_RI" + chain + "T" + strings.Repeat("B0_", 100) + "EE"); !ok {
		t.Errorf("100 backreferences refused")
	}
	// Each tuple holds the one before twice: 2^40 "u"s.
	big := "_RINvC0_1fTuuE"
	at := len("INvC0_1f")
	for i := 0; i < 40; i++ {
		ref := "B" + base62(at) + "_"
		at = len(big) - 2
		big += "T" + ref + ref + "E"
	}
	if out, ok := rustV0(big + "E"); ok {
		t.Errorf("exponential name demangled (%d bytes)", len(out))
	}
}

// base62 is the v0 backreference number for position p (p-1 in base 62).
func base62(p int) string {
	if p == 0 {
		return ""
	}
	const digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	p--
	s := ""
	for {
		s = string(digits[p%62]) + s
		p /= 62
		if p == 0 {
			return s
		}
	}
}

// FuzzRustV0: any input demangles or is refused without a panic, within
// the output bound.
func FuzzRustV0(f *testing.F) {
	for _, s := range []string{
		"_RNCNCNCNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal00s_0B9_",
		"_RNvCs5HidHlAx4Vm_4h15uu15gre_ber_1va0sjc",
		"_RINvCs1_1a1fDG0_NtCs1_1b1TpNtB8_3OutRL0_hEL_E",
		"_RINvCs1_1a1fFG0_KCRL0_hEuE",
		"_RINvCs1_1a1fB9_E",
		"_RNvB0_1a",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if out, ok := rustV0(s); ok && len(out) > v0MaxOut {
			t.Fatalf("%d bytes out", len(out))
		}
	})
}
