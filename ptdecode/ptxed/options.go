// Package ptxed is a drop-in replacement for libipt's ptxed: it decodes an
// Intel PT trace against raw or ELF code images and prints the executed
// instructions, blocks, events and errors in ptxed's format. Instructions
// are disassembled with golang.org/x/arch/x86/x86asm in AT&T (GNU) syntax
// unless --no-inst is given.
package ptxed

import (
	"fmt"
	"strings"

	"github.com/perfpt/perfpt/internal/cnum"
	"github.com/perfpt/perfpt/ptdecode/errata"
	"github.com/perfpt/perfpt/ptdecode/flow"
	"github.com/perfpt/perfpt/ptdecode/sideband"
)

// Options are ptxed's command-line settings.
type Options struct {
	InsnDecoder   bool // --insn-decoder (default: block decoder)
	NoInst        bool
	Quiet         bool
	Offset        bool // --offset
	Time          bool // --time
	RawInsn       bool // --raw-insn
	Check         bool
	ResyncOnError bool
	EventTime     bool
	EventIP       bool
	ShowBlocks    bool
	Stats         bool
	StatInsn      bool
	StatBlocks    bool
	Jobs          int // -j N: parallel decode with N workers (block decoder)

	// IscacheLimited and IscacheLimit: --iscache-limit, a cap on the
	// bytes of image files held (image.Cache.Limit).
	IscacheLimited bool
	IscacheLimit   uint64

	Flow          flow.Config
	InsnKeepTcal  bool
	BlockKeepTcal bool
	CPU           string // --cpu value; "" or "none" for none

	PT     fileArg
	HavePT bool
	Images []imageArg

	// perf_event sideband (--sb:*, --pevent:*).
	SBFlags  sideband.DumpFlags
	SBSwitch bool
	SBWarn   bool
	Pevents  []sideband.PeventConfig
	Kcore    []imageArg
	pev      sideband.PeventConfig // settings for the next --pevent file

	trackImage bool       // --verbose given so far
	loads      []imageArg // --elf and --pevent:kcore, in order
}

type fileArg struct {
	Name         string
	Offset, Size uint64
}

type imageArg struct {
	ELF     bool
	File    fileArg
	Base    uint64
	HasBase bool
	// Verbose: --verbose came before it, so its load segments are
	// listed when it is loaded (libipt's track_image).
	Verbose bool
}

// UsageError is a bad command line.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// splitBase splits "name:base" at the last colon (libipt's extract_base).
func splitBase(arg string) (name string, base uint64, ok bool) {
	i := strings.LastIndexByte(arg, ':')
	if i < 0 || i == len(arg)-1 {
		return arg, 0, false
	}
	v, ok := cnum.Uint(arg[i+1:])
	if !ok {
		return arg, 0, false
	}
	return arg[:i], v, true
}

// splitRange splits "name[:from[-to]]" as libipt's preprocess_filename: a
// suffix after the last ':' that parse_range does not read (cnum.Range)
// is part of the name; a range whose end is not past its begin is
// refused.
func splitRange(arg string) (fileArg, error) {
	f := fileArg{Name: arg}
	i := strings.LastIndexByte(arg, ':')
	if i < 0 {
		return f, nil
	}
	b, e, parts := cnum.Range(arg[i+1:])
	switch {
	case parts <= 0:
		return f, nil
	case parts == 2 && e <= b:
		return f, &UsageError{fmt.Sprintf("bad file %s: invalid argument.", arg)}
	}
	f.Name, f.Offset = arg[:i], b
	if parts == 2 {
		f.Size = e - b
	}
	return f, nil
}

// Parse parses ptxed's arguments (without the program name).
func Parse(args []string) (*Options, error) {
	o := &Options{Jobs: 1}
	o.pev.TimeMult = 1
	o.pev.KernelStart = ^uint64(0) // ptxed's default: all user space
	for i := 0; i < len(args); {
		arg := args[i]
		i++
		next := func() (string, error) {
			if i >= len(args) {
				return "", &UsageError{arg + ": missing argument"}
			}
			i++
			return args[i-1], nil
		}
		// num reads a number of at most bits bits as libipt's
		// get_arg_uint64 and its narrower wrappers.
		num := func(bits int) (uint64, error) {
			if i >= len(args) || args[i] == "" || strings.HasPrefix(args[i], "--") {
				return 0, &UsageError{arg + ": missing argument."}
			}
			s := args[i]
			i++
			v, ok := cnum.Uint(s)
			if !ok {
				return 0, &UsageError{fmt.Sprintf("%s: bad argument: %s.", arg, s)}
			}
			if bits < 64 && v >= 1<<bits {
				return 0, &UsageError{fmt.Sprintf("%s: value too big: %s.", arg, s)}
			}
			return v, nil
		}
		var err error
		switch {
		case arg == "--pt":
			var s string
			if s, err = next(); err == nil {
				if o.HavePT {
					return nil, &UsageError{"duplicate pt sources: " + s}
				}
				o.PT, err = splitRange(s)
				o.HavePT = true
			}
		case arg == "--raw":
			var s string
			if s, err = next(); err == nil {
				// libipt's load_raw: its error, then the --raw one
				// (Main puts "ptxed: " before the first).
				name, base, ok := splitBase(s)
				if !ok {
					return nil, &UsageError{fmt.Sprintf("failed to parse base addressfrom '%s'.\nptxed: --raw: failed to load '%s'.", s, s)}
				}
				var f fileArg
				if f, err = splitRange(name); err != nil {
					return nil, &UsageError{fmt.Sprintf("%v\nptxed: --raw: failed to load '%s'.", err, name)}
				}
				o.Images = append(o.Images, imageArg{File: f, Base: base, HasBase: true})
			}
		case arg == "--elf":
			var s string
			if s, err = next(); err == nil {
				name, base, ok := splitBase(s)
				o.Images = append(o.Images, imageArg{ELF: true, File: fileArg{Name: name}, Base: base, HasBase: ok, Verbose: o.trackImage})
				o.loads = append(o.loads, o.Images[len(o.Images)-1])
			}
		case arg == "--att":
			// AT&T is the syntax perfpt prints (libipt's default is
			// Intel's; perfpt has no Intel syntax printer).
		case arg == "--verbose", arg == "-v":
			o.trackImage = true
		case arg == "--no-inst":
			o.NoInst = true
		case arg == "--quiet", arg == "-q":
			o.Quiet = true
		case arg == "--offset":
			o.Offset = true
		case arg == "--time":
			o.Time = true
		case arg == "--raw-insn":
			o.RawInsn = true
		case arg == "--check":
			o.Check = true
		case arg == "--resync-on-error":
			o.ResyncOnError = true
		case arg == "--event:time":
			o.EventTime = true
		case arg == "--event:ip":
			o.EventIP = true
		case arg == "--event:tick":
			o.Flow.TickEvents = true
		case arg == "--event:iflags":
			o.Flow.Query.IFlagsEvents = true
		case strings.HasPrefix(arg, "--filter:addr") && len(arg) > len("--filter:addr0_"):
			n := int(arg[len("--filter:addr")] - '0')
			what := arg[len("--filter:addr0_"):]
			if n < 0 || n > 3 {
				return nil, &UsageError{"unknown option: " + arg}
			}
			var v uint64
			if v, err = num(64); err != nil {
				break
			}
			f := &o.Flow.Query.Filter
			switch what {
			case "cfg":
				if v > 15 {
					return nil, &UsageError{fmt.Sprintf("%s: value too big: %s.", arg, args[i-1])}
				}
				f.Cfg |= v << (4 * n)
			case "a":
				f.A[n] = v
			case "b":
				f.B[n] = v
			default:
				return nil, &UsageError{"unknown option: " + arg}
			}
		case arg == "--iscache-limit":
			o.IscacheLimit, err = num(64)
			o.IscacheLimited = true
		case arg == "--stat":
			o.Stats = true
		case arg == "--stat:insn":
			o.Stats, o.StatInsn = true, true
		case arg == "--stat:blocks":
			o.Stats, o.StatBlocks = true, true
		case arg == "--cpu":
			if o.CPU, err = next(); err == nil && o.CPU != "none" {
				if _, cerr := errata.ParseCPU(o.CPU); cerr != nil {
					err = &UsageError{"cpu must be specified as f/m[/s]"}
				}
			}
		case arg == "--mtc-freq":
			var v uint64
			v, err = num(8)
			o.Flow.Query.Timing.MTCFreq = uint8(v)
		case arg == "--nom-freq":
			var v uint64
			v, err = num(8)
			o.Flow.Query.Timing.NomFreq = uint8(v)
		case arg == "--cpuid-0x15.eax":
			var v uint64
			v, err = num(32)
			o.Flow.Query.Timing.CPUID15EAX = uint32(v)
		case arg == "--cpuid-0x15.ebx":
			var v uint64
			v, err = num(32)
			o.Flow.Query.Timing.CPUID15EBX = uint32(v)
		case arg == "--insn-decoder":
			o.InsnDecoder = true
		case arg == "--block-decoder":
			o.InsnDecoder = false
		case arg == "--insn:keep-tcal-on-ovf":
			o.InsnKeepTcal = true
		case arg == "--block:keep-tcal-on-ovf":
			o.BlockKeepTcal = true
		case arg == "--block:show-blocks":
			o.ShowBlocks = true
		case arg == "--block:end-on-call":
			o.Flow.EndOnCall = true
		case arg == "--block:end-on-jump":
			o.Flow.EndOnJump = true
		case arg == "-j" || arg == "--jobs":
			var v uint64
			v, err = num(16)
			o.Jobs = max(1, int(v))
		case arg == "--sb:compact" || arg == "--sb":
			o.SBFlags = o.SBFlags&^sideband.DumpVerbose | sideband.DumpCompact
		case arg == "--sb:verbose":
			o.SBFlags = o.SBFlags&^sideband.DumpCompact | sideband.DumpVerbose
		case arg == "--sb:filename":
			o.SBFlags |= sideband.DumpFilename
		case arg == "--sb:offset":
			o.SBFlags |= sideband.DumpOffset
		case arg == "--sb:time":
			o.SBFlags |= sideband.DumpTime
		case arg == "--sb:switch":
			o.SBSwitch = true
		case arg == "--sb:warn":
			o.SBWarn = true
		case arg == "--pevent" || arg == "--pevent:primary" || arg == "--pevent:secondary":
			var v string
			if v, err = next(); err != nil {
				break
			}
			var f fileArg
			if f, err = splitRange(v); err != nil {
				break
			}
			c := o.pev
			c.Filename, c.Begin = f.Name, f.Offset
			if f.Size != 0 {
				c.End = f.Offset + f.Size
			}
			c.Primary = arg == "--pevent:primary"
			c.SampleConfig = append([]sideband.SampleType(nil), c.SampleConfig...)
			o.Pevents = append(o.Pevents, c)
		case arg == "--pevent:sample-type":
			o.pev.SampleType, err = num(64)
		case arg == "--pevent:sample-config":
			var v string
			if v, err = next(); err != nil {
				break
			}
			idv, stv, ok := sideband.ParseSampleConfig(v)
			if !ok {
				return nil, &UsageError{"bad sample config " + v + ": invalid argument."}
			}
			o.pev.SampleConfig = append(o.pev.SampleConfig, sideband.SampleType{ID: idv, Type: stv})
		case arg == "--pevent:time-zero":
			o.pev.TimeZero, err = num(64)
		case arg == "--pevent:time-shift":
			var v uint64
			v, err = num(16)
			o.pev.TimeShift = uint16(v)
		case arg == "--pevent:time-mult":
			var v uint64
			v, err = num(32)
			o.pev.TimeMult = uint32(v)
		case arg == "--pevent:tsc-offset":
			o.pev.TSCOffset, err = num(64)
		case arg == "--pevent:kernel-start":
			o.pev.KernelStart, err = num(64)
		case arg == "--pevent:sysroot":
			o.pev.Sysroot, err = next()
		case arg == "--pevent:vdso-x64":
			o.pev.VDSOx64, err = next()
		case arg == "--pevent:vdso-x32":
			o.pev.VDSOx32, err = next()
		case arg == "--pevent:vdso-ia32":
			o.pev.VDSOia32, err = next()
		case arg == "--pevent:kcore":
			var v string
			if v, err = next(); err == nil {
				name, base, ok := splitBase(v)
				o.Kcore = append(o.Kcore, imageArg{ELF: true, File: fileArg{Name: name}, Base: base, HasBase: ok, Verbose: o.trackImage})
				o.loads = append(o.loads, o.Kcore[len(o.Kcore)-1])
			}
		default:
			return nil, &UsageError{"unknown option: " + arg}
		}
		if err != nil {
			return nil, err
		}
	}
	if !o.HavePT {
		return nil, &UsageError{"no pt file (--pt)"}
	}
	if o.Stats && !o.StatInsn && !o.StatBlocks {
		o.StatInsn = true
		o.StatBlocks = !o.InsnDecoder
	}
	if o.InsnDecoder {
		o.Flow.Query.KeepTcalOnOvf = o.InsnKeepTcal
	} else {
		o.Flow.Query.KeepTcalOnOvf = o.BlockKeepTcal
	}
	return o, nil
}

// cpuErrata resolves --cpu. bad reports an unknown CPU (ptxed then prints a
// config error and decodes without workarounds).
func (o *Options) cpuErrata() (e errata.Errata, bad bool, err error) {
	if o.CPU == "" || o.CPU == "none" {
		return e, false, nil
	}
	cpu, err := errata.ParseCPU(o.CPU)
	if err != nil {
		return e, false, &UsageError{"cpu must be specified as f/m[/s]"}
	}
	o.Flow.Query.CPU = cpu
	e, ferr := errata.ForCPU(cpu)
	return e, ferr != nil, nil
}
