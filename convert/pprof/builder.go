package pprof

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/convert/srcline"
	"github.com/perfpt/perfpt/convert/symbol"
)

// Granularity says what a pprof Location stands for.
type Granularity int

const (
	// Address: one location per instruction address (the default).
	Address Granularity = iota
	// Line: one location per source line (inline chain included).
	Line
	// Function: one location per function.
	Function
)

// ParseGranularity parses "address", "line" or "function".
func ParseGranularity(s string) (Granularity, error) {
	switch s {
	case "", "address", "addr":
		return Address, nil
	case "line", "lines":
		return Line, nil
	case "function", "functions", "func":
		return Function, nil
	}
	return 0, fmt.Errorf("unknown granularity %q (want function, line or address)", s)
}

// Frame is one code location to put in a profile: a runtime address, the
// mapping it lies in, and its symbol when the caller knows it.
type Frame struct {
	IP     uint64
	Map    MapInfo
	Sym    *symbol.Symbol // may be nil
	Caller bool           // a return address: lines are looked up at IP-1
	// Lines, when set, are the location's lines (innermost first) as
	// the caller knows them (perf's inlined-frame entries), instead of
	// the ones the mapped file's DWARF gives.
	Lines []FrameLine
	// NoLines says the location has no lines at all (an address perf
	// knows no function for) when Lines is empty.
	NoLines bool
	// Own says Lines end with a line the sampled address alone has (the
	// sample's own symbol): its location is not the one of a caller
	// frame at the same address.
	Own bool
}

// FrameLine is one line of a Frame's location: a function (Name as
// shown, SystemName mangled, "" for Name) and a position.
type FrameLine struct {
	Name, SystemName, File string
	Line                   int
}

// MapInfo describes the mapping of a frame; a zero File means unknown.
type MapInfo struct {
	Start, End, PgOff uint64
	File              string // the name perf prints
	Path              string // where the ELF file can be read ("" if not)
	BuildID           []byte
}

// object is the debug information of one mapped file.
type object struct {
	src  *srcline.File // nil without one
	segs []elf.ProgHeader
}

// vaddr converts a file offset into the ELF virtual address space.
func (o *object) vaddr(off uint64) uint64 {
	for _, s := range o.segs {
		if off >= s.Off && off < s.Off+s.Filesz {
			return off - s.Off + s.Vaddr
		}
	}
	return off
}

type mapKey struct {
	start, end, pgoff uint64
	file              string
}

type locKey struct {
	m      *profile.Mapping
	addr   uint64
	caller bool
	name   string // line and function granularity
}

// addrKey identifies a location at Address granularity (no string to
// hash).
type addrKey struct {
	m      *profile.Mapping
	addr   uint64
	caller bool
	own    bool
}

type funcKey struct{ name, sysName, file string }

// Builder accumulates samples into a profile. It is not safe for concurrent
// use.
type Builder struct {
	P    *profile.Profile
	Gran Granularity

	mappings   map[mapKey]*profile.Mapping
	locs       map[locKey]*profile.Location
	addrLocs   map[addrKey]*profile.Location // Address granularity
	funcs      map[funcKey]*profile.Function
	symFuncs   map[*symbol.Symbol]*profile.Function
	objs       map[string]*object
	samples    map[string]*profile.Sample
	labels     map[Labels]labelMaps
	key        []byte
	sampleSlab []profile.Sample
	locSlab    []*profile.Location
	valSlab    []int64
	// recentMaps are the mappings of the last lookups (a syscall's
	// tracepoints alternate between the kernel and libc), asked before
	// the map and its string hashing; recentLocs the locations by
	// address, likewise.
	recentMaps recent[mapKey, profile.Mapping]
	recentLocs recent[addrKey, profile.Location]
	frames     []srcline.Frame
	// Sources, when set, gives the debug information of a file by path
	// (a cache shared with the session's machine); by default each path
	// is opened once.
	Sources func(path string) *srcline.File
}

// NewBuilder starts a profile with the given sample types.
func NewBuilder(gran Granularity, types []*profile.ValueType) *Builder {
	return &Builder{
		P:        &profile.Profile{SampleType: types},
		Gran:     gran,
		mappings: map[mapKey]*profile.Mapping{},
		locs:     map[locKey]*profile.Location{},
		addrLocs: map[addrKey]*profile.Location{},
		funcs:    map[funcKey]*profile.Function{},
		symFuncs: map[*symbol.Symbol]*profile.Function{},
		objs:     map[string]*object{},
		samples:  map[string]*profile.Sample{},
		labels:   map[Labels]labelMaps{},
	}
}

type labelMaps struct {
	num map[string][]int64
	str map[string][]string
}

func (b *Builder) object(path string) *object {
	if o, ok := b.objs[path]; ok {
		return o
	}
	o := &object{}
	b.objs[path] = o
	if path == "" {
		return o
	}
	f, err := elf.Open(path)
	if err != nil {
		return o
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			o.segs = append(o.segs, p.ProgHeader)
		}
	}
	if b.Sources != nil {
		o.src = b.Sources(path)
	} else if src, err := srcline.OpenFile(path); err == nil {
		o.src = src
	}
	return o
}

func (b *Builder) mapping(mi *MapInfo) *profile.Mapping {
	if mi.File == "" && mi.End == 0 {
		return nil
	}
	k := mapKey{mi.Start, mi.End, mi.PgOff, mi.File}
	if m := b.recentMaps.get(k); m != nil {
		return m
	}
	if m := b.mappings[k]; m != nil {
		b.recentMaps.put(k, m)
		return m
	}
	m := &profile.Mapping{ID: uint64(len(b.P.Mapping) + 1), Start: mi.Start, Limit: mi.End, Offset: mi.PgOff,
		File: mi.File, BuildID: hex.EncodeToString(mi.BuildID)}
	if mi.Path != "" {
		o := b.object(mi.Path)
		m.HasFunctions = true
		m.HasFilenames = o.src.HasLines()
		m.HasLineNumbers = m.HasFilenames
		m.HasInlineFrames = m.HasFilenames
	}
	b.mappings[k] = m
	b.P.Mapping = append(b.P.Mapping, m)
	b.recentMaps.put(k, m)
	return m
}

// recent holds the last lookups of a map (a few, replaced in turn), to
// be asked before it: nil when none is for k.
type recent[K comparable, V any] struct {
	ents [8]struct {
		k K
		v *V
	}
	next int
}

func (r *recent[K, V]) get(k K) *V {
	for i := range r.ents {
		if e := &r.ents[i]; e.v != nil && e.k == k {
			return e.v
		}
	}
	return nil
}

func (r *recent[K, V]) put(k K, v *V) {
	e := &r.ents[r.next]
	e.k, e.v = k, v
	r.next = (r.next + 1) % len(r.ents)
}

// function returns the profile function named name (as perf prints it:
// demangled without parameters) whose symbol is sysName (the mangled
// name; "" when there is none or it is name itself). A function without a
// mangled name keeps an empty system name: go tool pprof takes a function
// whose system name equals its name for one it has to demangle
// (symbolizer's demangleSingleFunction) and strips template arguments and
// parameters from anything with "::", '<', '>', '[' or ']' in it, so that
// it showed an inlined Rust "<fn() as core::ops::function::FnOnce<()>>::
// call_once" as "::call_once" and a JIT's "void Hot.main(java.lang.String[])"
// as "void Hot.main", where perf prints them whole.
func (b *Builder) function(name, sysName, file string, start int64) *profile.Function {
	if sysName == name {
		sysName = ""
	}
	k := funcKey{name, sysName, file}
	if f := b.funcs[k]; f != nil {
		return f
	}
	f := &profile.Function{ID: uint64(len(b.P.Function) + 1), Name: name, SystemName: sysName, Filename: file, StartLine: start}
	b.funcs[k] = f
	b.P.Function = append(b.P.Function, f)
	return f
}

// Location returns the profile location of fr, creating it on first use.
func (b *Builder) Location(fr *Frame) *profile.Location {
	m := b.mapping(&fr.Map)
	if b.Gran == Address {
		ak := addrKey{m, fr.IP, fr.Caller, fr.Own}
		if l := b.recentLocs.get(ak); l != nil {
			return l
		}
		if l := b.addrLocs[ak]; l != nil {
			b.recentLocs.put(ak, l)
			return l
		}
	}
	var o *object
	var pc uint64
	if m != nil {
		o = b.object(fr.Map.Path)
		pc = o.vaddr(fr.IP - fr.Map.Start + fr.Map.PgOff)
		if fr.Caller && pc > 0 {
			pc--
		}
	}
	b.frames = b.frames[:0]
	symNamed := false
	switch {
	case fr.Lines != nil:
		for _, ln := range fr.Lines {
			b.frames = append(b.frames, srcline.Frame{Func: ln.Name, Linkage: ln.SystemName, File: ln.File, Line: ln.Line, Inlined: true})
		}
		b.frames[len(b.frames)-1].Inlined = false
	case fr.NoLines:
	case o != nil && o.src != nil:
		b.frames = o.src.Frames(pc, b.frames)
		if fr.Sym != nil && len(b.frames) > 0 {
			// The function that holds the code is named by its
			// symbol, as perf report names it: GCC gives no
			// DW_AT_linkage_name to functions instantiated with a
			// lambda (DW_AT_name "__introsort_loop<...>", without
			// std::), and a clone's DWARF names the function it was
			// cloned from ("crunch" for "crunch.constprop.0").
			out := &b.frames[len(b.frames)-1]
			out.Func, out.Linkage = fr.Sym.Name, fr.Sym.Mangled
			symNamed = true
		}
	}
	k := locKey{m: m, addr: fr.IP, caller: fr.Caller}
	switch b.Gran {
	case Line, Function:
		k.addr, k.caller = 0, false
		if len(b.frames) > 0 {
			var sb strings.Builder
			for i, f := range b.frames {
				if b.Gran == Function && i < len(b.frames)-1 {
					continue
				}
				// The linkage name too: Rust's ub_checks macro
				// makes many functions named precondition_check
				// at one line of one file.
				sb.WriteString(f.Func)
				sb.WriteByte('\x00')
				sb.WriteString(f.Linkage)
				sb.WriteByte('\x00')
				sb.WriteString(f.File)
				if b.Gran == Line {
					fmt.Fprintf(&sb, ":%d\x00", f.Line)
				}
			}
			k.name = sb.String()
		} else if fr.Sym != nil {
			k.name = fr.Sym.Name
		} else {
			k.addr = fr.IP
		}
	}
	if b.Gran != Address {
		if l := b.locs[k]; l != nil {
			return l
		}
	}
	l := &profile.Location{ID: uint64(len(b.P.Location) + 1), Mapping: m, Address: fr.IP}
	switch {
	case len(b.frames) > 0:
		frames := b.frames
		if b.Gran == Function {
			frames = frames[len(frames)-1:]
		}
		for _, f := range frames {
			start := int64(0)
			if (!f.Inlined || b.Gran == Function) && fr.Lines == nil {
				if fn, ok := o.src.Func(pc); ok {
					start = int64(fn.Line)
				}
			}
			line := int64(f.Line)
			if b.Gran == Function {
				line = start
			}
			name, sysName := f.Func, ""
			if fr.Lines != nil || symNamed && !f.Inlined {
				// Named as the caller names them, or as the
				// symbol is.
				sysName = f.Linkage
			} else if f.Linkage != "" {
				// DW_AT_name is unqualified ("work", "operator[]"):
				// name the function from its symbol, as perf does.
				name, sysName = symbol.Demangle(f.Linkage), f.Linkage
			}
			l.Line = append(l.Line, profile.Line{Function: b.function(name, sysName, f.File, start), Line: line})
		}
	case fr.Sym != nil:
		f := b.symFuncs[fr.Sym]
		if f == nil {
			f = b.function(fr.Sym.Name, fr.Sym.Mangled, "", 0)
			b.symFuncs[fr.Sym] = f
		}
		l.Line = []profile.Line{{Function: f}}
	}
	if b.Gran == Address {
		b.addrLocs[addrKey{m, fr.IP, fr.Caller, fr.Own}] = l
	} else {
		b.locs[k] = l
	}
	b.P.Location = append(b.P.Location, l)
	return l
}

// Labels of a sample.
type Labels struct {
	PID, TID int64
	Comm     string
	CPU      int64  // -1: unknown
	Branch   string // branch samples: "predicted", "mispredicted" or ""
}

// Add adds values to the sample with the given stack (leaf first) and
// labels, merging samples with equal stacks and labels.
func (b *Builder) Add(stack []*profile.Location, lb Labels, values []int64) {
	k := b.key[:0]
	for _, l := range stack {
		k = binary.AppendUvarint(k, l.ID)
	}
	k = append(k, 0xff)
	k = binary.AppendVarint(k, lb.PID)
	k = binary.AppendVarint(k, lb.TID)
	k = binary.AppendVarint(k, lb.CPU)
	k = append(k, lb.Comm...)
	k = append(k, 0)
	k = append(k, lb.Branch...)
	b.key = k
	if s := b.samples[string(k)]; s != nil {
		for len(s.Value) < len(values) {
			s.Value = append(s.Value, 0)
		}
		for i, v := range values {
			s.Value[i] += v
		}
		return
	}
	b.P.Sample = append(b.P.Sample, b.newSample(stack, lb, values))
	b.samples[string(k)] = b.P.Sample[len(b.P.Sample)-1]
}

// labelMaps returns the (shared, never modified) label maps of lb.
func (b *Builder) labelMaps(lb Labels) labelMaps {
	lm, ok := b.labels[lb]
	if !ok {
		lm.num = map[string][]int64{"pid": {lb.PID}, "tid": {lb.TID}}
		if lb.CPU >= 0 {
			lm.num["cpu"] = []int64{lb.CPU}
		}
		if lb.Comm != "" || lb.Branch != "" {
			lm.str = map[string][]string{}
			if lb.Comm != "" {
				lm.str["comm"] = []string{lb.Comm}
			}
			if lb.Branch != "" {
				lm.str["branch"] = []string{lb.Branch}
			}
		}
		b.labels[lb] = lm
	}
	return lm
}

// newSample returns a sample (not yet in the profile) with copies of stack
// and values.
func (b *Builder) newSample(stack []*profile.Location, lb Labels, values []int64) *profile.Sample {
	return b.newSampleLabels(stack, b.labelMaps(lb), values)
}

// newSampleLabels is newSample with the label maps at hand. Samples with
// equal labels share their maps.
func (b *Builder) newSampleLabels(stack []*profile.Location, lm labelMaps, values []int64) *profile.Sample {
	if len(b.sampleSlab) == 0 {
		b.sampleSlab = make([]profile.Sample, 256)
	}
	smp := &b.sampleSlab[0]
	b.sampleSlab = b.sampleSlab[1:]
	*smp = profile.Sample{Location: b.locSlice(stack), Value: b.valSlice(values), NumLabel: lm.num, Label: lm.str}
	return smp
}

// locSlice and valSlice copy into slabs: one allocation for many samples.
// The copies have full capacity, so appending to them cannot overwrite a
// neighbour.
func (b *Builder) locSlice(src []*profile.Location) []*profile.Location {
	if len(src) > 1024 {
		return append([]*profile.Location(nil), src...)
	}
	if len(b.locSlab) < len(src) {
		b.locSlab = make([]*profile.Location, 16384)
	}
	d := b.locSlab[:len(src):len(src)]
	b.locSlab = b.locSlab[len(src):]
	copy(d, src)
	return d
}

func (b *Builder) valSlice(src []int64) []int64 {
	if len(b.valSlab) < len(src) {
		b.valSlab = make([]int64, 4096)
	}
	d := b.valSlab[:len(src):len(src)]
	b.valSlab = b.valSlab[len(src):]
	copy(d, src)
	return d
}

// padValues extends every sample's values to the number of sample types
// (event types found after a sample was added).
func (b *Builder) padValues() {
	for _, s := range b.P.Sample {
		for len(s.Value) < len(b.P.SampleType) {
			s.Value = append(s.Value, 0)
		}
	}
}

// mainFirst puts first the mapping with the most leaf weight in the first
// value, which pprof takes for the main binary, and renumbers mappings.
func (b *Builder) mainFirst() {
	if len(b.P.Mapping) < 2 {
		return
	}
	weight := map[*profile.Mapping]int64{}
	for _, s := range b.P.Sample {
		if len(s.Location) > 0 && s.Location[0].Mapping != nil && len(s.Value) > 0 {
			weight[s.Location[0].Mapping] += s.Value[0]
		}
	}
	best := 0
	for i, m := range b.P.Mapping {
		if weight[m] > weight[b.P.Mapping[best]] {
			best = i
		}
	}
	ms := b.P.Mapping
	m := ms[best]
	copy(ms[1:best+1], ms[:best])
	ms[0] = m
	for i, m := range ms {
		m.ID = uint64(i + 1)
	}
}

// Finish validates and returns the profile.
func (b *Builder) Finish() (*profile.Profile, error) {
	b.padValues()
	b.mainFirst()
	if err := b.P.CheckValid(); err != nil {
		return nil, fmt.Errorf("pprof: invalid profile: %w", err)
	}
	return b.P, nil
}
