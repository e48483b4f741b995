package unwind

import (
	"bytes"
	"debug/elf"
	"io"
	"os"
	"sync"
)

// maxSection caps the size of a CFI section read into memory.
const maxSection = 256 << 20

// LoadFile reads the unwind table of the ELF file at dataPath (the file
// perf reads a DSO's data from): .eh_frame and .eh_frame_hdr, and
// .debug_frame from the first of dataPath and debugPaths (perf's
// symsrc_filename and the .gnu_debuglink file, in perf's
// read_unwind_spec_debug_frame order) that has one. It returns nil and
// the error when dataPath cannot be read as ELF.
func LoadFile(dataPath string, debugPaths ...string) (*Table, error) {
	f, err := os.Open(dataPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Load(dataPath, f, debugPaths...)
}

// Load is LoadFile for an ELF image read through r (the vdso as a
// recording saved it, for instance); name is for messages.
func Load(name string, r io.ReaderAt, debugPaths ...string) (*Table, error) {
	return load(name, r, true, debugPaths)
}

// LoadFileEH is LoadFile without .debug_frame: the tables a perf built
// without libunwind's dwarf_find_debug_frame (NO_LIBUNWIND_DEBUG_FRAME:
// find_proc_info then searches .eh_frame through .eh_frame_hdr only)
// unwinds with.
func LoadFileEH(dataPath string) (*Table, error) {
	f, err := os.Open(dataPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return load(dataPath, f, false, nil)
}

// LoadEH is LoadFileEH for an ELF image read through r.
func LoadEH(name string, r io.ReaderAt) (*Table, error) {
	return load(name, r, false, nil)
}

// load reads the tables, .debug_frame too when debugFrame.
func load(name string, r io.ReaderAt, debugFrame bool, debugPaths []string) (*Table, error) {
	ef, err := elf.NewFile(r)
	if err != nil {
		return nil, err
	}
	eh, ehAddr := section(ef, ".eh_frame")
	var hdr []byte
	var hdrAddr uint64
	if s := ef.Section(".eh_frame_hdr"); s != nil {
		hdr, hdrAddr = section(ef, ".eh_frame_hdr")
		if hdr == nil {
			hdr = []byte{}
		}
	}
	var df []byte
	if debugFrame {
		df, _ = section(ef, ".debug_frame")
	}
	for _, p := range debugPaths {
		if df != nil {
			break
		}
		if p == "" {
			continue
		}
		df = debugFrameOf(p)
	}
	t := NewTable(name, eh, ehAddr, hdr, hdrAddr, df)
	t.LoadBase = loadBase(ef)
	return t, nil
}

func debugFrameOf(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	ef, err := elf.NewFile(f)
	if err != nil {
		return nil
	}
	df, _ := section(ef, ".debug_frame")
	return df
}

// section returns a section's bytes (decompressed) and address, or nil.
func section(ef *elf.File, name string) ([]byte, uint64) {
	s := ef.Section(name)
	if s == nil || s.Type == elf.SHT_NOBITS || s.Size > maxSection {
		return nil, 0
	}
	d, err := s.Data()
	if err != nil || len(d) > maxSection {
		return nil, 0
	}
	return d, s.Addr
}

// loadBase is perf's elf_base_address: the first PT_LOAD's p_vaddr
// rounded down to the page.
func loadBase(ef *elf.File) uint64 {
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD {
			return p.Vaddr &^ 4095
		}
	}
	return 0
}

// Cache keeps tables by key (a build id, or a path when there is none),
// loading each at most once. It is safe for concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[string]*cached
}

type cached struct {
	once sync.Once
	t    *Table
}

// Get returns the table under key, calling load the first time (a nil
// result is kept too: the file has no tables, or none was found).
func (c *Cache) Get(key string, load func() *Table) *Table {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*cached{}
	}
	e := c.m[key]
	if e == nil {
		e = &cached{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.t = load() })
	return e.t
}

// BytesReader is an io.ReaderAt over b (for Load on an image in memory).
func BytesReader(b []byte) io.ReaderAt { return bytes.NewReader(b) }
