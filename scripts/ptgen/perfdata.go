package main

import (
	"os"

	"github.com/perfpt/perfpt/perfdata"
	"github.com/perfpt/perfpt/record"
	"github.com/perfpt/perfpt/record/synth"
)

// The generated program's process, and the times of its sideband records
// (perf time = TSC: TIME_CONV is the identity).
const (
	genPID    = 4242
	genComm   = "ptgen-prog"
	auxBufMax = 64 << 10
)

// The intel_pt config bit masks (the kernel's format attributes).
const (
	cfgCYC       = 1 << 1
	cfgMTC       = 1 << 9
	cfgTSC       = 1 << 10
	cfgNoRetComp = 1 << 11
	cfgMTCFreq   = 0xf << 14
)

// writePerfData writes the trace as a per-thread intel_pt//u recording of
// one thread running the ELF file elfPath (absolute): the same layout as
// `perfpt record --emulate`, with the stream cut into AUXTRACE buffers of at
// most 64 KiB at PSB boundaries.
func writePerfData(path, elfPath string, p *program, t *tracer) error {
	pmu := record.PMUType()
	w, err := perfdata.Create(path)
	if err != nil {
		return err
	}
	fail := func(err error) error {
		w.Close()
		os.Remove(path)
		return err
	}
	sampleType := perfdata.SampleFormatIP | perfdata.SampleFormatTID | perfdata.SampleFormatTime |
		perfdata.SampleFormatIdentifier
	common := perfdata.AttrFlagDisabled | perfdata.AttrFlagInherit | perfdata.AttrFlagExcludeKernel |
		perfdata.AttrFlagExcludeHV | perfdata.AttrFlagEnableOnExec | perfdata.AttrFlagSampleIDAll |
		perfdata.AttrFlagExcludeGuest
	const ptID, dummyID = 0x100, 0x100000
	cfg := record.PTConfig(synth.Config{TSC: true, MTC: true, MTCPeriod: mtcShift, PSBPeriod: t.psbPeriod})
	if _, err := w.AddAttr(perfdata.EventAttr{Type: perfdata.AttrType(pmu), Config: cfg,
		SamplePeriod: 1, SampleType: sampleType, Flags: common}, []uint64{ptID}, "intel_pt//u"); err != nil {
		return fail(err)
	}
	if _, err := w.AddAttr(perfdata.EventAttr{Type: perfdata.AttrTypeSoftware, Config: perfdata.SWDummy,
		SamplePeriod: 1, SampleType: sampleType, Flags: common | perfdata.AttrFlagMmap | perfdata.AttrFlagComm |
			perfdata.AttrFlagTask | perfdata.AttrFlagMmap2 | perfdata.AttrFlagCommExec}, []uint64{dummyID}, "dummy:u"); err != nil {
		return fail(err)
	}
	info := perfdata.IntelPTInfo{PMUType: uint64(pmu), TimeShift: 0, TimeMult: 1, TimeZero: 0, CapUserTimeZero: 1,
		TSCBit: cfgTSC, NoRetCompBit: cfgNoRetComp, MTCBit: cfgMTC, MTCFreqBits: cfgMTCFreq,
		TSCCTCRatioN: tscPerCTC, TSCCTCRatioD: 1, CYCBit: cfgCYC, MaxNonTurboRatio: coreBusRatio}
	sid := func(tm, id uint64, misc uint16) perfdata.RecordCommon {
		return perfdata.RecordCommon{Misc: misc, SampleID: perfdata.SampleID{PID: genPID, TID: genPID, Time: tm, ID: id}}
	}
	mapLen := (uint64(len(p.code)) + 0xfff) &^ 0xfff
	recs := []perfdata.Record{
		&perfdata.RecordAuxtraceInfo{AuxType: perfdata.AuxtraceIntelPT, Priv: append(info.Priv(), 0)},
		&perfdata.RecordTimeConv{TimeShift: 0, TimeMult: 1, TimeZero: 0, CapUserTimeZero: true, Extended: true},
		&perfdata.RecordComm{RecordCommon: sid(tscBase-300, dummyID, perfdata.MiscCommExec), PID: genPID, TID: genPID, Comm: genComm},
		&perfdata.RecordMmap2{RecordCommon: sid(tscBase-200, dummyID, perfdata.MiscUser), PID: genPID, TID: genPID,
			Addr: p.base, Len: mapLen, PgOff: elfCodeOff, Prot: 5 /* R|X */, Flags: 2 /* MAP_PRIVATE */, Filename: elfPath},
		&perfdata.RecordItraceStart{RecordCommon: sid(tscBase-100, ptID, 0), PID: genPID, TID: genPID},
	}
	for _, r := range recs {
		if err := w.WriteRecord(r); err != nil {
			return fail(err)
		}
	}
	// AUX/AUXTRACE pairs, cut at PSBs (packet boundaries) into <= 64 KiB.
	data := t.enc.Buf
	cuts := append(t.cuts, cut{off: len(data), tsc: t.cycles})
	start, ref := 0, uint64(0x5eed0000)
	for i := 0; start < len(data); {
		j := i
		for j+1 < len(cuts) && cuts[j+1].off-start <= auxBufMax {
			j++
		}
		if cuts[j].off <= start { // a PSB period above 64 KiB: one cut at a time
			j = i + 1
		}
		c := cuts[j]
		buf := data[start:c.off]
		if err := w.WriteRecord(&perfdata.RecordAux{RecordCommon: sid(c.tsc, ptID, 0),
			AuxOffset: uint64(start), AuxSize: uint64(len(buf))}); err != nil {
			return fail(err)
		}
		if err := w.WriteRecord(&perfdata.RecordAuxtrace{AuxOffset: uint64(start), Reference: ref,
			TID: genPID, CPU: -1, Data: buf}); err != nil {
			return fail(err)
		}
		ref++
		start, i = c.off, j
	}
	if err := w.WriteRecord(&perfdata.RecordFinishedRound{}); err != nil {
		return fail(err)
	}
	w.Features = record.HostFeatures(os.Args)
	w.Features.PMUMappings = []perfdata.PMUMapping{{Type: 1, Name: "software"}, {Type: pmu, Name: "intel_pt"}}
	w.Features.Set(perfdata.FeatPMUMappings)
	w.Features.CPUID = "GenuineIntel,6,85,4"
	w.Features.Set(perfdata.FeatCPUID)
	if err := w.Close(); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}
