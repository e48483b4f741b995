package query

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfpt/perfpt/ptdecode/packet"
)

// untimed lists the events of d until an error, without their times.
func untimed(d *Decoder) ([]string, error) {
	var out []string
	var ev Event
	for {
		if err := d.Next(&ev); err != nil {
			return out, err
		}
		ev.HasTSC = false
		out = append(out, fmt.Sprintf("%s off=%x", formatEvent(&ev), d.Offset()))
	}
}

// chunked decodes buf one PSB segment at a time, each with its own
// decoder limited by SetEnd, and concatenates the events.
func chunked(t *testing.T, buf []byte, cfg *Config) []string {
	psbs := packet.PSBIndex(nil, buf)
	var all []string
	for i, off := range psbs {
		end := len(buf)
		if i+1 < len(psbs) {
			end = psbs[i+1]
		}
		d := NewDecoder(buf, cfg)
		d.SetEnd(uint64(end))
		if err := d.SyncSet(uint64(off)); err != nil {
			all = append(all, "sync error")
			continue
		}
		evs, err := untimed(d)
		all = append(all, evs...)
		if CodeOf(err) != CodeEOS || d.Offset() != uint64(end) {
			all = append(all, fmt.Sprintf("error %v at %x", CodeOf(err), d.Offset()))
		}
	}
	return all
}

// TestChunks checks that decoding PSB segments separately with SetEnd
// gives the events of a sequential decode, on the table streams and the
// corpus streams that decode without errors.
func TestChunks(t *testing.T) {
	type stream struct {
		name string
		buf  []byte
		cfg  Config
	}
	var streams []stream
	for _, tt := range decoderTests {
		streams = append(streams, stream{tt.name, encode(t, tt.pkts...), tt.cfg})
	}
	// The corpus streams with the options of the oracle test.
	corpus := filepath.Join("..", "..", "..", "shared", "conformance", "libipt")
	if _, err := os.Stat(corpus); err == nil {
		for _, c := range readOracle(t) {
			if slices.Contains(c.args, "--query") || slices.Contains(c.args, "--backward") {
				continue
			}
			b, err := os.ReadFile(filepath.Join(corpus, c.pt))
			cfg, _, cerr := oracleConfig(c.args)
			if err == nil && cerr == nil {
				streams = append(streams, stream{c.pt + " " + strings.Join(c.args, " "), b, cfg})
			}
		}
	}
	compared := 0
	for _, s := range streams {
		d := NewDecoder(s.buf, &s.cfg)
		if d.SyncForward() != nil {
			continue
		}
		want, err := untimed(d)
		if CodeOf(err) != CodeEOS || len(packet.PSBIndex(nil, s.buf)) < 1 {
			continue
		}
		got := chunked(t, s.buf, &s.cfg)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: chunked decode differs:\n%s", s.name, diffLines(got, want))
		}
		compared++
	}
	if compared < 50 {
		t.Errorf("only %d streams compared", compared)
	}
	t.Logf("%d streams decode the same in PSB chunks", compared)
}

// TestCopy checks that a copied decoder is independent and that restoring
// a saved copy replays the same events.
func TestCopy(t *testing.T) {
	buf := encode(t, cat(head(), []P{tnt("!."), fup(0x1100), pip(0xabc000), tip(0x2000), ovf(), fup(0x3000)}, head())...)
	d := NewDecoder(buf, &Config{})
	if err := d.SyncForward(); err != nil {
		t.Fatal(err)
	}
	var ev Event
	d.Next(&ev)
	saved := *d
	pos := d.Pos()
	first, _ := untimed(d)
	if saved.Pos() != pos {
		t.Fatal("the saved copy moved")
	}
	*d = saved
	again, _ := untimed(d)
	if strings.Join(first, "\n") != strings.Join(again, "\n") || len(first) < 6 {
		t.Fatalf("replay differs:\n%s\n--\n%s", strings.Join(first, "\n"), strings.Join(again, "\n"))
	}
}
