package shellinit

import (
	"fmt"
	"strings"
)

// BindKey turns a portable key name — ctrl-X or alt-X, X a letter (alt
// also a digit) — into sh's own notation, quoted for sh: bash's readline
// "\C-g" / "\eg", zsh's bindkey ^G / ^[g, fish's \cg / \eg.
func BindKey(sh Shell, key string) (string, error) {
	k := strings.ToLower(strings.ReplaceAll(key, "+", "-"))
	mod, c, ok := strings.Cut(k, "-")
	bad := fmt.Errorf("--bind: %q is not a key tether can bind (use ctrl-LETTER or alt-LETTER, e.g. ctrl-g)", key)
	if !ok || len(c) != 1 {
		return "", bad
	}
	letter := c[0] >= 'a' && c[0] <= 'z'
	digit := c[0] >= '0' && c[0] <= '9'
	switch {
	case mod == "ctrl" && letter:
		switch sh.Name() {
		case "bash":
			return `"\C-` + c + `"`, nil
		case "zsh":
			return sh.Quote("^" + strings.ToUpper(c)), nil
		default:
			return `\c` + c, nil
		}
	case mod == "alt" && (letter || digit):
		switch sh.Name() {
		case "bash":
			return `"\e` + c + `"`, nil
		case "zsh":
			return sh.Quote("^[" + c), nil
		default:
			return `\e` + c, nil
		}
	}
	return "", bad
}
