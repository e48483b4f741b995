package symbol

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// demangleKnown are the names perf's libiberty prints otherwise than
// perfpt, by binary, as perf prints them: Rust v0 closures nested in
// closures and unit generic arguments ("()"), which
// ianlancetaylor/demangle orders or drops differently.
var demangleKnown = map[string][]string{
	"rust-legacy": rustV0Known,
	"rust-v0":     rustV0Known,
}

// rustV0Known: the Rust standard library is v0-mangled in both builds.
var rustV0Known = []string{
	"std::panicking::default_hook::{closure#0}::FIRST_PANIC",
	"std::rt::lang_start_internal::{closure#0}::{closure#0}::{closure#1}",
	"std::thread::current::with_current_name::<std::panicking::default_hook::{closure#0}::{closure#0}, ()>::{closure#0}",
}

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
