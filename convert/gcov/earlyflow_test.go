package gcov

import (
	"strings"
	"testing"
)

// TestEarlyFlow checks earlyFlow's guess on small helpers: bodies that
// branch, straight ones, minimum, maximum and absolute values (phiopt's),
// a body too large for the early inliner at -O2, and a recursive call.
func TestEarlyFlow(t *testing.T) {
	cases := []struct {
		src  string
		call int32
		o3   bool
		want bool
	}{
		{"static int h(struct t *t)\n{\n\tif (!t)\n\t\treturn 0;\n\treturn 1 + h(t->l);\n}", 5, false, false},
		{"static int h(struct t *t)\n{\n\tif (!t)\n\t\treturn 0;\n\treturn 1 + h(t->l);\n}", 0, false, true},
		{"static int kind(int c)\n{\n\tswitch (c) {\n\tcase 1: return 2;\n\tdefault: return 0;\n\t}\n}", 0, false, true},
		{"static int is_sp(int c)\n{\n\treturn c == ' ' || c == '\\t';\n}", 0, false, true},
		{"static float lerp(float a, float b, float t)\n{\n\treturn a + (b - a) * t;\n}", 0, false, false},
		{"static inline int min_i(int a, int b) { return a < b ? a : b; }", 0, false, false},
		{"static inline int max_i(int a, int b) { return a > b ? a : b; }", 0, false, false},
		{"static int ab(int d)\n{\n\treturn d < 0 ? -d : d;\n}", 0, false, false},
		{"static int pick(int a, int b, int c)\n{\n\treturn c ? a : b;\n}", 0, false, true},
		{"static int sign(int v)\n{\n\treturn v < 0 ? -1 : 1;\n}", 0, false, true},
		{"static int big(int *v, int n)\n{\n\tint s = 0;\n\tfor (int i = 0; i < n; i++) {\n\t\ts += v[i];\n\t\ts ^= i;\n\t\ts *= 3;\n\t\ts -= 1;\n\t}\n\treturn s;\n}", 0, false, false},
		{"static int big(int *v, int n)\n{\n\tint s = 0;\n\tfor (int i = 0; i < n; i++) {\n\t\ts += v[i];\n\t\ts ^= i;\n\t\ts *= 3;\n\t\ts -= 1;\n\t}\n\treturn s;\n}", 0, true, true},
	}
	for _, c := range cases {
		src := strings.Split(c.src, "\n")
		if got := earlyFlow(src, 1, c.call, c.o3, lateInlined(src, 1)); got != c.want {
			t.Errorf("earlyFlow(%q, call %d, o3 %v) = %v, want %v", c.src, c.call, c.o3, got, c.want)
		}
	}
}
