package gcov

import (
	"github.com/perfpt/perfpt/convert/sample"
)

// BareItrace is the --itrace selection of a bare decode: the whole flow is
// decoded (and delivered as session Blocks) but only errors are
// synthesised, as `perf script --itrace=e`.
func BareItrace() *sample.Itrace {
	it, err := sample.ParseItrace("e")
	if err != nil {
		panic(err)
	}
	return it
}
