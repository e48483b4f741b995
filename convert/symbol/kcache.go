package symbol

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/perfpt/perfpt/internal/cachefile"
	"github.com/perfpt/perfpt/internal/dwarfbuf"
)

// The running kernel's symbols, cached between runs.
//
// perf reads /proc/kallsyms whenever it resolves a kernel address of the
// running kernel: about 120,000 lines that the kernel formats anew on
// every read, 35 ms of system time here before any parsing, more than a
// third of what perf script takes on a small recording. The core kernel's
// symbols do not change while the kernel runs: they are fixed by its
// image (its build id) and by where it was loaded at boot (KASLR), which
// the first lines of /proc/kallsyms show (_text's address, or zeros when
// kptr_restrict hides addresses from this user). perfpt keeps them,
// parsed and fixed up as perf would, in a cache file per kernel build id,
// valid for one boot (the boot id) and for the first page of /proc/kallsyms
// it was made from; any difference, or a file that does not check out,
// and /proc/kallsyms is read again. Modules' symbols are not cached: they
// change as modules come and go, and are read from /proc/kallsyms when a
// module map needs them (KernelSymbols.Module).

// KallsymsCache says where the running kernel's symbols are cached and
// how this machine is identified.
type KallsymsCache struct {
	Dir    string // the cache directory ("": no cache)
	Notes  string // /sys/kernel/notes: the running kernel's build id
	BootID string // /proc/sys/kernel/random/boot_id
	// PerfCopy returns the copy of kallsyms that perf record saved in
	// perf's build-id cache for a kernel build id ("" for none, or nil):
	// see perfCopy.
	PerfCopy func(buildID []byte) string
}

// kcacheFormat frames a kallsyms cache file (internal/cachefile): its
// payload is _text's and _stext's addresses, the numbers of symbols and
// runs and the size of the names, then the packed symbols, the runs and
// the names.
var kcacheFormat = cachefile.Format{Magic: "perfpt kallsyms\n", Version: 2}

// LoadHostKallsyms loads the running kernel's symbols from proc (the
// host's /proc/kallsyms), through c's cache when it is valid, and updates
// the cache when it is not. It is LoadKallsyms, but for where module
// symbols come from (see KernelSymbols.Module).
func LoadHostKallsyms(proc string, c *KallsymsCache) (*KernelSymbols, error) {
	key, file, id, page := c.key(proc)
	if file != "" {
		if ks := readKallsymsCache(file, key, proc); ks != nil {
			return ks, nil
		}
	}
	ks := c.perfCopy(id, page, proc)
	if ks == nil {
		var err error
		if ks, err = LoadKallsyms(proc); err != nil || file == "" {
			return ks, err
		}
	}
	if file != "" {
		writeKallsymsCache(file, key, ks)
	}
	return ks, nil
}

// perfCopy returns the core kernel's symbols from the kallsyms that perf
// record copied into perf's build-id cache for the running kernel (build
// id id), when that copy starts with the same bytes as proc's first page
// (page): the same kernel image loaded at the same place (_text's address
// is on that page, or zeros when addresses are hidden), so the same core
// symbols, read from a plain file instead of formatted anew by the kernel
// (35 ms of system time). Modules come and go: theirs are read from proc
// when asked for (KernelSymbols.Module), as for the cache. nil when there
// is no such copy, it differs, or it does not parse.
func (c *KallsymsCache) perfCopy(id, page []byte, proc string) *KernelSymbols {
	if c == nil || c.PerfCopy == nil || len(id) == 0 || len(page) == 0 {
		return nil
	}
	path := c.PerfCopy(id)
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, len(page))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, page) {
		return nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil
	}
	ks, err := ParseKallsyms(f)
	if err != nil {
		return nil
	}
	ks.Modules = nil
	ks.moduleSrc = proc
	return ks
}

// key returns what identifies the running kernel's symbols as proc shows
// them, and the cache file for them ("" when there is no cache or the
// kernel cannot be identified).
// It returns too the kernel's build id and the first page of proc (nil
// when they cannot be read).
func (c *KallsymsCache) key(proc string) (key []byte, file string, id, page []byte) {
	if c == nil || (c.Dir == "" && c.PerfCopy == nil) {
		return nil, "", nil, nil
	}
	id = KernelNotesBuildID(c.Notes)
	if len(id) == 0 {
		return nil, "", nil, nil
	}
	f, err := os.Open(proc)
	if err != nil {
		return nil, "", nil, nil
	}
	defer f.Close()
	page = make([]byte, 4096)
	n, err := f.Read(page)
	if err != nil || n == 0 {
		return nil, "", nil, nil
	}
	page = page[:n]
	boot, err := os.ReadFile(c.BootID)
	if c.Dir == "" || err != nil || len(boot) == 0 || len(boot) > 256 {
		return nil, "", id, page
	}
	for _, part := range [][]byte{id, boot, page} {
		key = binary.LittleEndian.AppendUint32(key, uint32(len(part)))
		key = append(key, part...)
	}
	return key, filepath.Join(c.Dir, "kallsyms-"+hex.EncodeToString(id)), id, page
}

// writeKallsymsCache writes ks's core kernel symbols to file for key,
// through a temporary file renamed into place (another perfpt may be
// reading it). Failures leave no cache, silently: the cache only saves
// time.
func writeKallsymsCache(file string, key []byte, ks *KernelSymbols) {
	var recs, names []byte
	switch {
	case ks.Kernel.src == nil:
		var ok bool
		if recs, names, ok = packSymbols(ks.Kernel.syms); !ok {
			return
		}
	default:
		// Packed as ParseKallsyms packs the core kernel, unmoved.
		p, ok := ks.Kernel.src.src.(*packedSyms)
		if !ok || p.delta != 0 || ks.Kernel.exact != nil {
			return
		}
		recs, names = p.recs, p.names
	}
	nsyms := len(recs) / packedRecSize
	segs := ks.Kernel.segs
	hdr := make([]byte, 0, 8+8+4+4+4)
	hdr = binary.LittleEndian.AppendUint64(hdr, ks.Text)
	hdr = binary.LittleEndian.AppendUint64(hdr, ks.Stext)
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(nsyms))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(segs)))
	hdr = binary.LittleEndian.AppendUint32(hdr, uint32(len(names)))
	sb := make([]byte, 0, 12*len(segs))
	for _, sg := range segs {
		sb = binary.LittleEndian.AppendUint64(sb, sg.from)
		sb = binary.LittleEndian.AppendUint32(sb, uint32(sg.sym))
	}
	// Written in parts, not copied into one buffer of the file's size
	// (7 MB, a copy and a page fault per page).
	_ = kcacheFormat.Write(file, key, hdr, recs, sb, names)
}

// errKcache is any inconsistency of a cache file: it is then ignored.
var errKcache = errors.New("kallsyms cache: inconsistent")

// readKallsymsCache returns the symbols cached in file for key, or nil
// when the file is missing, is for another key, or does not check out.
// Module symbols are read from proc when asked for.
func readKallsymsCache(file string, key []byte, proc string) *KernelSymbols {
	// Mapped, not read (mapfile.Open): the table aliases the bytes, and
	// the 7 MB read cost a copy and a page fault per page of the heap.
	// The mapping is kept: a cache is replaced by a rename, never
	// rewritten in place, so its bytes do not change under it.
	data, release, err := kcacheFormat.Load(file, key)
	if err != nil {
		return nil
	}
	ks, err := decodeKallsymsCache(data)
	if err != nil {
		release()
		return nil
	}
	ks.moduleSrc = proc
	return ks
}

// decodeKallsymsCache decodes a cache file's payload.
func decodeKallsymsCache(payload []byte) (*KernelSymbols, error) {
	c := dwarfbuf.Cursor{B: payload}
	text, stext := c.U64(), c.U64()
	nsyms, nsegs, namesLen := c.U32(), c.U32(), c.U32()
	nrec, nseg := int64(nsyms)*packedRecSize, int64(nsegs)*12
	if c.Bad || nrec+nseg+int64(namesLen) != int64(c.Left()) {
		return nil, errKcache
	}
	recs, segData, names := c.Take(uint64(nrec)), c.Take(uint64(nseg)), c.Take(uint64(namesLen))
	for i := 0; i < int(nsyms); i++ {
		rec := recs[i*packedRecSize:]
		off, n := binary.LittleEndian.Uint32(rec[16:]), binary.LittleEndian.Uint16(rec[20:])
		if uint64(off)+uint64(n) > uint64(len(names)) {
			return nil, errKcache
		}
	}
	segs := make([]seg, nsegs)
	for i := range segs {
		d := segData[i*12:]
		segs[i] = seg{binary.LittleEndian.Uint64(d), int32(binary.LittleEndian.Uint32(d[8:]))}
		if i > 0 && segs[i].from <= segs[i-1].from || segs[i].sym < segNone || segs[i].sym >= int32(nsyms) {
			return nil, errKcache
		}
	}
	return &KernelSymbols{
		Kernel: packedTable(recs, names, segs, 0),
		Text:   text,
		Stext:  stext,
		cached: true,
	}, nil
}
