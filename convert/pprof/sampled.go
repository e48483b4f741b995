package pprof

import (
	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/perfdata"
)

// Options configure a conversion.
type Options struct {
	Granularity Granularity
	// Filters, like perf report's --pid, --tid and --time (a string:
	// session.Options.Time); nil or empty means everything.
	PIDs, TIDs map[int32]bool
	Time       string
	// Workers is the number of PT decode workers (-j).
	Workers int
	Symfs   string
}

func (o *Options) session() session.Options {
	// PT recordings: the session delivers decoded blocks; no samples are
	// synthesised from the trace (a bare decode).
	return session.Options{Symfs: o.Symfs, Workers: o.Workers, Callchains: true,
		PIDs: o.PIDs, TIDs: o.TIDs, Time: o.Time, Itrace: bareItrace()}
}

// bareItrace is `--itrace=e`: the whole flow is decoded (and delivered as
// blocks) but only errors are synthesised.
func bareItrace() *sample.Itrace {
	it, err := sample.ParseItrace("e")
	if err != nil {
		panic(err) // a constant that parses
	}
	return it
}

// Convert reads the perf.data file at path and returns its profile: exact
// counts for an Intel PT recording, weighted samples otherwise.
func Convert(path string, o Options) (*profile.Profile, error) {
	s, err := session.Open(path, o.session())
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if isPT(s) {
		return fromPT(s, o)
	}
	return FromSamples(s, o)
}

func isPT(s *session.Session) bool {
	for _, a := range s.File().Attrs {
		if len(a.Name) >= 8 && a.Name[:8] == "intel_pt" {
			return true
		}
	}
	return s.HasAuxtrace()
}

// sampled collects weighted samples of any events.
type sampled struct {
	b      *Builder
	m      *machine.Machine
	events map[*sample.Event]int // the index of the event's first value
	stack  []*profile.Location
	vals   []int64
	lbr    *lbrReader // nil: no event has branch stacks
	lines  []FrameLine
	brIdx  int // the index of branches/count, -1 until needed
	// fr is the Frame that frame returns, valid until its next call:
	// one allocated per frame cost an eighth of pprof's time on a
	// tracepoint recording.
	fr Frame
}

// FromSamples converts the ordinary samples of a session (cpu-clock,
// cycles, ... with their call chains) the way perf_data_converter does: per
// event a `<event>_sample/count` value of 1 and an `<event>_event/count`
// value of the sample's period.
//
// Samples with a branch stack (LBR, perf record -b or -j) add a
// `branches/count` value: every entry of a stack is one sample of value 1
// with two locations, the branch target as the leaf and the branch source
// as its caller, so that pprof's graph draws each taken branch as an edge
// from source to target weighted by how often the LBRs saw it (what perf
// report --branch-stack counts). Its labels are the sample's, plus
// "branch" = "predicted" or "mispredicted" when the hardware says.
func FromSamples(s *session.Session, o Options) (*profile.Profile, error) {
	c := &sampled{b: NewBuilder(o.Granularity, nil), m: s.Machine(), events: map[*sample.Event]int{}, brIdx: -1}
	// The machine's addr2line files serve the profile's lines too, and
	// the inlined-frame entries of unwound stacks carry their positions.
	c.b.Sources = c.m.SourceFile
	c.m.Srclines = true
	c.lbr = newLBRReader(s.File())
	err := s.Run(session.Handler{Sample: c.sample})
	if err != nil {
		return nil, err
	}
	if c.lbr != nil {
		if err := c.lbr.err(); err != nil {
			return nil, err
		}
	}
	c.b.padValues()
	return c.b.Finish()
}

// values returns the value slice for a new sample, zeroed.
func (c *sampled) values() []int64 {
	need := len(c.b.P.SampleType)
	if cap(c.vals) < need {
		c.vals = make([]int64, need)
	}
	c.vals = c.vals[:need]
	clear(c.vals)
	return c.vals
}

func (c *sampled) sample(smp *sample.Sample) {
	ei, ok := c.events[smp.Ev]
	if !ok {
		ei = len(c.b.P.SampleType)
		c.events[smp.Ev] = ei
		c.b.P.SampleType = append(c.b.P.SampleType,
			&profile.ValueType{Type: smp.Ev.Name + "_sample", Unit: "count"},
			&profile.ValueType{Type: smp.Ev.Name + "_event", Unit: "count"})
	}
	t := c.m.FindThread(smp.TID)
	c.stack = c.stack[:0]
	chain := smp.Callchain
	if len(chain) == 0 || chain[0].IP != smp.IP {
		c.stack = append(c.stack, c.b.Location(c.frame(t, smp.IP, &smp.IPLoc, false)))
	}
	// DWARF-unwound user frames already hold the return address minus one
	// (perf's get_entries): their lines are looked up where they are.
	dwarf := smp.Ev.SampleType&dwarfRegsStack == dwarfRegsStack
	for i := 0; i < len(chain); i++ {
		f := &chain[i]
		if dwarf && !f.Loc.Kernel {
			// An unwound frame: one location for the entries perf made
			// of its address (append_inlines), their functions as its
			// lines, named as perf names them.
			j := i
			for j+1 < len(chain) && chain[j].More {
				j++
			}
			fr := c.frame(t, f.IP, &chain[j].Loc, false)
			fr.Lines = c.lines[:0]
			for k := i; k <= j; k++ {
				e := &chain[k]
				if e.Loc.Sym == nil {
					continue
				}
				ln := FrameLine{Name: e.Loc.Sym.Name, SystemName: e.Loc.Sym.Mangled}
				if e.HasSrcline {
					ln.File, ln.Line = e.SrcFile, e.SrcLine
					if ln.File == "??" {
						ln.File = ""
					}
				}
				fr.Lines = append(fr.Lines, ln)
			}
			if sym := smp.IPLoc.Sym; i == 0 && f.IP == smp.IP && sym != nil && len(fr.Lines) > 0 && fr.Lines[len(fr.Lines)-1].Name != sym.Name {
				// perf report charges the sample itself (its self
				// column) to the symbol of its address, which perf's
				// entries leave out where addr2line names the outermost
				// function otherwise (a clone's "crunch" for
				// "crunch.constprop.0", glibc's "__random" for "random",
				// a lambda's "_M_run" for
				// "std::thread::_State_impl<...>::_M_run", whose name
				// perf's new_inline_sym gave to the innermost entry, the
				// lambda's code): the sampled location ends with it.
				fr.Lines = append(fr.Lines, FrameLine{Name: sym.Name, SystemName: sym.Mangled})
				fr.Own = true
			}
			if len(fr.Lines) == 0 {
				fr.Lines, fr.NoLines = nil, true
			}
			c.lines = fr.Lines
			c.stack = append(c.stack, c.b.Location(fr))
			i = j
			continue
		}
		caller := len(c.stack) > 0 && !(dwarf && !f.Loc.Kernel)
		fr := c.frame(t, f.IP, &f.Loc, caller)
		if dwarf && fr.Map.Path != "" {
			// perf names the unwound frames (and their inlined
			// functions) by addr2line on the DSO's symbol file.
			if mp := t.Maps.Find(f.IP); mp != nil {
				if sf := mp.DSO.SymsFile(); sf != "" {
					fr.Map.Path = sf
				}
			}
		}
		c.stack = append(c.stack, c.b.Location(fr))
	}
	vals := c.values()
	vals[ei] = 1
	vals[ei+1] = int64(smp.Period)
	lb := Labels{PID: int64(smp.PID), TID: int64(smp.TID), Comm: smp.Comm, CPU: -1}
	if smp.Ev.SampleType&uint64(perfdata.SampleFormatCPU) != 0 {
		lb.CPU = int64(smp.CPU)
	}
	c.b.Add(c.stack, lb, vals)
	switch {
	case len(smp.BranchStack) > 0:
		for i := range smp.BranchStack {
			e := &smp.BranchStack[i]
			c.branch(t, e.From, e.To, e.Mispred, e.Predicted, lb)
		}
	case c.lbr != nil:
		// The session left the branch stack out: from the file.
		for _, e := range c.lbr.find(smp) {
			c.branch(t, e.From, e.To, e.Flags&branchMispred != 0, e.Flags&branchPredicted != 0, lb)
		}
	}
}

// dwarfRegsStack marks --call-graph dwarf events (REGS_USER and
// STACK_USER).
const dwarfRegsStack = uint64(perfdata.SampleFormatRegsUser | perfdata.SampleFormatStackUser)

// branch adds one entry of a branch stack.
func (c *sampled) branch(t *machine.Thread, from, to uint64, mispred, predicted bool, lb Labels) {
	if c.brIdx < 0 {
		c.brIdx = len(c.b.P.SampleType)
		c.b.P.SampleType = append(c.b.P.SampleType, &profile.ValueType{Type: "branches", Unit: "count"})
	}
	vals := c.values()
	vals[c.brIdx] = 1
	// A from address of 0 (perf's LBR filters) is unknown.
	c.stack = append(c.stack[:0], c.b.Location(c.branchFrame(t, to)))
	if from != 0 {
		c.stack = append(c.stack, c.b.Location(c.branchFrame(t, from)))
	}
	switch {
	case mispred:
		lb.Branch = "mispredicted"
	case predicted:
		lb.Branch = "predicted"
	}
	c.b.Add(c.stack, lb, vals)
}

// perf_branch_entry flag bits.
const (
	branchMispred   = 1 << 0
	branchPredicted = 1 << 1
)

// branchFrame resolves a branch address: user space through the thread's
// maps, kernel addresses (the top half) through the kernel map.
func (c *sampled) branchFrame(t *machine.Thread, ip uint64) *Frame {
	loc := c.m.Resolve(t, ip>>63 != 0, ip)
	return c.frame(t, ip, &loc, false)
}

// frame returns the Frame of ip (at loc) in t; it stays valid until the
// next call.
func (c *sampled) frame(t *machine.Thread, ip uint64, loc *sample.Loc, caller bool) *Frame {
	fr := &c.fr
	*fr = Frame{IP: ip, Sym: loc.Sym, Caller: caller}
	if !loc.HasMap {
		return fr
	}
	if !loc.Kernel && t != nil {
		if mp := t.Maps.Find(ip); mp != nil {
			fr.Map = MapInfo{Start: mp.Start, End: mp.End, PgOff: mp.PgOff, File: mp.DSO.Name,
				Path: mp.DSO.File(), BuildID: mp.DSO.BuildID}
			return fr
		}
	}
	// The kernel: an identity map from its start.
	fr.Map = MapInfo{Start: loc.MapStart, End: ^uint64(0), PgOff: loc.MapStart, File: loc.DSO}
	return fr
}
