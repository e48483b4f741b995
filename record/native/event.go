package native

import (
	"fmt"
	"strings"
)

// Event is a parsed event string.
type Event struct {
	PMU       string // "intel_pt", or "" for a named software event
	Name      string // software event name (cpu-clock, task-clock, dummy)
	Terms     string // PMU terms between the slashes
	User      bool   // modifier u: user space only
	Kernel    bool   // modifier k
	Modifiers string
}

// ParseEvent parses "intel_pt//u", "intel_pt/cyc,noretcomp/", "cpu-clock",
// "task-clock:u".
func ParseEvent(s string) (Event, error) {
	var e Event
	if pmu, rest, ok := strings.Cut(s, "/"); ok {
		terms, mods, ok := strings.Cut(rest, "/")
		if !ok || pmu == "" {
			return e, fmt.Errorf("bad event %q: want PMU/terms/modifiers", s)
		}
		e.PMU, e.Terms, e.Modifiers = pmu, terms, strings.TrimPrefix(mods, ":")
	} else {
		name, mods, _ := strings.Cut(s, ":")
		e.Name, e.Modifiers = name, mods
	}
	for _, m := range e.Modifiers {
		switch m {
		case 'u':
			e.User = true
		case 'k':
			e.Kernel = true
		case 'p', 'P', 'H', 'G':
		default:
			return e, fmt.Errorf("bad event %q: unknown modifier %q", s, m)
		}
	}
	return e, nil
}

// IsIntelPT says whether s names the intel_pt PMU.
func IsIntelPT(s string) bool { return strings.HasPrefix(s, "intel_pt/") || s == "intel_pt" }

// IntelPTConfig returns the config perf would use for an intel_pt event:
// the PMU's defaults when no terms are given, else the terms on top of
// pt,branch.
func IntelPTConfig(p *PMU, e Event) (Config, error) {
	terms := e.Terms
	if strings.TrimSpace(terms) == "" {
		terms = p.IntelPTDefaultTerms()
	} else {
		terms = "pt,branch," + terms
	}
	return p.Terms(Config{}, terms)
}

// CheckIntelPT reports, in one line, why intel_pt cannot be recorded here.
func CheckIntelPT(root string) error {
	if _, err := LoadPMU(root, "intel_pt"); err != nil {
		return fmt.Errorf("no Intel PT on this machine: %v; record with --emulate instead", err)
	}
	return nil
}
