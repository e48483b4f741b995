package native

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// SysfsRoot is where PMU descriptions live (tests point it at
// testdata/sysfs).
const SysfsRoot = "/sys"

// ErrNoPMU is returned (wrapped) when a PMU does not exist.
var ErrNoPMU = errors.New("PMU not found")

// Field is one format field: which config word and which bits.
type Field struct {
	Word string // "config", "config1", "config2"
	Bits []int  // bit numbers, low first
}

// PMU is a PMU's sysfs description.
type PMU struct {
	Name   string
	Type   uint32
	Format map[string]Field
	Caps   map[string]string
	Dir    string
}

// LoadPMU reads root/bus/event_source/devices/name.
func LoadPMU(root, name string) (*PMU, error) {
	dir := filepath.Join(root, "bus", "event_source", "devices", name)
	b, err := os.ReadFile(filepath.Join(dir, "type"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%s: %w (%s does not exist)", name, ErrNoPMU, dir)
		}
		return nil, err
	}
	t, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		return nil, fmt.Errorf("%s/type: %w", dir, err)
	}
	p := &PMU{Name: name, Type: uint32(t), Format: map[string]Field{}, Caps: map[string]string{}, Dir: dir}
	fs, _ := os.ReadDir(filepath.Join(dir, "format"))
	for _, f := range fs {
		b, err := os.ReadFile(filepath.Join(dir, "format", f.Name()))
		if err != nil {
			continue
		}
		fld, err := parseFormat(strings.TrimSpace(string(b)))
		if err != nil {
			return nil, fmt.Errorf("%s/format/%s: %w", dir, f.Name(), err)
		}
		p.Format[f.Name()] = fld
	}
	cs, _ := os.ReadDir(filepath.Join(dir, "caps"))
	for _, f := range cs {
		if b, err := os.ReadFile(filepath.Join(dir, "caps", f.Name())); err == nil {
			p.Caps[f.Name()] = strings.TrimSpace(string(b))
		}
	}
	return p, nil
}

// parseFormat parses "config:14-17" or "config:0,5,8-9".
func parseFormat(s string) (Field, error) {
	word, spec, ok := strings.Cut(s, ":")
	if !ok {
		return Field{}, fmt.Errorf("bad format %q", s)
	}
	f := Field{Word: word}
	var seen uint64
	for _, r := range strings.Split(spec, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		l, err := strconv.Atoi(lo)
		if err != nil || l < 0 || l > 63 {
			return Field{}, fmt.Errorf("bad format %q", s)
		}
		h := l
		if isRange {
			if h, err = strconv.Atoi(hi); err != nil || h < l || h > 63 {
				return Field{}, fmt.Errorf("bad format %q", s)
			}
		}
		for b := l; b <= h; b++ {
			if seen&(1<<b) != 0 {
				return Field{}, fmt.Errorf("bad format %q: bit %d twice", s, b)
			}
			seen |= 1 << b
			f.Bits = append(f.Bits, b)
		}
	}
	return f, nil
}

// Mask returns the field's bits as a mask.
func (f Field) Mask() uint64 {
	var m uint64
	for _, b := range f.Bits {
		m |= 1 << b
	}
	return m
}

// Put scatters v into the field's bits of word.
func (f Field) Put(word, v uint64) (uint64, error) {
	if len(f.Bits) < 64 && v>>len(f.Bits) != 0 {
		return 0, fmt.Errorf("value %d does not fit %d bits", v, len(f.Bits))
	}
	for i, b := range f.Bits {
		word = word&^(1<<b) | (v>>i&1)<<b
	}
	return word, nil
}

// Config is the three config words of an event.
type Config struct{ Config, Config1, Config2 uint64 }

// Term is one term of an event's config: "name" (value 1) or "name=value"
// (decimal, 0x hex or 0 octal).
type Term struct {
	Name  string
	Value uint64
	Text  string // as written
}

// ParseTerms splits "a,b=3,c=0x10" into its terms; empty terms are skipped.
func ParseTerms(terms string) ([]Term, error) {
	var out []Term
	for _, t := range strings.Split(terms, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		name, val, hasVal := strings.Cut(t, "=")
		v := uint64(1)
		if hasVal {
			var err error
			if v, err = strconv.ParseUint(val, 0, 64); err != nil {
				return nil, fmt.Errorf("term %q: %w", t, err)
			}
		}
		out = append(out, Term{Name: name, Value: v, Text: t})
	}
	return out, nil
}

// Terms applies "a,b=3,c=0x10" to c using the PMU's format.
func (p *PMU) Terms(c Config, terms string) (Config, error) {
	ts, err := ParseTerms(terms)
	if err != nil {
		return c, fmt.Errorf("%s: %w", p.Name, err)
	}
	for _, term := range ts {
		name, v, t := term.Name, term.Value, term.Text
		f, ok := p.Format[name]
		if !ok {
			return c, fmt.Errorf("%s: unknown term %q (known: %s)", p.Name, name, strings.Join(p.terms(), ", "))
		}
		var w *uint64
		switch f.Word {
		case "config":
			w = &c.Config
		case "config1":
			w = &c.Config1
		case "config2":
			w = &c.Config2
		default:
			return c, fmt.Errorf("%s: term %q sets %s", p.Name, name, f.Word)
		}
		nv, err := f.Put(*w, v)
		if err != nil {
			return c, fmt.Errorf("%s: term %q: %w", p.Name, t, err)
		}
		*w = nv
	}
	return c, nil
}

func (p *PMU) terms() []string {
	var n []string
	for k := range p.Format {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// capHex reads a hexadecimal caps file (0 when absent).
func (p *PMU) capHex(name string) uint64 {
	v, _ := strconv.ParseUint(p.Caps[name], 16, 64)
	return v
}

// pickBit returns the lowest set bit of mask at or above target, else the
// highest below it (perf's intel_pt_pick_bit).
func pickBit(mask uint64, target int) int {
	pos, best := -1, -1
	for b := 0; b < 64; b++ {
		if mask&(1<<b) == 0 {
			continue
		}
		if b >= target {
			return b
		}
		pos = b
	}
	if pos >= 0 {
		best = pos
	}
	return best
}

// IntelPTDefaultTerms returns the terms perf uses for intel_pt// with this
// PMU's capabilities: "tsc,mtc,mtc_period=3,psb_period=3,pt,branch".
func (p *PMU) IntelPTDefaultTerms() string {
	terms := []string{"tsc"}
	mtc := p.Caps["mtc"] != "0"
	mtcPeriods := p.capHex("mtc_periods")
	if mtc && mtcPeriods != 0 {
		terms = append(terms, "mtc", fmt.Sprintf("mtc_period=%d", pickBit(mtcPeriods, 3)))
	}
	if p.Caps["psb_cyc"] != "0" && mtcPeriods != 0 {
		if pp := p.capHex("psb_periods"); pp != 0 {
			terms = append(terms, fmt.Sprintf("psb_period=%d", pickBit(pp, 3)))
		}
	}
	if _, ok := p.Format["pt"]; ok {
		if _, ok := p.Format["branch"]; ok {
			terms = append(terms, "pt", "branch")
		}
	}
	return strings.Join(terms, ",")
}
