package packet

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// Decoder.Batch decodes several stretches of the buffer at once. Decoding
// packet after packet is a chain of dependent loads (the size of a packet is
// known only once its first byte is read, see BenchmarkOffsetChain) that
// bounds a one-stream loop to about 2.5 ns a packet. Batch runs batchLanes
// such chains interleaved in one loop: lane 0 starts at the decoder's
// offset, lane j at j*stride bytes further, a guess. A lane that starts
// inside a packet decodes garbage at first but soon falls onto the real
// packet boundaries (most packets are 1 or 2 bytes); afterwards each lane
// is stitched to the next at the first offset both decoded, which is then a
// true boundary, and the packets in between are exactly the ones Next
// returns. A lane that ends before it meets the next one is extended one
// packet at a time. Lane items go to their own region of out and are moved
// down to make the result contiguous.
//
// The lane step decodes without branching on the kind the packets whose
// size the first byte tells (as Next's fast path), TNT-64 and CYC up to 9
// bytes; anything else (PSB+, MODE, bad bytes, ...) goes to laneRound.slow.
// Lanes never decode in a BBP..BEP block, with the SKD007 erratum on, or
// past an error: those are left to Next.
const (
	batchLanes = 4
	laneCap    = 256 // items of a lane's region of out
	laneSteps  = 224 // packets a lane decodes in the loop; the rest of laneCap is for extending it
	laneMax    = 8   // the longest packet of the lane step
	laneMargin = 16  // a lane step reads up to 16 bytes from its offset
	laneMore   = 8   // steps the loop runs at a time past laneSteps
	laneAhead  = 8   // bytes past the next lane's start a lane should reach
	strideNum  = 16  // lanes start strideNum/16 of a lane's reach apart

	// BatchSize is the smallest len(out) with which Batch decodes several
	// streams at once: give it at least that many Items (16 KiB).
	BatchSize = batchLanes * laneCap

	cycStops = 0x01010100         // bit 0 of bytes 1..4: a CYC extension byte continues (the step takes CYCs of up to 5 bytes)
	tnt64Min = 0x2a3              // TNT-64: ext. opcode a3, payload >= 2 (a stop bit and a branch)
	tnt64Bad = 0xff000000000000ff // bits of w&(1<<56-1) - tnt64Min that are 0 in a good TNT-64
)

// laneTab is, by first byte c, what the lane step needs of the packet
// starting with c. Its size is (tz&cyc[c] + size8[c]) >> 3, where tz is the
// bit index of the first stop bit of a CYC's extension bytes (8k for byte
// k, 63 for none):
//   - size8: 8 times the size of the packets the step decodes; 15 for a CYC
//     with extension bytes (whose cyc is 0x7f: size k+1, 9 for none);
//     0xff<<3 for the packets it leaves to the general decoder;
//   - meta: the Item.meta (without offset), size 0 for the long CYC;
//   - check: for 0x02, the bits that must be 0 in a good TNT-64 (tnt64Bad).
//
// The fields are arrays, not an array of structs, so that the step indexes
// all with c from one base address.
var laneTab = func() (t struct {
	meta, check, cyc, size8 [256]uint64
}) {
	for i := range 256 {
		c := byte(i)
		var k Kind
		var s uint8
		switch {
		case tmplSize[c] == 9: // a full IP: more than the step's word
			t.size8[i] = 0xff << 3
			continue
		case tmplSize[c] != 0:
			k, s = tmpl[c].Kind, tmpl[c].Size
		case c == opcExt:
			k, s = KindTNT64, 8
			t.check[i] = tnt64Bad
		case c&7 == 7:
			k = KindCYC
			t.cyc[i], t.size8[i] = 0x7f, 15
		default:
			t.size8[i] = 0xff << 3
			continue
		}
		t.size8[i] += uint64(s) << 3
		t.meta[i] = uint64(s)<<40 | uint64(k)<<48 | uint64(c)<<56
	}
	return t
}()

// laneTabP is &laneTab, read at run time so that the step addresses the
// table's fields from one register.
var laneTabP = &laneTab

// itemSize is the size of an Item.
const itemSize = 16

// load64 reads the little-endian word at p.
func load64(p unsafe.Pointer) uint64 { return binary.LittleEndian.Uint64((*[8]byte)(p)[:]) }

// Batch decodes packets into out, as successive calls of Next would, and
// returns how many; 0 at the end of the buffer or on an error (Err says
// which). Afterwards the decoder is where those calls of Next would leave
// it (Offset, PacketOffset, Packet, SyncOffset), so Batch and Next can be
// mixed. Batch may return fewer packets than fit, for instance before a
// rare packet it leaves to Next; it never allocates.
//
// With len(out) >= BatchSize it decodes several parts of the buffer at once
// (see batch.go) and is several times faster than Next:
//
//	items := make([]packet.Item, packet.BatchSize)
//	for n := d.Batch(items); n > 0; n = d.Batch(items) {
//		for _, it := range items[:n] {
//			switch it.Kind() { ... }
//		}
//	}
//	if err := d.Err(); err != nil { ... }
func (d *Decoder) Batch(out []Item) int {
	n := 0
	for n < len(out) && d.err == nil {
		if d.block == 0 && !d.skd007 && d.pos >= 0 && len(d.buf)-d.pos >= laneMinBytes {
			if len(out)-n >= BatchSize {
				if m := d.lanes((*[BatchSize]Item)(out[n:])); m > 0 {
					n += m
					continue
				}
			} else if n > 0 {
				break
			}
		}
		// A few packets the general way: near the end, in a block, at a
		// packet the lanes leave to Next, or when out is small.
		for k := 0; k < 8 && n < len(out); k++ {
			if !d.Next() {
				return n
			}
			out[n] = makeItem(d.buf, d.cur, &d.pkt)
			n++
		}
	}
	return n
}

// laneMinBytes is the least buffer left for which Batch runs lanes.
const laneMinBytes = 256

// laneRound is the state of one run of the lanes that the rare cases
// (laneRound.slow) and the stitching need.
type laneRound struct {
	buf    []byte
	items  *[BatchSize]Item
	start  int // the decoder's offset, lane 0's start
	safe   int // a lane step may read at offsets <= safe
	lim    int // steps the loop may run
	noBIPs bool
	first  [batchLanes]int // a lane's items from first on are one chain of packets
	cnt    [batchLanes]int // a lane's items
	stop   [batchLanes]int // items of a lane that stopped, else laneCap
	psbLo  [batchLanes]int // a lane's first and last item that is a PSB, or -1
	psbHi  [batchLanes]int
	// lastPSB is the offset of the last PSB stitch delivered, or -1.
	lastPSB int
}

// lanes runs one round of the lanes at d's offset and writes the packets,
// in order, to out[:n]; 0 when it could not decode the packet there.
func (d *Decoder) lanes(items *[BatchSize]Item) int {
	buf := d.buf
	r := laneRound{buf: buf, items: items, start: d.pos, safe: len(buf) - laneMargin, noBIPs: d.noBIPs}
	for j := range batchLanes {
		r.stop[j], r.psbLo[j], r.psbHi[j] = laneCap, -1, -1
	}
	stride := d.stride
	if stride <= 0 {
		stride = 2 * laneSteps
	}
	if avail := r.safe - r.start; 4*stride > avail {
		stride = avail / 8
	}
	p0, p1, p2, p3 := r.start, r.start+1*stride, r.start+2*stride, r.start+3*stride
	// A guessed start on a byte the lane step cannot take is most likely
	// inside a packet: try the next bytes (saves a trip to slow).
	for p1 < r.safe && laneTab.size8[buf[p1]] > laneMax<<3 {
		p1++
	}
	for p2 < r.safe && laneTab.size8[buf[p2]] > laneMax<<3 {
		p2++
	}
	for p3 < r.safe && laneTab.size8[buf[p3]] > laneMax<<3 {
		p3++
	}
	starts := [batchLanes]int{p0, p1, p2, p3}
	r.lim = min(laneCap, (r.safe-p3)/laneMax+1)
	lim := min(laneSteps, r.lim)
	bp := unsafe.Pointer(unsafe.SliceData(buf))
	lt := laneTabP
	_ = lt.meta[0] // one nil check, not one per step
	// ip is the lane 0 item of the step; lane j's is j regions further.
	// The loop stays inside items: it runs at most r.lim <= laneCap steps.
	base := unsafe.Pointer(items)
	ip, end := base, unsafe.Add(base, lim*itemSize)
	for {
		// The hot loop makes no call, so that the lanes' offsets stay in
		// registers; a lane step it cannot take ends it (cold = the lane).
		cold := -1
		for ; uintptr(ip) < uintptr(end); ip = unsafe.Add(ip, itemSize) {
			{
				w := load64(unsafe.Add(bp, p0))
				c := uint8(w)
				s := (uint64(bits.TrailingZeros64(^w&cycStops|1<<63))&lt.cyc[c] + lt.size8[c]) >> 3
				if t := (w>>8 - tnt64Min) & lt.check[c]; s > laneMax || t != 0 {
					cold = 0
					break
				}
				*(*Item)(unsafe.Add(ip, 0*laneCap*itemSize)) = Item{raw: w, meta: lt.meta[c] | uint64(p0)}
				p0 += int(s)
			}
			{
				w := load64(unsafe.Add(bp, p1))
				c := uint8(w)
				s := (uint64(bits.TrailingZeros64(^w&cycStops|1<<63))&lt.cyc[c] + lt.size8[c]) >> 3
				if t := (w>>8 - tnt64Min) & lt.check[c]; s > laneMax || t != 0 {
					cold = 1
					break
				}
				*(*Item)(unsafe.Add(ip, 1*laneCap*itemSize)) = Item{raw: w, meta: lt.meta[c] | uint64(p1)}
				p1 += int(s)
			}
			{
				w := load64(unsafe.Add(bp, p2))
				c := uint8(w)
				s := (uint64(bits.TrailingZeros64(^w&cycStops|1<<63))&lt.cyc[c] + lt.size8[c]) >> 3
				if t := (w>>8 - tnt64Min) & lt.check[c]; s > laneMax || t != 0 {
					cold = 2
					break
				}
				*(*Item)(unsafe.Add(ip, 2*laneCap*itemSize)) = Item{raw: w, meta: lt.meta[c] | uint64(p2)}
				p2 += int(s)
			}
			{
				w := load64(unsafe.Add(bp, p3))
				c := uint8(w)
				s := (uint64(bits.TrailingZeros64(^w&cycStops|1<<63))&lt.cyc[c] + lt.size8[c]) >> 3
				if t := (w>>8 - tnt64Min) & lt.check[c]; s > laneMax || t != 0 {
					cold = 3
					break
				}
				*(*Item)(unsafe.Add(ip, 3*laneCap*itemSize)) = Item{raw: w, meta: lt.meta[c] | uint64(p3)}
				p3 += int(s)
			}
		}
		if cold < 0 {
			// Run a few more steps if a lane has not yet reached the next
			// one's start: cheaper than extending it in converge.
			i := int((uintptr(ip) - uintptr(base)) / itemSize)
			pos := [batchLanes]int{p0, p1, p2, p3}
			more := false
			for j := range batchLanes - 1 {
				more = more || r.stop[j] == laneCap && r.stop[j+1] == laneCap && pos[j] < starts[j+1]+laneAhead
			}
			if !more || i+laneMore > r.lim {
				break
			}
			end = unsafe.Add(base, (i+laneMore)*itemSize)
			continue
		}
		// Lane cold's packet the slow way, the later lanes' of the same
		// step one at a time, then back to the loop.
		i := int((uintptr(ip) - uintptr(base)) / itemSize)
		pos := [batchLanes]int{p0, p1, p2, p3}
		pos[cold] = r.slow(cold, i, pos[cold])
		for j := cold + 1; j < batchLanes; j++ {
			pos[j] = r.step(j, i, pos[j])
		}
		p0, p1, p2, p3 = pos[0], pos[1], pos[2], pos[3]
		end = unsafe.Add(base, min(r.lim, int((uintptr(end)-uintptr(base))/itemSize))*itemSize)
		ip = unsafe.Add(ip, itemSize)
	}
	steps := int((uintptr(ip) - uintptr(base)) / itemSize)
	for j := range batchLanes {
		r.cnt[j] = min(r.stop[j], steps)
	}
	// Aim lane j+1 where lane j ends after laneSteps packets: the least
	// distance a lane covered in this round (the density of packets varies
	// along a trace); a lane that falls short runs laneMore more steps.
	cover := 0
	for j := range batchLanes {
		if r.cnt[j] >= laneSteps && r.first[j] == 0 {
			if c := items[j*laneCap+laneSteps-1].Offset() - starts[j]; cover == 0 || c < cover {
				cover = c
			}
		}
	}
	if cover > 0 {
		d.stride = cover * strideNum / 16
	}
	n := r.stitch()
	if n == 0 {
		return 0
	}
	last := items[n-1]
	d.cur, d.pos = last.Offset(), last.Offset()+last.Size()
	d.pkt = last.Packet()
	if psb := r.lastPSB; psb >= 0 {
		d.sync = psb
	}
	return n
}

// slow decodes for lane j, at step i, the packet at pos that the lane step
// does not, and returns the lane's next offset. Lane 0 stops at a bad
// packet or a BBP (which starts a block of items the lane cannot tell from
// TNT): its items end before the packet, for Next to decode; a stopped
// lane goes on at the round's start, harmlessly, until the loop ends.
// Another lane has most likely started inside a packet: it drops its items
// and tries at the next byte. (If the packet is real, the lanes before,
// which stop at it, never meet the items after it.)
func (r *laneRound) slow(j, i, pos int) int {
	for pos <= r.safe {
		if it, ok := r.one(pos); ok {
			r.items[j*laneCap+i] = it
			if it.Kind() == KindPSB {
				r.notePSB(j, i)
			}
			next := pos + it.Size()
			r.lim = max(min(r.lim, i+1+(r.safe-next)/laneMax), i+1)
			return next
		}
		if j == 0 {
			break
		}
		r.first[j] = i
		pos++
	}
	r.stop[j] = i
	if j == 0 {
		r.lim = i + 1
	}
	return r.start
}

// step is the lane step for lane j at step i outside the loop.
func (r *laneRound) step(j, i, pos int) int {
	if it, ok := r.fast(pos); ok {
		r.items[j*laneCap+i] = it
		return pos + it.Size()
	}
	return r.slow(j, i, pos)
}

// fast decodes the packet at pos as the lane step does; false if the lane
// step leaves it to slow.
func (r *laneRound) fast(pos int) (Item, bool) {
	if pos > r.safe {
		return Item{}, false
	}
	lt := &laneTab
	w := le64(r.buf[pos : pos+8])
	c := uint8(w)
	s := (uint64(bits.TrailingZeros64(^w&cycStops|1<<63))&lt.cyc[c] + lt.size8[c]) >> 3
	if t := (w>>8 - tnt64Min) & lt.check[c]; s > laneMax || t != 0 {
		return Item{}, false
	}
	return Item{raw: w, meta: lt.meta[c] | uint64(pos)}, true
}

// notePSB records that item i of lane j is a PSB.
func (r *laneRound) notePSB(j, i int) {
	if r.psbLo[j] < 0 {
		r.psbLo[j] = i
	}
	r.psbHi[j] = i
}

// one decodes the packet at pos (< len(buf)) the general way, as Next does
// outside a block; false for an error, a BBP, or a BEP without block items.
func (r *laneRound) one(pos int) (Item, bool) {
	var p Packet
	if decode(&p, r.buf[pos:]) != nil || p.Kind == KindBBP || r.noBIPs && p.Kind == KindBEP {
		return Item{}, false
	}
	return makeItem(r.buf, pos, &p), true
}

// stitch joins the lanes' chains into the packets Next would return from
// the round's start, moved down to items[:n], and returns n.
func (r *laneRound) stitch() int {
	r.lastPSB = -1
	n := 0
	a := 0 // lane j's items from a on are true packets
	for j := 0; ; j++ {
		b, k, ok := len(r.items), 0, false
		if j+1 < batchLanes {
			b, k, ok = r.converge(j, a)
		}
		if !ok {
			b = r.cnt[j]
		}
		lane := r.items[j*laneCap : (j+1)*laneCap]
		if lo, hi := r.psbLo[j], r.psbHi[j]; hi >= a && lo < b {
			for x := min(hi, b-1); x >= max(lo, a); x-- {
				if lane[x].Kind() == KindPSB {
					r.lastPSB = lane[x].Offset()
					break
				}
			}
		}
		n += copy(r.items[n:], lane[a:b])
		if !ok {
			return n
		}
		a = k
	}
}

// converge finds where lane j, true from item a on, meets lane j+1: the
// index b in lane j and k in lane j+1 of the first offset both decoded,
// extending lane j as needed. ok is false when they do not meet; lane j
// then has r.cnt[j] items, all true from a on.
func (r *laneRound) converge(j, a int) (b, k int, ok bool) {
	A := r.items[j*laneCap : (j+1)*laneCap]
	B := r.items[(j+1)*laneCap : (j+2)*laneCap]
	k, kn := r.first[j+1], r.cnt[j+1]
	if k >= kn || a >= r.cnt[j] {
		return 0, 0, false
	}
	i := r.cnt[j]
	for b0 := B[k].Offset(); i > a && A[i-1].Offset() >= b0; i-- {
	}
	for {
		if i == r.cnt[j] && !r.extend(j) {
			return 0, 0, false
		}
		switch ao, bo := A[i].Offset(), B[k].Offset(); {
		case ao == bo:
			return i, k, true
		case ao < bo:
			i++
		default:
			if k++; k == kn {
				return 0, 0, false
			}
		}
	}
}

// extend decodes one more packet at the end of lane j (which has items),
// as the lane step would; false if it cannot.
func (r *laneRound) extend(j int) bool {
	c := r.cnt[j]
	if c >= laneCap || r.stop[j] < laneCap {
		return false
	}
	last := r.items[j*laneCap+c-1]
	pos := last.Offset() + last.Size()
	if pos >= len(r.buf) {
		return false
	}
	it, ok := r.fast(pos)
	if !ok {
		it, ok = r.one(pos)
	}
	if !ok {
		r.stop[j] = c
		return false
	}
	r.items[j*laneCap+c] = it
	if it.Kind() == KindPSB {
		r.notePSB(j, c)
	}
	r.cnt[j]++
	return true
}
