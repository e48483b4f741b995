package machine

import (
	"bytes"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/perfpt/perfpt/convert/sample"
	"github.com/perfpt/perfpt/internal/cnum"
)

// Filter holds perf's symbol_conf comm_list, dso_list, sym_list and
// addr_list (perf script's -c/--comms, --dsos and -S/--symbols) as
// machine__resolve applies them to a sample: a nil set is an option not
// given; an empty one filters every sample.
type Filter struct {
	Comms, DSOs, Syms map[string]bool
	Addrs             map[uint64]bool
	// AddrRange is symbol_conf.addr_range (--addr-range): an address
	// of Addrs matches the samples in [address, address+AddrRange) too
	// (check_address_range, in unsigned long: a negative range matches
	// none more).
	AddrRange int
}

// ListError is symbol__init's refusal of a list (setup_list: strlist__new
// failed, for a name given twice): perf prints "problems parsing NAME
// list" and stops with status 0.
type ListError struct{ Name string }

func (e *ListError) Error() string { return "problems parsing " + e.Name + " list" }

// ParseList mirrors strlist__new on a list option's value: entries
// separated by commas (strlist__parse_list: an empty one is an entry but
// for a trailing comma's), each once; an entry "file://PATH" adds the
// lines of the file PATH (strlist__load). name is the list's name in
// perf's message ("comm", "dso", "symbol").
func ParseList(v, name string) (map[string]bool, error) {
	set := map[string]bool{}
	add := func(entry string) bool {
		if set[entry] {
			return false // rblist__add_node's -EEXIST
		}
		set[entry] = true
		return true
	}
	for v != "" {
		entry, rest, more := strings.Cut(v, ",")
		ok := true
		if path, isFile := strings.CutPrefix(entry, "file://"); isFile {
			ok = loadList(path, add)
		} else {
			ok = add(entry)
		}
		if !ok {
			return nil, &ListError{Name: name}
		}
		if !more {
			break
		}
		v = rest
	}
	return set, nil
}

// loadList mirrors strlist__load: each line of the file read with
// fgets into a 1024-byte buffer (a longer line is several entries), its
// last byte dropped (the newline, or the last character of a last line
// without one), given to add until add refuses one. false: the file
// cannot be read or add refused an entry.
func loadList(path string, add func(string) bool) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for len(b) > 0 {
		n := len(b)
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			n = i + 1
		}
		n = min(n, 1023)
		if !add(string(b[:n-1])) {
			return false
		}
		b = b[n:]
	}
	return true
}

// SetSymbols sets the symbol filter from -S's list as symbol__init does:
// setup_list, then setup_addrlist, which moves the entries that read
// whole as one hexadecimal number (strtoul base 16, white space after it
// allowed) to the address list, in the list's order, until one repeats
// an address already taken.
func (f *Filter) SetSymbols(v string) error {
	syms, err := ParseList(v, "symbol")
	if err != nil {
		return err
	}
	var addrs map[uint64]bool
	// strlist is sorted: setup_addrlist walks the entries in strcmp
	// order.
	for _, e := range slices.Sorted(maps.Keys(syms)) {
		a, n, over := cnum.Strtoull(e, 16)
		if over || n == 0 || strings.TrimRight(e[n:], " \t\n\v\f\r") != "" {
			continue
		}
		if addrs[a] {
			break // intlist__add's -EEXIST ends the walk
		}
		if addrs == nil {
			addrs = map[uint64]bool{}
		}
		addrs[a] = true
		delete(syms, e)
	}
	f.Syms, f.Addrs = syms, addrs
	return nil
}

// Active says whether any list is set.
func (f *Filter) Active() bool {
	return f != nil && (f.Comms != nil || f.DSOs != nil || f.Syms != nil)
}

// NeedsLoc says whether the filter looks at a sample's location (its
// DSO or symbol), which a filter on comms alone does not.
func (f *Filter) NeedsLoc() bool { return f != nil && (f.DSOs != nil || f.Syms != nil) }

// Filtered mirrors the filters of machine__resolve (al->filtered) for a
// sample of a thread named comm at ip, resolved to l:
// thread__is_filtered's comm list, the DSO list (the map's DSO by its
// short or long name; a sample without a map is filtered), the symbol
// list (the symbol's name) and address list (ip, where there is a map).
// perf also compares "0x" and the symbol's start with the symbol list,
// but an entry of that form is always one setup_addrlist moved to the
// address list.
func (f *Filter) Filtered(comm string, ip uint64, l *sample.Loc) bool {
	if f.Comms != nil && !f.Comms[comm] {
		return true
	}
	mp, _ := l.Ref.(*Map)
	if !l.HasMap {
		mp = nil
	}
	if f.DSOs != nil {
		if mp == nil || mp.DSO == nil {
			return true
		}
		short, long := mp.DSO.Names()
		if !f.DSOs[short] && (short == long || !f.DSOs[long]) {
			return true
		}
	}
	if f.Syms != nil {
		ok := l.Sym != nil && f.Syms[l.Sym.Name]
		if !ok && f.Addrs != nil && mp != nil {
			ok = f.Addrs[ip]
			for a := range f.Addrs {
				if ok || f.AddrRange == 0 {
					break
				}
				ok = ip >= a && ip < a+uint64(int64(f.AddrRange))
			}
		}
		if !ok {
			return true
		}
	}
	return false
}
