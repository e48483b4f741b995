package cli

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/perfpt/perfpt/convert/script/runner"
)

const scriptUsage = `perfpt script [-i FILE] [-F FIELDS] [--itrace[=OPTS]] [--ns] [--reltime|--deltatime] [-C CPUS]
       [--pid PIDS] [--tid TIDS] [--time RANGES] [--symfs DIR]
       [--kallsyms FILE] [-G] [-f] [--max-stack N] [--max-blocks N]
       [--[no-]inline] [-j N]

Options are perf script's, parsed as perf parses them: "-Fip,sym",
"-F+flags,+addr", "--itrace=i100i", "-i perf.data". -j N decodes and
prints with N workers (default: one per CPU); the output is the same
for any N. --time is perf's: "START,STOP" in seconds, several separated
by spaces, or percentages of the recording ("10%/2", "0%-10%,50%-60%").`

// scriptCommand is perf script. Its options are parsed here rather than by
// urfave/cli because perf accepts glued short options ("-F+flags", "-ifile")
// and an optional value for --itrace.
func scriptCommand() *ucli.Command {
	return &ucli.Command{
		Name:            "script",
		Usage:           "decode a recording and print what perf script prints",
		UsageText:       scriptUsage,
		SkipFlagParsing: true,
		Action: func(c *ucli.Context) error {
			cfg, help, err := parseScriptArgs(c.Args().Slice())
			if err != nil {
				return err
			}
			if help {
				fmt.Fprintln(c.App.Writer, scriptUsage)
				return nil
			}
			if f, ok := c.App.ErrWriter.(*os.File); ok && isTerminal(f) {
				cfg.Progress = f
			}
			return runner.Run(cfg, c.App.Writer, c.App.ErrWriter)
		},
	}
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// scriptOptions is perf script's option table for cfg: the options that
// take a value (short letter or long name -> setter), and those that do not.
// --itrace (whose value is optional) and -h/--help are parsed apart.
func scriptOptions(cfg *runner.Config) (set map[string]func(string) error, flags map[string]func()) {
	set = map[string]func(string) error{
		"i":        func(v string) error { cfg.Input = v; return nil },
		"input":    func(v string) error { cfg.Input = v; return nil },
		"F":        func(v string) error { cfg.Fields = append(cfg.Fields, v); return nil },
		"fields":   func(v string) error { cfg.Fields = append(cfg.Fields, v); return nil },
		"C":        func(v string) error { cfg.CPUs = v; return nil },
		"cpu":      func(v string) error { cfg.CPUs = v; return nil },
		"pid":      func(v string) error { cfg.PIDs = v; return nil },
		"tid":      func(v string) error { cfg.TIDs = v; return nil },
		"time":     func(v string) error { cfg.Time = v; return nil },
		"symfs":    func(v string) error { cfg.Symfs = v; return nil },
		"k":        func(v string) error { cfg.Vmlinux = v; return nil },
		"vmlinux":  func(v string) error { cfg.Vmlinux = v; return nil },
		"kallsyms": func(v string) error { cfg.Kallsyms = v; return nil },
		"max-stack": func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("invalid --max-stack value %q", v)
			}
			cfg.MaxStack = n
			if n == 0 {
				cfg.MaxStack = -1 // perf: no entries at all
			}
			return nil
		},
		"max-blocks": func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return fmt.Errorf("invalid --max-blocks value %q", v)
			}
			cfg.MaxBlocks = n
			return nil
		},
		"j": func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("invalid -j value %q", v)
			}
			cfg.Workers = n
			return nil
		},
	}
	flags = map[string]func(){
		"ns":              func() { cfg.Nanosecs = true },
		"reltime":         func() { cfg.RelTime = true },
		"deltatime":       func() { cfg.DeltaTime = true },
		"G":               func() { cfg.NoCallchain = true },
		"hide-call-graph": func() { cfg.NoCallchain = true },
		"header":          func() { cfg.Header = true },
		"header-only":     func() { cfg.HeaderOnly = true },
		"I":               func() { cfg.ShowInfo = true },
		"show-info":       func() { cfg.ShowInfo = true },
		"f":               func() { cfg.Force = true },
		"no-demangle":     func() { cfg.NoDemangle = true },
		// Kernel symbols come from kallsyms, which perf never
		// demangles either: --demangle-kernel changes nothing there.
		"demangle-kernel": func() {},
		"v":               func() { cfg.Verbose = true },
		"verbose":         func() { cfg.Verbose = true },
		"force":           func() { cfg.Force = true },
		"inline":          func() { cfg.NoInline = false },
		"no-inline":       func() { cfg.NoInline = true },
		"stitch-lbr":      func() { cfg.StitchLBR = true },
	}
	for name, bit := range runner.ShowOptions {
		flags[name] = func() { cfg.Show |= bit }
	}
	return set, flags
}

// parseScriptArgs parses perf script's options.
func parseScriptArgs(args []string) (cfg runner.Config, help bool, err error) {
	set, flags := scriptOptions(&cfg)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help":
			return cfg, true, nil
		case strings.HasPrefix(a, "--itrace"):
			rest := a[len("--itrace"):]
			if rest != "" && rest[0] != '=' {
				return cfg, false, fmt.Errorf("unknown option %q", a)
			}
			cfg.ItraceSet = true
			cfg.Itrace = strings.TrimPrefix(rest, "=")
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			if f, ok := flags[name]; ok && !hasVal {
				f()
				continue
			}
			s, ok := set[name]
			if !ok {
				return cfg, false, fmt.Errorf("unknown option %q", a)
			}
			if !hasVal {
				if i+1 >= len(args) {
					return cfg, false, fmt.Errorf("option %q needs a value", a)
				}
				i++
				val = args[i]
			}
			if err := s(val); err != nil {
				return cfg, false, err
			}
		case len(a) > 1 && a[0] == '-':
			// Glued short options: "-Gi file", "-Fip,sym", "-j4".
			for k := 1; k < len(a); k++ {
				l := a[k : k+1]
				if f, ok := flags[l]; ok {
					f()
					continue
				}
				s, ok := set[l]
				if !ok {
					return cfg, false, fmt.Errorf("unknown option -%s", l)
				}
				val := a[k+1:]
				if val == "" {
					if i+1 >= len(args) {
						return cfg, false, fmt.Errorf("option -%s needs a value", l)
					}
					i++
					val = args[i]
				}
				if err := s(val); err != nil {
					return cfg, false, err
				}
				break
			}
		default:
			return cfg, false, fmt.Errorf("unexpected argument %q", a)
		}
	}
	return cfg, false, nil
}
