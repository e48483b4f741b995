package cli

import "strings"

// optKind says how parse-options reads an option's value: '-' none, 'v' a
// value (glued to its letter, after "=", or the next argument), 'o' an
// optional one (glued or after "=" only: PARSE_OPT_OPTARG), 'l' a value
// that may be missing at the end (PARSE_OPT_LASTARG_DEFAULT), 's' none,
// the option the command itself is (dump is perf report -D).
type optKind = byte

// optRead is one option parseOptions read: table[i], named as given
// (its letter, or the text after "--"), a long one's match, its value.
type optRead struct {
	i      int
	given  string
	short  bool
	m      longMatch
	val    string
	hasVal bool
}

// optSink is what a command does with what parseOptions reads.
type optSink interface {
	// option takes an option (m.unset for --no-NAME, which has no
	// value); an error ends the parse.
	option(r optRead) error
	// operands takes the arguments from the first that is no option
	// ("-", "--" and what follows included); the parse ends there.
	operands(args []string) error
}

// parseOptions reads args as perf's parse_options_step reads them against
// a command's table (kinds[i] for table[i]; u resolves long names over
// perf's whole table, abbreviations and negations as parse_long_opt):
// --help and a cluster's h ask for help; a long option's value checks
// ("takes no value", "requires a value"); clusters of letters ("-Gi
// FILE", "-Fip,sym", "-j4"), an unknown letter refused as perf refuses
// it. What each option does is sink's.
func parseOptions(u *perfUsage, table []optHelp, kinds []optKind, args []string, sink optSink) (help bool, err error) {
	byShort := map[byte]int{}
	byLong := map[string]int{}
	for i, o := range table {
		if _, dup := byShort[o.short]; o.short != 0 && !dup {
			byShort[o.short] = i
		}
		if o.long != "" {
			byLong[o.long] = i
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--help":
			return true, nil
		case a == "--" || a == "-" || !strings.HasPrefix(a, "-"):
			return false, sink.operands(args[i:])
		case strings.HasPrefix(a, "--"):
			m, err := u.parseLong(a[2:])
			if err != nil {
				return false, err
			}
			r := optRead{i: byLong[m.opt.long], given: a[2:], m: m, val: m.val, hasVal: m.hasVal}
			switch k := kinds[r.i]; {
			case m.unset && m.hasVal:
				return false, u.longError(m, a[2:], "takes no value")
			case m.unset || k == 'o':
			case k == '-' || k == 's':
				if m.hasVal {
					return false, u.longError(m, a[2:], "takes no value")
				}
			case !m.hasVal && i+1 < len(args):
				i++
				r.val, r.hasVal = args[i], true
			case !m.hasVal && k != 'l':
				return false, u.longError(m, a[2:], "requires a value")
			}
			if err := sink.option(r); err != nil {
				return false, err
			}
		default:
			for k := 1; k < len(a); k++ {
				c := a[k]
				if c == 'h' {
					return true, nil // parse-options' internal help
				}
				oi, ok := byShort[c]
				if !ok {
					return false, u.unknownOption("-" + string(c))
				}
				r := optRead{i: oi, given: string(c), short: true, m: longMatch{opt: table[oi]}}
				switch kinds[oi] {
				case '-', 's':
					if err := sink.option(r); err != nil {
						return false, err
					}
					continue
				case 'o':
					r.val, r.hasVal = a[k+1:], k+1 < len(a)
				default:
					r.val, r.hasVal = a[k+1:], k+1 < len(a)
					if !r.hasVal && i+1 < len(args) {
						i++
						r.val, r.hasVal = args[i], true
					} else if !r.hasVal && kinds[oi] != 'l' {
						return false, u.optError(true, string(c), "requires a value")
					}
				}
				if err := sink.option(r); err != nil {
					return false, err
				}
				break
			}
		}
	}
	return false, nil
}
