// Package perfdata reads and writes Linux perf.data files (file and pipe
// mode) as perf 6.x writes them: attributes, records, the AUX trace data and
// the header feature sections.
//
// # Reading
//
//	f, err := perfdata.Open("perf.data") // mmapped; or New(io.ReaderAt), NewBytes, NewPipe(io.Reader)
//	if err != nil { ... }
//	defer f.Close()
//	for _, a := range f.Attrs { fmt.Println(a.Name, a.Type, a.Config, a.SampleType, a.IDs) }
//	rs := f.Records(perfdata.TimeOrder) // or FileOrder
//	for rs.Next() {
//		switch r := rs.Record.(type) {
//		case *perfdata.RecordSample:
//			fmt.Println(r.PID, r.TID, r.Time, r.IP, r.Callchain)
//		case *perfdata.RecordAuxtrace:
//			// r.Data aliases the mmapped file; r.DataOffset/r.AuxSize locate it
//			// for lazy reads through f.ReaderAt().
//		}
//	}
//	if err := rs.Err(); err != nil { ... }
//	feats, err := f.Features() // hostname, build ids, auxtrace index, ...
//
// Every record embeds RecordCommon: its file Offset, Type, Misc, Size,
// the Attr it belongs to and the SampleID fields (PID, TID, Time, ID,
// StreamID, CPU) from a sample or a sample_id_all trailer. Fields of a
// record that would clash with these are prefixed (RecordAuxtraceInfo.AuxType,
// RecordAuxtrace.AuxSize/AuxOffset, RecordAuxtrace.TID/CPU are the buffer's).
//
// Sources: Open mmaps a file; New reads any io.ReaderAt through a buffer
// (set rs.LazyAux to leave AUXTRACE data on disk: read it at
// RecordAuxtrace.DataOffset through f.ReaderAt()); NewBytes reads memory;
// NewPipe streams a pipe-mode io.Reader once; NewReader takes standard
// input in either mode. COMPRESSED (perf record -z) records are unpacked
// and their records returned in their place, with the COMPRESSED record's
// Offset. Iterating a pipe fills in f.Attrs and f.Features() as the
// HEADER_ATTR and HEADER_FEATURE records go by.
//
// TimeOrder mirrors perf 6.1's ordered-events queue exactly: the test
// suite checks that the records come out as perf report -D prints them.
//
// The hot loop can avoid all allocation: set rs.Reuse (records are then
// overwritten by the next call; names are interned), or read undecoded
// records with rs.ReadInto(&raw) and decode samples with
// f.DecodeSample(&raw, &s) (or any type with f.DecodeInto). On a
// 40,000-record file the Reuse path makes 0.0006 allocations per record.
//
// Bad input yields a *Error with the file Offset, wrapping ErrTruncated,
// ErrBadSize, ErrBadMagic, ErrBigEndian or ErrBadValue; never a panic.
//
// # Writing
//
// A Writer writes file-mode perf.data that perf 6.1 reads (see the Writer
// type's documentation for the rules).
//
//	w, err := perfdata.Create("perf.data")
//	pt, err := w.AddAttr(perfdata.EventAttr{
//		Type: 8, // intel_pt PMU type, same as AUXTRACE_INFO Priv[0]
//		Config: 1<<0 | 1<<10 | 1<<13, // pt, tsc, branch
//		SampleType: perfdata.SampleFormatIP | perfdata.SampleFormatTID |
//			perfdata.SampleFormatTime | perfdata.SampleFormatCPU |
//			perfdata.SampleFormatIdentifier,
//		Flags: perfdata.AttrFlagSampleIDAll | perfdata.AttrFlagExcludeKernel | ...,
//	}, []uint64{1}, "intel_pt//u")
//	w.WriteRecord(&perfdata.RecordAuxtraceInfo{AuxType: perfdata.AuxtraceIntelPT, Priv: priv})
//	w.WriteRecord(&perfdata.RecordTimeConv{TimeShift: 31, TimeMult: ..., CapUserTimeZero: true, Extended: true})
//	sid := perfdata.SampleID{PID: pid, TID: pid, Time: t, ID: 1, CPU: 0}
//	w.WriteRecord(&perfdata.RecordComm{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscCommExec, SampleID: sid}, PID: pid, TID: pid, Comm: "prog"})
//	w.WriteRecord(&perfdata.RecordMmap2{RecordCommon: perfdata.RecordCommon{Misc: perfdata.MiscUser, SampleID: sid}, PID: pid, TID: pid, Addr: 0x401000, Len: 0x1000, PgOff: 0x1000, Prot: 5, Flags: 2, Filename: "/path/prog"})
//	w.WriteRecord(&perfdata.RecordItraceStart{RecordCommon: perfdata.RecordCommon{SampleID: sid}, PID: pid, TID: pid})
//	w.WriteRecord(&perfdata.RecordAux{RecordCommon: perfdata.RecordCommon{SampleID: sid}, AuxOffset: 0, AuxSize: uint64(len(trace))})
//	w.WriteRecord(&perfdata.RecordAuxtrace{AuxOffset: 0, Idx: 0, TID: pid, CPU: 0, Data: trace})
//	w.WriteRecord(&perfdata.RecordFinishedRound{})
//	w.Features.Hostname = "box"
//	w.Features.Set(perfdata.FeatHostname)
//	err = w.Close()
//
// AppendRecord encodes a record without a Writer. IntelPTInfo builds and
// parses the private u64s of an Intel PT AUXTRACE_INFO. The Writer pads
// AUXTRACE data to 8 bytes, as perf does. NewPipeWriter writes pipe mode
// (as `perf record -o -`) to any io.Writer.
//
// Package perftext prints files like perf report -D and perf report
// --header-only (the perfpt dump and header commands).
package perfdata
