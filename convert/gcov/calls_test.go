package gcov

import "testing"

// TestNoexceptAt checks the reading of exception specifications in
// declarations as libstdc++ writes them, #if groups included.
func TestNoexceptAt(t *testing.T) {
	for _, c := range []struct {
		src  []string
		want bool
	}{
		{[]string{"  empty() const _GLIBCXX_NOEXCEPT", "  { return size() == 0; }"}, true},
		{[]string{"  _Rb_tree_increment(_Rb_tree_node_base* __x) throw ();"}, true},
		{[]string{"  find(const key_type& __x)", "  { return _M_t.find(__x); }"}, false},
		{[]string{"  f() noexcept(false);"}, false},
		// to_string(int) is noexcept on x86-64, to_string(long) is not.
		{[]string{"  to_string(int __val)", "#if _GLIBCXX_USE_CXX11_ABI && (__CHAR_BIT__ * __SIZEOF_INT__) <= 32",
			"  noexcept // any 32-bit value fits in the SSO buffer", "#endif", "  {"}, true},
		{[]string{"  to_string(long __val)", "#if _GLIBCXX_USE_CXX11_ABI && (__CHAR_BIT__ * __SIZEOF_LONG__) <= 32",
			"  noexcept // any 32-bit value fits in the SSO buffer", "#endif", "  {"}, false},
		{[]string{"  g()", "#if __cplusplus > 201703L", "  x", "#else", "  noexcept", "#endif", "  {"}, true},
		// A condition that cannot be read keeps what it guards.
		{[]string{"  h()", "#if defined(FOO)", "  noexcept", "#endif", "  ;"}, true},
	} {
		if got := noexceptAt(c.src, 1, 3); got != c.want {
			t.Errorf("%q: noexcept %v, want %v", c.src, got, c.want)
		}
	}
}

// TestPureAt checks the reading of pure and const attributes in
// declarations as libstdc++ and glibc write them: before the name, on its
// line or the one before, or after the parameters.
func TestPureAt(t *testing.T) {
	for _, c := range []struct {
		src       []string
		line, col int32 // the name's
		want      bool
	}{
		{[]string{"  _GLIBCXX_PURE _Rb_tree_node_base*", "  _Rb_tree_increment(_Rb_tree_node_base* __x) throw ();"}, 2, 3, true},
		{[]string{"  _GLIBCXX_PURE int f();", "  g(int) throw ();"}, 2, 3, false},
		{[]string{"  int h(int) __THROW __attribute_pure__;"}, 1, 7, true},
		{[]string{"  int k(int) __attribute__ ((__const__));"}, 1, 7, true},
		{[]string{"  int __const__m(int);"}, 1, 7, false},
		{[]string{"  [[gnu::pure]] int n(int);"}, 1, 22, true},
		{[]string{"  find(const key_type& __x)", "  { return _M_t.find(__x); }"}, 1, 3, false},
	} {
		if got := pureAt(c.src, c.line, c.col); got != c.want {
			t.Errorf("%q: pure %v, want %v", c.src, got, c.want)
		}
	}
}
