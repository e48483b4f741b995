package ptdump

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/perfpt/perfpt/internal/cnum"
	"github.com/perfpt/perfpt/internal/mapfile"
	"github.com/perfpt/perfpt/ptdecode/errata"
	"github.com/perfpt/perfpt/ptdecode/sideband"
)

const help = `usage: ptdump [<options>] <ptfile>[:<from>[-<to>]

options:
  --help|-h                 this text.
  --version                 display version information and exit.
  --no-sync                 don't try to sync to the first PSB, assume a valid
                            sync point at the beginning of the trace.
  --quiet                   don't print anything but errors.
  --no-pad                  don't show PAD packets.
  --no-timing               don't show timing packets.
  --no-cyc                  don't show CYC packets and ignore them when tracking time.
  --no-offset               don't show the offset as the first column.
  --raw                     show raw packet bytes.
  --lastip                  show last IP updates on packets with IP payloads.
  --exec-mode               show the current execution mode on mode.exec packets.
  --time                    show the estimated TSC on timing packets.
  --tcal                    show time calibration information.
  --time-delta              show timing information as delta.
  --no-tcal                 skip timing calibration.
                            this will result in errors when CYC packets are encountered.
  --no-wall-clock           suppress the no-time error and print relative time.
  --keep-tcal-on-ovf        preserve timing calibration on overflow.
  --block-items             decode PEBS-via-PT BBP/BIP/BEP packets (perfpt only;
                            libipt reports them as unknown opcodes).
  --sb:compact | --sb       show sideband records in compact format.
  --sb:verbose              show sideband records in verbose format.
  --sb:filename             show the filename on sideband records.
  --sb:offset               show the offset on sideband records.
  --sb:time                 show the time on sideband records.
  --sb:warn                 show sideband warnings.
  --pevent[:primary/:secondary] <file>[:<from>[-<to>]]
                              load a perf_event sideband stream from <file>.
  --pevent:sample-type <val>  set perf_event_attr.sample_type to <val> (default: 0).
  --pevent:sample-config <id>:<val>
                              set perf_event_attr.sample_type to <val> for event <id>.
  --pevent:time-zero <val>    set perf_event_mmap_page.time_zero to <val> (default: 0).
  --pevent:time-shift <val>   set perf_event_mmap_page.time_shift to <val> (default: 0).
  --pevent:time-mult <val>    set perf_event_mmap_page.time_mult to <val> (default: 1).
  --pevent:tsc-offset <val>   show perf events <val> ticks earlier.
  --pevent:kernel-start <val> the start address of the kernel.
  --pevent:sysroot|kcore|vdso-x64|vdso-x32|vdso-ia32 <arg>   ignored.
  --cpu none|f/m[/s]        set cpu to the given value and decode according to:
                              none     spec (default)
                              f/m[/s]  family/model[/stepping]
  --mtc-freq <n>            set the MTC frequency (IA32_RTIT_CTL[17:14]) to <n>.
  --nom-freq <n>            set the nominal frequency (MSR_PLATFORM_INFO[15:8]) to <n>.
  --cpuid-0x15.eax          set the value of cpuid[0x15].eax.
  --cpuid-0x15.ebx          set the value of cpuid[0x15].ebx.
  <ptfile>[:<from>[-<to>]]  load the processor trace data from <ptfile>;
`

// argParser is the state of ptdump's argument parser.
type argParser struct {
	stderr io.Writer
	args   []string
	i      int
}

// uintArg reads the argument of option opt, at most max.
func (a *argParser) uintArg(opt string, max uint64) (uint64, bool) {
	a.i++
	if a.i >= len(a.args) || a.args[a.i] == "" || strings.HasPrefix(a.args[a.i], "--") {
		fmt.Fprintf(a.stderr, "ptdump: %s: missing argument.\n", opt)
		return 0, false
	}
	arg := a.args[a.i]
	v, ok := cnum.Uint(arg)
	if !ok {
		fmt.Fprintf(a.stderr, "ptdump: %s: bad argument: %s.\n", opt, arg)
		return 0, false
	}
	if v > max {
		fmt.Fprintf(a.stderr, "ptdump: %s: value too big: %s.\n", opt, arg)
		return 0, false
	}
	return v, true
}

// splitRange splits "file:from[-to]" as libipt's preprocess_filename: a
// suffix after the last ':' that parse_range does not read (cnum.Range)
// is part of the file name; a range whose end is not past its begin is
// refused.
func splitRange(name string) (file string, from, to uint64, err error) {
	i := strings.LastIndexByte(name, ':')
	if i < 0 {
		return name, 0, 0, nil
	}
	b, e, parts := cnum.Range(name[i+1:])
	switch {
	case parts <= 0:
		return name, 0, 0, nil
	case parts == 1:
		return name[:i], b, 0, nil
	case e <= b:
		return "", 0, 0, fmt.Errorf("invalid argument")
	}
	return name[:i], b, e, nil
}

// LoadRange reads file[from:to] (to 0: to the end) as libipt's ptdump
// and ptxed load_file, with its errors (no final period). release unmaps
// the file; the data must not be used after it.
func LoadRange(file string, from, to uint64) ([]byte, func(), error) {
	data, release, err := mapfile.Open(file)
	if err != nil {
		// libipt prints fopen's errno as a number.
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return nil, nil, fmt.Errorf("failed to open %s: %d", file, int(errno))
		}
		return nil, nil, fmt.Errorf("failed to open %s: %v", file, err)
	}
	buf, err := cutRange(data, file, from, to)
	if err != nil {
		release()
		return nil, nil, err
	}
	return buf, release, nil
}

// cutRange returns data[from:to] (to 0: to the end) with ptdump's errors.
// An offset past 2^63 is a negative long to load_file: it passes the
// offset check and fseek then fails with EINVAL.
func cutRange(data []byte, file string, from, to uint64) ([]byte, error) {
	if from < 1<<63 && from >= uint64(len(data)) {
		return nil, fmt.Errorf("bad offset 0x%x into %s", from, file)
	}
	if to != 0 {
		if to > uint64(len(data)) {
			return nil, fmt.Errorf("bad range 0x%x in %s", to, file)
		}
		data = data[:to]
	}
	if from >= 1<<63 {
		// load_file allocates end - begin bytes (wrapping: past
		// PTRDIFF_MAX malloc fails), then fseek refuses begin.
		if to == 0 && uint64(len(data))-from >= 1<<63 {
			return nil, fmt.Errorf("failed to allocated memory %s", file)
		}
		return nil, fmt.Errorf("failed to load %s: %d", file, int(syscall.EINVAL))
	}
	return data[from:], nil
}

// Main runs ptdump with its command-line arguments args (without the
// program name), libipt's options parsed in order, writing the dump to
// stdout and usage errors to stderr; it returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	opt := Options{ShowOffset: true}
	pev := sideband.PeventConfig{TimeMult: 1}
	var sess *sideband.Session
	var sbFlags sideband.DumpFlags
	sbWarn := false
	ptfile := ""
	a := &argParser{stderr: stderr, args: args}
	for ; a.i < len(args); a.i++ {
		arg := args[a.i]
		if !strings.HasPrefix(arg, "-") {
			ptfile = arg
			if a.i < len(args)-1 {
				fmt.Fprintf(stderr, "ptdump: [<options>] <ptfile>.  Use --help or -h for help.\n")
				return 1
			}
			break
		}
		var ok = true
		var v uint64
		switch arg {
		case "-h", "--help":
			io.WriteString(stdout, help)
			return 0
		case "--version":
			fmt.Fprintf(stdout, "ptdump (perfpt), libipt-compatible\n")
			return 0
		case "--no-sync":
			opt.NoSync = true
		case "--quiet":
			opt.Quiet = true
			sbFlags = 0
		case "--no-pad":
			opt.NoPad = true
		case "--no-timing":
			opt.NoTiming = true
		case "--no-cyc":
			opt.NoCYC = true
		case "--no-offset":
			opt.ShowOffset = false
		case "--raw":
			opt.Raw = true
		case "--lastip":
			opt.LastIP = true
		case "--exec-mode":
			opt.ExecMode = true
		case "--time", "--tcal":
			if (arg == "--time" && opt.TCal) || (arg == "--tcal" && opt.Time) {
				fmt.Fprintf(stderr, "ptdump: specify either --time or --tcal.\n")
				return 1
			}
			opt.Time = opt.Time || arg == "--time"
			opt.TCal = opt.TCal || arg == "--tcal"
		case "--time-delta":
			opt.TimeDelta = true
		case "--no-tcal":
			opt.NoTCal = true
		case "--no-wall-clock":
			opt.NoWallClock = true
		case "--keep-tcal-on-ovf":
			opt.KeepTCalOnOVF = true
		case "--block-items":
			opt.BlockItems = true
		case "--sb:compact", "--sb":
			sbFlags = sbFlags&^sideband.DumpVerbose | sideband.DumpCompact
		case "--sb:verbose":
			sbFlags = sbFlags&^sideband.DumpCompact | sideband.DumpVerbose
		case "--sb:filename":
			sbFlags |= sideband.DumpFilename
		case "--sb:offset":
			sbFlags |= sideband.DumpOffset
		case "--sb:time":
			sbFlags |= sideband.DumpTime
		case "--sb:warn":
			sbWarn = true
		case "--pevent", "--pevent:primary", "--pevent:secondary":
			a.i++
			if a.i >= len(args) {
				fmt.Fprintf(stderr, "ptdump: %s: missing argument.\n", arg)
				return 1
			}
			file, from, to, err := splitRange(args[a.i])
			if err != nil {
				fmt.Fprintf(stderr, "ptdump: bad file %s: %v.\n", args[a.i], err)
				return 1
			}
			c := pev
			c.Filename, c.Begin, c.End = file, from, to
			c.Primary = arg == "--pevent:primary"
			if sess == nil {
				sess = sideband.NewSession()
			}
			if err := sess.AddPevent(c); err != nil {
				fmt.Fprintf(stderr, "ptdump: error loading %s: %v.\n", file, err)
				return 1
			}
		case "--pevent:sample-type":
			pev.SampleType, ok = a.uintArg(arg, 1<<64-1)
		case "--pevent:sample-config":
			a.i++
			if a.i >= len(args) {
				ok = false
				break
			}
			idv, stv, ok := sideband.ParseSampleConfig(args[a.i])
			if !ok {
				fmt.Fprintf(stderr, "ptdump: bad sample config %s: invalid argument.\n", arg)
				return 1
			}
			pev.SampleConfig = append(append([]sideband.SampleType(nil), pev.SampleConfig...),
				sideband.SampleType{ID: idv, Type: stv})
		case "--pevent:time-zero":
			pev.TimeZero, ok = a.uintArg(arg, 1<<64-1)
		case "--pevent:time-shift":
			v, ok = a.uintArg(arg, 1<<16-1)
			pev.TimeShift = uint16(v)
		case "--pevent:time-mult":
			v, ok = a.uintArg(arg, 1<<32-1)
			pev.TimeMult = uint32(v)
		case "--pevent:tsc-offset":
			pev.TSCOffset, ok = a.uintArg(arg, 1<<64-1)
		case "--pevent:kernel-start":
			pev.KernelStart, ok = a.uintArg(arg, 1<<64-1)
		case "--pevent:sysroot", "--pevent:kcore", "--pevent:vdso-x64", "--pevent:vdso-x32", "--pevent:vdso-ia32":
			a.i++
			if a.i >= len(args) {
				fmt.Fprintf(stderr, "ptdump: %s: missing argument.\n", arg)
				return 1
			}
		case "--cpu":
			a.i++
			if a.i >= len(args) {
				fmt.Fprintf(stderr, "ptdump: --cpu: missing argument.\n")
				return 1
			}
			cpu, err := errata.ParseCPU(args[a.i])
			if err != nil {
				fmt.Fprintf(stderr, "ptdump: cpu must be specified as f/m[/s]\n")
				return 1
			}
			opt.CPU = cpu
		case "--mtc-freq":
			v, ok = a.uintArg(arg, 0xff)
			opt.Timing.MTCFreq = uint8(v)
		case "--nom-freq":
			v, ok = a.uintArg(arg, 0xff)
			opt.Timing.NomFreq = uint8(v)
		case "--cpuid-0x15.eax":
			v, ok = a.uintArg(arg, 1<<32-1)
			opt.Timing.CPUID15EAX = uint32(v)
		case "--cpuid-0x15.ebx":
			v, ok = a.uintArg(arg, 1<<32-1)
			opt.Timing.CPUID15EBX = uint32(v)
		default:
			fmt.Fprintf(stderr, "ptdump: unknown option: %s.\n", arg)
			return 1
		}
		if !ok {
			return 1
		}
	}
	if ptfile == "" {
		fmt.Fprintf(stderr, "ptdump: No processor trace file specified.\n")
		return 1
	}
	file, from, to, err := splitRange(ptfile)
	if err != nil {
		fmt.Fprintf(stderr, "ptdump: bad file %s: %v.\n", ptfile, err)
		return 2 // libipt's ptdump exits with -pte_invalid
	}
	buf, release, err := LoadRange(file, from, to)
	if err != nil {
		fmt.Fprintf(stderr, "ptdump: %v.\n", err)
		return 1
	}
	if sess != nil {
		sess.SetDumpFlags(sbFlags)
		if sbWarn {
			sess.SetWarnings(true)
		}
		sess.Init(stdout)
		opt.Sideband = sess
	}
	defer release()
	if err := Dump(stdout, buf, &opt); err != nil {
		fmt.Fprintf(stderr, "ptdump: %v\n", err)
		return 1
	}
	return 0
}
