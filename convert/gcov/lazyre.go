package gcov

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled at its first use. The
// package's source-line patterns compiled at program start cost every
// perfpt command (a sixth of the startup's instructions) though only gcov
// uses them.
type lazyRegexp struct {
	pat  string
	once sync.Once
	re   *regexp.Regexp
}

// newLazyRegexp returns the pattern pat, compiled (and checked, as
// regexp.MustCompile does) when it is first used.
func newLazyRegexp(pat string) *lazyRegexp { return &lazyRegexp{pat: pat} }

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.pat) })
	return l.re
}

// MatchString is regexp.Regexp.MatchString.
func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (l *lazyRegexp) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (l *lazyRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
