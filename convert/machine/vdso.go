package machine

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/perfpt/perfpt/convert/symbol"
)

// perf decodes and symbolises [vdso] from a copy of its own vdso
// (machine__findnew_vdso), which is the recorded one when perf runs on the
// same kernel. ownVdso returns this process's vdso image.
var ownVdso = sync.OnceValue(func() []byte {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasSuffix(line, "[vdso]") {
			continue
		}
		rng, _, _ := strings.Cut(line, " ")
		lo, hi, ok := strings.Cut(rng, "-")
		if !ok {
			return nil
		}
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || b <= a || b-a > 1<<20 {
			return nil
		}
		mem, err := os.Open("/proc/self/mem")
		if err != nil {
			return nil
		}
		defer mem.Close()
		buf := make([]byte, b-a)
		if _, err := mem.ReadAt(buf, int64(a)); err != nil {
			return nil
		}
		return buf
	}
	return nil
})

// vdsoDSO fills d as perf's vdso DSO: symbols and code from our own vdso.
func vdsoSymbols(d *DSO) *symbol.Table {
	img := ownVdso()
	if d.BuildID != nil {
		// The build-id table lists [vdso]: perf uses that DSO, whose
		// file is in the build-id cache (none: no symbols), not its
		// own vdso (__machine__findnew_vdso finds it by name).
		img = nil
		if f := d.symOpts.BuildIDCacheFile(d.BuildID, "vdso"); f != "" {
			img, _ = os.ReadFile(f)
		}
		if img == nil {
			return &symbol.Table{}
		}
	}
	if img == nil {
		return &symbol.Table{}
	}
	d.code = img
	tab, err := symbol.Load(bytes.NewReader(img))
	if err != nil {
		return &symbol.Table{}
	}
	return tab
}
