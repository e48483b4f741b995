//go:build !amd64

package session

// aggInnerWalk is walkGo: the assembly is amd64's.
func aggInnerWalk(s *aggInner) { s.walkGo() }

// aggInnerAsm is false: the assembly is amd64's.
const aggInnerAsm = false
