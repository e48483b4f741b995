package readback

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// jsonEvent is one object of traceEvents, with the fields perfpt writes.
type jsonEvent struct {
	Ph   *string                    `json:"ph"`
	Pid  *int64                     `json:"pid"`
	Tid  *int64                     `json:"tid"`
	Ts   *json.Number               `json:"ts"`
	Dur  *json.Number               `json:"dur"`
	Cat  *string                    `json:"cat"`
	Name *string                    `json:"name"`
	S    *string                    `json:"s"`
	Args map[string]json.RawMessage `json:"args"`
}

var jsonKnown = map[string]bool{"ph": true, "pid": true, "tid": true, "ts": true, "dur": true,
	"cat": true, "name": true, "s": true, "args": true}

// ReadJSON reads a JSON trace (see ReadFile): an object with a
// traceEvents array (or the array alone), each event an object with the
// fields its phase needs; a thread's and a process's name (metadata
// events) come before their first event.
func ReadJSON(r io.Reader, fn func(*Event) error) (*Info, error) {
	info := &Info{Format: "json", Threads: map[[2]int64]string{}, Processes: map[int64]string{}}
	d := json.NewDecoder(r)
	d.UseNumber()
	fail := func(i int, format string, a ...any) error {
		return &Error{Offset: int64(i), Msg: fmt.Sprintf(format, a...)}
	}
	tok, err := d.Token()
	if err != nil {
		return info, fail(0, "not JSON: %v", err)
	}
	switch tok {
	case json.Delim('['):
	case json.Delim('{'):
		found := false
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return info, fail(0, "bad object: %v", err)
			}
			if k == "traceEvents" {
				found = true
				if t, err := d.Token(); err != nil || t != json.Delim('[') {
					return info, fail(0, "traceEvents is not an array")
				}
				break
			}
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return info, fail(0, "bad value of %v: %v", k, err)
			}
		}
		if !found {
			return info, fail(0, "no traceEvents")
		}
	default:
		return info, fail(0, "neither an object nor an array")
	}
	var ev Event
	for i := 0; d.More(); i++ {
		var raw map[string]json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return info, fail(i, "bad event: %v", err)
		}
		for k := range raw {
			if !jsonKnown[k] {
				return info, fail(i, "unknown field %q", k)
			}
		}
		var je jsonEvent
		b, _ := json.Marshal(raw)
		dd := json.NewDecoder(strings.NewReader(string(b)))
		dd.UseNumber()
		if err := dd.Decode(&je); err != nil {
			return info, fail(i, "bad event: %v", err)
		}
		info.Records++
		if je.Ph == nil || len(*je.Ph) != 1 {
			return info, fail(i, "event without a one-letter ph")
		}
		ph := (*je.Ph)[0]
		if je.Pid == nil {
			return info, fail(i, "event without pid")
		}
		if ph == 'M' {
			name := ""
			if je.Name != nil {
				name = *je.Name
			}
			var n string
			if err := json.Unmarshal(je.Args["name"], &n); err != nil {
				return info, fail(i, "metadata %q without args.name", name)
			}
			switch name {
			case "process_name":
				info.Processes[*je.Pid] = n
			case "thread_name":
				if je.Tid == nil {
					return info, fail(i, "thread_name without tid")
				}
				info.Threads[[2]int64{*je.Pid, *je.Tid}] = n
			default:
				return info, fail(i, "metadata %q: not written by perfpt", name)
			}
			continue
		}
		if je.Tid == nil || je.Ts == nil {
			return info, fail(i, "event %q without tid or ts", string(ph))
		}
		ev = Event{Phase: ph, Pid: *je.Pid, Tid: *je.Tid, Offset: int64(i), Args: ev.Args[:0]}
		if ev.Ts, err = micros(*je.Ts); err != nil {
			return info, fail(i, "ts: %v", err)
		}
		if je.Cat != nil {
			ev.Cat = *je.Cat
		}
		if je.Name != nil {
			ev.Name = *je.Name
		}
		if ev.Name == "" {
			return info, fail(i, "%q event without a name", string(ph))
		}
		switch ph {
		case 'B', 'E', 'C':
		case 'i':
			if je.S == nil || *je.S != "t" {
				return info, fail(i, "instant without thread scope")
			}
		case 'X':
			if je.Dur == nil {
				return info, fail(i, "complete event without dur")
			}
			dur, err := micros(*je.Dur)
			if err != nil {
				return info, fail(i, "dur: %v", err)
			}
			ev.End = ev.Ts + dur
		default:
			return info, fail(i, "phase %q: not written by perfpt", string(ph))
		}
		if _, ok := info.Threads[[2]int64{ev.Pid, ev.Tid}]; !ok {
			return info, fail(i, "thread %d/%d used before its thread_name", ev.Pid, ev.Tid)
		}
		if _, ok := info.Processes[ev.Pid]; !ok {
			return info, fail(i, "process %d used before its process_name", ev.Pid)
		}
		for k, v := range je.Args {
			a := Arg{Name: k}
			var s string
			var n json.Number
			if json.Unmarshal(v, &s) == nil {
				a.Val = s
			} else if json.Unmarshal(v, &n) == nil {
				if u, err := strconv.ParseUint(n.String(), 10, 64); err == nil {
					a.Val = u
				} else if s, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
					a.Val = s
				} else if f, err := n.Float64(); err == nil {
					a.Val = f
				}
			} else if string(v) == "null" {
				a.Val = nil
			} else {
				return info, fail(i, "argument %q is neither a string nor a number", k)
			}
			ev.Args = append(ev.Args, a)
		}
		if err := fn(&ev); err != nil {
			return info, err
		}
	}
	if t, err := d.Token(); err != nil || t != json.Delim(']') {
		return info, fail(0, "traceEvents not closed")
	}
	return info, nil
}

// micros converts a decimal number of microseconds, with at most three
// decimals, to nanoseconds exactly.
func micros(n json.Number) (uint64, error) {
	s := n.String()
	ip, fp, _ := strings.Cut(s, ".")
	if len(fp) > 3 {
		return 0, fmt.Errorf("%s: more than nanosecond precision", s)
	}
	u, err := strconv.ParseUint(ip, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: not a non-negative decimal", s)
	}
	f := uint64(0)
	if fp != "" {
		v, err := strconv.ParseUint(fp+strings.Repeat("0", 3-len(fp)), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: not a decimal", s)
		}
		f = v
	}
	return u*1000 + f, nil
}
