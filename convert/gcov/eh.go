package gcov

import (
	"debug/elf"
	"strings"

	"github.com/perfpt/perfpt/convert/unwind"
	"github.com/perfpt/perfpt/internal/dwarfbuf"
)

// Exception landing pads: which call may throw to which handler. gcc
// records them per function in the language-specific data area (LSDA,
// in .gcc_except_table) that the function's FDE in .eh_frame points to:
// a call-site table of [start, start+len) ranges relative to the
// function, each with the offset of its landing pad (0: none). A call in
// a range with a landing pad has an exception arc in gcc's graph. This is
// the small part of the Itanium C++ ABI's LSDA format (and the .eh_frame
// CIE/FDE format of the LSB) that gcov needs: convert/unwind reads the
// CIEs and FDEs and finds each function's LSDA.

// callSite is one call-site record: calls in [start, end) throw to lp
// (0: they have no landing pad).
type callSite struct {
	start, end, lp uint64
	action         uint64 // 0: no action; with no landing pad, else a filter (noexcept)
}

// landingPads returns the call-site tables of the functions of f by the
// functions' start addresses, read from .eh_frame and .gcc_except_table.
// Damaged or missing data leaves functions out: they get no exception
// arcs.
func landingPads(f *elf.File) map[uint64][]callSite {
	lsda := f.Section(".gcc_except_table")
	t := ehFrameTable(f)
	if t == nil || lsda == nil {
		return nil
	}
	lsdaData, err := lsda.Data()
	if err != nil {
		return nil
	}
	// convert/unwind reads the CIEs and FDEs, with each FDE's LSDA
	// pointer; only the call-site tables are read here.
	out := map[uint64][]callSite{}
	for fde := range t.EHFrameFDEs() {
		lp := fde.LSDA
		if lp != 0 && lp >= lsda.Addr && lp < lsda.Addr+uint64(len(lsdaData)) {
			if sites := parseLSDA(lsdaData, int(lp-lsda.Addr), lsda.Addr, fde.Start); sites != nil {
				out[fde.Start] = sites
			}
		}
	}
	return out
}

// emissionOrder returns, for each of funcs, its place in the order gcc
// emitted the functions of its unit (the .s file's order), from the order
// of their FDEs in .eh_frame: gas writes the FDEs of an object in the
// order of the functions' .cfi_startproc and the linker keeps each
// object's order, where the functions' addresses put a unit's .text
// before its comdat sections (a lambda of main, in .text, before every
// template instance emitted before it). gcc writes the notes file in the
// reverse of that order at -O0 (the callgraph's node list), which is
// gcov's order of the functions that start on one line. It returns nil
// when a function with code has no FDE (-fno-asynchronous-unwind-tables):
// the addresses are used then.
func emissionOrder(f *elf.File, funcs []function) []uint64 {
	t := ehFrameTable(f)
	if t == nil {
		return nil
	}
	rank := map[uint64]uint64{}
	for fde := range t.EHFrameFDEs() {
		if _, ok := rank[fde.Start]; !ok {
			rank[fde.Start] = uint64(len(rank))
		}
	}
	out := make([]uint64, len(funcs))
	for i := range funcs {
		r, ok := rank[funcs[i].low]
		if !ok && funcs[i].high > funcs[i].low {
			return nil
		}
		out[i] = r
	}
	return out
}

// ehFrameTable returns convert/unwind's reader of f's .eh_frame (64-bit
// files), or nil when f has none or it cannot be read.
func ehFrameTable(f *elf.File) *unwind.Table {
	eh := f.Section(".eh_frame")
	if eh == nil || f.Class != elf.ELFCLASS64 {
		return nil
	}
	data, err := eh.Data()
	if err != nil {
		return nil
	}
	return unwind.NewTable(".eh_frame", data, eh.Addr, nil, 0, nil)
}

// parseLSDA reads the call-site table of the LSDA at off in data (at
// address base) of the function starting at fn.
func parseLSDA(data []byte, off int, base, fn uint64) []callSite {
	c := &dwarfbuf.Cursor{B: data, Off: off}
	lpStart := fn
	if enc := c.U8(); enc != dwarfbuf.PEOmit {
		if v, ok := c.Encoded(enc, base, 0, fn); ok {
			lpStart = v
		}
	}
	if enc := c.U8(); enc != dwarfbuf.PEOmit {
		c.ULEB() // type table offset
	}
	siteEnc := c.U8()
	n := int(c.ULEB())
	end := c.Off + n
	if c.Bad || end > len(data) {
		return nil
	}
	out := []callSite{} // an LSDA without call sites: nothing may throw out
	for c.Off < end && !c.Bad {
		// The offsets and lengths are in the format of siteEnc; its
		// application is not used.
		start, _ := c.Format(siteEnc)
		length, _ := c.Format(siteEnc)
		lp, _ := c.Format(siteEnc)
		action := c.ULEB()
		s := callSite{start: fn + start, end: fn + start + length, action: action}
		if lp != 0 {
			s.lp = lpStart + lp
		}
		out = append(out, s)
	}
	if c.Bad {
		return nil
	}
	return out
}

// site returns the call-site record of the function starting at fn that
// covers address a.
func (p *Program) site(fn, a uint64) (callSite, bool) {
	for _, s := range p.lpads[fn] {
		if a >= s.start && a < s.end {
			return s, true
		}
	}
	return callSite{}, false
}

// throwingFuncs are the library functions that may throw into a C++
// caller, as gcc 12 decides it: the C library's cancellation points
// (glibc declares them without __THROW), operator new, and the ABI's
// throwing entry points. Other C library functions cannot throw, nor can
// operator delete; other C++ library functions can. Found by compiling a
// call to each inside a cleanup with --coverage and reading the notes
// file's exception arcs.
var throwingFuncs = map[string]bool{}

// raisingFuncs throw (or rethrow, or resume unwinding) themselves.
var raisingFuncs = map[string]bool{"__cxa_throw": true, "__cxa_rethrow": true, "_Unwind_Resume": true}

func init() {
	for _, n := range strings.Fields(`printf fprintf vprintf vfprintf puts putchar fputs fputc putc fwrite
		fread fflush fopen fclose fgets getchar getc fgetc ungetc scanf fscanf vscanf vfscanf __isoc99_scanf
		__isoc99_fscanf __isoc99_vscanf __isoc99_vfscanf perror _exit qsort bsearch system read write
		pthread_join open openat creat close getline getdelim fseek fseeko ftell ftello rewind freopen popen
		pclose tmpfile fgetpos fsetpos sleep usleep nanosleep wait waitpid pause select poll accept connect
		recv recvfrom recvmsg send sendto sendmsg fsync fdatasync msync tcdrain sigsuspend sigwait
		fcntl pread pwrite readv writev __printf_chk __fprintf_chk __vfprintf_chk __vprintf_chk
		__cxa_end_catch __cxa_throw __cxa_rethrow _Unwind_Resume`) {
		throwingFuncs[n] = true
	}
}

// calleeThrows reports whether the library function name may throw.
func calleeThrows(name string) bool {
	if throwingFuncs[name] {
		return true
	}
	if !strings.HasPrefix(name, "_Z") {
		return false
	}
	// C++: operator delete, std::terminate, destructors (implicitly
	// noexcept: std::string's, std::allocator's) and std::allocator's
	// constructors (noexcept) cannot.
	return !strings.HasPrefix(name, "_ZdlPv") && !strings.HasPrefix(name, "_ZdaPv") && name != "_ZSt9terminatev" &&
		!destructorName(name) && !strings.HasPrefix(name, "_ZNSaI")
}

// destructorName reports whether name is the assembler name of a C++
// destructor: a D0 (deleting), D1 (complete) or D2 (base) function.
func destructorName(name string) bool {
	return structor(name, "D0") || structor(name, "D1") || structor(name, "D2")
}
