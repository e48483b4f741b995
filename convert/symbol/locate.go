package symbol

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/perfpt/perfpt/internal/elfid"
)

// Options says where perf would look for the files of a DSO.
type Options struct {
	// Symfs is perf's --symfs directory, prefixed to every system path.
	Symfs string
	// BuildIDDir is perf's build-id cache (default ~/.debug, or
	// Symfs/.debug with a Symfs); "" means the default, "-" none.
	BuildIDDir string
	// NoDemangle keeps C++, Rust and OCaml names mangled (perf's
	// --no-demangle); DemangleParams prints C++ parameters (perf's -v).
	// Kernel symbols from kallsyms are never demangled, as in perf.
	NoDemangle, DemangleParams bool
	// DemangleKernel demangles the symbols of a kernel ELF (a vmlinux),
	// perf's --demangle-kernel: want_demangle asks it, not NoDemangle,
	// for a kernel DSO's symbols.
	DemangleKernel bool
	// CacheDir is where ELF symbol tables are cached between runs
	// (symcache.go), "" for no cache.
	CacheDir string
}

func (o *Options) buildIDDir() string {
	if o != nil && o.BuildIDDir == "" && o.Symfs != "" {
		// symbol__config_symfs: a --symfs skips the local cache for
		// the one in the symfs.
		return filepath.Join(o.Symfs, ".debug")
	}
	if o == nil || o.BuildIDDir == "" {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, ".debug")
		}
		return ""
	}
	if o.BuildIDDir == "-" {
		return ""
	}
	return o.BuildIDDir
}

func (o *Options) symfs(p string) string {
	if o == nil || o.Symfs == "" {
		return p
	}
	return filepath.Join(o.Symfs, p)
}

// LoadDSO builds the table perf's dso__load builds for the user-space DSO
// named longName (the MMAP path) with the given build id (nil when the
// recording has none; it is then read from the file, as perf does). It
// tries perf's candidates in perf's order (debuglink, build-id cache,
// /usr/lib/debug paths, the path itself under --symfs), rejects files whose
// build id differs, takes .symtab from the first file that has one and the
// runtime image (.dynsym, PLT, program headers) from the first with a
// .dynsym. It returns an empty table when no file is found. The second
// result is the runtime file used, for reading code.
func LoadDSO(o *Options, longName string, buildID []byte) (*Table, string) {
	tab, info := LoadDSOInfo(o, longName, buildID)
	return tab, info.Runtime
}

// DSOInfo says which files perf's dso__load used for a DSO.
type DSOInfo struct {
	Runtime string // the image read for code (.dynsym, program headers)
	Syms    string // the file the symbols came from (perf's symsrc_filename)
	// TextOffset is .text's sh_addr - sh_offset in the runtime image
	// (dso->text_offset): DSO address + TextOffset = the ELF's own
	// virtual address, as addr2line and objdump want it.
	TextOffset uint64
}

// LoadDSOInfo is LoadDSO that also tells which files were used.
func LoadDSOInfo(o *Options, longName string, buildID []byte) (*Table, DSOInfo) {
	var info DSOInfo
	path := o.symfs(longName)
	// The DSO's own file, opened and parsed once for its build id, its
	// debuglink and as the last candidate (three opens and parses of
	// every DSO's headers were a twentieth of perfpt script on a
	// system-wide recording).
	var mainFH *os.File
	var mainEF *elf.File
	if fh, err := os.Open(path); err == nil {
		if ef, err := openELF(fh); err == nil {
			mainFH, mainEF = fh, ef
		} else {
			fh.Close()
		}
	}
	mainKept := false
	defer func() {
		if mainFH != nil && !mainKept {
			mainFH.Close()
		}
	}()
	link := ""
	if mainEF != nil {
		if buildID == nil {
			buildID = readBuildID(mainEF)
		}
		dl, _ := elfid.ReadDebuglink(mainEF)
		link = dl.Name
	}
	var symsF, runF *elf.File
	var symsSt, runSt os.FileInfo
	var runPath string
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	for _, cand := range candidates(o, longName, path, buildID, link) {
		st, err := os.Stat(cand)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		var fh *os.File
		var ef *elf.File
		if cand == path && mainFH != nil && !mainKept {
			fh, ef = mainFH, mainEF
			mainKept = true // closed with the files used, or below
		} else {
			if fh, err = os.Open(cand); err != nil {
				continue
			}
			if ef, err = openELF(fh); err != nil {
				fh.Close()
				continue
			}
		}
		if buildID != nil {
			if id := readBuildID(ef); id == nil || !BuildIDEqual(buildID, id) {
				fh.Close()
				continue
			}
		}
		used := false
		if symsF == nil && hasSymtab(ef) {
			symsF, symsSt, used = ef, st, true
			info.Syms = cand
		}
		if runF == nil && hasDynsym(ef) {
			runF, runPath, runSt, used = ef, cand, st, true
		}
		if !used {
			fh.Close()
			continue
		}
		files = append(files, fh)
		if symsF != nil && runF != nil {
			break
		}
	}
	if symsF == nil && runF == nil {
		return &Table{}, info
	}
	if symsF == nil {
		symsF, symsSt = runF, runSt
		info.Syms = runPath
	}
	if runF == nil {
		runF, runSt = symsF, symsSt
		runPath = info.Syms
	}
	info.Runtime = runPath
	if t := runF.Section(".text"); t != nil {
		info.TextOffset = t.Addr - t.Offset
	}
	key := o.symCacheKey(buildID, cacheFile{info.Syms, symsF, symsSt}, cacheFile{runPath, runF, runSt})
	if t := o.cachedTable(key); t != nil {
		return t, info
	}
	t := build(symsF, runF, o.demangler())
	o.cacheTable(key, t)
	return t, info
}

var debuglinkDirs = []string{"", "%s", "%s/.debug", "/usr/lib/debug%s"}

// candidates lists the files dso__load tries for a DSO, in its order;
// link is the .gnu_debuglink name of the DSO's file at path ("" for
// none).
func candidates(o *Options, longName, path string, buildID []byte, link string) []string {
	var c []string
	// DSO_BINARY_TYPE__DEBUGLINK
	if link != "" {
		dir := filepath.Dir(path)
		for _, d := range debuglinkDirs {
			if d == "" {
				c = append(c, link)
			} else {
				c = append(c, strings.Replace(d, "%s", dir, 1)+"/"+link)
			}
		}
	}
	hexID := hex.EncodeToString(buildID)
	if buildID != nil {
		if dir := o.buildIDDir(); dir != "" && len(hexID) > 2 {
			link := filepath.Join(dir, ".build-id", hexID[:2], hexID[2:])
			if st, err := os.Stat(link); err == nil && st.Mode().IsRegular() {
				c = append(c, link, link)
			} else {
				c = append(c, link+"/elf", link+"/debug")
			}
		}
	}
	c = append(c, o.symfs("/usr/lib/debug"+longName+".debug"))
	if strings.HasPrefix(longName, "/usr/lib/") {
		c = append(c, o.symfs("/usr/lib/debug"+longName[4:]))
	}
	if buildID != nil && len(hexID) > 2 {
		c = append(c, o.symfs("/usr/lib/debug/.build-id/"+hexID[:2]+"/"+hexID[2:]+".debug"))
	}
	c = append(c, path)
	return c
}

func readBuildIDFile(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	ef, err := openELF(f)
	if err != nil {
		return nil
	}
	return readBuildID(ef)
}

// ReadBuildID returns the GNU build id of the ELF file at path, or nil.
func ReadBuildID(path string) []byte { return readBuildIDFile(path) }

// readBuildID mirrors elf_read_build_id: the first NT_GNU_BUILD_ID note of
// .note.gnu.build-id, .notes or .note.
func readBuildID(f *elf.File) []byte {
	var s *elf.Section
	for _, n := range []string{".note.gnu.build-id", ".notes", ".note"} {
		if s = f.Section(n); s != nil {
			break
		}
	}
	if s == nil || s.Type == elf.SHT_NOBITS {
		return nil
	}
	d, err := s.Data()
	if err != nil {
		return nil
	}
	return elfid.NotesBuildID(d, f.ByteOrder)
}

// BuildIDCacheFile mirrors dso__build_id_filename: the file of the build-id
// cache that holds the DSO with this build id, base being "elf", "debug",
// "vdso" or "kallsyms" (the link itself for an old-style cache, where it
// is a file). It returns "" without a cache or build id, or when the file
// is not there.
func (o *Options) BuildIDCacheFile(buildID []byte, base string) string {
	dir := o.buildIDDir()
	hexID := hex.EncodeToString(buildID)
	if dir == "" || len(hexID) <= 2 {
		return ""
	}
	link := filepath.Join(dir, ".build-id", hexID[:2], hexID[2:])
	if st, err := os.Stat(link); err == nil && st.Mode().IsRegular() {
		return link
	}
	f := link + "/" + base
	if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
		return f
	}
	return ""
}

// DataFile returns the file perf reads a DSO's data from (dso__data_open:
// its build-id cache entry, then the path under --symfs), "" when neither
// exists. vdso says the DSO is "[vdso]", whose cache entry is named vdso.
func DataFile(o *Options, longName string, buildID []byte, vdso bool) string {
	base := "elf"
	if vdso {
		base = "vdso"
	}
	if p := o.BuildIDCacheFile(buildID, base); p != "" {
		return p
	}
	if longName == "" || longName[0] == '[' || strings.HasPrefix(longName, "//") {
		return ""
	}
	p := o.symfs(longName)
	if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
		return p
	}
	return ""
}

// KernelNotesBuildID mirrors sysfs__read_build_id on /sys/kernel/notes
// (or another file of raw notes in this machine's byte order): the running
// kernel's build id, nil when it cannot be read.
func KernelNotesBuildID(path string) []byte {
	d, err := os.ReadFile(path)
	if err != nil || len(d) > 1<<20 {
		return nil
	}
	return elfid.NotesBuildID(d, binary.LittleEndian)
}

// KallsymsCacheFile mirrors build_id_cache__kallsyms_path: the kallsyms
// that perf record saved for the kernel with this build id,
// "BUILDIDDIR/[kernel.kallsyms]/HEX/kallsyms", or "" when it is not there.
func (o *Options) KallsymsCacheFile(buildID []byte) string {
	dir := o.buildIDDir()
	if dir == "" || len(buildID) == 0 {
		return ""
	}
	f := filepath.Join(dir, "[kernel.kallsyms]", hex.EncodeToString(buildID), "kallsyms")
	if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() {
		return f
	}
	return ""
}

// BuildIDEqual mirrors dso__build_id_equal: the build id recorded for a
// DSO (recorded) names the file whose note is file when they are equal,
// or when the recorded one is a full 20-byte id that is file's followed by
// zeros (perf files from before the BUILD_ID table kept sizes pad shorter
// ids to 20 bytes).
func BuildIDEqual(recorded, file []byte) bool {
	if len(recorded) > len(file) && len(recorded) == 20 {
		for _, b := range recorded[len(file):] {
			if b != 0 {
				return false
			}
		}
		return bytes.Equal(recorded[:len(file)], file)
	}
	return bytes.Equal(recorded, file)
}
