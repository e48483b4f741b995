package query

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/internal/conformance"
	"github.com/perfpt/perfpt/ptdecode/errata"
)

// The oracle test decodes every stream of the libipt conformance corpus
// (../shared/conformance/libipt) and compares the event stream, offsets
// and errors with testdata/libipt-events.txt: what libipt's pt_evt_next
// gives on the same stream and options (a small C program linked against
// libipt, run outside the repository, printed it in dumpEvent's format).
// After an error, both resynchronise at the next PSB.

// dumpEvent prints an event like the oracle program: formatEvent plus the
// lost MTC/CYC counts, TRIG's mult flag and the decoder offset.
func dumpEvent(ev *Event, off uint64) string {
	e := *ev
	e.HasTSC = false
	s := formatEvent(&e)
	if ev.Type == EventTrig && ev.Mult {
		s = strings.Replace(s, fmt.Sprintf("icnt=%d", ev.ICnt), fmt.Sprintf("icnt=%d mult", ev.ICnt), 1)
	}
	if ev.HasTSC {
		s += fmt.Sprintf(" @%x/%d/%d", ev.TSC, ev.LostMTC, ev.LostCYC)
	}
	return s + fmt.Sprintf(" off=%x", off)
}

// dumpStream decodes buf like the oracle program does.
func dumpStream(buf []byte, cfg *Config) []string {
	var out []string
	d := NewDecoder(buf, cfg)
	err := d.SyncForward()
	var ev Event
	for n := 0; ; n++ {
		if n > 100000 {
			return append(out, "too many")
		}
		if err != nil {
			out = append(out, fmt.Sprintf("sync: %v off=%x", CodeOf(err), d.Offset()))
			if CodeOf(err) == CodeEOS {
				return out
			}
			err = d.SyncForward()
			continue
		}
		if e := d.Next(&ev); e != nil {
			out = append(out, fmt.Sprintf("error: %v off=%x", CodeOf(e), d.Offset()))
			err = d.SyncForward()
			continue
		}
		out = append(out, dumpEvent(&ev, d.Offset()))
	}
}

// oracleConfig reads the oracle's decoder options.
func oracleConfig(args []string) (Config, []string, error) {
	var cfg Config
	var pre []string
	for i := 0; i < len(args); i++ {
		num := func() (uint64, error) {
			i++
			if i >= len(args) {
				return 0, fmt.Errorf("missing value")
			}
			return strconv.ParseUint(args[i], 0, 32)
		}
		switch args[i] {
		case "--cpu":
			i++
			cpu, err := errata.ParseCPU(args[i])
			if err != nil {
				return cfg, nil, err
			}
			cfg.CPU = cpu
			if cfg.Errata, err = errata.ForCPU(cpu); err != nil {
				pre = append(pre, "config error: unknown cpu")
			}
		case "--mtc-freq", "--nom-freq", "--cpuid-0x15.eax", "--cpuid-0x15.ebx":
			o := args[i]
			v, err := num()
			if err != nil {
				return cfg, nil, err
			}
			switch o {
			case "--mtc-freq":
				cfg.Timing.MTCFreq = uint8(v)
			case "--nom-freq":
				cfg.Timing.NomFreq = uint8(v)
			case "--cpuid-0x15.eax":
				cfg.Timing.CPUID15EAX = uint32(v)
			default:
				cfg.Timing.CPUID15EBX = uint32(v)
			}
		case "--backward", "--query":
			// Modes, see dumpMode.
		case "--iflags":
			cfg.IFlagsEvents = true
		case "--keep-tcal":
			cfg.KeepTcalOnOvf = true
		default:
			return cfg, nil, fmt.Errorf("unknown option %q", args[i])
		}
	}
	return cfg, pre, nil
}

type oracleCase struct {
	pt   string
	args []string
	want []string
}

func readOracle(t *testing.T) []oracleCase {
	f, err := os.Open(filepath.Join("testdata", "libipt-events.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []oracleCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "=== "):
			fields := strings.Fields(line[4:])
			cases = append(cases, oracleCase{pt: fields[0], args: fields[1:]})
		case len(cases) > 0:
			c := &cases[len(cases)-1]
			c.want = append(c.want, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestLibiptEvents(t *testing.T) {
	dir := conformance.Dir(t)
	cases := readOracle(t)
	pass := 0
	for _, c := range cases {
		name := c.pt + " " + strings.Join(c.args, " ")
		buf, err := os.ReadFile(filepath.Join(dir, c.pt))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		cfg, got, err := oracleConfig(c.args)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		got = append(got, dumpMode(buf, &cfg, c.args)...)
		if g, w := strings.Join(got, "\n"), strings.Join(c.want, "\n"); g != w {
			t.Errorf("%s:\n%s", name, diffLines(got, c.want))
			continue
		}
		pass++
	}
	t.Logf("%d of %d corpus streams give libipt's events", pass, len(cases))
}

// diffLines shows the first difference between got and want with context.
func diffLines(got, want []string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	var b strings.Builder
	from := max(0, i-3)
	for j := from; j < i; j++ {
		fmt.Fprintf(&b, "    %s\n", got[j])
	}
	for j := i; j < min(len(got), i+3); j++ {
		fmt.Fprintf(&b, "  - %s\n", got[j])
	}
	for j := i; j < min(len(want), i+3); j++ {
		fmt.Fprintf(&b, "  + %s\n", want[j])
	}
	return b.String()
}

// dumpMode runs the oracle mode named in args: the event stream (default),
// repeated backward synchronisation (--backward) or the query decoder
// (--query).
func dumpMode(buf []byte, cfg *Config, args []string) []string {
	for _, a := range args {
		switch a {
		case "--backward":
			return dumpBackward(buf, cfg)
		case "--query":
			return dumpQuery(buf, cfg)
		}
	}
	return dumpStream(buf, cfg)
}

// dumpBackward synchronises backward k times from the end with a fresh
// decoder for k = 1, 2, ... and lists the first events there.
func dumpBackward(buf []byte, cfg *Config) []string {
	var out []string
	var ev Event
	for k := 1; k < 64; k++ {
		d := NewDecoder(buf, cfg)
		var err error
		for j := 0; j < k && err == nil; j++ {
			err = d.SyncBackward()
		}
		if err != nil {
			out = append(out, fmt.Sprintf("sync %d: %v", k, CodeOf(err)))
			if CodeOf(err) == CodeEOS {
				break
			}
			continue
		}
		out = append(out, fmt.Sprintf("sync %d at %x off=%x", k, d.SyncOffset(), d.Offset()))
		for j := 0; j < 3; j++ {
			if err := d.Next(&ev); err != nil {
				out = append(out, fmt.Sprintf("error: %v off=%x", CodeOf(err), d.Offset()))
				break
			}
			out = append(out, dumpEvent(&ev, d.Offset()))
		}
	}
	return out
}

// dumpQuery drives the query decoder like a flow decoder that always takes
// pending events first, then tries a conditional branch, then an indirect
// one, and lists the answers, status flags, and the time at the end of
// each trace segment.
func dumpQuery(buf []byte, cfg *Config) []string {
	var out []string
	q := NewQuery(buf, cfg)
	ip, st, err := q.SyncForward()
	var ev Event
	for k := 0; k < 100000; k++ {
		if err != nil {
			out = append(out, fmt.Sprintf("sync: %v off=%x", CodeOf(err), q.Offset()))
			if CodeOf(err) == CodeEOS {
				break
			}
			ip, st, err = q.SyncForward()
			continue
		}
		if st&StatusIPSuppressed != 0 {
			ip = 0
		}
		out = append(out, fmt.Sprintf("status %x ip=%x", st, ip))
		var r error
		for {
			if st&StatusEventPending != 0 {
				s, e := q.Event(&ev)
				if e != nil {
					r = e
					break
				}
				out = append(out, dumpEvent(&ev, q.Offset()))
				st = s
				continue
			}
			if st&StatusEOS != 0 {
				r = CodeEOS
				break
			}
			taken, s, e := q.CondBranch()
			if e == nil {
				t := 0
				if taken {
					t = 1
				}
				out = append(out, fmt.Sprintf("cond %d st=%x", t, s))
				st = s
				continue
			}
			if CodeOf(e) != CodeBadQuery {
				r = e
				break
			}
			dst, s, e := q.IndirectBranch()
			if e == nil {
				if s&StatusIPSuppressed != 0 {
					dst = 0
				}
				out = append(out, fmt.Sprintf("indirect %x st=%x", dst, s))
				st = s
				continue
			}
			r = e
			break
		}
		tsc, lm, lc, te := q.Time()
		cbr, ce := q.CoreBusRatio()
		out = append(out, fmt.Sprintf("end: %v off=%x time=%d/%x/%d/%d cbr=%d/%d", CodeOf(r), q.Offset(),
			-int(CodeOf(te)), tsc, lm, lc, -int(CodeOf(ce)), cbr))
		ip, st, err = q.SyncForward()
	}
	return out
}
