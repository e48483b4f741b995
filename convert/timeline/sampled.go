package timeline

import (
	"encoding/binary"
	"math"
	"slices"
	"strconv"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/perfdata/tracing"
)

// sample takes a sample: one synthesised from PT (ptwrite, power events,
// CBR, transactions), or of a sampled event (an instant with its call
// stack; a tracepoint's instant has its fields as arguments).
func (c *converter) sample(s *sample.Sample) {
	if !c.baseKnown && s.Time != 0 {
		c.setBase(s.Time)
	}
	if s.Synth.Kind != sample.SynthNone || s.Ev != nil && s.Ev.Name == "transactions" {
		c.ptEvent(s)
		return
	}
	c.sum.Samples++
	t := c.thread(s.PID, s.TID, int32(s.CPU))
	a0 := int32(len(t.clk.args))
	var name, cat Str
	ev := s.Ev
	switch {
	case ev != nil && ev.Format != nil:
		cat = c.catTracepoint
		name = c.strs.Intern(ev.Name)
		c.fieldArgs(t, ev.Format, s.Raw)
		if ev.Format.Name == "sched_switch" && c.side != nil && !c.side.haveSwitch {
			c.schedSwitch(ev.Format, s)
		}
	default:
		cat = c.catSample
		if ev != nil {
			cat = c.strs.Intern(ev.Name)
		}
		name = c.nameUnknown
		if s.IPLoc.Sym != nil {
			name = c.strs.Intern(s.IPLoc.Sym.Name)
		}
		if s.IPLoc.HasMap && s.IPLoc.DSO != "" {
			t.clk.args = append(t.clk.args, Arg{Name: c.argDSO, Kind: ArgString, S: c.strs.Intern(s.IPLoc.DSO)})
		}
	}
	t.clk.args = append(t.clk.args, Arg{Name: c.argIP, Kind: ArgPointer, U: s.IP})
	if len(s.Callchain) > 0 {
		t.clk.args = append(t.clk.args, Arg{Name: c.strs.Intern("stack"), Kind: ArgString, S: c.stackStr(s.Callchain)})
	}
	a1 := min(int32(len(t.clk.args)), a0+MaxArgs)
	t.push(op{kind: opInstant, timed: true, t: s.Time, pos: t.cum, cat: cat, name: name, a0: a0, a1: a1})
}

// stackStr interns a call chain as text, a frame per line, the leaf
// first: "symbol (dso)".
func (c *converter) stackStr(cc []sample.Frame) Str {
	b := c.scratch[:0]
	for i := range cc {
		l := &cc[i].Loc
		if i > 0 {
			b = append(b, '\n')
		}
		if l.Sym != nil {
			b = append(b, l.Sym.Name...)
		} else {
			b = append(b, "0x"...)
			b = strconv.AppendUint(b, cc[i].IP, 16)
		}
		if l.DSO != "" {
			b = append(b, " ("...)
			b = append(b, l.DSO...)
			b = append(b, ')')
		}
	}
	c.scratch = b
	return c.strs.InternBytes(b)
}

// fieldArgs appends a tracepoint record's fields as arguments: numbers,
// and strings for char arrays.
func (c *converter) fieldArgs(t *thread, f *tracing.Format, raw []byte) {
	n := 0
	for _, fl := range f.Fields {
		if n == MaxArgs-2 {
			break
		}
		a := Arg{Name: c.strs.Intern(fl.Name)}
		off, size := fl.Offset, fl.Size
		if fl.Is(tracing.FieldDynamic) {
			if off+4 > len(raw) {
				continue
			}
			v := binary.LittleEndian.Uint32(raw[off:])
			loc, ln := int(v&0xffff), int(v>>16)
			if fl.Is(tracing.FieldRelative) {
				loc += off + size
			}
			off, size = loc, ln
		}
		if off < 0 || size < 0 || off+size > len(raw) {
			continue
		}
		b := raw[off : off+size]
		switch {
		case fl.Is(tracing.FieldString):
			if i := slices.Index(b, 0); i >= 0 {
				b = b[:i]
			}
			a.Kind, a.S = ArgString, c.strs.InternBytes(b)
		case fl.Is(tracing.FieldArray) || fl.Is(tracing.FieldDynamic):
			continue
		default:
			var v uint64
			switch size {
			case 1:
				v = uint64(b[0])
				if fl.Is(tracing.FieldSigned) {
					v = uint64(int64(int8(b[0])))
				}
			case 2:
				v = uint64(binary.LittleEndian.Uint16(b))
				if fl.Is(tracing.FieldSigned) {
					v = uint64(int64(int16(v)))
				}
			case 4:
				v = uint64(binary.LittleEndian.Uint32(b))
				if fl.Is(tracing.FieldSigned) {
					v = uint64(int64(int32(v)))
				}
			case 8:
				v = binary.LittleEndian.Uint64(b)
			default:
				continue
			}
			a.Kind, a.U = ArgUint, v
			if fl.Is(tracing.FieldSigned) {
				a.Kind = ArgInt
			} else if fl.Is(tracing.FieldPointer) {
				a.Kind = ArgPointer
			}
		}
		t.clk.args = append(t.clk.args, a)
		n++
	}
}

// schedSwitch feeds a sched:sched_switch sample to the state tracks.
func (c *converter) schedSwitch(f *tracing.Format, s *sample.Sample) {
	num := func(name string) (int64, bool) {
		fl := f.FieldByName(name)
		if fl == nil || fl.Offset+fl.Size > len(s.Raw) {
			return 0, false
		}
		b := s.Raw[fl.Offset : fl.Offset+fl.Size]
		switch fl.Size {
		case 4:
			return int64(int32(binary.LittleEndian.Uint32(b))), true
		case 8:
			return int64(binary.LittleEndian.Uint64(b)), true
		}
		return 0, false
	}
	str := func(name string) string {
		fl := f.FieldByName(name)
		if fl == nil || fl.Offset+fl.Size > len(s.Raw) {
			return ""
		}
		b := s.Raw[fl.Offset : fl.Offset+fl.Size]
		if i := slices.Index(b, 0); i >= 0 {
			b = b[:i]
		}
		return string(b)
	}
	prev, ok1 := num("prev_pid")
	next, ok2 := num("next_pid")
	pstate, ok3 := num("prev_state")
	if !ok1 || !ok2 || !ok3 {
		return
	}
	pid := func(tid int32) int32 {
		if th := c.m.FindThread(tid); th != nil && th.PID > 0 {
			return th.PID
		}
		return tid
	}
	if prev > 0 {
		c.side.set(pid(int32(prev)), int32(prev), str("prev_comm"), taskState(pstate), -1, s.Time)
	}
	if next > 0 {
		c.side.set(pid(int32(next)), int32(next), str("next_comm"), "Running", int32(s.CPU), s.Time)
	}
}

// taskState names a sched_switch prev_state (the kernel's TASK_* bits as
// the tracepoint's print fmt decodes them).
func taskState(v int64) string {
	switch {
	case v == 0 || v&0x100 != 0: // TASK_RUNNING, or preempted (TASK_REPORT_MAX)
		return "Runnable"
	case v&1 != 0:
		return "Sleeping"
	case v&2 != 0:
		return "Uninterruptible"
	case v&(4|8) != 0:
		return "Stopped"
	case v&(0x10|0x20) != 0:
		return "Dead"
	}
	return "Sleeping"
}

// ptEvent takes a PT event other than the flow: an instant (ptwrite,
// power events), a counter (CBR), a transaction's begin or end.
func (c *converter) ptEvent(s *sample.Sample) {
	if c.o.PIDs != nil && !c.o.PIDs[s.PID] || c.o.TIDs != nil && !c.o.TIDs[s.TID] {
		return
	}
	t := c.thread(s.PID, s.TID, int32(s.CPU))
	a0 := int32(len(t.clk.args))
	u := func(name string, v uint64) {
		t.clk.args = append(t.clk.args, Arg{Name: c.strs.Intern(name), Kind: ArgUint, U: v})
	}
	kind := opInstant
	var name Str
	cat := c.catPower
	sy := &s.Synth
	switch sy.Kind {
	case sample.SynthPSB:
		return
	case sample.SynthCBR:
		kind, name, cat = opCounter, c.strs.Intern("CPU frequency"), c.strs.Intern("cbr")
		t.clk.args = append(t.clk.args, Arg{Name: c.strs.Intern("MHz"), Kind: ArgFloat,
			U: math.Float64bits(float64(sy.Freq) / 1000)})
	case sample.SynthPTWrite:
		name, cat = c.strs.Intern("ptwrite"), c.strs.Intern("ptwrite")
		u("payload", sy.Payload)
		t.clk.args = append(t.clk.args, Arg{Name: c.argIP, Kind: ArgPointer, U: s.IP})
	case sample.SynthMWait:
		name = c.strs.Intern("mwait")
		u("hints", uint64(sy.Hints))
		u("extensions", uint64(sy.Extensions))
	case sample.SynthPwrE:
		name = c.strs.Intern("pwre")
		u("cstate", uint64(sy.CState))
		u("subcstate", uint64(sy.SubCState))
		u("hw", b2w(sy.HW))
	case sample.SynthExStop:
		name = c.strs.Intern("exstop")
		u("ip", b2w(sy.IP))
	case sample.SynthPwrX:
		name = c.strs.Intern("pwrx")
		u("deepest_cstate", uint64(sy.DeepestCState))
		u("last_cstate", uint64(sy.LastCState))
		u("wake_reason", uint64(sy.WakeReason))
	default:
		t.transaction(s)
		return
	}
	t.push(op{kind: kind, pos: t.cum, cat: cat, name: name, a0: a0, a1: int32(len(t.clk.args))})
}
