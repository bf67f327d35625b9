package picker

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/termsafe"
	"github.com/tether-dev/tether/internal/testkit/testutil"
)

// Every quoting must give the shell back the exact bytes, and no raw
// control character may appear in the printed line.
func TestQuotersRoundTrip(t *testing.T) {
	words := []string{"plain", "", "it's", `back\\slash\`, "new\nline", "esc\x1b[31m", "tab\there $HOME `x` *", "=cmd", "del\x7f",
		// C1 controls, bidi overrides and bytes that are not UTF-8 drive
		// terminals too (issue 13 item 8).
		"c1\u009bbyte", "raw\x9b", "rlo\u202eevil", "bad\xffutf8"}
	home := t.TempDir()
	for _, sh := range []string{"bash", "zsh", "fish", "sh"} {
		bin, err := exec.LookPath(sh)
		if err != nil {
			t.Logf("%s not installed", sh)
			continue
		}
		q := QuoterFor(sh)
		for _, w := range words {
			quoted := q(w)
			if !termsafe.Safe(strings.NewReplacer("\n", "", "\t", "").Replace(quoted)) {
				t.Errorf("%s: %q quoted with a raw control character: %q", sh, w, quoted)
			}
			if sh == "sh" && strings.HasPrefix(quoted, "$'") {
				continue // older sh (dash) lacks $'…'
			}
			cmd := exec.Command(bin, "-c", "printf '%s' "+quoted)
			// fish creates its config and data dirs under XDG_*.
			cmd.Env = testutil.IsolatedEnv(home)
			out, err := cmd.Output()
			if err != nil || string(out) != w {
				t.Errorf("%s: %q quoted as %s reads back as %q (%v)", sh, w, quoted, out, err)
			}
		}
	}
}
