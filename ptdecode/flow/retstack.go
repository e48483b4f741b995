package flow

import "github.com/perfpt/perfpt/ptdecode/query"

// retstackSize is how many return addresses the call stack for return
// compression holds, as in libipt (the hardware keeps fewer).
const retstackSize = 64

// retstack is a ring of return addresses; pushing onto a full stack drops
// the oldest entry (libipt's pt_retstack).
type retstack struct {
	stack       [retstackSize + 1]uint64
	top, bottom uint8
}

func (r *retstack) init() { r.top, r.bottom = 0, 0 }

func (r *retstack) push(ip uint64) {
	r.stack[r.top] = ip
	if r.top == retstackSize {
		r.top = 0
	} else {
		r.top++
	}
	if r.bottom == r.top {
		if r.bottom == retstackSize {
			r.bottom = 0
		} else {
			r.bottom++
		}
	}
}

func (r *retstack) pop() (uint64, query.Code) {
	if r.top == r.bottom {
		return 0, query.CodeRetstackEmpty
	}
	if r.top == 0 {
		r.top = retstackSize
	} else {
		r.top--
	}
	return r.stack[r.top], 0
}
