package record

import (
	"bufio"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record/flow"
	"github.com/perfpt/perfpt/record/ptrace"
)

// Trigger is a snapshot trigger (perfpt record --trigger SYMBOL[:N]): the
// N-th execution of the first instruction of a function of the command's
// executable.
type Trigger struct {
	Symbol string
	N      int
	// Path is the executable, Value the function's address in it; PIE
	// says its addresses are relative to where it is loaded.
	Path  string
	Value uint64
	PIE   bool
}

// ErrTriggerNotHit is returned when the command ended before the trigger.
var ErrTriggerNotHit = errors.New("the trigger was not hit")

// FindTrigger parses spec (SYMBOL or SYMBOL:N) and finds the function in
// the executable prog (as the shell finds it), before anything runs.
func FindTrigger(spec, prog string) (*Trigger, error) {
	name, count, hasN := strings.Cut(spec, ":")
	tr := &Trigger{Symbol: name, N: 1}
	if hasN {
		n, err := strconv.Atoi(count)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("--trigger %q: the count after ':' must be a positive number", spec)
		}
		tr.N = n
	}
	if name == "" {
		return nil, fmt.Errorf("--trigger %q: no symbol", spec)
	}
	path, err := exec.LookPath(prog)
	if err != nil {
		return nil, fmt.Errorf("--trigger %s: cannot find %s: %w", name, prog, err)
	}
	if path, err = filepath.Abs(path); err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--trigger %s: %s: %w", name, path, err)
	}
	defer f.Close()
	tr.Path, tr.PIE = path, f.Type == elf.ET_DYN
	var vaddr0 uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			vaddr0 = p.Vaddr &^ 0xfff
			break
		}
	}
	for _, get := range []func() ([]elf.Symbol, error){f.Symbols, f.DynamicSymbols} {
		syms, _ := get()
		for _, s := range syms {
			if s.Name == name && elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
				tr.Value = s.Value
				if tr.PIE {
					tr.Value -= vaddr0
				}
				return tr, nil
			}
		}
	}
	return nil, fmt.Errorf("--trigger %s: no function %s in %s (its symbol tables)", name, name, path)
}

// loadBase finds where path is mapped in process pid: the start of its
// mapping at file offset 0.
func loadBase(pid int, path string) (uint64, bool) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 6 || fs[2] != "00000000" || fs[5] != path {
			continue
		}
		lo, _, _ := strings.Cut(fs[0], "-")
		v, err := strconv.ParseUint(lo, 16, 64)
		return v, err == nil
	}
	return 0, false
}

// EmulateTrigger records argv as Emulate does until the trigger is hit:
// then the command is stopped (killed), and the recording keeps the trace
// up to the trigger, of which each AUX stream keeps its last keep bytes
// (0: all), as a snapshot of an AUX area of that size taken there would.
// It returns ErrTriggerNotHit (and writes nothing) when the command ends
// first.
func EmulateTrigger(ctx context.Context, argv []string, opt Options, trig *Trigger, keep int) (*Result, error) {
	out := opt.Output
	if out == "" {
		out = "perf.data"
	}
	if opt.Trace.ClockStart == 0 {
		opt.Trace.ClockStart = DefaultClockStart
	}
	if opt.Cmdline == nil {
		opt.Cmdline = os.Args
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	addr, resolved := trig.Value, !trig.PIE
	hits, hitTid := 0, 0
	counts := map[int]uint64{} // instructions retired by each thread
	var hitInsns uint64
	next := opt.Trace.OnInsn
	opt.Trace.OnInsn = func(tid int, ip uint64) {
		if next != nil {
			next(tid, ip)
		}
		counts[tid]++
		if hits >= trig.N {
			return
		}
		if !resolved {
			if base, ok := loadBase(tid, trig.Path); ok {
				addr, resolved = base+trig.Value, true
			}
		}
		if ip == addr && resolved {
			if hits++; hits == trig.N {
				hitTid, hitInsns = tid, counts[tid]
				cancel()
			}
		}
	}
	res, terr := ptrace.Run(ctx, argv, opt.Trace)
	if res == nil {
		return nil, terr
	}
	r := &Result{Exit: res.Exit, Insns: res.Stats.Insns, Tracer: res.Stats, Trace: res}
	if hits < trig.N {
		if terr != nil {
			return r, terr
		}
		return r, fmt.Errorf("%w: %s ran %d of %d times", ErrTriggerNotHit, trig.Symbol, hits, trig.N)
	}
	cutAtTrigger(res.Trace, hitTid, hitInsns)
	tmp := out + ".tmp"
	ws, err := WriteTrace(tmp, res.Trace, opt.WriteOptions)
	r.Write = ws
	if err == nil {
		err = keepLastAux(tmp, out, keep)
	}
	os.Remove(tmp)
	if err != nil {
		return r, fmt.Errorf("writing %s: %w", out, err)
	}
	return r, nil
}

// cutAtTrigger ends the flow where thread tid retired its n-th
// instruction (the trigger): its events up to the one before, the other
// threads' and the sideband up to that time.
func cutAtTrigger(tr *flow.Trace, tid int, n uint64) {
	var at uint64
	if th := tr.Thread(tid); th != nil {
		var cum uint64
		k := 0
		for k < len(th.Events) && cum+th.Events[k].Insns < n {
			cum += th.Events[k].Insns
			k++
		}
		th.Events = th.Events[:k]
		if k > 0 {
			at = th.Events[k-1].Time
		}
	}
	for _, th := range tr.Threads {
		if th.Tid == tid {
			continue
		}
		k := 0
		for k < len(th.Events) && th.Events[k].Time <= at {
			k++
		}
		th.Events = th.Events[:k]
	}
	k := 0
	for k < len(tr.Side) && tr.Side[k].Time <= at {
		k++
	}
	tr.Side = tr.Side[:k]
	tr.Clock = at
}

// keepLastAux copies the perf.data src to dst keeping of each AUX stream
// (per CPU or thread) its last keep bytes: what an AUX area of keep bytes
// in snapshot mode holds when the snapshot is taken.
func keepLastAux(src, dst string, keep int) error {
	f, err := perfdata.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	type stream struct {
		idx      uint32
		cpu, tid int32
	}
	total := map[stream]uint64{}
	rs := f.Records(perfdata.FileOrder)
	for rs.Next() {
		if r, ok := rs.Record.(*perfdata.RecordAuxtrace); ok {
			total[stream{r.Idx, r.CPU, r.TID}] += r.AuxSize
		}
	}
	if err := rs.Err(); err != nil {
		return err
	}
	feats, err := f.Features()
	if err != nil {
		return err
	}
	w, err := perfdata.Create(dst)
	if err != nil {
		return err
	}
	w.Features = *feats
	w.Features.AuxtraceIndex = nil
	for _, a := range f.Attrs {
		if _, err := w.AddAttr(a.EventAttr, a.IDs, a.Name); err != nil {
			w.Close()
			return err
		}
	}
	seen := map[stream]uint64{}
	rs = f.Records(perfdata.FileOrder)
	for rs.Next() {
		rec := rs.Record
		if r, ok := rec.(*perfdata.RecordAuxtrace); ok && keep > 0 {
			s := stream{r.Idx, r.CPU, r.TID}
			skip := uint64(0)
			if t := total[s]; t > uint64(keep) {
				skip = t - uint64(keep) // bytes of the stream before the kept tail
			}
			start := seen[s]
			seen[s] += r.AuxSize
			if start+r.AuxSize <= skip {
				continue
			}
			if start < skip {
				cut := skip - start
				rr := *r
				rr.Data = r.Data[cut:]
				rr.AuxOffset += cut
				rr.AuxSize -= cut
				rec = &rr
			}
		}
		if err := w.WriteRecord(rec); err != nil {
			w.Close()
			return err
		}
	}
	if err := rs.Err(); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}
