package shellinit

// Zsh is zsh 5.3 or newer.
type Zsh struct{}

func (Zsh) Name() string          { return "zsh" }
func (Zsh) Quote(s string) string { return posixQuote(s) }
func (Zsh) RCFile() string        { return "~/.zshrc" }
func (Zsh) file() string          { return "zsh.zsh" }
func (Zsh) EvalLine(flags string) string {
	return `eval "$(tether init zsh` + flags + `)"`
}
