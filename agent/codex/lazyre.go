package codex

import (
	"regexp"
	"sync"
)

// lazyRE is a regular expression compiled on first use. A plain value,
// not a package-level sync.OnceValue: the closure such a call builds at
// package init keeps regexp reachable in every binary linking this
// package (tether-hot), and with it the Unicode tables' initialisers;
// get is linked only where it is called.
type lazyRE struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}
