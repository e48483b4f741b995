package session

// aggInnerWalk is walkGo in assembly (edge_amd64.s), where the compiler's
// version spilled its state to memory at every block.
//
//go:noescape
func aggInnerWalk(s *aggInner)

// aggInnerAsm says aggInnerWalk is assembly, which the tests compare with
// walkGo.
const aggInnerAsm = true
