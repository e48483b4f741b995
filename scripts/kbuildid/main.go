// kbuildid copies a perf.data with perfpt's writer, giving its kernel
// ([kernel.kallsyms]) another build id in the BUILD_ID table: a recording
// as if made on a machine whose kernel is not this one (perf then finds no
// kallsyms for it). Used to make testdata/machine/otherkernel.data.
//
//	go run ./scripts/kbuildid -i IN -o OUT [-id HEX]
package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/perfpt/perfpt/perfdata"
)

func main() {
	in := flag.String("i", "", "input perf.data")
	out := flag.String("o", "", "output perf.data")
	id := flag.String("id", "00112233445566778899aabbccddeeff00112233", "the new kernel build id (hex)")
	flag.Parse()
	if err := run(*in, *out, *id); err != nil {
		fmt.Fprintln(os.Stderr, "kbuildid:", err)
		os.Exit(1)
	}
}

func run(in, out, hexID string) error {
	bid, err := hex.DecodeString(hexID)
	if err != nil || len(bid) == 0 || len(bid) > 20 {
		return fmt.Errorf("bad build id %q", hexID)
	}
	f, err := perfdata.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	if f.Pipe {
		return fmt.Errorf("%s: a pipe-mode file has no BUILD_ID table", in)
	}
	w, err := perfdata.Create(out)
	if err != nil {
		return err
	}
	for _, a := range f.Attrs {
		if _, err := w.AddAttr(a.EventAttr, a.IDs, a.Name); err != nil {
			return err
		}
	}
	fs, err := f.Features()
	if err != nil {
		return err
	}
	w.Features = *fs
	found := false
	w.Features.BuildIDs = append([]perfdata.BuildID(nil), fs.BuildIDs...)
	for i := range w.Features.BuildIDs {
		b := &w.Features.BuildIDs[i]
		if strings.HasPrefix(b.Filename, "[kernel.kallsyms]") {
			b.BuildID, found = bid, true
		}
	}
	if !found {
		return fmt.Errorf("%s: no [kernel.kallsyms] in the BUILD_ID table", in)
	}
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		if err := w.WriteRecord(rs.Record); err != nil {
			return err
		}
	}
	if err := rs.Err(); err != nil {
		return err
	}
	return w.Close()
}
