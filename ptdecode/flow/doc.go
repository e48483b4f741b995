// Package flow reconstructs the executed instructions from an Intel PT
// trace and the memory image of the traced code, like libipt's block and
// instruction flow decoders (libipt 2.3, event-driven design).
//
// # Decoders
//
// A BlockDecoder (NewBlockDecoder) reads the events of package query and
// walks the code of an image.Image, returning Blocks: runs of instructions
// executed in sequence (IP, EndIP, NInsn, Mode, Class of the last one,
// Speculative). Straight-line runs are decoded once and cached per image
// mapping. Its protocol is libipt's:
//
//	s, err := d.SyncForward()            // or SyncSet(psbOffset)
//	for err == nil {
//		for s&StatusEventPending != 0 { s, err = d.Event(&ev) }
//		if s&StatusEOS != 0 { break }
//		s, err = d.Next(&block)
//	}
//	// on error: d.Resync() or SyncForward() again
//
// BlockInsns lists the instructions of a block (IP, Size, Class, ...) from
// the image, for callers that need more than the block's bounds: the last
// one is the branch that ended it, the next block's IP its target.
//
// An InsnDecoder (NewInsnDecoder) is built on it and returns one Insn at a
// time (IP, Size, Mode, Class, IClass, Speculative); both decoders report
// the same flow, events and errors.
//
// Errors are query.Code values or *query.Error (with the trace Offset);
// BlockDecoder.Offset gives the offset of the packet being processed, the
// one libipt's ptxed prints in "[offset, ip: error: message]".
//
// # Walks
//
// WalkBlocks and WalkInsns run that loop over a whole trace, synchronising
// again at the next PSB after an error (or resynchronising at the next
// event with WalkOptions.ResyncOnError), and call a Handler with every
// block or instruction, every event (with its time in Event.TSC when
// HasTSC), and every DecodeError (Kind, trace Offset, IP). They never
// allocate per block or instruction.
//
// WalkParallel cuts the trace at PSBs into chunks (ChunkBytes at most),
// decodes them on several goroutines and calls the Handler from the
// caller's goroutine with exactly what WalkBlocks would call it with.
// WalkChunks gives each chunk its own Handler on the worker goroutines and
// hands them back in order, so that the handling (formatting, symbolising)
// runs in parallel too; the chunk handlers together see what one
// WalkBlocks handler would.
//
// # Images
//
// The decoder reads code through an image.Image; SetImage replaces it at
// any time, e.g. from a Handler's Event callback when the sideband says the
// process changed (the next block uses the new image). Cached blocks stay
// valid: they are keyed by image mapping, and mappings never change. For
// per-thread traces, give each trace its own decoder and image (SetTrace
// reuses a decoder and its block cache for the next buffer); decoders share
// sections through an image.Cache and may run in parallel. A parallel walk
// uses one image for the whole trace.
//
// # Limits
//
// As the SDM allows (only returns to calls made since the last PSB are
// compressed), the return stack is cleared at every PSB+; libipt keeps it.
// Parallel walks equal sequential ones, but event times that need timing
// state from before a chunk (calibration, after corrupted timing packets)
// may differ. Block boundaries are libipt's with a warm block cache; while
// libipt fills its cache it also ends a block after the first execution of
// each direct call and direct backward jump and after 1024 instructions
// first decoded in a row, which sequential walks do too with
// Config.ColdBlocks (ptxed sets it); instructions are the same.
// A walk gives up (with a "trace stream does not match query" error) on
// code that runs millions of instructions without trace and on
// resynchronisation that keeps failing at one offset, where libipt loops
// forever.
package flow
