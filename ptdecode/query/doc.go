// Package query is the query and event layer of the Intel PT decoder,
// after libipt 2.3's event decoder (pt_event_decoder.c) and query decoder
// (pt_query_decoder.c), with the same semantics: the same events in the
// same order with the same IPs, times and errors.
//
// # Event decoder
//
// A [Decoder] turns the packets of a trace into a stream of fixed-size
// [Event] values, branches included: EventTNT carries conditional-branch
// bits and EventTIP indirect-branch targets, so an instruction-flow
// decoder needs nothing else:
//
//	d := query.NewDecoder(trace, &cfg)
//	if err := d.SyncForward(); err != nil { ... }   // first PSB
//	var ev query.Event
//	for {
//		if err := d.Next(&ev); err != nil {
//			if query.CodeOf(err) == query.CodeEOS { break }
//			// resynchronise: d.SyncForward() goes on at the next PSB
//		}
//		switch ev.Type { ... }
//	}
//
// After synchronising, the first events are the PSB+ status updates
// (StatusUpdate set): EventEnabled or EventDisabled first, then exec mode,
// paging, vmcs, tsx, cbr, mnt in packet order. Events that bind to an IP
// packet are reported when that packet is reached: an asynchronous branch
// (FUP + TIP) comes before the events bound to its TIP; EventEnabled
// before the events bound to its TIP.PGE. See [Event] for the fields each
// type uses.
//
// A Decoder is a plain value without pointers into itself between calls:
// saved := *d; ...; *d = saved is a valid, allocation-free save and
// restore, which the block decoder uses to read ahead. Pos tells whether a
// copy has moved. Offset is the offset of the packet being processed,
// which errors report and ptxed prints.
//
// # Sub-ranges
//
// For parallel decoding, a worker decodes [psb_i, psb_i+1) of the shared
// trace buffer: SyncSet(psb_i), SetEnd(psb_i+1). Next then reports CodeEOS
// when it reaches the end offset, while look-ahead (overflow recovery and
// the erratum checks) still sees the whole buffer, so the events are the
// ones a sequential decode produces up to that PSB. A sequential decode
// does not reset its time at a PSB; to get its event times exactly
// (cycle-accurate times depend on a calibration learnt earlier), compute
// the clocks at the chunk starts with [ClocksAt], a fast packet-only pass,
// and start each chunk with SyncSetClock(psb_i, clocks[i]) instead of
// SyncSet. With TSC in every PSB+ and no CYC, SyncSet gives the same
// times already.
//
// # Query decoder
//
// A [Query] answers libipt's pt_qry_* questions on top of a Decoder:
// CondBranch (the next TNT bit), IndirectBranch (the next TIP target),
// Event (the next other event), with [Status] flags saying whether an
// event is pending, the IP was suppressed, or the trace ended, and Time /
// CoreBusRatio at the last query.
//
// # Errors
//
// Every error is an *[Error] with the trace Offset and a [Code] (except
// Query's CodeBadQuery, returned bare), libipt's
// pt_error_code with its message text; Code is itself an error, so
// errors.Is(err, query.CodeEOS) works, and [CodeOf] extracts it. The
// instruction and block decoders use the same codes (CodeNoMap,
// CodeBadInsn, ...) so that tools print libipt's messages.
//
// # Where it differs from libipt
//
//   - Backward synchronisation from a PSB that follows PSB-like bytes
//     finds that same PSB again; libipt then loops forever, SyncBackward
//     reports CodeEOS.
//   - Query.SyncBackward returns the start IP and status like SyncForward;
//     libipt's pt_qry_sync_backward returns 0.
//
// # Tests
//
// testdata/libipt-events.txt holds what libipt's event and query decoders
// give on every stream of the libipt conformance corpus (forward with
// resynchronisation, repeated backward synchronisation, and a query
// drive); the oracle test compares all 982 sections, offsets and errors
// included. An opt-in differential test runs a libipt-linked dumper on
// random streams.
//
// # Configuration and errata
//
// [Config] carries the erratum workarounds (package errata: select them
// with errata.ForCPU), the timing parameters, the flags for iflags events
// and keeping the calibration across overflows, and the address filter
// ([AddrFilter], used by the instruction and block decoders). This layer
// applies BDM70 (bogus FUP in PSB+ before a TIP.PGE), SKD010 (FUP dropped
// after OVF), APL11 (TIP.PGD after OVF) and APL12 (bogus FUP after OVF).
package query
