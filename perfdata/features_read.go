package perfdata

import "strconv"

// Caps on feature section counts before allocating.
const (
	maxFeatEntries = 1 << 20
	maxFeatString  = 1 << 20
)

// FeatureData returns the raw bytes of a feature section: from the file
// (file mode) or from a HEADER_FEATURE record already read (pipe mode).
func (f *File) FeatureData(feat Feature) ([]byte, bool) {
	if b, ok := f.featRaw[feat]; ok {
		return b, true
	}
	s, ok := f.FeatureSections[feat]
	if !ok || f.Pipe {
		return nil, false
	}
	b, err := f.readAt(s.Offset, s.Size, "feature "+feat.String())
	if err != nil {
		return nil, false
	}
	return b, true
}

// Features decodes the header feature sections (file mode) or those seen
// in HEADER_FEATURE records so far (pipe mode: iterate the records first).
// Unknown sections are kept in Raw. A section that cannot be decoded is
// skipped as perf skips it: it and the sections after it are listed in
// Lost with the reason in LostErr (perf_header__process_sections stops
// there, and perf goes on without them), and Features returns no error.
func (f *File) Features() (*Features, error) {
	if f.feats != nil {
		return f.feats, nil
	}
	fs := &Features{Raw: map[Feature][]byte{}}
	var list []Feature
	if f.Pipe {
		for feat := range f.featRaw {
			list = append(list, feat)
		}
	} else {
		for feat := range f.FeatureSections {
			list = append(list, feat)
		}
	}
	sortFeatures(list)
	for i, feat := range list {
		err := f.decodeFeature(fs, feat)
		switch {
		case err == nil:
			fs.Set(feat)
			continue
		case feat == FeatBuildID || feat == FeatEventDesc:
			// process_build_id keeps the entries read before a bad
			// one and goes on; process_event_desc goes on without
			// names. Neither stops the others.
			if fs.LostErr == nil {
				fs.LostErr = err
			}
			fs.Lost = append(fs.Lost, feat)
			continue
		case f.Pipe:
			// perf_event__process_feature: a HEADER_FEATURE record
			// stands alone; one that fails loses only itself.
			fs.Lost = append(fs.Lost, feat)
			if fs.LostErr == nil {
				fs.LostErr = err
			}
			continue
		}
		fs.Lost, fs.LostErr = append(fs.Lost, list[i:]...), err
		break
	}
	if f.featTableErr != nil {
		fs.Lost, fs.LostErr, fs.NoTable = f.featUnread, f.featTableErr, true
	}
	if fs.lost(FeatEventDesc) && len(fs.EventDesc) == 0 {
		// print_event_desc reads the section itself: perf prints
		// it even when its processing was skipped.
		if b, ok := f.FeatureData(FeatEventDesc); ok {
			var d Features
			if d.decode(FeatEventDesc, b, f.FeatureSections[FeatEventDesc].Offset) == nil {
				fs.EventDesc = d.EventDesc
			}
		}
	}
	f.feats = fs
	return fs, nil
}

// lost reports whether feat is in fs.Lost.
func (fs *Features) lost(feat Feature) bool {
	for _, l := range fs.Lost {
		if l == feat {
			return true
		}
	}
	return false
}

// IsLost reports whether the header lists feat but its section was not
// decoded (see Features.Lost).
func (fs *Features) IsLost(feat Feature) bool { return fs.lost(feat) }

// unboundedFeature reports whether perf reads feat's section with reads
// that are not limited to the section's size (do_read_u32, do_read_string
// on the file: they run on into the next section), so that a section
// too short for its counts still decodes as perf decodes it.
func unboundedFeature(feat Feature) bool {
	switch feat {
	case FeatBuildID, FeatEventDesc, FeatAuxtrace, FeatTracingData, FeatBranchStack, FeatStat:
		return false
	}
	return feat < MaxFeatures
}

// decodeFeature decodes one section into fs. A section that fails leaves
// fs's field as it was, but for build ids: the entries before the bad one
// are kept, as perf_header__read_build_ids keeps them.
func (f *File) decodeFeature(fs *Features, feat Feature) error {
	b, ok := f.FeatureData(feat)
	base := int64(0)
	s, inFile := f.FeatureSections[feat]
	if inFile && !f.Pipe {
		base = s.Offset
	}
	if !ok {
		return errAt(s.Offset, "feature "+feat.String()+" section", ErrTruncated)
	}
	tmp := *fs
	err := tmp.decode(feat, b, base)
	if err != nil && inFile && !f.Pipe && unboundedFeature(feat) && s.Offset+s.Size < f.size {
		// Read as perf reads it, from the section's offset on.
		if rest, err2 := f.readAt(s.Offset, f.size-s.Offset, "feature "+feat.String()); err2 == nil {
			tmp = *fs
			if tmp.decode(feat, rest, base) == nil {
				err = nil
			}
		}
	}
	if err == nil || feat == FeatBuildID {
		*fs = tmp
	}
	return err
}

func sortFeatures(l []Feature) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && l[j] < l[j-1]; j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}

// fstr reads a perf header string: u32 length (padded, with NUL) then
// the bytes.
func (c *cursor) fstr() string {
	n := c.u32()
	if n > maxFeatString {
		c.fail(int(n))
		return ""
	}
	return c.cstr(uint64(n))
}

// count reads a u32 count and checks that at least min bytes per entry
// remain.
func (c *cursor) count(min int) int {
	n := c.u32()
	if uint64(n) > maxFeatEntries || (min > 0 && uint64(n) > uint64(c.left()/min)) {
		c.fail(int(n))
		return 0
	}
	return int(n)
}

func (fs *Features) decode(feat Feature, b []byte, base int64) error {
	c := cursor{b: b, base: base, what: "feature " + feat.String()}
	switch feat {
	case FeatBuildID:
		fs.BuildIDs = fs.BuildIDs[:0]
		for c.left() > 0 && c.err == nil {
			start := c.off
			c.skip(4) // type
			misc := c.u16()
			size := int(c.u16())
			if size < 36 || size > c.left()+8 {
				return errAt(base+int64(start), "build id entry size", ErrBadSize)
			}
			pid := c.i32()
			id := c.bytes(24)
			if c.err != nil {
				break
			}
			n := 20
			if misc&(1<<15) != 0 && id[20] <= 20 {
				n = int(id[20])
			}
			name := c.cstr(uint64(size - 36))
			fs.BuildIDs = append(fs.BuildIDs, BuildID{Misc: misc &^ (1 << 15), PID: pid, BuildID: append([]byte(nil), id[:n]...), Filename: name})
		}
	case FeatHostname:
		fs.Hostname = c.fstr()
	case FeatOSRelease:
		fs.OSRelease = c.fstr()
	case FeatVersion:
		fs.Version = c.fstr()
	case FeatArch:
		fs.Arch = c.fstr()
	case FeatCPUDesc:
		fs.CPUDesc = c.fstr()
	case FeatCPUID:
		fs.CPUID = c.fstr()
	case FeatNrCPUs:
		fs.NrCPUs.Available = c.u32()
		fs.NrCPUs.Online = c.u32()
	case FeatTotalMem:
		fs.TotalMem = c.u64()
	case FeatCmdline:
		n := c.count(4)
		fs.Cmdline = make([]string, 0, n)
		for i := 0; i < n; i++ {
			fs.Cmdline = append(fs.Cmdline, c.fstr())
		}
	case FeatEventDesc:
		n := c.count(0)
		sz := c.u32()
		if sz < attrSize0 || sz > 4096 {
			if n == 0 {
				break
			}
			return errAt(base+4, "event_desc attr size", ErrBadSize)
		}
		if uint64(n) > uint64(c.left())/uint64(sz) {
			c.fail(n)
			break
		}
		fs.EventDesc = make([]EventDesc, 0, n)
		for i := 0; i < n && c.err == nil; i++ {
			var e EventDesc
			e.Attr = decodeAttr(c.bytes(uint64(sz)))
			nid := c.count(0)
			e.Name = c.fstr()
			if uint64(nid) > uint64(c.left()/8) {
				c.fail(nid * 8)
				break
			}
			e.IDs = c.u64s(nil, uint64(nid))
			fs.EventDesc = append(fs.EventDesc, e)
		}
	case FeatCPUTopology:
		t := &fs.CPUTopology
		*t = CPUTopology{}
		n := c.count(4)
		for i := 0; i < n; i++ {
			t.CoreSiblings = append(t.CoreSiblings, c.fstr())
		}
		n = c.count(4)
		for i := 0; i < n; i++ {
			t.ThreadSiblings = append(t.ThreadSiblings, c.fstr())
		}
		// Per-CPU core/socket ids follow when the section has them (one
		// per available CPU, known from nrcpus; take what is there).
		ncpu := int(fs.NrCPUs.Available)
		if ncpu == 0 || ncpu*8 > c.left() {
			ncpu = 0
		}
		for i := 0; i < ncpu; i++ {
			t.CPUs = append(t.CPUs, CPUTopologyEntry{CoreID: c.u32(), SocketID: c.u32()})
		}
		if ncpu > 0 && c.left() >= 4 {
			n = c.count(4)
			for i := 0; i < n; i++ {
				t.DieSiblings = append(t.DieSiblings, c.fstr())
			}
			if c.left() >= 4*ncpu {
				for i := 0; i < ncpu; i++ {
					t.DieIDs = append(t.DieIDs, c.u32())
				}
			}
		}
		// Anything else is ignored, as perf does.
		c.off = len(c.b)
	case FeatNUMATopology:
		n := c.count(24)
		fs.NUMATopology = make([]NUMANode, 0, n)
		for i := 0; i < n; i++ {
			fs.NUMATopology = append(fs.NUMATopology, NUMANode{Node: c.u32(), MemTotal: c.u64(), MemFree: c.u64(), CPUs: c.fstr()})
		}
	case FeatPMUMappings:
		n := c.count(8)
		fs.PMUMappings = make([]PMUMapping, 0, n)
		for i := 0; i < n; i++ {
			fs.PMUMappings = append(fs.PMUMappings, PMUMapping{Type: c.u32(), Name: c.fstr()})
		}
	case FeatGroupDesc:
		n := c.count(12)
		fs.GroupDesc = make([]GroupDesc, 0, n)
		for i := 0; i < n; i++ {
			fs.GroupDesc = append(fs.GroupDesc, GroupDesc{Name: c.fstr(), Leader: c.u32(), NrMembers: c.u32()})
		}
	case FeatAuxtrace:
		n := c.u64()
		if n > uint64(c.left()/16) {
			c.fail(16)
			break
		}
		fs.AuxtraceIndex = make([]AuxtraceIndexEntry, 0, n)
		for i := uint64(0); i < n; i++ {
			fs.AuxtraceIndex = append(fs.AuxtraceIndex, AuxtraceIndexEntry{Offset: int64(c.u64()), Size: int64(c.u64())})
		}
	case FeatCache:
		ver := c.u32()
		if ver != 1 {
			return errAt(base, "cache feature version", ErrBadValue)
		}
		n := c.count(28)
		fs.Cache = make([]CacheLevel, 0, n)
		for i := 0; i < n; i++ {
			fs.Cache = append(fs.Cache, CacheLevel{Level: c.u32(), Line: c.u32(), Sets: c.u32(), Ways: c.u32(), Type: c.fstr(), Size: c.fstr(), Map: c.fstr()})
		}
	case FeatSampleTime:
		fs.SampleTime = [2]uint64{c.u64(), c.u64()}
	case FeatMemTopology:
		m := &fs.MemTopology
		m.Version, m.BlockSize = c.u64(), c.u64()
		n := c.u64()
		if n > uint64(c.left()/24) {
			c.fail(24)
			break
		}
		m.Nodes = make([]MemNode, 0, n)
		for i := uint64(0); i < n; i++ {
			node := MemNode{Node: c.u64(), Size: c.u64()}
			nbits := c.u64()
			words := (nbits + 63) / 64
			node.Bitmap = c.u64s(nil, words)
			m.Nodes = append(m.Nodes, node)
		}
	case FeatClockID:
		fs.ClockID = c.u64()
	case FeatDirFormat:
		fs.DirFormat = c.u64()
	case FeatCompressed:
		fs.Compressed = Compression{Version: c.u32(), Type: c.u32(), Level: c.u32(), Ratio: c.u32(), MmapLen: c.u32()}
	case FeatCPUPMUCaps:
		n := c.count(8)
		fs.CPUPMUCaps = make([]PMUCap, 0, n)
		for i := 0; i < n; i++ {
			fs.CPUPMUCaps = append(fs.CPUPMUCaps, PMUCap{Name: c.fstr(), Value: c.fstr()})
		}
	case FeatClockData:
		fs.ClockData = ClockData{Version: c.u32(), ClockID: c.u32(), WallNS: c.u64(), ClockNS: c.u64()}
	case FeatHybridTopology:
		n := c.count(8)
		fs.HybridTopology = make([]HybridNode, 0, n)
		for i := 0; i < n; i++ {
			fs.HybridTopology = append(fs.HybridTopology, HybridNode{PMU: c.fstr(), CPUs: c.fstr()})
		}
	case FeatPMUCaps:
		n := c.count(4)
		fs.PMUCaps = make([]PMUCaps, 0, n)
		for i := 0; i < n && c.err == nil; i++ {
			var p PMUCaps
			nc := c.count(8)
			for j := 0; j < nc; j++ {
				p.Caps = append(p.Caps, PMUCap{Name: c.fstr(), Value: c.fstr()})
			}
			p.PMU = c.fstr()
			fs.PMUCaps = append(fs.PMUCaps, p)
		}
	case FeatBPFProgInfo:
		// Kept raw (see BPFProgs), but read as process_bpf_prog_info
		// reads it: a count, then each program's info and data
		// sizes, the bitmask of its array fields (u64), its info and
		// its data; the sizes must fit (an info larger than perf
		// 6.1's struct bpf_prog_info is refused).
		n := c.u32()
		for i := uint32(0); i < n && c.err == nil; i++ {
			infoLen, dataLen := c.u32(), c.u32()
			if c.err == nil && infoLen > bpfProgInfoSize {
				return errAt(base+int64(c.off), "feature bpf_prog_info: info of "+itoa(int(infoLen))+" bytes", ErrBadSize)
			}
			c.skip(8)
			c.skip(uint64(infoLen))
			c.skip(uint64(dataLen))
		}
		if c.err == nil {
			fs.Raw[feat] = append([]byte{}, b[:c.off]...)
		}
	case FeatBPFBTF:
		// process_bpf_btf: a count, then each id, size and data.
		n := c.u32()
		for i := uint32(0); i < n && c.err == nil; i++ {
			c.skip(4)
			c.skip(uint64(c.u32()))
		}
		if c.err == nil {
			fs.Raw[feat] = append([]byte{}, b[:c.off]...)
		}
	default:
		// tracing_data, branch_stack, stat and unknown sections are
		// kept raw.
		fs.Raw[feat] = append([]byte{}, b...)
		return nil
	}
	return c.err
}

// bpfProgInfoSize is sizeof(struct bpf_prog_info) in perf 6.1's uapi.
const bpfProgInfoSize = 232

func itoa(n int) string { return strconv.Itoa(n) }

// nameAttrs names the attrs from HEADER_EVENT_DESC (matched by id, else by
// position).
func (f *File) nameAttrs() {
	// process_event_desc names the events only when the header's
	// processing reaches it (see Features.Lost).
	fs, err := f.Features()
	if err != nil || !fs.Has(FeatEventDesc) {
		return
	}
	f.nameAttrsWith(fs.EventDesc)
}

// nameAttrsFrom names the attrs from a pipe's HEADER_FEATURE EVENT_DESC
// record as it goes by (process_event_desc).
func (f *File) nameAttrsFrom(b []byte) {
	var fs Features
	if fs.decode(FeatEventDesc, b, 0) == nil {
		f.nameAttrsWith(fs.EventDesc)
	}
}

// nameAttrsWith mirrors evlist__set_event_name: each description names
// the attr of its id (else of its index) that has no name yet.
func (f *File) nameAttrsWith(desc []EventDesc) {
	for i, e := range desc {
		var a *Attr
		if len(e.IDs) > 0 {
			a = f.idToAttr[e.IDs[0]]
		}
		if a == nil && i < len(f.Attrs) {
			a = f.Attrs[i]
		}
		if a != nil && !a.Named {
			a.Name, a.Named = e.Name, true
		}
	}
}
