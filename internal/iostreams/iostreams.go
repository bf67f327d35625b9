// Package iostreams carries a command's standard streams and what is known
// about them, so commands can be run in tests without a terminal.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// IOStreams are the streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	StdinTTY  bool
	StdoutTTY bool
	StderrTTY bool

	// NoColor is set when NO_COLOR is set (any value) or TERM is "dumb".
	NoColor bool
}

// System returns the process's own streams.
func System() *IOStreams {
	return &IOStreams{
		In:        os.Stdin,
		Out:       os.Stdout,
		ErrOut:    os.Stderr,
		StdinTTY:  isTerminal(os.Stdin),
		StdoutTTY: isTerminal(os.Stdout),
		StderrTTY: isTerminal(os.Stderr),
		NoColor:   noColor(os.LookupEnv),
	}
}

// Test returns streams backed by buffers: nothing is a terminal.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, NoColor: true}, in, out, errOut
}

// ColorOut reports whether colour may be written to Out.
func (s *IOStreams) ColorOut() bool { return s.StdoutTTY && !s.NoColor }

// ColorErr reports whether colour may be written to ErrOut.
func (s *IOStreams) ColorErr() bool { return s.StderrTTY && !s.NoColor }

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

func noColor(lookup func(string) (string, bool)) bool {
	if _, ok := lookup("NO_COLOR"); ok {
		return true
	}
	term, _ := lookup("TERM")
	return term == "dumb"
}
