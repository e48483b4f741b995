package gcov

import "github.com/perfpt/perfpt/convert/script"

// BareItrace is the --itrace selection of a bare decode: the whole flow is
// decoded (and delivered as session Blocks) but only errors are
// synthesised, as `perf script --itrace=e`.
func BareItrace() *script.Itrace {
	it, err := script.ParseItrace("e")
	if err != nil {
		panic(err)
	}
	return it
}
