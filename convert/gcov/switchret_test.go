package gcov

import (
	"reflect"
	"strings"
	"testing"
)

func TestCaseConst(t *testing.T) {
	enums := map[string]int64{"RED": 0, "BLUE": 7}
	for _, c := range []struct {
		label string
		want  int64
		ok    bool
	}{
		{"case 12", 12, true}, {"case -3", -3, true}, {"case 0x10", 16, true}, {"case 'x'", 'x', true},
		{`case '\n'`, '\n', true}, {"case 1u << 31", 1 << 31, true}, {"case BLUE", 7, true},
		{"case 10 ... 99", 0, false}, {"default", 0, false}, {"case GREEN", 0, false}, {"case N + 1", 0, false},
	} {
		if v, ok := caseConst(c.label, enums); v != c.want || ok != c.ok {
			t.Errorf("caseConst(%q) = %d, %v; want %d, %v", c.label, v, ok, c.want, c.ok)
		}
	}
}

func TestEnumValues(t *testing.T) {
	src := strings.Split(`/* enumerators in a comment: enum { X } */
enum color { RED, GREEN = 5, BLUE };
enum color c;
typedef enum {
	A, // first
	B = 0x10,
	C
} letter;
static int renumber(enum color c) { return c; }`, "\n")
	want := map[string]int64{"RED": 0, "GREEN": 5, "BLUE": 6, "A": 0, "B": 16, "C": 17}
	if got := enumValues(src); !reflect.DeepEqual(got, want) {
		t.Errorf("enumValues = %v; want %v", got, want)
	}
}

func TestSwitchReturns(t *testing.T) {
	src := strings.Split(`static int f(int c)
{
	switch (c) {
	case 0:
		n++;
		break;
	case 1: return 10;
	case 2:
	case 3:
		return 20;
	default:
		return -1;
	case 4: /* four */
		n++;
		/* fall through */
	case 5:
		return 50;
	}
	return n;
}`, "\n")
	groups, first := switchReturns(src, 3, int32(len(src)), nil)
	if first != 1 {
		t.Fatalf("first returning case %d; want 1 (case 1)", first)
	}
	type g struct {
		labels []int32
		last   int32
		consts []int64
		ret    bool
		falls  bool
	}
	want := []g{
		{[]int32{4}, 6, []int64{0}, false, false},
		{[]int32{7}, 7, []int64{1}, true, false},
		{[]int32{8, 9}, 10, []int64{2, 3}, true, false},
		{[]int32{11}, 12, nil, true, false},
		{[]int32{13}, 15, []int64{4}, false, true},
		{[]int32{16}, 17, []int64{5}, true, false},
	}
	if len(groups) != len(want) {
		t.Fatalf("%d groups; want %d", len(groups), len(want))
	}
	for i, w := range want {
		x := groups[i]
		if got := (g{x.labels, x.last, x.consts, x.ret, x.falls}); !reflect.DeepEqual(got, w) {
			t.Errorf("group %d = %+v; want %+v", i, got, w)
		}
	}
	if !groups[3].isDefault() || groups[2].isDefault() {
		t.Errorf("default group not recognised")
	}
	if got := groups[2].lines(); !reflect.DeepEqual(got, []int32{8, 10}) {
		t.Errorf("lines of case 2/3 = %v; want [8 10]", got)
	}
}
