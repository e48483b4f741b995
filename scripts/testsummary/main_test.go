package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"run","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: perf not installed\n"}
{"Action":"output","Package":"p","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:3: got 1, want 2\n"}
{"Action":"fail","Package":"p","Test":"TestC"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.1s\n"}
{"Action":"fail","Package":"p"}
{"Action":"skip","Package":"q"}
`
	var w bytes.Buffer
	code, err := summarize(strings.NewReader(in), &w)
	if err != nil || code != 1 {
		t.Fatalf("code %d, %v", code, err)
	}
	for _, want := range []string{"c_test.go:3: got 1, want 2", "FAIL\tp", "p TestB: b_test.go:9: perf not installed",
		"\n1 passed, 1 failed, 1 skipped\n"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("no %q in:\n%s", want, w.String())
		}
	}
}
