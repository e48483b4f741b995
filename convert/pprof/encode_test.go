package pprof

import (
	"bytes"
	"testing"

	"github.com/google/pprof/profile"
)

// fullProfile uses every field of profile.proto, with labels shared
// between samples (as the Builder shares them) and not.
func fullProfile() *profile.Profile {
	m1 := &profile.Mapping{ID: 1, Start: 0x400000, Limit: 0x401000, Offset: 0x1000, File: "/bin/a", BuildID: "abcd",
		HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	m2 := &profile.Mapping{ID: 2, Start: 0x7f0000000000, Limit: 0x7f0000010000, File: "[vdso]"}
	f1 := &profile.Function{ID: 1, Name: "main", SystemName: "main", Filename: "a.c", StartLine: 3}
	f2 := &profile.Function{ID: 2, Name: "inl", SystemName: "_Z3inlv", Filename: "a.h", StartLine: 300}
	l1 := &profile.Location{ID: 1, Mapping: m1, Address: 0x400123, Line: []profile.Line{{Function: f2, Line: 301, Column: 7}, {Function: f1, Line: 9}}}
	l2 := &profile.Location{ID: 2, Mapping: m2, Address: 0x7f0000000400, IsFolded: true}
	l3 := &profile.Location{ID: 300, Address: 0xffffffff81000000}
	shared := map[string][]string{"comm": {"a b"}}
	num := map[string][]int64{"pid": {7}, "tid": {8}, "bytes": {4096}}
	units := map[string][]string{"bytes": {"bytes"}}
	return &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "instructions", Unit: "count"}, {Type: "time", Unit: "nanoseconds"}},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{l1, l2}, Value: []int64{1 << 40, 0}, Label: shared, NumLabel: num, NumUnit: units},
			{Location: []*profile.Location{l3, l1}, Value: []int64{5, 127}, Label: shared, NumLabel: num, NumUnit: units},
			{Location: []*profile.Location{l2}, Value: []int64{0, 128}},
			{Location: []*profile.Location{l3}, Value: []int64{-3, 1}, Label: map[string][]string{"x": {"1", "2"}, "a": {""}},
				NumLabel: map[string][]int64{"cpu": {-1, 3}}},
		},
		Mapping:           []*profile.Mapping{m1, m2},
		Location:          []*profile.Location{l1, l2, l3},
		Function:          []*profile.Function{f1, f2},
		DropFrames:        "drop.*",
		KeepFrames:        "keep",
		TimeNanos:         1700000000000000000,
		DurationNanos:     5e9,
		PeriodType:        &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:            1000,
		Comments:          []string{"one", "two", "one"},
		DefaultSampleType: "time",
		DocURL:            "https://example.com/doc",
	}
}

// checkEncode checks that encodeProfile's output reads back as the
// profile package's own encoding does.
func checkEncode(t *testing.T, p *profile.Profile) {
	t.Helper()
	var want bytes.Buffer
	if err := p.WriteUncompressed(&want); err != nil {
		t.Fatal(err)
	}
	wp, err := profile.ParseData(want.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	gp, err := profile.ParseData(encodeProfile(p))
	if err != nil {
		t.Fatalf("reading encodeProfile's output: %v", err)
	}
	if g, w := gp.String(), wp.String(); g != w {
		t.Errorf("read back:\n%s\nprofile package's encoding reads back:\n%s", g, w)
	}
	type extra struct {
		drop, keep, dflt, doc string
		comments              int
	}
	g := extra{gp.DropFrames, gp.KeepFrames, gp.DefaultSampleType, gp.DocURL, len(gp.Comments)}
	w := extra{wp.DropFrames, wp.KeepFrames, wp.DefaultSampleType, wp.DocURL, len(wp.Comments)}
	if g != w {
		t.Errorf("read back %+v, want %+v", g, w)
	}
}

func TestEncodeProfile(t *testing.T) {
	checkEncode(t, fullProfile())
	checkEncode(t, &profile.Profile{})
	if testing.Short() {
		return
	}
	bin := buildShared(t, "recurse")
	data, _ := emulatePT(t, bin, "6", "2")
	for _, g := range []Granularity{Address, Line, Function} {
		p, err := Convert(data, Options{Granularity: g, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		checkEncode(t, p)
	}
}
