package picker

import "github.com/tether-dev/tether/internal/shquote"

// Quoter quotes one word for a shell.
type Quoter func(string) string

// QuoterFor returns the quoting of shell: fish's for "fish", else POSIX
// (bash, zsh, sh: $'…' is POSIX since 2024). Words holding a control
// character, a bidi mark or a byte that is not UTF-8 are spelled with
// escapes ($'\x1b' in bash and zsh, \x1b in fish), so the printed line
// never carries a raw control to the terminal, and the shell still gets
// the exact bytes.
func QuoterFor(shell string) Quoter {
	if shell == "fish" {
		return shquote.FishPrintable
	}
	return shquote.Printable
}
