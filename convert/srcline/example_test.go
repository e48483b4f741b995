package srcline_test

import (
	"fmt"
	"log"

	"github.com/perfpt/perfpt/convert/srcline"
)

// Resolve an address of a binary to its inline chain, as addr2line -i -f.
func ExampleTable_Frames() {
	tab, err := srcline.Open("/usr/bin/myprog")
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range tab.Frames(0x1139, nil) {
		fmt.Printf("%s\n%s:%d\n", f.Func, f.File, f.Line)
	}
}
