package perfdata

// fstr appends a perf header string: u32 length (NUL included, padded to
// 64) and the padded bytes (perf's do_write_string).
func (e *enc) fstr(s string) {
	n := (len(s) + 1 + 63) &^ 63
	e.u32(uint32(n))
	e.b = append(e.b, s...)
	e.zeros(n - len(s))
}

// encodeFeature appends the body of one feature section.
func (fs *Features) encode(feat Feature, e *enc) {
	switch feat {
	case FeatBuildID:
		for _, b := range fs.BuildIDs {
			id := b.BuildID
			if len(id) > 20 {
				id = id[:20]
			}
			n := (len(b.Filename) + 1 + 63) &^ 63
			e.u32(uint32(RecordTypeHeaderBuildID))
			e.u16(b.Misc | 1<<15)
			e.u16(uint16(36 + n))
			e.i32(b.PID)
			e.raw(id)
			e.zeros(20 - len(id))
			e.b = append(e.b, byte(len(id)), 0, 0, 0)
			e.b = append(e.b, b.Filename...)
			e.zeros(n - len(b.Filename))
		}
	case FeatHostname:
		e.fstr(fs.Hostname)
	case FeatOSRelease:
		e.fstr(fs.OSRelease)
	case FeatVersion:
		e.fstr(fs.Version)
	case FeatArch:
		e.fstr(fs.Arch)
	case FeatCPUDesc:
		e.fstr(fs.CPUDesc)
	case FeatCPUID:
		e.fstr(fs.CPUID)
	case FeatNrCPUs:
		e.u32(fs.NrCPUs.Available)
		e.u32(fs.NrCPUs.Online)
	case FeatTotalMem:
		e.u64(fs.TotalMem)
	case FeatCmdline:
		e.u32(uint32(len(fs.Cmdline)))
		for _, s := range fs.Cmdline {
			e.fstr(s)
		}
	case FeatEventDesc:
		e.u32(uint32(len(fs.EventDesc)))
		e.u32(AttrSize)
		for i := range fs.EventDesc {
			d := &fs.EventDesc[i]
			e.b = appendAttr(e.b, &d.Attr)
			e.u32(uint32(len(d.IDs)))
			e.fstr(d.Name)
			for _, id := range d.IDs {
				e.u64(id)
			}
		}
	case FeatCPUTopology:
		t := &fs.CPUTopology
		e.u32(uint32(len(t.CoreSiblings)))
		for _, s := range t.CoreSiblings {
			e.fstr(s)
		}
		e.u32(uint32(len(t.ThreadSiblings)))
		for _, s := range t.ThreadSiblings {
			e.fstr(s)
		}
		if len(t.CPUs) > 0 {
			for _, c := range t.CPUs {
				e.u32(c.CoreID)
				e.u32(c.SocketID)
			}
			e.u32(uint32(len(t.DieSiblings)))
			for _, s := range t.DieSiblings {
				e.fstr(s)
			}
			for _, d := range t.DieIDs {
				e.u32(d)
			}
		}
	case FeatNUMATopology:
		e.u32(uint32(len(fs.NUMATopology)))
		for _, n := range fs.NUMATopology {
			e.u32(n.Node)
			e.u64(n.MemTotal)
			e.u64(n.MemFree)
			e.fstr(n.CPUs)
		}
	case FeatPMUMappings:
		e.u32(uint32(len(fs.PMUMappings)))
		for _, m := range fs.PMUMappings {
			e.u32(m.Type)
			e.fstr(m.Name)
		}
	case FeatGroupDesc:
		e.u32(uint32(len(fs.GroupDesc)))
		for _, g := range fs.GroupDesc {
			e.fstr(g.Name)
			e.u32(g.Leader)
			e.u32(g.NrMembers)
		}
	case FeatAuxtrace:
		e.u64(uint64(len(fs.AuxtraceIndex)))
		for _, x := range fs.AuxtraceIndex {
			e.u64(uint64(x.Offset))
			e.u64(uint64(x.Size))
		}
	case FeatCache:
		e.u32(1)
		e.u32(uint32(len(fs.Cache)))
		for _, c := range fs.Cache {
			e.u32(c.Level)
			e.u32(c.Line)
			e.u32(c.Sets)
			e.u32(c.Ways)
			e.fstr(c.Type)
			e.fstr(c.Size)
			e.fstr(c.Map)
		}
	case FeatSampleTime:
		e.u64(fs.SampleTime[0])
		e.u64(fs.SampleTime[1])
	case FeatMemTopology:
		m := &fs.MemTopology
		e.u64(m.Version)
		e.u64(m.BlockSize)
		e.u64(uint64(len(m.Nodes)))
		for _, n := range m.Nodes {
			e.u64(n.Node)
			e.u64(n.Size)
			e.u64(uint64(len(n.Bitmap)) * 64)
			for _, w := range n.Bitmap {
				e.u64(w)
			}
		}
	case FeatClockID:
		e.u64(fs.ClockID)
	case FeatDirFormat:
		e.u64(fs.DirFormat)
	case FeatCompressed:
		c := fs.Compressed
		e.u32(c.Version)
		e.u32(c.Type)
		e.u32(c.Level)
		e.u32(c.Ratio)
		e.u32(c.MmapLen)
	case FeatCPUPMUCaps:
		e.u32(uint32(len(fs.CPUPMUCaps)))
		for _, c := range fs.CPUPMUCaps {
			e.fstr(c.Name)
			e.fstr(c.Value)
		}
	case FeatClockData:
		c := fs.ClockData
		e.u32(c.Version)
		e.u32(c.ClockID)
		e.u64(c.WallNS)
		e.u64(c.ClockNS)
	case FeatHybridTopology:
		e.u32(uint32(len(fs.HybridTopology)))
		for _, h := range fs.HybridTopology {
			e.fstr(h.PMU)
			e.fstr(h.CPUs)
		}
	case FeatPMUCaps:
		e.u32(uint32(len(fs.PMUCaps)))
		for _, p := range fs.PMUCaps {
			e.u32(uint32(len(p.Caps)))
			for _, c := range p.Caps {
				e.fstr(c.Name)
				e.fstr(c.Value)
			}
			e.fstr(p.PMU)
		}
	default:
		e.raw(fs.Raw[feat])
	}
}
