// Package native records with perf_event_open: it reads PMU descriptions
// from sysfs (type, format and caps files) to build attrs from event strings
// like "intel_pt/cyc,mtc_period=3/u", maps the data ring and the AUX area
// and drains them with the kernel's head/tail protocol, and writes perf.data
// files that perf reads.
//
// # Targets (Target)
//
// As perf record: by default the command and its children on every online
// CPU (one event per CPU, inherited); PerThread the command's thread alone
// (cpu -1, inherit off, children not followed); AllCPUs (-a) or CPUs (-C, read
// as perf does by internal/perfopt.ParseCPUs) every task on those CPUs while the command runs, with the
// CPU in every sample and COMM/MMAP2 synthesized for every task in /proc.
// Events are kernel and user space unless the event says :u (user only) or
// :k (kernel only); when the kernel is sampled the kernel image's MMAP
// ("[kernel.kallsyms]_text") and build id are written so that perf report
// resolves kernel symbols and call chains.
//
// # Software events (Record)
//
// cpu-clock, task-clock, page-faults and context-switches, sampled at a
// frequency, with frame-pointer call chains (-g).
//
// # Intel PT (RecordPT)
//
// The intel_pt event and a tracking dummy event (MMAP2, COMM with exec,
// FORK/EXIT, context switches unless per-thread) share each data ring; the
// AUX area follows it. The attrs and AUXTRACE_INFO are those of perf's
// intel_pt_recording_options and intel_pt_info_fill (PTAttrs, PTInfo):
// aux_watermark a quarter of the AUX area, have_sched_switch 0 per-thread,
// 2 for the command per CPU, 3 system-wide; the TSC:CTC ratio from CPUID
// leaf 0x15 (n = EBX, d = EAX; 0/0 when the CPU has no such leaf, as on
// AMD; NativeCPUID runs the instruction, DevCPUID reads /dev/cpu/N/cpuid);
// the max non-turbo ratio from the PMU's max_nonturbo_ratio file.
//
// Snapshot mode (PTOptions.Snapshot, perf record -S) maps the AUX area
// read-only, so the kernel overwrites it; on SIGUSR2 the intel_pt events are
// disabled, each area's data since the last snapshot (the whole area once
// it has wrapped, perf's rule: any non-zero byte in its last 4 KiB) is
// written as one AUXTRACE record, and the events are enabled again
// (AuxSnapshot, Ring.ReadAuxSnapshot). SnapshotOnExit also takes one when
// the command ends.
//
// Errors are one line: a missing PMU suggests --emulate; a denied open
// names kernel.perf_event_paranoid and what it allows.
package native
