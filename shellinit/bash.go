package shellinit

// Bash is GNU bash 4.4 or newer.
type Bash struct{}

func (Bash) Name() string          { return "bash" }
func (Bash) Quote(s string) string { return posixQuote(s) }
func (Bash) RCFile() string        { return "~/.bashrc" }
func (Bash) file() string          { return "bash.sh" }
func (Bash) EvalLine(flags string) string {
	return `eval "$(tether init bash` + flags + `)"`
}
