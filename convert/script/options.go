package script

// Options are perf script's printing options besides -F.
type Options struct {
	Fields *Fields
	// PadDSO is perf's symbol_conf.pad_output_len_dso (set by
	// StopBT is --stop-bt's symbols: a call chain's printing stops
	// after a frame of one of them (sample__fprintf_callchain).
	StopBT map[string]bool
	// --call-trace): DSO names cut to PadDSO-1 bytes and padded with
	// spaces to PadDSO.
	PadDSO   int
	Nanosecs bool // --ns
	// RelTime (--reltime) prints times from the first time printed,
	// DeltaTime (--deltatime) from the previous one (0 for the first).
	RelTime, DeltaTime bool
	UseCallchain       bool // callchains printed (not -G)
	// NameWidth is evlist__max_name_len: the longest event name of the
	// session, synthesised events included. When 0, NameWidthFn is asked
	// at the first sample printed (perf computes it lazily too).
	NameWidth   int
	NameWidthFn func() int
	// Arch is the recording's architecture as perf names it (perftext.
	// NormArch: "x86"), for register names.
	Arch string
	// Clock is the recording's HEADER_CLOCK_DATA for the tod field (nil
	// without: tod prints "disabled").
	Clock *Clock
	// MaxBlocks is --max-blocks: brstackinsn prints the blocks of the
	// most recent MaxBlocks+1 branches only (0: all).
	MaxBlocks int
	// FullSourcePath prints the source lines of inlined call chain
	// entries with their files' whole paths (--full-source-path,
	// srcline_full_filename); the machine's FullSrclines does it for
	// the lines it looks up.
	FullSourcePath bool
	// Latency is -L/--Latency (perf's latency_format): the comm column
	// is "%8.8s " and the cpu column "%3d ".
	Latency bool
}
