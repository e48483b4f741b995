package pprof

import (
	"cmp"
	"slices"

	"github.com/google/pprof/profile"

	"github.com/perfpt/perfpt/convert/machine"
	"github.com/perfpt/perfpt/convert/ptagg"
	"github.com/perfpt/perfpt/convert/session"
	"github.com/perfpt/perfpt/ptdecode/insn"
)

// maxCallLen is the longest x86 instruction: the code read past a block's
// last instruction.
const maxCallLen = 15

// insnAddrs returns the instruction addresses of the block [start, end] in
// mp, or nil when its code cannot be read.
func (c *codeReader) insnAddrs(mp *machine.Map, start, end uint64, dst []uint64) []uint64 {
	if mp == nil || mp.DSO == nil || end < start || end-start > 1<<16 {
		return nil
	}
	var code []byte
	if path := mp.DSO.File(); path != "" {
		code = c.read(path, mp.MapIP(start), int(end-start)+1, int(end-start)+maxCallLen)
	} else if mem := mp.DSO.Code(); mp.MapIP(start) < uint64(len(mem)) && mp.MapIP(end) < uint64(len(mem)) {
		// The vdso: its code is in the recording.
		code = mem[mp.MapIP(start):min(mp.MapIP(end)+maxCallLen, uint64(len(mem)))]
	}
	if code == nil {
		return nil
	}
	dst = dst[:0]
	for off := uint64(0); start+off <= end; {
		dst = append(dst, start+off)
		if start+off == end {
			break
		}
		var in insn.Insn
		if err := insn.Decode(&in, code[off:], insn.Mode64); err != nil || in.Size == 0 {
			return nil
		}
		off += uint64(in.Size)
	}
	if dst[len(dst)-1] != end {
		return nil
	}
	return dst
}

func fromPT(s *session.Session, o Options) (*profile.Profile, error) {
	a := newAgg(s, &o)
	if err := s.Run(session.Handler{Agg: a}); err != nil {
		return nil, err
	}
	return profileOf(s, a, o.Granularity)
}

// newAgg returns the aggregation of s's runs for o.
func newAgg(s *session.Session, o *Options) *ptagg.Agg {
	return ptagg.New(s.Machine(), ptagg.Options{PIDs: o.PIDs, TIDs: o.TIDs, Time: s.TimeRanges()})
}

// profileOf makes the profile of a, the aggregation of s's runs.
func profileOf(s *session.Session, a *ptagg.Agg, gran Granularity) (*profile.Profile, error) {
	p := &ptProfile{m: s.Machine(), hasCycles: s.HasCycles(), recs: a.Records(), nodes: a.Nodes(), cr: newCodeReader()}
	defer p.cr.close()
	return p.profile(gran)
}

// ptProfile makes a profile of the aggregated runs of a PT recording.
type ptProfile struct {
	m *machine.Machine
	// hasCycles: the recording has CYC packets (cycles/count).
	hasCycles bool
	recs      []ptagg.Record
	nodes     []ptagg.Node
	cr        *codeReader
	// callerLocs caches each node's caller locations (by node id) while
	// a profile is built.
	callerLocs [][]*profile.Location
	callerOK   []bool
}

// blockKey identifies the code of a block; records of the same block under
// different call stacks share its leaf locations.
type blockKey struct {
	mp         *machine.Map
	start, end uint64
}

// profile turns the aggregated blocks into samples: one per call-tree node,
// CPU and leaf location.
func (a *ptProfile) profile(gran Granularity) (*profile.Profile, error) {
	types := []*profile.ValueType{{Type: "instructions", Unit: "count"}, {Type: "branches", Unit: "count"}}
	// The records grouped by (node, CPU), in a fixed order: the samples
	// of a group are made together, and a leaf location met twice in a
	// group (overlapping blocks, or one line at line granularity) adds to
	// its sample, found through stamp and sidx (by location ID) instead
	// of a map.
	recs := make([]int32, 0, len(a.recs))
	hasTime := false
	for i := range a.recs {
		recs = append(recs, int32(i))
		hasTime = hasTime || a.recs[i].Nanos != 0
	}
	// The value indexes of time and cycles, -1 when absent.
	timeIdx, cycIdx := -1, -1
	if hasTime {
		timeIdx = len(types)
		types = append(types, &profile.ValueType{Type: "time", Unit: "nanoseconds"})
	}
	if a.hasCycles {
		cycIdx = len(types)
		types = append(types, &profile.ValueType{Type: "cycles", Unit: "count"})
	}
	b := NewBuilder(gran, types)
	slices.SortFunc(recs, func(i, j int32) int {
		x, y := &a.recs[i], &a.recs[j]
		if c := cmp.Compare(x.Node, y.Node); c != 0 {
			return c
		}
		if c := cmp.Compare(x.CPU, y.CPU); c != 0 {
			return c
		}
		if c := cmp.Compare(x.Start, y.Start); c != 0 {
			return c
		}
		return cmp.Compare(x.End, y.End)
	})
	a.callerLocs = make([][]*profile.Location, len(a.nodes))
	a.callerOK = make([]bool, len(a.nodes))
	blocks := make(map[blockKey][]*profile.Location, len(recs))
	// leafLocs caches the leaf locations of line and function
	// granularity (their DWARF lookups) by address.
	leafLocs := map[leafKey]*profile.Location{}
	var stamp, sidx []int32
	group := int32(0)
	var (
		prevNode, prevCPU int32
		th                *machine.Thread
		lm                labelMaps
		addrs             []uint64
	)
	stack := make([]*profile.Location, 1, 64)
	vals := make([]int64, len(types))
	b.P.Sample = make([]*profile.Sample, 0, len(recs))
	for _, ri := range recs {
		r := &a.recs[ri]
		n, cpu := r.Node, r.CPU
		if n != prevNode || cpu != prevCPU || group == 0 {
			group++
			prevNode, prevCPU = n, cpu
			t := &a.nodes[n]
			th = a.m.FindThread(t.TID)
			lb := Labels{PID: int64(t.PID), TID: int64(t.TID), CPU: int64(cpu)}
			if th != nil {
				lb.Comm = th.Comm
			}
			lm = b.labelMaps(lb)
			stack = append(stack[:1], a.callers(b, n)...)
		}
		mp := a.m.FindMap(th, r.Start)
		bk := blockKey{mp, r.Start, r.End}
		locs, ok := blocks[bk]
		if !ok {
			addrs = a.cr.insnAddrs(mp, r.Start, r.End, addrs)
			if len(addrs) == 0 {
				// The code cannot be read: the whole count on the
				// block's start.
				addrs = append(addrs[:0], r.Start)
			}
			locs = make([]*profile.Location, len(addrs))
			for i, ip := range addrs {
				if gran == Address {
					// The Builder's own address map is the cache.
					fr := a.frameIn(mp, ip)
					locs[i] = b.Location(&fr)
					continue
				}
				lk := leafKey{mp, ip}
				loc := leafLocs[lk]
				if loc == nil {
					fr := a.frameIn(mp, ip)
					loc = b.Location(&fr)
					leafLocs[lk] = loc
				}
				locs[i] = loc
			}
			blocks[bk] = locs
		}
		perExec := uint64(len(locs))
		total := r.Insns
		for i, loc := range locs {
			clear(vals)
			share := total / perExec
			if uint64(i) < total%perExec {
				share++
			}
			vals[0] = int64(share)
			if i == len(locs)-1 {
				// The block's branch, and the time and cycles
				// up to it, go to its last instruction.
				vals[1] = int64(r.Branches)
				if timeIdx >= 0 {
					vals[timeIdx] = int64(r.Nanos)
				}
				if cycIdx >= 0 {
					vals[cycIdx] = int64(r.Cycles)
				}
			}
			id := loc.ID
			if id >= uint64(len(stamp)) {
				stamp = slices.Grow(stamp, int(id)+1-len(stamp))[:id+1]
				sidx = slices.Grow(sidx, int(id)+1-len(sidx))[:id+1]
			}
			if stamp[id] == group {
				smp := b.P.Sample[sidx[id]]
				for j, v := range vals {
					smp.Value[j] += v
				}
				continue
			}
			stamp[id], sidx[id] = group, int32(len(b.P.Sample))
			stack[0] = loc
			b.P.Sample = append(b.P.Sample, b.newSampleLabels(stack, lm, vals))
		}
	}
	b.P.DefaultSampleType = "instructions"
	return b.Finish()
}

type leafKey struct {
	mp *machine.Map
	ip uint64
}

// callers returns the caller locations of node n, innermost first.
func (a *ptProfile) callers(b *Builder, n int32) []*profile.Location {
	nd := &a.nodes[n]
	if nd.Parent < 0 {
		return nil
	}
	if a.callerOK[n] {
		return a.callerLocs[n]
	}
	fr := a.frame(nd.TID, nd.Site)
	up := a.callers(b, nd.Parent)
	l := make([]*profile.Location, 0, len(up)+1)
	l = append(append(l, b.Location(&fr)), up...)
	a.callerLocs[n], a.callerOK[n] = l, true
	return l
}

// frame resolves a caller frame at site of thread tid.
func (a *ptProfile) frame(tid int32, site uint64) Frame {
	mp := a.m.FindMap(a.m.FindThread(tid), site)
	fr := a.frameIn(mp, site)
	// The site is the call instruction itself: no ip-1 adjustment.
	fr.Caller = false
	return fr
}

func (a *ptProfile) frameIn(mp *machine.Map, ip uint64) Frame {
	fr := Frame{IP: ip}
	if mp == nil || mp.DSO == nil {
		return fr
	}
	fr.Map = MapInfo{Start: mp.Start, End: mp.End, PgOff: mp.PgOff, File: mp.DSO.Name, Path: mp.DSO.File(), BuildID: mp.DSO.BuildID}
	fr.Sym = mp.DSO.Symbols().Find(mp.MapIP(ip))
	return fr
}
