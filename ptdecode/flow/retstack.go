package flow

import "github.com/perfpt/perfpt/ptdecode/query"

// retstackSize is how many return addresses the call stack for return
// compression holds, as in libipt (the hardware keeps fewer).
const retstackSize = 64

// retstack is the call stack for return compression: pushing onto a full
// stack drops the oldest entry, as libipt's pt_retstack does. It is a ring
// of retstackSize entries (a power of two: no bounds checks, no
// wrap-around branches) with the number of entries in use.
type retstack struct {
	stack [retstackSize]uint64
	top   uint8 // the next free entry is stack[top%retstackSize]
	n     uint8 // entries in use
}

func (r *retstack) init() { r.top, r.n = 0, 0 }

func (r *retstack) push(ip uint64) {
	r.stack[r.top%retstackSize] = ip
	r.top++
	if r.n < retstackSize {
		r.n++
	}
}

func (r *retstack) pop() (uint64, query.Code) {
	if r.n == 0 {
		return 0, query.CodeRetstackEmpty
	}
	r.n--
	r.top--
	return r.stack[r.top%retstackSize], 0
}
