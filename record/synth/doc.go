// Package synth encodes a thread's flow (record/flow) as the Intel PT packet
// stream intel_pt//u hardware would have written for it:
//
//   - conditional branches are TNT bits (6 to a short TNT packet);
//   - indirect jumps and calls are TIP packets, with last-IP compression;
//   - returns are a taken TNT bit when return compression is on and the
//     target matches the return-compression stack (64 entries, cleared at
//     PSB), else TIP;
//   - a syscall leaves user space with TIP.PGD (IP suppressed: CPL filter),
//     and coming back is MODE.Exec then TIP.PGE with the user IP;
//   - an asynchronous event (signal after a fault) is FUP with the
//     interrupted IP then TIP.PGD, resumed by MODE.Exec and TIP.PGE;
//   - a PTWRITE is a PTW packet with its 4- or 8-byte payload when PTW is
//     on (config bit ptw); with FUPOnPTW (fup_on_ptw) the packet's IP bit
//     is set and a FUP with the PTWRITE's address follows;
//   - an RTM transaction's begin (outermost XBEGIN) and commit (outermost
//     XEND) are MODE.TSX (InTX=1, then 0) with a FUP of that instruction;
//     an abort is MODE.TSX (TXAbort=1), a FUP of the instruction where it
//     aborted and a TIP to the fallback address. Pending TNT bits go out
//     before PTW and MODE.TSX, as the decoder walks the flow up to the FUP;
//   - PSB+ (PSB, [TSC, TMA, CBR], MODE.Exec, [MODE.TSX], FUP, PSBEND) is
//     inserted at the first packet boundary after every PSBPeriod bytes
//     (MODE.TSX InTX=1 when it falls inside a transaction);
//   - with timing, TSC packets come in PSB+ and before each TIP.PGE, MTC
//     packets each time the virtual crystal clock crosses a 2^MTCPeriod
//     boundary, and CYC packets with the cycles since the last timing packet
//     before each TNT, TIP, FUP and PGD packet. The clock is the flow's
//     virtual clock (one cycle per instruction, TSC = cycles, CTC = TSC *
//     CTCDen / CTCNum).
//
// Encode returns the stream and the offsets at which it may be cut into
// AUXTRACE buffers (packet boundaries, never inside a packet).
package synth
